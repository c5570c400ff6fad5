-- model.lua — what Qwen3 and Llama 3 share (module attn.llm.model), written as Sebastian Raschka's
-- from-scratch notebooks write them (rasbt/LLMs-from-scratch: ch05/11_qwen3/standalone-qwen3.ipynb,
-- ch05/07_gpt_to_llama/standalone-llama32.ipynb): RMSNorm, the SwiGLU FeedForward, GroupedQueryAttention
-- (RoPE in split halves, key/value heads shared by groups of query heads, Qwen3's RMSNorm on each query
-- and key head), TransformerBlock (pre-norm, two shortcuts) and the model around them (token embedding,
-- blocks, final norm, output head; no learned positions: RoPE rotates queries and keys instead).
-- The attention itself is attention/pipeline.lua's stages (through nn/attend.lua), as every attention
-- class's: this file only projects, splits the heads and normalizes them.
-- A flavour table says where the two notebooks differ:
--   qwen3   true: queries created first, an explicit head_dim, q_norm/k_norm, RMSNorm's parameter `scale`
--           (the Qwen3 notebook's own RMSNorm); false: keys and values first (the Llama notebook's order),
--           head_dim = emb_dim / n_heads, RMSNorm's parameter `weight` (PyTorch's nn.RMSNorm)
--   eps     RMSNorm's epsilon (1e-6 Qwen3, 1e-5 Llama 3)
--   name    the class's name, in messages
-- Constructed in the notebooks' order, so after the same torch.manual_seed the weights are theirs.
local torch = require("attn.bind").torch
local F = require("attn.bind").functional
local errors = require("attn.errors")
local check = require("attn.check")
local trf = require("attn.i18n").trf
local nn_module = require("attn.nn.module")
local layers = require("attn.nn.layers")
local Embedding = require("attn.nn.transformer").Embedding
local attend = require("attn.nn.attend")
local A = require("attn.attention")
local ids = require("attn.gpt.ids")
local inspect = require("attn.llm.inspect")
local Module, Parameter = nn_module.Module, nn_module.Parameter
local ModuleList = layers.ModuleList

local llm = {}

-- ---- the models' Linear ----------------------------------------------------------------------------

-- nn.Linear (same parameters, same printing, bias-free here), except on a single row (a decode step
-- with the KV cache, or a one-token input): y = W·x, PyTorch's mv (sgemv), instead of x·Wᵀ (an sgemm with
-- one column). OpenBLAS 0.3.21's sgemm packs (copies) the whole weight on every call, so one row through
-- Qwen3-0.6B's 622 MB output head took 3 to 5 times as long as reading the weight once, which is what
-- sgemv does; a decode step is mostly that reading. The sums are the same products added in another
-- order: the logits of a step differ from the sgemm's by float32 roundings (the KV cache's test holds
-- the steps to the whole sequence's logits within 1e-5), while every input of more than one row takes
-- nn.Linear's path, PyTorch's bits.
local Linear = layers.Linear:extend("Linear")

function Linear:forward(x)
    if torch.is_tensor(x) and x.ndim >= 1 and x.shape[-1] == self.in_features and x:numel() == self.in_features
       and not self.bias then
        local shape = {}
        for i = 1, x.ndim - 1 do shape[i] = 1 end
        shape[x.ndim] = self.out_features
        return self.weight:matmul(x:reshape(self.in_features)):view(shape)
    end
    return layers.Linear.forward(self, x)
end
llm.Linear = Linear

local function fail(fn, msg) errors.raise(fn .. ": " .. msg) end -- msg: trf(...), so xgettext finds it

-- ---- the configuration -------------------------------------------------------------------------

local KEYS = {"vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "hidden_dim", "n_kv_groups",
              "rope_base"}

