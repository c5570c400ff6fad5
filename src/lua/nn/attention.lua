-- attention.lua — the books' attention classes, ready-made as nn modules (fields of nn):
--   Build a Large Language Model (From Scratch), ch. 3: SelfAttention_v1, SelfAttention_v2, CausalAttention,
--     MultiHeadAttentionWrapper, MultiHeadAttention;
--   Python Deep Learning ch. 7 (the annotated transformer): MultiHeadedAttention: four Linear layers, mask == 0 -> -1e9;
--   d2l: DotProductAttention and MLPAttention, with valid lengths masked with -1e6.
-- Each keeps its Python original's constructor arguments (keywords become a trailing options table),
-- field names, parameter registration order and initialisation, so after the same torch.manual_seed
-- it computes the book's numbers.
-- Every forward computes attention with nn/attend.lua: by its stages, exactly PyTorch's numbers, or, when
-- the user sets use_fused = true, the fused pass; each class tells attention.trace its stages
-- (trace_stages, with attention/stages.lua).
-- Module attn.nn.attention: returns the classes, which nn/init.lua puts into nn.

local torch = require("attn.bind").torch
local Module = require("attn.nn.module").Module
local Parameter = require("attn.nn.module").Parameter
local layers = require("attn.nn.layers")
local Linear, Dropout, ModuleList = layers.Linear, layers.Dropout, layers.ModuleList
local stages = require("attn.attention.stages") -- what attention.trace shows of each class
local A = require("attn.attention") -- the stage operations (not the global, which a user may replace)
local classes = {}

local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local fail = errors.raisef
local dims, describe = check.shape, check.describe
local attend = require("attn.nn.attend") -- the two paths every forward takes, and its checks
local check_input, check_qkv, valid_len_hidden = attend.check_input, attend.check_qkv, attend.valid_len_hidden
local merge_heads = attend.merge_heads

-- ---- ch. 3 of Build a Large Language Model (From Scratch) -------------------------------------------

local CH3_USAGE = "%s(d_in, d_out, context_length, dropout%s [, {qkv_bias = false}])"

local SelfAttention_v1 = Module:extend("SelfAttention_v1")

function SelfAttention_v1:__init(...)
    local a = check.args("SelfAttention_v1", "nn.SelfAttention_v1(d_in, d_out)", {"d_in", "d_out"}, {}, ...)
    local d_in = check.size("SelfAttention_v1", "d_in", a.d_in)
    local d_out = check.size("SelfAttention_v1", "d_out", a.d_out)
    self.W_query = Parameter(torch.rand(d_in, d_out))
    self.W_key = Parameter(torch.rand(d_in, d_out))
    self.W_value = Parameter(torch.rand(d_in, d_out))
end

function SelfAttention_v1:forward(x)
    check_input("SelfAttention_v1", x, self.W_query.shape[1], 2)
    local keys = x:matmul(self.W_key)
    local queries = x:matmul(self.W_query)
    local values = x:matmul(self.W_value)
    return attend.attend(self, queries, keys, values, {})
end

-- What attention.trace{module = m, x = ...} steps through: projections, scores, (masked,) scaled,
-- weights, (dropout,) context.
function SelfAttention_v1:trace_stages(tr)
    return stages.single_head(tr, self)
end

classes.SelfAttention_v1 = SelfAttention_v1

-- The three projections of SelfAttention_v2, CausalAttention and MultiHeadAttention.
local function qkv_layers(self, d_in, d_out, qkv_bias)
    self.W_query = Linear(d_in, d_out, {bias = qkv_bias})
    self.W_key = Linear(d_in, d_out, {bias = qkv_bias})
    self.W_value = Linear(d_in, d_out, {bias = qkv_bias})
end

local SelfAttention_v2 = Module:extend("SelfAttention_v2")

function SelfAttention_v2:__init(...)
    local a = check.args("SelfAttention_v2", "nn.SelfAttention_v2(d_in, d_out [, {qkv_bias = false}])",
                   {"d_in", "d_out", "qkv_bias"}, {qkv_bias = false}, ...)
    qkv_layers(self, check.size("SelfAttention_v2", "d_in", a.d_in),
               check.size("SelfAttention_v2", "d_out", a.d_out),
               check.boolean("SelfAttention_v2", "qkv_bias", a.qkv_bias))
