-- model.lua — chapter 4's GPT model (module attn.gpt.model), written as the book writes it: the
-- configuration table GPT_CONFIG_124M, LayerNorm (scale and shift, the biased variance), GELU (the
-- tanh approximation), FeedForward, TransformerBlock (pre-LayerNorm, shortcut connections) around
-- chapter 3's MultiHeadAttention (with cfg.latent_dim: the bonus chapter ch04/05_mla's
-- MultiHeadLatentAttention), and GPTModel. Constructed in the book's order, so after the same
-- torch.manual_seed every weight is PyTorch's, bit for bit.
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local check = require("attn.check")
local nn_module = require("attn.nn.module")
local layers = require("attn.nn.layers")
local Embedding = require("attn.nn.transformer").Embedding
local MultiHeadAttention = require("attn.nn.attention").MultiHeadAttention
local MultiHeadLatentAttention = require("attn.nn.attention_variants").MultiHeadLatentAttention
local ids = require("attn.gpt.ids")
local inspect = require("attn.gpt.inspect")
local block_stages = require("attn.attention.block_stages")
local attend = require("attn.nn.attend")
local Module, Parameter = nn_module.Module, nn_module.Parameter
local Linear, Dropout, Sequential = layers.Linear, layers.Dropout, layers.Sequential

local gpt = {}