-- Checks cfg (the notebooks' keys) for a model of this flavour and returns a copy with head_dim filled in.
function llm.check_config(fn, cfg, flavour)
    if type(cfg) ~= "table" or torch.is_tensor(cfg) then
        fail(fn, trf("expected a configuration table such as %s, got %s", flavour.example, check.describe(cfg)))
    end
    local out = {}
    for _, k in ipairs(KEYS) do
        if cfg[k] == nil then fail(fn, trf("the configuration has no %s (it needs %s)", k, table.concat(KEYS, ", "))) end
        out[k] = cfg[k]
    end
    for _, k in ipairs({"vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "hidden_dim", "n_kv_groups"}) do
        check.size(fn, "cfg." .. k, cfg[k])
    end
    if type(cfg.rope_base) ~= "number" or not (cfg.rope_base > 1) then
        fail(fn, trf("cfg.rope_base must be a number > 1, got %s", check.describe(cfg.rope_base)))
    end
    if cfg.n_heads % cfg.n_kv_groups ~= 0 then
        fail(fn, trf("cfg.n_heads (%d) must be divisible by cfg.n_kv_groups (%d)", cfg.n_heads, cfg.n_kv_groups))
    end
    if flavour.qwen3 then
        out.head_dim = cfg.head_dim ~= nil and check.size(fn, "cfg.head_dim", cfg.head_dim) or nil
        out.qk_norm = cfg.qk_norm ~= nil and check.boolean(fn, "cfg.qk_norm", cfg.qk_norm) or false
    elseif cfg.emb_dim % cfg.n_heads ~= 0 then
        fail(fn, trf("cfg.emb_dim (%d) must be divisible by cfg.n_heads (%d)", cfg.emb_dim, cfg.n_heads))
    end
    if not out.head_dim then
        if cfg.emb_dim % cfg.n_heads ~= 0 then
            fail(fn, trf("cfg.emb_dim (%d) must be divisible by cfg.n_heads (%d) when cfg.head_dim is not set", cfg.emb_dim,
                 cfg.n_heads))
        end
        out.head_dim = cfg.emb_dim // cfg.n_heads
    end
    if out.head_dim % 2 ~= 0 then fail(fn, trf("RoPE rotates pairs of dims: head_dim must be even, got %d", out.head_dim)) end
    if cfg.rope_freq ~= nil then
        local f = cfg.rope_freq
        if type(f) ~= "table" then fail(fn, trf("cfg.rope_freq must be a table, got %s", check.describe(f))) end
        for _, k in ipairs({"factor", "low_freq_factor", "high_freq_factor", "original_context_length"}) do
            if type(f[k]) ~= "number" or not (f[k] > 0) then
                fail(fn, trf("cfg.rope_freq.%s must be a number > 0, got %s", k, check.describe(f[k])))
            end
        end
        if f.high_freq_factor <= f.low_freq_factor then
            fail(fn, trf("cfg.rope_freq.high_freq_factor must be larger than low_freq_factor"))
        end
        out.rope_freq = {factor = f.factor, low_freq_factor = f.low_freq_factor, high_freq_factor = f.high_freq_factor,
                         original_context_length = f.original_context_length}
    end
    return out
end

-- ---- RMSNorm, FeedForward ------------------------------------------------------------------------

local RMSNorm = Module:extend("RMSNorm")

--- RMSNorm(emb_dim [, {eps = 1e-6, name = "scale"}]): x / √(mean(x²) + eps) · scale, no shift.
function RMSNorm:__init(emb_dim, opts)
    opts = opts or {}
    self.eps = opts.eps or 1e-6
    self.param_name = opts.name or "scale"
    self[self.param_name] = Parameter(torch.ones(check.size("RMSNorm", "emb_dim", emb_dim)))
end

function RMSNorm:forward(x)
    check.tensor("RMSNorm", "input", x)
    local w = self[self.param_name]
    if x.ndim == 0 or x.shape[-1] ~= w.shape[1] then
        fail("RMSNorm", trf("expected an input whose last dim is %d, got shape %s", w.shape[1], check.shape(x)))
    end
    local variance = x:pow(2):mean{dim = -1, keepdim = true}
    -- x · rsqrt(v + eps), as the notebooks write it: PyTorch's rsqrt is 1 / sqrt, rounded twice
    local norm_x = x * (1 / torch.sqrt(variance + self.eps))
    return norm_x * w
end
llm.RMSNorm = RMSNorm

local FeedForward = Module:extend("FeedForward")

--- FeedForward(cfg): SwiGLU, fc3(silu(fc1(x)) · fc2(x)), no biases.
function FeedForward:__init(cfg)
    self.fc1 = Linear(cfg.emb_dim, cfg.hidden_dim, {bias = false})
    self.fc2 = Linear(cfg.emb_dim, cfg.hidden_dim, {bias = false})
    self.fc3 = Linear(cfg.hidden_dim, cfg.emb_dim, {bias = false})
end

function FeedForward:forward(x)
    return self.fc3(F.silu(self.fc1(x)) * self.fc2(x))
end
llm.FeedForward = FeedForward

-- ---- GroupedQueryAttention -----------------------------------------------------------------------

local GroupedQueryAttention = Module:extend("GroupedQueryAttention")

-- GroupedQueryAttention(cfg, flavour): the notebooks' class (nn.GroupedQueryAttention is the bonus
-- chapter's, with dropout, biases and a sliding window; this one is the models': none of those, an
-- explicit head_dim and Qwen3's QK-norm).
function GroupedQueryAttention:__init(cfg, flavour)
    local d_in, h, g, hd = cfg.emb_dim, cfg.n_heads, cfg.n_kv_groups, cfg.head_dim
    self.num_heads, self.num_kv_groups, self.group_size, self.head_dim = h, g, h // g, hd
    self.d_out = h * hd
    if flavour.qwen3 then
        self.W_query = Linear(d_in, self.d_out, {bias = false})
        self.W_key = Linear(d_in, g * hd, {bias = false})
        self.W_value = Linear(d_in, g * hd, {bias = false})
        self.out_proj = Linear(self.d_out, d_in, {bias = false})
        if cfg.qk_norm then
            self.q_norm = RMSNorm(hd, {eps = 1e-6})
            self.k_norm = RMSNorm(hd, {eps = 1e-6})
        end
    else
        self.W_key = Linear(d_in, g * hd, {bias = false})
        self.W_value = Linear(d_in, g * hd, {bias = false})
        self.W_query = Linear(d_in, self.d_out, {bias = false})
        self.out_proj = Linear(self.d_out, self.d_out, {bias = false})
    end
    self.rope = {theta_base = cfg.rope_base, freq_config = cfg.rope_freq}
    self.ptr_current_pos = 0
end

-- The spec of this attention (attention/pipeline.lua): RoPE, the cache, shared key/value heads, the
-- causal mask from the positions, -inf.
function GroupedQueryAttention:attention_spec(use_cache)
    return {rope = self.rope, cache = use_cache and self or nil, kv_repeat = self.group_size, positions = true,
            fill = -math.huge}
end

-- The heads of x [b, n, d_in]: queries [b, h, n, hd], keys and values [b, g, n, hd], QK-normed.
function GroupedQueryAttention:heads(x)
    local q = A.split_heads(self.W_query(x), self.num_heads)
    local k = A.split_heads(self.W_key(x), self.num_kv_groups)
    local v = A.split_heads(self.W_value(x), self.num_kv_groups)
    if self.q_norm then q, k = self.q_norm(q), self.k_norm(k) end
    return q, k, v
end

function GroupedQueryAttention:forward(x, opts)
    local use_cache = attend.use_cache("GroupedQueryAttention", opts)
    if not use_cache and rawget(self, "cache_k") ~= nil then self:reset_cache() end
    local q, k, v = self:heads(x)
    local context = attend.attend(self, q, k, v, self:attention_spec(use_cache))
    return self.out_proj(attend.merge_heads(context))
end

function GroupedQueryAttention:reset_cache()
    rawset(self, "cache_k", nil)
    rawset(self, "cache_v", nil)
    rawset(self, "ptr_current_pos", 0)
end
llm.GroupedQueryAttention = GroupedQueryAttention

-- ---- TransformerBlock and the model ------------------------------------------------------------

local TransformerBlock = Module:extend("TransformerBlock")

function TransformerBlock:__init(cfg, flavour)
    self.att = GroupedQueryAttention(cfg, flavour)
    self.ff = FeedForward(cfg)
    self.norm1 = RMSNorm(cfg.emb_dim, {eps = flavour.eps, name = flavour.norm_name})
    self.norm2 = RMSNorm(cfg.emb_dim, {eps = flavour.eps, name = flavour.norm_name})
end

function TransformerBlock:forward(x, opts)
    local shortcut = x
    x = self.att(self.norm1(x), opts)
    x = x + shortcut -- add the original input back
    shortcut = x
    x = self.ff(self.norm2(x))
    return x + shortcut
end
llm.TransformerBlock = TransformerBlock

-- llm.model_class(flavour) -> the model class: flavour.name (Qwen3Model, Llama3Model).
function llm.model_class(flavour)
    local Model = Module:extend(flavour.name)

    function Model:__init(cfg)
        cfg = llm.check_config(flavour.name, cfg, flavour)
        self.cfg = cfg
        self.tok_emb = Embedding(cfg.vocab_size, cfg.emb_dim)
        local blocks = {}
        for i = 1, cfg.n_layers do blocks[i] = TransformerBlock(cfg, flavour) end
        self.trf_blocks = ModuleList(blocks)
        self.final_norm = RMSNorm(cfg.emb_dim, {eps = flavour.eps, name = flavour.norm_name})
        self.out_head = Linear(cfg.emb_dim, cfg.vocab_size, {bias = false})
    end

    -- forward(in_idx [, {use_cache = true}]): token ids [batch, n] (attn's ids, 1-based) -> logits
    -- [batch, n, vocab_size]. With the cache, the tokens come after those of the earlier cached calls
    -- (RoPE's positions continue); model:reset_kv_cache() starts again.
    function Model:forward(in_idx, opts)
        local fn = flavour.name
        local use_cache = attend.use_cache(fn, opts)
        in_idx = ids.check(fn, self, in_idx)
        local n = in_idx.shape[2]
        local first = use_cache and (rawget(self, "current_pos") or 0) or 0
        if first + n > self.cfg.context_length then
            fail(fn, trf("the cache holds %d tokens; %d more exceed the context length of %d (model:reset_kv_cache() "
                 .. "empties it)", first, n, self.cfg.context_length))
        end
        if in_idx:max():item() > self.cfg.vocab_size or in_idx:min():item() < 1 then
            fail(fn, trf("token ids must be from 1 to vocab_size = %d", self.cfg.vocab_size))
        end
        local x = self.tok_emb(in_idx)
        if use_cache then rawset(self, "current_pos", first + n) end
        for _, block in ipairs(self.trf_blocks) do x = block(x, opts) end
        x = self.final_norm(x)
        return self.out_head(x)
    end

    --- model:reset_kv_cache(): every block's attention forgets its cache.
    function Model:reset_kv_cache()
        for _, block in ipairs(self.trf_blocks) do block.att:reset_cache() end
        rawset(self, "current_pos", 0)
    end

    -- attention.trace{module = model, layer =, head =, text = or ids =} and attention.overview{module = model, ...}
    function Model:trace_stages(tr) return inspect.trace_stages(self, tr) end
    function Model:attention_maps(args) return inspect.attention_maps(self, args) end

    return Model
end

return llm
