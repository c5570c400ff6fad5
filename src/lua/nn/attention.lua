-- attention_nn.lua — the books' attention classes, ready-made as nn modules (fields of nn):
--   Build a Large Language Model (From Scratch), ch. 3: SelfAttention_v1, SelfAttention_v2, CausalAttention,
--     MultiHeadAttentionWrapper, MultiHeadAttention;
--   Python Deep Learning ch. 7 (the annotated transformer): MultiHeadedAttention: four Linear layers, mask == 0 -> -1e9;
--   d2l: DotProductAttention and MLPAttention, with valid lengths masked with -1e6.
-- Each keeps its Python original's constructor arguments (keywords become a trailing options table),
-- field names, parameter registration order and initialisation, so after the same torch.manual_seed
-- it computes the book's numbers.
--
-- Every forward computes attention in attend(), which takes one of two paths:
--   staged  scores, scale, mask, softmax, dropout, weighted sum, one operation each; the weights stay
--           in m.last_weights (and in m.attn for the annotated transformer, whose field it is);
--   fused   attention.fused(q, k, v, {causal = ...}): one pass that never holds the score matrix,
--           taken whenever it computes the same thing: no dropout (eval mode or p = 0), the causal
--           mask or none, plain dot-product scores, and m.use_fused not set to false.
-- Module attn.nn.attention: returns the classes, which nn/init.lua puts into nn.

local torch = require("attn.bind").torch
local Module = require("attn.nn.module").Module
local Parameter = require("attn.nn.module").Parameter
local layers = require("attn.nn.layers")
local Linear, Dropout, ModuleList = layers.Linear, layers.Dropout, layers.ModuleList
local classes = {}

-- The stage operations: the table attention (module attn.attention), not the global `attention`,
-- which a user may replace.
local A = require("attn.attention")

-- ---- arguments and checks ---------------------------------------------------------------------------
-- Errors carry the position of the user's line, as Lua's own errors do (attn.errors).
local errors = require("attn.errors")
local check = require("attn.check")
local fail = errors.raisef
local dims, describe = check.shape, check.describe

-- A tensor's sizes as a Lua list.
local function sizes(t)
    local out = {}
    for i = 1, t.ndim do out[i] = t.shape[i] end
    return out
end

-- x of shape [batch, num_tokens, d_in] (ranks = 3), or also [num_tokens, d_in] (ranks = 2).
local function check_input(class, x, d_in, ranks, context_length)
    local want = ranks == 3 and string.format("[batch, num_tokens, %d]", d_in)
                 or string.format("[num_tokens, %d] or [batch, num_tokens, %d]", d_in, d_in)
    if not torch.is_tensor(x) then
        fail("%s: x must be a tensor of shape %s, got %s", class, want, describe(x))
    end
    if x.ndim ~= 3 and not (ranks == 2 and x.ndim == 2) then
        local hint = (ranks == 3 and x.ndim == 2) and "; for one text add the batch dim: x:unsqueeze(1)" or ""
        fail("%s: x must have shape %s, got %s%s", class, want, dims(x), hint)
    end
    if x.shape[-1] ~= d_in then
        fail("%s: x's last dim must be d_in = %d, got shape %s", class, d_in, dims(x))
    end
    if context_length and x.shape[-2] > context_length then
        fail("%s: x has %d tokens but context_length is %d (shape %s)", class, x.shape[-2],
             context_length, dims(x))
    end
    return table.unpack(sizes(x))
end

-- queries [b, n, dq], keys [b, m, dk], values [b, m, dv] (d2l and Python Deep Learning).
local function check_qkv(class, q, k, v, dq, dk)
    for _, arg in ipairs({{"queries", q}, {"keys", k}, {"values", v}}) do
        local t = arg[2]
        if not torch.is_tensor(t) or t.ndim ~= 3 then
            fail("%s: %s must be a 3-D tensor [batch, count, dim], got %s", class, arg[1], describe(t))
        end
    end
    local b, n, m = q.shape[1], q.shape[2], k.shape[2]
    if k.shape[1] ~= b or v.shape[1] ~= b or v.shape[2] ~= m then
        fail("%s: queries %s, keys %s and values %s must share the batch dim, and keys and values "
             .. "the count", class, dims(q), dims(k), dims(v))
    end
    if dq and q.shape[3] ~= dq then
        fail("%s: queries' last dim must be %d, got shape %s", class, dq, dims(q))
    end
    if dk and k.shape[3] ~= dk then
        fail("%s: keys' last dim must be %d, got shape %s", class, dk, dims(k))
    end
    if not dq and not dk and q.shape[3] ~= k.shape[3] then
        fail("%s: queries %s and keys %s must have the same last dim", class, dims(q), dims(k))
    end
    return b, n, m
