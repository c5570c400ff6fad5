-- attention_variants.lua — the attention classes of the bonus chapters of "Build a Large Language Model
-- (From Scratch)" (Sebastian Raschka's repository rasbt/LLMs-from-scratch), as fields of nn:
--   GroupedQueryAttention   ch04/04_gqa (and the Llama 3 notebook of ch05/07_gpt_to_llama): num_kv_groups
--                           key/value heads, each shared by num_heads / num_kv_groups query heads
--                           (1: multi-query attention, num_heads: multi-head attention); a KV cache;
--                           optional sliding window (ch04/06_swa), RoPE (ch05/07) and ALiBi
--   MultiHeadLatentAttention  ch04/05_mla (DeepSeek's MLA): each token projected down to a latent of
--                           latent_dim numbers, which is all the cache keeps; the keys and values of every
--                           head projected up from the latents at each step
-- Constructor arguments, field names and creation order are the chapters' (GQA: W_key, W_value, W_query,
-- out_proj; MLA: W_query, W_DKV, W_UK, W_UV, out_proj), so after the same torch.manual_seed the weights
-- are theirs. The forward is
-- attention/pipeline.lua's stages, through nn/attend.lua, as every attention class's.
-- Module attn.nn.attention_variants: returns the classes, which nn/init.lua puts into nn.
local Module = require("attn.nn.module").Module
local layers = require("attn.nn.layers")
local Linear, Dropout = layers.Linear, layers.Dropout
local errors = require("attn.errors")
local check = require("attn.check")
local attend = require("attn.nn.attend")
local pipeline = require("attn.attention.pipeline")
local stages = require("attn.attention.stages") -- the parameters of a trace's stages
local A = require("attn.attention")
local variants = require("attn.attention.variants")
local classes = {}

local GroupedQueryAttention = Module:extend("GroupedQueryAttention")

local GQA_USAGE = "nn.GroupedQueryAttention(d_in, d_out, dropout, num_heads, num_kv_groups [, {qkv_bias = false, " ..
                  "sliding_window = nil, rope = false, theta_base = 10000, alibi = false}])"

function GroupedQueryAttention:__init(...)
    local fn = "GroupedQueryAttention"
    local a = check.args(fn, GQA_USAGE, {"d_in", "d_out", "dropout", "num_heads", "num_kv_groups", "qkv_bias",
                                         "sliding_window", "rope", "theta_base", "alibi"},
                         {qkv_bias = false, rope = false, alibi = false, theta_base = 10000, sliding_window = false}, ...)
    local d_in, d_out = check.size(fn, "d_in", a.d_in), check.size(fn, "d_out", a.d_out)
    local h, g = check.size(fn, "num_heads", a.num_heads), check.size(fn, "num_kv_groups", a.num_kv_groups)
    if d_out % h ~= 0 then errors.raisef("%s: d_out (%d) must be divisible by num_heads (%d)", fn, d_out, h) end
    if h % g ~= 0 then errors.raisef("%s: num_heads (%d) must be divisible by num_kv_groups (%d)", fn, h, g) end
    local qkv_bias = check.boolean(fn, "qkv_bias", a.qkv_bias)
    self.d_out, self.num_heads, self.head_dim = d_out, h, d_out // h
    if a.rope and self.head_dim % 2 ~= 0 then
        errors.raisef("%s: RoPE rotates pairs of dims: head_dim = d_out / num_heads = %d must be even", fn, self.head_dim)
    end
    -- the chapter's order: keys and values first, then queries, then the output
    self.W_key = Linear(d_in, g * self.head_dim, {bias = qkv_bias})
    self.W_value = Linear(d_in, g * self.head_dim, {bias = qkv_bias})
    self.num_kv_groups = g
    self.group_size = h // g
    self.W_query = Linear(d_in, d_out, {bias = qkv_bias})
    self.out_proj = Linear(d_out, d_out, {bias = false})
    self.dropout = Dropout(check.probability(fn, "dropout", a.dropout))
    self.sliding_window = a.sliding_window and check.size(fn, "sliding_window", a.sliding_window) or nil
    self.rope = check.boolean(fn, "rope", a.rope) and {theta_base = a.theta_base} or nil
    self.alibi = check.boolean(fn, "alibi", a.alibi) or nil
    self.ptr_current_pos = 0
end

-- The spec of m's attention (attention/pipeline.lua), for forward and for attention.trace.
local function attention_spec(self, use_cache)
    return {rope = self.rope, cache = use_cache and self or nil, window = self.sliding_window,
            kv_repeat = self.group_size, alibi = self.alibi, positions = true, fill = -math.huge,
            dropout = self.dropout}