end

function SelfAttention_v2:forward(x)
    check_input("SelfAttention_v2", x, self.W_query.in_features, 2)
    local keys = self.W_key(x)
    local queries = self.W_query(x)
    local values = self.W_value(x)
    return attend.attend(self, queries, keys, values, {})
end

-- What attention.trace{module = m, x = ...} steps through: projections, scores, (masked,) scaled,
-- weights, (dropout,) context.
function SelfAttention_v2:trace_stages(tr)
    return stages.single_head(tr, self)
end

classes.SelfAttention_v2 = SelfAttention_v2

-- Binds and checks ch. 3's (d_in, d_out, context_length, dropout [, num_heads] [, qkv_bias]).
local function ch3_args(class, with_heads, ...)
    local names = {"d_in", "d_out", "context_length", "dropout"}
    if with_heads then names[#names + 1] = "num_heads" end
    names[#names + 1] = "qkv_bias"
    local a = check.args(class, CH3_USAGE:format("nn." .. class, with_heads and ", num_heads" or ""), names,
                   {qkv_bias = false}, ...)
    for _, name in ipairs({"d_in", "d_out", "context_length", with_heads and "num_heads" or nil}) do
        a[name] = check.size(class, name, a[name])
    end
    a.dropout = check.probability(class, "dropout", a.dropout)
    a.qkv_bias = check.boolean(class, "qkv_bias", a.qkv_bias)
    return a
end

local function causal_buffer(context_length)
    return torch.triu(torch.ones(context_length, context_length), 1)
end

local CausalAttention = Module:extend("CausalAttention")

function CausalAttention:__init(...)
    local a = ch3_args("CausalAttention", false, ...)
    self.d_out = a.d_out
    qkv_layers(self, a.d_in, a.d_out, a.qkv_bias)
    self.dropout = Dropout(a.dropout)
    self:register_buffer("mask", causal_buffer(a.context_length))
end

function CausalAttention:forward(x)
    check_input("CausalAttention", x, self.W_query.in_features, 3, self.mask.shape[1])
    local keys = self.W_key(x)
    local queries = self.W_query(x)
    local values = self.W_value(x)
    return attend.attend(self, queries, keys, values, {causal = self.mask, fill = -math.huge, dropout = self.dropout})
end

-- What attention.trace{module = m, x = ...} steps through: projections, scores, (masked,) scaled,
-- weights, (dropout,) context.
function CausalAttention:trace_stages(tr)
    return stages.single_head(tr, self)
end

classes.CausalAttention = CausalAttention

local MultiHeadAttentionWrapper = Module:extend("MultiHeadAttentionWrapper")

function MultiHeadAttentionWrapper:__init(...)
    local a = ch3_args("MultiHeadAttentionWrapper", true, ...)
    local heads = {}
    for i = 1, a.num_heads do
        heads[i] = CausalAttention(a.d_in, a.d_out, a.context_length, a.dropout, a.qkv_bias)
    end
    self.heads = ModuleList(heads)
end

function MultiHeadAttentionWrapper:forward(x)
    local head = self.heads[1]
    check_input("MultiHeadAttentionWrapper", x, head.W_query.in_features, 3, head.mask.shape[1])
    local outs = {}
    for i, h in ipairs(self.heads) do
        outs[i] = h(x)
    end
    return torch.cat(outs, -1)
end

-- attention.trace: each head's stages side by side, then the concatenation.
function MultiHeadAttentionWrapper:trace_stages(tr)
    return stages.wrapper(tr, self)
end

classes.MultiHeadAttentionWrapper = MultiHeadAttentionWrapper

local MultiHeadAttention = Module:extend("MultiHeadAttention")

function MultiHeadAttention:__init(...)
    local a = ch3_args("MultiHeadAttention", true, ...)
    if a.d_out % a.num_heads ~= 0 then
        fail("MultiHeadAttention: d_out (%d) must be divisible by num_heads (%d)", a.d_out, a.num_heads)
    end
    self.d_out = a.d_out
    self.num_heads = a.num_heads
    self.head_dim = a.d_out // a.num_heads
    qkv_layers(self, a.d_in, a.d_out, a.qkv_bias)
    self.out_proj = Linear(a.d_out, a.d_out)
    self.dropout = Dropout(a.dropout)
    self:register_buffer("mask", causal_buffer(a.context_length))
end

-- forward(x [, {use_cache = true}]): with the cache (the bonus chapter ch04/03_kv-cache), the keys and
-- values of x are added to those of the earlier calls (self.cache_k, self.cache_v) and x's tokens
-- attend over all of them, as the positions self.ptr_current_pos + 1, ...: a prompt once, then one
-- token at a time. reset_cache() empties it.
function MultiHeadAttention:forward(x, opts)
    local use_cache = attend.use_cache("MultiHeadAttention", opts)
    local ctx = self.mask.shape[1]
    check_input("MultiHeadAttention", x, self.W_query.in_features, 3, use_cache and nil or ctx)
    if use_cache then attend.check_room("MultiHeadAttention", self, x.shape[2], ctx) end
    -- [b, n, d_out] -> [b, num_heads, n, head_dim]: the book's view + transpose
    local keys = A.split_heads(self.W_key(x), self.num_heads)
    local queries = A.split_heads(self.W_query(x), self.num_heads)
    local values = A.split_heads(self.W_value(x), self.num_heads)
    local context = attend.attend(self, queries, keys, values, {causal = self.mask, fill = -math.huge,
                                                         dropout = self.dropout, cache = use_cache and self or nil})
    return self.out_proj(merge_heads(context)) -- [b, n, d_out]
end

--- m:reset_cache() forgets the cached keys and values: the next forward with use_cache starts at position 1.
function MultiHeadAttention:reset_cache()
    rawset(self, "cache_k", nil)
    rawset(self, "cache_v", nil)
    rawset(self, "ptr_current_pos", 0)
end

-- attention.trace: projections, split heads, per-head masked and scaled scores, weights, context,
-- merge, out_proj.
function MultiHeadAttention:trace_stages(tr)
    return stages.multi_head(tr, self, stages.ch3_spec(self))
end

classes.MultiHeadAttention = MultiHeadAttention

-- ---- Python Deep Learning ch. 7, the annotated transformer ------------------------------------------

local MultiHeadedAttention = Module:extend("MultiHeadedAttention")

function MultiHeadedAttention:__init(...)
    local usage = "nn.MultiHeadedAttention(h, d_model [, dropout = 0.1])"
    local a = check.args("MultiHeadedAttention", usage, {"h", "d_model", "dropout"}, {dropout = 0.1}, ...)
    local h = check.size("MultiHeadedAttention", "h", a.h)
    local d_model = check.size("MultiHeadedAttention", "d_model", a.d_model)
    local p = check.probability("MultiHeadedAttention", "dropout", a.dropout)
    if d_model % h ~= 0 then
        fail("MultiHeadedAttention: d_model (%d) must be divisible by h (%d)", d_model, h)
    end
    self.d_k = d_model // h
    self.h = h
    -- clones(Linear(d_model, d_model), 4) deep-copies ONE layer: four equal layers, one draw of the
    -- generator. Drawing the same numbers four times from one saved state gives exactly that.
    local state, layers = torch.get_rng_state(), {}
    for i = 1, 4 do
        torch.set_rng_state(state)
        layers[i] = Linear(d_model, d_model)
    end
    self.fc_layers = ModuleList(layers)
    self.attn = nil -- the weights of the last forward (staged path)
    self.dropout = Dropout(p)
end

-- mask: nil, or a tensor [b or 1, n or 1, m] in which 0 (false) hides a key from a query.
function MultiHeadedAttention:forward(query, key, value, mask)
    local d_model = self.h * self.d_k
    local b, n, m = check_qkv("MultiHeadedAttention", query, key, value, d_model, d_model)
    if value.shape[3] ~= d_model then
        fail("MultiHeadedAttention: values' last dim must be %d, got shape %s", d_model, dims(value))
    end
    local hidden
    if mask ~= nil then
        if not torch.is_tensor(mask) or mask.ndim ~= 3 or (mask.shape[1] ~= b and mask.shape[1] ~= 1)
           or (mask.shape[2] ~= n and mask.shape[2] ~= 1) or mask.shape[3] ~= m then
            fail("MultiHeadedAttention: mask must have shape [%d or 1, %d or 1, %d] (batch, "
                 .. "queries, keys), got %s", b, n, m, describe(mask))
        end
        hidden = mask:unsqueeze(2):eq(0) -- the same mask for all h heads
    end
    local projections = {}
    for i, x in ipairs({query, key, value}) do
        projections[i] = A.split_heads(self.fc_layers[i](x), self.h) -- Python: view(b, -1, h, d_k).transpose(1, 2)
    end
    local context = attend.attend(self, projections[1], projections[2], projections[3],
                           {hidden = hidden, fill = -1e9, dropout = self.dropout})
    rawset(self, "attn", rawget(self, "last_weights"))
    return self.fc_layers[4](merge_heads(context))
end

-- attention.trace: as MultiHeadAttention's, scaled before masked, with the mask given to the trace
-- (trace option mask, as forward's).
function MultiHeadedAttention:trace_stages(tr)
    return stages.multi_head(tr, self, stages.annotated_spec(tr, self, self.fc_layers, "fc_layers")), {mask = true}
end

classes.MultiHeadedAttention = MultiHeadedAttention

-- ---- d2l -------------------------------------------------------------------------------------

local DotProductAttention = Module:extend("DotProductAttention")

function DotProductAttention:__init(...)
    local a = check.args("DotProductAttention", "nn.DotProductAttention(dropout)", {"dropout"}, {}, ...)
    self.dropout = Dropout(check.probability("DotProductAttention", "dropout", a.dropout))
end

-- queries [b, n, d], keys [b, m, d], values [b, m, dv]; valid_lens nil, [b] or [b, n].
function DotProductAttention:forward(queries, keys, values, valid_lens)
    local b, n, m = check_qkv("DotProductAttention", queries, keys, values)
    local hidden = valid_lens ~= nil and valid_len_hidden("DotProductAttention", valid_lens, b, n, m) or nil
    return attend.attend(self, queries, keys, values, {hidden = hidden, fill = -1e6, dropout = self.dropout})
end

classes.DotProductAttention = DotProductAttention

local MLPAttention = Module:extend("MLPAttention")

function MLPAttention:__init(...)
    local a = check.args("MLPAttention", "nn.MLPAttention(key_size, query_size, units, dropout)",
                   {"key_size", "query_size", "units", "dropout"}, {}, ...)
    local key_size = check.size("MLPAttention", "key_size", a.key_size)
    local query_size = check.size("MLPAttention", "query_size", a.query_size)
    local units = check.size("MLPAttention", "units", a.units)
    self.W_k = Linear(key_size, units, {bias = false})
    self.W_q = Linear(query_size, units, {bias = false})
    self.v = Linear(units, 1, {bias = false})
    self.dropout = Dropout(check.probability("MLPAttention", "dropout", a.dropout))
end

-- Additive scores vᵀ tanh(W_q q_i + W_k k_j), [b, n, m] (attention.additive: the projections meet by
-- broadcasting, [b, n, 1, units] + [b, 1, m, units]); no scaling. d2l's 2020 PyTorch code applied W_k to
-- the queries and W_q to the keys (possible only when key_size = query_size) and left out the tanh;
-- this follows its formula, as d2l's later AdditiveAttention does. The toy's output is the same.
function MLPAttention:forward(queries, keys, values, valid_lens)
    local b, n, m = check_qkv("MLPAttention", queries, keys, values, self.W_q.in_features, self.W_k.in_features)
    local hidden = valid_lens ~= nil and valid_len_hidden("MLPAttention", valid_lens, b, n, m) or nil
    local scores = A.additive(queries, keys, self.W_q.weight, self.W_k.weight, self.v.weight)
    return attend.attend(self, nil, keys, values, {scores = scores, hidden = hidden, fill = -1e6, dropout = self.dropout})
end

classes.MLPAttention = MLPAttention

return classes