end

-- d2l's valid lengths as a hidden mask: key position j of batch element i (or of query (i, r)) is
-- hidden when j > valid_lens[i] (or [i][r]). lens: a table or tensor, [b] or [b, n].
local function valid_len_hidden(class, lens, b, n, m)
    if type(lens) == "table" and getmetatable(lens) == nil then
        local ok, t = pcall(torch.tensor, lens)
        if not ok then
            fail("%s: valid_lens must be a list of numbers or a tensor: %s", class, errors.message(t))
        end
        lens = t
    end
    if not torch.is_tensor(lens) then
        fail("%s: valid_lens must be a tensor or a list of lengths, got %s", class, describe(lens))
    end
    if lens.dtype == torch.bool then
        fail("%s: valid_lens must hold lengths (numbers), got a bool tensor", class)
    end
    if lens.ndim < 1 or lens.ndim > 2 or lens.shape[1] ~= b or (lens.ndim == 2 and lens.shape[2] ~= n) then
        fail("%s: valid_lens must have shape [%d] (one per batch) or [%d, %d] (one per query), "
             .. "got %s", class, b, b, n, dims(lens))
    end
    for _, len in ipairs(lens:reshape(-1):tolist()) do
        if len ~= math.floor(len) or len < 0 then
            fail("%s: valid lengths must be whole numbers >= 0, got %s", class, describe(len))
        elseif len > m then
            fail("%s: valid length %s is longer than the sequence of %d keys", class, describe(len), m)
        end
    end
    return A.valid_len_mask(m, lens) -- [b, 1, m] or [b, n, m]
end

-- ---- the two paths ----------------------------------------------------------------------------------

-- True when the hidden positions of the [n, m] score matrix are exactly the causal ones, in every batch
-- element: then the fused causal path computes the same weights (each row keeps its diagonal, so a
-- finite fill such as -1e9 gives the same zeros as -inf).
local function is_causal(hidden, n, m)
    if n ~= m or hidden.shape[-1] ~= m or (hidden.ndim >= 2 and hidden.shape[-2] ~= n) then
        return false
    end
    local causal = torch.triu(torch.ones(n, n), 1):bool()
    return torch.equal(hidden, causal:expand(hidden.shape))
end