end

-- forward(x [, {use_cache = true}]): x [b, n, d_in] -> [b, n, d_out].
function GroupedQueryAttention:forward(x, opts)
    local use_cache = attend.use_cache("GroupedQueryAttention", opts)
    attend.check_input("GroupedQueryAttention", x, self.W_query.in_features, 3)
    if not use_cache and self.cache_k ~= nil then self:reset_cache() end -- as the chapter's forward does
    local queries = A.split_heads(self.W_query(x), self.num_heads)
    local keys = A.split_heads(self.W_key(x), self.num_kv_groups)
    local values = A.split_heads(self.W_value(x), self.num_kv_groups)
    local context = attend.attend(self, queries, keys, values, attention_spec(self, use_cache))
    return self.out_proj(attend.merge_heads(context))
end

--- m:reset_cache() forgets the cached keys and values.
function GroupedQueryAttention:reset_cache()
    rawset(self, "cache_k", nil)
    rawset(self, "cache_v", nil)
    rawset(self, "ptr_current_pos", 0)
end

-- The parameters each projection stage is computed with, named as named_parameters names them: the
-- backward tracer shows their gradients after the stage's (attention/stages.lua's with_params).
local function stage_params(self, names)
    local params = {}
    for key, layers in pairs(names) do
        params[key] = {}
        for _, name in ipairs(layers) do stages.params_of(self[name], name, params[key]) end
    end
    return params
end

-- attention.trace{module = m, x = x [, use_cache = true]}: projections, heads, (RoPE,) (the cache,)
-- the key/value heads shared, scores, masked, scaled, weights, context, merged, out_proj. Returns the
-- spec of attention/pipeline.lua, the parameters of its stages and the options it takes (a trace of m,
-- or of a Transformer block around it, builds its stages from these).
function GroupedQueryAttention:trace_spec(tr)
    local x = tr.x
    local lead = x:dim() == 3 and {"batch"} or nil
    local hlead = x:dim() == 3 and {"batch", "head"} or {"head"}
    local spec = attention_spec(self, tr.use_cache)
    spec.hidden = function(t, q, k)
        return variants.band_mask(q.shape[-2], k.shape[-2],
                   {q_start = t.q_start or 0, k_start = t.k_start or 0, window = self.sliding_window})
    end
    spec.positions, spec.mask_first = nil, not self.alibi
    spec.dropout = (self.training and self.dropout.p > 0) and self.dropout.p or nil
    spec.dropout_fn = A.dropout
    spec.project = function(i, _, xin)
        local layer = ({self.W_query, self.W_key, self.W_value})[i]
        return layer(xin)
    end
    spec.project_names, spec.project_how = {"W_query", "W_key", "W_value"}, "call"
    spec.heads, spec.kv_heads = self.num_heads, self.num_kv_groups
    spec.merge, spec.out, spec.out_name = "view", function(z) return self.out_proj(z) end, "out_proj"
    spec.lead, spec.d_k = {x = lead, head = hlead}, self.head_dim
    spec.fail = function(msg) errors.raisef("attention.trace: %s", msg) end
    return spec, stage_params(self, {queries = {"W_query"}, keys = {"W_key"}, values = {"W_value"},
                                     output = {"out_proj"}}), {use_cache = true}
end

function GroupedQueryAttention:trace_stages(tr) return stages.from_spec(self:trace_spec(tr)) end

classes.GroupedQueryAttention = GroupedQueryAttention

-- ---- multi-head latent attention (ch04/05_mla) -------------------------------------------------------

local MultiHeadLatentAttention = Module:extend("MultiHeadLatentAttention")

local MLA_USAGE = "nn.MultiHeadLatentAttention(d_in, d_out, dropout, num_heads [, {qkv_bias = false, " ..
                  "latent_dim = max(16, d_out // 8)}])"