-- Chapter 4's configuration of the smallest GPT-2 (124M parameters).
function gpt.config_124M()
    return {
        vocab_size = 50257,    -- vocabulary size (GPT-2's BPE tokenizer)
        context_length = 1024, -- the most tokens the model reads at once
        emb_dim = 768,         -- embedding dimension
        n_heads = 12,          -- attention heads
        n_layers = 12,         -- transformer blocks
        drop_rate = 0.1,       -- dropout rate
        qkv_bias = false,      -- query-key-value bias
    }
end
gpt.GPT_CONFIG_124M = gpt.config_124M()

local CFG_KEYS = {"vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "drop_rate", "qkv_bias"}

-- Checks a configuration table and returns it.
function gpt.check_config(fn, cfg)
    if type(cfg) ~= "table" or torch.is_tensor(cfg) then
        errors.raisef("%s: expected a configuration table such as gpt.GPT_CONFIG_124M, got %s", fn, check.describe(cfg))
    end
    for _, k in ipairs(CFG_KEYS) do
        if cfg[k] == nil then
            errors.raisef("%s: the configuration has no %s (it needs %s)", fn, k, table.concat(CFG_KEYS, ", "))
        end
    end
    for _, k in ipairs({"vocab_size", "context_length", "emb_dim", "n_heads", "n_layers"}) do
        check.size(fn, "cfg." .. k, cfg[k])
    end
    check.probability(fn, "cfg.drop_rate", cfg.drop_rate)
    check.boolean(fn, "cfg.qkv_bias", cfg.qkv_bias)
    if cfg.emb_dim % cfg.n_heads ~= 0 then
        errors.raisef("%s: cfg.emb_dim (%d) must be divisible by cfg.n_heads (%d)", fn, cfg.emb_dim, cfg.n_heads)
    end
    return cfg
end

-- ---- LayerNorm, GELU, FeedForward -----------------------------------------------------------------

local LayerNorm = Module:extend("LayerNorm")

function LayerNorm:__init(emb_dim)
    self.eps = 1e-5
    self.scale = Parameter(torch.ones(check.size("LayerNorm", "emb_dim", emb_dim)))
    self.shift = Parameter(torch.zeros(emb_dim))
end

function LayerNorm:forward(x)
    check.tensor("LayerNorm", "input", x)
    if x.ndim == 0 or x.shape[-1] ~= self.scale.shape[1] then
        errors.raisef("LayerNorm: expected an input whose last dim is %d, got shape %s", self.scale.shape[1],
                      check.shape(x))
    end
    local mean = x:mean{dim = -1, keepdim = true}
    local var = x:var{dim = -1, keepdim = true, unbiased = false}
    local norm_x = (x - mean) / torch.sqrt(var + self.eps)
    return self.scale * norm_x + self.shift
end
gpt.LayerNorm = LayerNorm

local GELU = Module:extend("GELU")

-- 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), the approximation GPT-2 was trained with.
function GELU:forward(x)
    check.tensor("GELU", "input", x)
    local c = torch.sqrt(torch.tensor(2.0 / math.pi))
    return 0.5 * x * (1 + torch.tanh(c * (x + 0.044715 * torch.pow(x, 3))))
end
gpt.GELU = GELU

local FeedForward = Module:extend("FeedForward")

function FeedForward:__init(cfg)
    cfg = gpt.check_config("FeedForward", cfg)
    self.layers = Sequential(Linear(cfg.emb_dim, 4 * cfg.emb_dim), GELU(), Linear(4 * cfg.emb_dim, cfg.emb_dim))
end

function FeedForward:forward(x)
    return self.layers(x)
end
gpt.FeedForward = FeedForward

-- ---- TransformerBlock and GPTModel --------------------------------------------------------------

local TransformerBlock = Module:extend("TransformerBlock")

function TransformerBlock:__init(cfg)
    cfg = gpt.check_config("TransformerBlock", cfg)
    if cfg.latent_dim ~= nil then -- the bonus chapter ch04/05_mla's GPT: multi-head latent attention in every block
        self.att = MultiHeadLatentAttention(cfg.emb_dim, cfg.emb_dim, cfg.drop_rate, cfg.n_heads,
                                            {qkv_bias = cfg.qkv_bias, latent_dim = cfg.latent_dim})
    else
        self.att = MultiHeadAttention{d_in = cfg.emb_dim, d_out = cfg.emb_dim, context_length = cfg.context_length,
                                      num_heads = cfg.n_heads, dropout = cfg.drop_rate, qkv_bias = cfg.qkv_bias}
    end
    self.ff = FeedForward(cfg)
    self.norm1 = LayerNorm(cfg.emb_dim)
    self.norm2 = LayerNorm(cfg.emb_dim)
    self.drop_shortcut = Dropout(cfg.drop_rate)
end

-- opts: nil, or {use_cache = true} (the bonus chapter's KV cache, passed on to the attention)
function TransformerBlock:forward(x, opts)
    -- Shortcut connection for the attention block
    local shortcut = x
    x = self.norm1(x)
    x = self.att(x, opts) -- shape [batch_size, num_tokens, emb_size]
    x = self.drop_shortcut(x)
    x = x + shortcut -- add the original input back
    -- Shortcut connection for the feed-forward block
    shortcut = x
    x = self.norm2(x)
    x = self.ff(x)
    x = self.drop_shortcut(x)
    x = x + shortcut
    return x
end

-- attention.trace{module = block, x = x [, tokens =, loss =]}: the input, norm1, the attention's stages,
-- the shortcut, norm2, the feed-forward network and the second shortcut (attention/block_stages.lua).
function TransformerBlock:trace_stages(tr)
    return block_stages(tr, self, {
        att = self.att, norms = {self.norm1, self.norm2}, norm_names = {"norm1", "norm2"},
        drops = {self.drop_shortcut, self.drop_shortcut}, drop_names = {"drop_shortcut", "drop_shortcut"},
        ff = self.ff, ff_formula = "ff(%s)   (Linear, GELU, Linear)", input = "X   (the block's input)"})
end
gpt.TransformerBlock = TransformerBlock

local GPTModel = Module:extend("GPTModel")

function GPTModel:__init(cfg)
    cfg = gpt.check_config("GPTModel", cfg)
    self.cfg = {}
    for _, k in ipairs(CFG_KEYS) do self.cfg[k] = cfg[k] end
    self.cfg.latent_dim = cfg.latent_dim -- optional: multi-head latent attention (TransformerBlock)
    self.tok_emb = Embedding(cfg.vocab_size, cfg.emb_dim)
    self.pos_emb = Embedding(cfg.context_length, cfg.emb_dim)
    self.drop_emb = Dropout(cfg.drop_rate)
    local blocks = {}
    for i = 1, cfg.n_layers do blocks[i] = TransformerBlock(cfg) end
    self.trf_blocks = Sequential(blocks)
    self.final_norm = LayerNorm(cfg.emb_dim)
    self.out_head = Linear(cfg.emb_dim, cfg.vocab_size, {bias = false})
end

gpt.check_ids = ids.check -- (generate.lua and the models' forward read it here)

-- forward(in_idx [, {use_cache = true}]): with the KV cache (the bonus chapter ch04/03_kv-cache), the
-- tokens of in_idx come after those of the earlier cached calls: their positions continue from
-- self.current_pos, and every block's attention reads the keys and values cached so far.
-- model:reset_kv_cache() starts again.
function GPTModel:forward(in_idx, opts)
    local use_cache = attend.use_cache("GPTModel", opts)
    in_idx = gpt.check_ids("GPTModel", self, in_idx)
    local seq_len = in_idx.shape[2]
    local first = use_cache and (rawget(self, "current_pos") or 0) or 0
    if first + seq_len > self.cfg.context_length then
        errors.raisef("GPTModel: the cache holds %d tokens; %d more exceed the context length of %d "
                      .. "(model:reset_kv_cache() empties it)", first, seq_len, self.cfg.context_length)
    end
    local tok_embeds = self.tok_emb(in_idx)
    -- positions first+1..first+n (PyTorch's first..first+n-1)
    local pos_embeds = self.pos_emb(torch.arange(first + 1, first + seq_len + 1))
    local x = tok_embeds + pos_embeds -- shape [batch_size, num_tokens, emb_size]
    x = self.drop_emb(x)
    if use_cache then
        rawset(self, "current_pos", first + seq_len)
        for _, block in ipairs(self.trf_blocks) do x = block(x, opts) end
    else
        x = self.trf_blocks(x)
    end
    x = self.final_norm(x)
    return self.out_head(x)
end

--- model:reset_kv_cache(): every block's attention forgets its cache; the next cached call is position 1.
function GPTModel:reset_kv_cache()
    for _, block in ipairs(self.trf_blocks) do block.att:reset_cache() end
    rawset(self, "current_pos", 0)
end
-- attention.trace{module = model, layer =, head =, text = or ids =} and attention.overview{module = model, ...}
function GPTModel:trace_stages(tr)
    return inspect.trace_stages(self, tr)
end

function GPTModel:attention_maps(args)
    return inspect.attention_maps(self, args)
end

gpt.GPTModel = GPTModel

return gpt