-- The attention of q [..., n, d] over k [..., m, d], v [..., m, dv] -> [..., n, dv]. spec:
--   hidden   bool mask broadcastable to the scores [..., n, m], true = hidden; or
--   causal   a causal-mask buffer (ch. 3's self.mask, 1 = hidden), cut to [n, m] when needed; the
--            fused path takes it to be the triu mask it was made as (a user who edits m.mask sets
--            m.use_fused = false)
--   fill     the value of hidden scores: -inf (ch. 3), -1e9 (annotated transformer), -1e6 (d2l)
--   scores   scores computed elsewhere (MLPAttention's additive ones): not scaled, never fused
--   dropout  the module's nn.Dropout, applied to the weights
local function attend(self, q, k, v, spec)
    local drop = spec.dropout
    local dropping = drop ~= nil and drop.training and drop.p > 0
    local n, m = (q or spec.scores).shape[-2], k.shape[-2]
    local hides = spec.hidden ~= nil and spec.hidden:sum():item() > 0 -- a padding mask may hide nothing
    local causal = spec.causal ~= nil or (hides and is_causal(spec.hidden, n, m))
    if self.use_fused ~= false and A.fused and not dropping and not spec.scores and (causal or not hides) then
        rawset(self, "last_weights", nil) -- none on this path; stale ones would mislead
        return A.fused(q, k, v, {causal = causal})
    end
    -- 1. scores ω = q·kᵀ, 2. scaled by √d
    local s = spec.scores
    if not s then
        s = A.scale(A.scores(q, k), q.shape[-1])
    end
    -- 3. hidden scores get `fill`, so that 4. softmax gives them weight 0
    local hidden = spec.hidden
    if spec.causal and n > 0 and m > 0 then
        hidden = spec.causal[{{1, n}, {1, m}}]:bool() -- the module's buffer, as the book slices it
    end
    if hidden then
        s = A.mask(s, hidden, spec.fill)
    end
    local w = A.softmax(s, -1)
    -- 5. dropout (training mode only; draws as nn.Dropout does), 6. the weighted sum of the values
    if drop and drop.training then
        w = A.dropout(w, drop.p)
    end
    rawset(self, "last_weights", w)
    return A.weighted_sum(w, v)
end

-- ---- ch. 3 of Build a Large Language Model (From Scratch) -------------------------------------------

local CH3_USAGE = "%s(d_in, d_out, context_length, dropout%s [, {qkv_bias = false}])"

local SelfAttention_v1 = Module:extend("SelfAttention_v1")
SelfAttention_v1.use_fused = true

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
    return attend(self, queries, keys, values, {})
end

classes.SelfAttention_v1 = SelfAttention_v1

-- The three projections of SelfAttention_v2, CausalAttention and MultiHeadAttention.
local function qkv_layers(self, d_in, d_out, qkv_bias)
    self.W_query = Linear(d_in, d_out, {bias = qkv_bias})
    self.W_key = Linear(d_in, d_out, {bias = qkv_bias})
    self.W_value = Linear(d_in, d_out, {bias = qkv_bias})
end

local SelfAttention_v2 = Module:extend("SelfAttention_v2")
SelfAttention_v2.use_fused = true

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
    return attend(self, queries, keys, values, {})
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
CausalAttention.use_fused = true

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
    return attend(self, queries, keys, values, {causal = self.mask, fill = -math.huge, dropout = self.dropout})
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

classes.MultiHeadAttentionWrapper = MultiHeadAttentionWrapper

-- [b, h, n, dh] -> [b, n, h * dh]. The fused path already lays its result out as [b, n, h, dh] in
-- memory (a transposed view): then the book's transpose + view copies nothing.
local function merge_heads(context)
    local t = context:transpose(2, 3)
    if t:is_contiguous() then
        return t:view(t.shape[1], t.shape[2], t.shape[3] * t.shape[4])
    end
    return A.merge_heads(context)
end

local MultiHeadAttention = Module:extend("MultiHeadAttention")
MultiHeadAttention.use_fused = true

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

function MultiHeadAttention:forward(x)
    check_input("MultiHeadAttention", x, self.W_query.in_features, 3, self.mask.shape[1])
    -- [b, n, d_out] -> [b, num_heads, n, head_dim]: the book's view + transpose
    local keys = A.split_heads(self.W_key(x), self.num_heads)
    local queries = A.split_heads(self.W_query(x), self.num_heads)
    local values = A.split_heads(self.W_value(x), self.num_heads)
    local context = attend(self, queries, keys, values, {causal = self.mask, fill = -math.huge,
                                                         dropout = self.dropout})
    return self.out_proj(merge_heads(context)) -- [b, n, d_out]
end

classes.MultiHeadAttention = MultiHeadAttention

-- ---- Python Deep Learning ch. 7, the annotated transformer ------------------------------------------

local MultiHeadedAttention = Module:extend("MultiHeadedAttention")
MultiHeadedAttention.use_fused = true

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
    local context = attend(self, projections[1], projections[2], projections[3],
                           {hidden = hidden, fill = -1e9, dropout = self.dropout})
    rawset(self, "attn", rawget(self, "last_weights"))
    return self.fc_layers[4](merge_heads(context))
end

classes.MultiHeadedAttention = MultiHeadedAttention

-- ---- d2l -------------------------------------------------------------------------------------

local DotProductAttention = Module:extend("DotProductAttention")
DotProductAttention.use_fused = true

function DotProductAttention:__init(...)
    local a = check.args("DotProductAttention", "nn.DotProductAttention(dropout)", {"dropout"}, {}, ...)
    self.dropout = Dropout(check.probability("DotProductAttention", "dropout", a.dropout))
end

-- queries [b, n, d], keys [b, m, d], values [b, m, dv]; valid_lens nil, [b] or [b, n].
function DotProductAttention:forward(queries, keys, values, valid_lens)
    local b, n, m = check_qkv("DotProductAttention", queries, keys, values)
    local hidden = valid_lens ~= nil and valid_len_hidden("DotProductAttention", valid_lens, b, n, m) or nil
    return attend(self, queries, keys, values, {hidden = hidden, fill = -1e6, dropout = self.dropout})
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
    return attend(self, nil, keys, values, {scores = scores, hidden = hidden, fill = -1e6, dropout = self.dropout})
end

classes.MLPAttention = MLPAttention

return classes