function MultiHeadLatentAttention:__init(...)
    local fn = "MultiHeadLatentAttention"
    local a = check.args(fn, MLA_USAGE, {"d_in", "d_out", "dropout", "num_heads", "qkv_bias", "latent_dim"},
                         {qkv_bias = false, latent_dim = false}, ...)
    local d_in, d_out = check.size(fn, "d_in", a.d_in), check.size(fn, "d_out", a.d_out)
    local h = check.size(fn, "num_heads", a.num_heads)
    if d_out % h ~= 0 then errors.raisef("%s: d_out (%d) must be divisible by num_heads (%d)", fn, d_out, h) end
    local qkv_bias = check.boolean(fn, "qkv_bias", a.qkv_bias)
    self.d_out, self.num_heads, self.head_dim = d_out, h, d_out // h
    self.latent_dim = a.latent_dim and check.size(fn, "latent_dim", a.latent_dim) or math.max(16, d_out // 8)
    -- the chapter's order: queries, the down-projection to the latent, the two up-projections, the output
    self.W_query = Linear(d_in, d_out, {bias = qkv_bias})
    self.W_DKV = Linear(d_in, self.latent_dim, {bias = qkv_bias})
    self.W_UK = Linear(self.latent_dim, d_out, {bias = qkv_bias})
    self.W_UV = Linear(self.latent_dim, d_out, {bias = qkv_bias})
    self.out_proj = Linear(d_out, d_out) -- with a bias, as the chapter's nn.Linear(d_out, d_out)
    self.dropout = Dropout(check.probability(fn, "dropout", a.dropout))
    self.ptr_current_pos = 0
end

-- The latent stages of m's attention (attention/pipeline.lua's spec.latent), for forward and trace.
local function latent_spec(self, use_cache)
    return {latent = {dim = self.latent_dim, names = {"W_DKV", "W_UK", "W_UV"}, cache = use_cache and self or nil,
                      down = function(x) return self.W_DKV(x) end,
                      up = function(i, c) return (i == 1 and self.W_UK or self.W_UV)(c) end}}
end

-- forward(x [, {use_cache = true}]): x [b, n, d_in] -> [b, n, d_out]. With the cache, x's latents are
-- appended to m.cache_c_kv and the keys and values of all the tokens so far are projected up from it.
function MultiHeadLatentAttention:forward(x, opts)
    local fn = "MultiHeadLatentAttention"
    local use_cache = attend.use_cache(fn, opts)
    attend.check_input(fn, x, self.W_query.in_features, 3)
    -- the chapter's uncached forward sets ptr_current_pos to 0 and keeps its latents, which a later cached
    -- call would then attend over at the wrong positions; like GroupedQueryAttention, empty both
    if not use_cache and self.cache_c_kv ~= nil then self:reset_cache() end
    local t, at = pipeline.run(latent_spec(self, use_cache), {x = x}, "latent")
    local queries = A.split_heads(self.W_query(x), self.num_heads)
    local keys = A.split_heads(t[at.k], self.num_heads)
    local values = A.split_heads(t[at.v], self.num_heads)
    local context = attend.attend(self, queries, keys, values, {positions = true, fill = -math.huge,
                                                               dropout = self.dropout, q_start = t.q_start})
    return self.out_proj(attend.merge_heads(context))
end

--- m:reset_cache() forgets the cached latents.
function MultiHeadLatentAttention:reset_cache()
    rawset(self, "cache_c_kv", nil)
    rawset(self, "ptr_current_pos", 0)
end

-- attention.trace{module = m, x = x [, use_cache = true]}: the queries, the down-projection to the latent,
-- (the latent cache,) the up-projections, heads, scores, masked, scaled, weights, context, merged, out_proj:
-- the spec, the parameters of its stages and the options it takes, as GroupedQueryAttention's.
function MultiHeadLatentAttention:trace_spec(tr)
    local x = tr.x
    local lead = x:dim() == 3 and {"batch"} or nil
    local hlead = x:dim() == 3 and {"batch", "head"} or {"head"}
    local spec = latent_spec(self, tr.use_cache)
    spec.hidden = function(t, q, k)
        return variants.band_mask(q.shape[-2], k.shape[-2], {q_start = t.q_start or 0})
    end
    spec.mask_first, spec.fill = true, -math.huge
    spec.dropout = (self.training and self.dropout.p > 0) and self.dropout.p or nil
    spec.dropout_fn = A.dropout
    spec.project = function(_, _, xin) return self.W_query(xin) end -- the queries only: K and V come from the latent
    spec.project_names, spec.project_how = {"W_query"}, "call"
    spec.heads = self.num_heads
    spec.merge, spec.out, spec.out_name = "view", function(z) return self.out_proj(z) end, "out_proj"
    spec.lead, spec.d_k = {x = lead, head = hlead}, self.head_dim
    spec.fail = function(msg) errors.raisef("attention.trace: %s", msg) end
    return spec, stage_params(self, {queries = {"W_query"}, latent = {"W_DKV"}, up_k = {"W_UK", "W_UV"},
                                     output = {"out_proj"}}), {use_cache = true}
end

function MultiHeadLatentAttention:trace_stages(tr) return stages.from_spec(self:trace_spec(tr)) end

classes.MultiHeadLatentAttention = MultiHeadLatentAttention

return classes
