-- stages.lua — the stages attention.trace steps through, and how they are put together (module
-- attn.attention.stages). A stage is a table:
--   {key = the tracer's field for its tensor ("scores"), name = shown name, formula = one line,
--    rows = "q" | nil, cols = "k" | nil (label rows/columns with tokens), heat = draw as a heatmap,
--    lead = names of the leading dims ({"batch", "head"}), note = a line under the header,
--    compute = function(tr) -> tensor}
--
-- The tracer's own kinds:          stages.plain(tr) (x alone), stages.qkv(tr) (q, k, v and options)
-- The shapes of the book's classes, for a class's trace_stages method (nn/attention.lua) and for a
-- class written the book's way, recognised by its fields (stages.by_fields):
--   stages.single_head(tr, m)       W_query, W_key, W_value (matrices or Linear layers), mask, dropout
--   stages.wrapper(tr, m)           heads: a list of single heads side by side
--   stages.multi_head(tr, m, spec)  one set of projections split into heads, merged, projected out
-- Each returns the list of stages, and a set of the trace options it takes beside module and x
-- ({mask = true}), or nil. The stages are built here; they compute when the tracer steps.
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local torch = require("attn.bind").torch
local attention = require("attn.bind").attention
local shape = require("attn.check").shape
local stages = {}

local function fail(msg)
    errors.raise("attention.trace: " .. msg)
end

-- ---- the common tail ---------------------------------------------------------------------------

local function scale_stage(tr, from, d_k)
    if tr.scale == nil or tr.scale == true then
        return {key = "scaled", name = "scaled", formula = "ω / √d_k   (d_k = " .. d_k .. ")", cols = "k",
                compute = function(t) return attention.scale(t[from], d_k) end}
    elseif type(tr.scale) == "number" then
        return {key = "scaled", name = "scaled", formula = "ω · " .. tr.scale, cols = "k",
                compute = function(t) return t[from] * t.scale end}
    end
end

local function mask_stage(tr, from, src, hidden_of)
    local fill = tr.fill or -math.huge
    return {key = "masked", name = "masked", cols = "k", formula = "ω.masked_fill(mask, " .. tostring(fill) .. ")",
            compute = function(t) return attention.mask(t[from], hidden_of(t, t[src.q], t[src.k]), fill) end}
end

-- Scores, (scaled, masked in the order given), weights, (dropout: tr.p_dropout, drawn by
-- tr.dropout_fn), context. src names the fields holding Q, K and V; d_k is the key dim (per head);
-- hidden_of(t, q, k) gives the mask (true = hidden) or is nil.
function stages.attention(tr, src, order, hidden_of, lead, d_k)
    local list = {{key = "scores", name = "scores", formula = "ω = Q·Kᵀ", cols = "k",
                   compute = function(t) return attention.scores(t[src.q], t[src.k]) end}}
    local last = "scores"
    for _, what in ipairs(order) do
        local st
        if what == "scale" then
            st = scale_stage(tr, last, d_k)
        elseif what == "mask" and hidden_of then
            st = mask_stage(tr, last, src, hidden_of)
        end
        if st then
            list[#list + 1] = st
            last = st.key
        end
    end
    local pre = last
    list[#list + 1] = {key = "weights", name = "weights", formula = "α = softmax(" .. (pre == "scores" and "ω" or
                       "ω'") .. ", dim=-1)", cols = "k", heat = true,
                       compute = function(t) return attention.softmax(t[pre], -1) end}
    local p = tr.p_dropout
    if p and p > 0 then
        list[#list + 1] = {key = "dropped", name = "dropout", formula = "α = dropout(α, p=" .. p .. ")   (training)",
                           cols = "k", heat = true,
                           compute = function(t) return tr.dropout_fn(t.weights, p) end}
    end
    local w = (p and p > 0) and "dropped" or "weights"
    list[#list + 1] = {key = "context", name = "context", formula = "Z = α·V",
                       compute = function(t) return attention.weighted_sum(t[w], t[src.v]) end}
    for _, st in ipairs(list) do
        st.rows = "q"
        st.lead = lead
    end
    return list
end

-- Splitting Q, K and V (the fields named by src) into h heads; the stage shows the queries.
function stages.split(h, lead, src)
    return {key = "split", name = "split heads", rows = "q", lead = lead,
            formula = "Q, K, V → [.., " .. h .. ", n, d/" .. h .. "]",
            note = "view + transpose, no copy; shown: the queries; keys and values are tr.split_k, tr.split_v",
            compute = function(t)
                t.split_k, t.split_v = attention.split_heads(t[src.k], h), attention.split_heads(t[src.v], h)
                return attention.split_heads(t[src.q], h)
            end}
end

local function append(list, more)
    for _, st in ipairs(more) do list[#list + 1] = st end
    return list
end

-- ---- the tracer's own kinds --------------------------------------------------------------------

-- attention.trace{x = inputs}: §3.3's attention without weights, Q = K = V = X.
function stages.plain(tr)
    local lead = tr.x:dim() == 3 and {"batch"} or nil
    return {
        {key = "scores", name = "scores", formula = "ω = X·Xᵀ", rows = "q", cols = "k", lead = lead,
         compute = function(t) return attention.scores(t.x, t.x) end},
        {key = "weights", name = "weights", formula = "α = softmax(ω, dim=-1)", rows = "q", cols = "k", heat = true,
         lead = lead, compute = function(t) return attention.softmax(t.scores, -1) end},
        {key = "context", name = "context", formula = "Z = α·X", rows = "q", lead = lead,
         compute = function(t) return attention.weighted_sum(t.weights, t.x) end},
    }
end

local function hidden_from_mask(tr)
    if tr.mask == nil then return nil end
    if tr.mask == "causal" then
        return function(_, q, k) return attention.causal_mask(q.shape[-2], k.shape[-2]) end
    end
    if not torch.is_tensor(tr.mask) then fail('mask must be a bool tensor (true = hidden) or "causal"') end
    return function(t) return t.mask end
end

local function check_qkv(tr)
    for _, name in ipairs({"q", "k", "v"}) do
        if not torch.is_tensor(tr[name]) then fail(name .. " must be a tensor, got " .. type(tr[name])) end
    end
    local q, k, v = tr.q, tr.k, tr.v
    if q.shape[-1] ~= k.shape[-1] then
        fail("q " .. shape(q) .. " and k " .. shape(k) .. " must have the same last dim d")
    end
    if k:dim() < 2 or v:dim() < 2 or k.shape[-2] ~= v.shape[-2] then
        fail("k " .. shape(k) .. " and v " .. shape(v) .. " must have one row per key")
    end
end

-- attention.trace{q =, k =, v =, ...}: the stages of attention.forward.
function stages.qkv(tr)
    check_qkv(tr)
    local q, k, v = tr.q, tr.k, tr.v
    tr.p_dropout = tr.dropout or 0
    tr.dropout_fn = attention.dropout
    local heads = tr.heads or 1
    if math.type(heads) ~= "integer" or heads < 1 then fail("heads must be a whole number >= 1") end
    local list, lead, src = {}, nil, {q = "q", k = "k", v = "v"}
    if heads > 1 then
        if q.shape[-1] % heads ~= 0 then
            fail("d = " .. q.shape[-1] .. " is not divisible by " .. heads .. " heads")
        end
        lead = {"head"}
        if q:dim() == 3 then lead = {"batch", "head"} end
        list[1] = stages.split(heads, lead, src)
        src = {q = "split", k = "split_k", v = "split_v"}
    elseif q:dim() == 3 then
        lead = {"batch"}
    end
    append(list, stages.attention(tr, src, {"scale", "mask"}, hidden_from_mask(tr), lead, k.shape[-1] // heads))
    if heads > 1 then
        list[#list + 1] = {key = "merged", name = "merge heads", formula = "Z → [..., n, d]",
                           rows = "q", lead = q:dim() == 3 and {"batch"} or nil,
                           compute = function(t) return attention.merge_heads(t.context) end}
    end
    return list
end

-- ---- the books' classes (LLMs from Scratch ch. 3 §3.4–3.6; Python Deep Learning ch. 7) --------------

local QKV = {q = "queries", k = "keys", v = "values"}
local SPLIT = {q = "split", k = "split_k", v = "split_v"}

-- x·W for SelfAttention_v1's parameter matrices, W(x) for nn.Linear layers.
local function project(layer, x)
    if torch.is_tensor(layer) then return x:matmul(layer) end
    return layer(x)
end

-- The stages queries, keys, values: compute(i) gives projection i (1 Q, 2 K, 3 V); names[i] is how
-- the formula names its layer ("W_query" or "fc_layers[1]"); how: "matmul" (X·W) or "call" (W(X)).
local function projection_stages(compute, names, how, lead)
    local list = {}
    for i, p in ipairs({{"queries", "Q"}, {"keys", "K"}, {"values", "V"}}) do
        local key, sym = p[1], p[2]
        list[i] = {key = key, name = key, rows = "q", lead = lead,
                   formula = how == "matmul" and (sym .. " = X·" .. names[i]) or (sym .. " = " .. names[i] .. "(X)"),
                   compute = function() return compute(i) end}
    end
    return list
end

-- A module's causal mask buffer (ch. 3's self.mask, 1 = hidden) cut to [n, m], as hidden_of.
function stages.causal_hidden(mask_buffer)
    return function(_, q, k)
        local n, m = q.shape[-2], k.shape[-2]
        if n > mask_buffer.shape[1] then
            fail(n .. " tokens, but the module's mask is for at most " .. mask_buffer.shape[1] ..
                 " (its context_length)")
        end
        return mask_buffer:bool()[{{1, n}, {1, m}}]
    end
end

-- The module's nn.Dropout d drops weights when the module is training.
local function module_dropout(tr, d)
    tr.dropout_fn = tr.dropout_fn or attention.dropout
    if d and tr.module.training and d.p and d.p > 0 then
        tr.p_dropout = d.p
    end
end

local W = {"W_query", "W_key", "W_value"}

-- SelfAttention_v1/v2, CausalAttention: Q, K, V from W_query, W_key, W_value; masked (if the module
-- has a mask), then scaled, as the book does.
function stages.single_head(tr, m)
    local x = tr.x
    local lead = x:dim() == 3 and {"batch"} or nil
    local list = projection_stages(function(i) return project(m[W[i]], x) end, W,
                                   torch.is_tensor(m.W_query) and "matmul" or "call", lead)
    local wk = m.W_key
    local d_k = torch.is_tensor(wk) and wk.shape[2] or wk.weight.shape[1]
    module_dropout(tr, m.dropout)
    return append(list, stages.attention(tr, QKV, {"mask", "scale"},
                                         torch.is_tensor(m.mask) and stages.causal_hidden(m.mask), lead, d_k))
end

-- MultiHeadAttentionWrapper: the heads (single heads) side by side, then concatenated.
function stages.wrapper(tr, m)
    local heads, x = m.heads, tr.x
    local lead = x:dim() == 3 and {"batch", "head"} or {"head"}
    local hdim = x:dim() -- where the head dim goes: [b, h, n, d] or [h, n, d]
    local list = projection_stages(function(i)
        local outs = {}
        for j, h in ipairs(heads) do outs[j] = project(h[W[i]], x) end
        return torch.stack(outs, hdim - 1)
    end, W, "call", lead)
    module_dropout(tr, heads[1].dropout)
    -- each head draws its dropout in turn, as the wrapper calls head(x) one after the other
    tr.dropout_fn = function(w, p)
        local outs = {}
        for i = 1, #heads do outs[i] = attention.dropout(w:select(hdim - 1, i), p) end
        return torch.stack(outs, hdim - 1)
    end
    append(list, stages.attention(tr, QKV, {"mask", "scale"}, heads[1].mask and stages.causal_hidden(heads[1].mask),
                                  lead, heads[1].W_key.weight.shape[1]))
    list[#list + 1] = {key = "output", name = "concat", formula = "torch.cat({head_1(X), …, head_h(X)}, -1)",
                       rows = "q", lead = x:dim() == 3 and {"batch"} or nil,
                       compute = function(t) return attention.merge_heads(t.context) end}
    return list
end

-- MultiHeadAttention (ch. 3) and MultiHeadedAttention (Python Deep Learning). spec:
--   layers = {Q, K, V layers}, names = how the formulas name them, heads = h,
--   order = {"mask", "scale"} or {"scale", "mask"}, hidden = hidden_of or nil,
--   out = the output layer or nil, out_name = its name
function stages.multi_head(tr, m, spec)
    local x, h = tr.x, spec.heads
    local lead = x:dim() == 3 and {"batch"} or nil
    local hlead = x:dim() == 3 and {"batch", "head"} or {"head"}
    local list = projection_stages(function(i) return spec.layers[i](x) end, spec.names, "call", lead)
    list[#list + 1] = stages.split(h, hlead, QKV)
    module_dropout(tr, m.dropout)
    append(list, stages.attention(tr, SPLIT, spec.order, spec.hidden, hlead, spec.layers[1].weight.shape[1] // h))
    list[#list + 1] = {key = "merged", name = "merge heads", formula = "Z.transpose(2, 3):contiguous():view(b, n, d_out)",
                       rows = "q", lead = lead, compute = function(t) return attention.merge_heads(t.context) end}
    if spec.out then
        list[#list + 1] = {key = "output", name = "output", rows = "q", lead = lead, formula = spec.out_name .. "(Z)",
                           compute = function(t) return spec.out(t.merged) end}
    end
    return list
end

-- The spec of the annotated transformer's MultiHeadedAttention (Python Deep Learning ch. 7), whose
-- layers are the list `linears` (named `name`): scaled, then masked with -1e9 where the mask given to
-- the trace (1 = visible, as the module takes it) is 0. It takes the option mask.
function stages.annotated_spec(tr, m, linears, name)
    tr.fill = -1e9
    local hidden = tr.mask ~= nil and function(t)
        if not torch.is_tensor(t.mask) then fail("mask must be a tensor (1 = visible, as the module takes it)") end
        return t.mask:unsqueeze(2):eq(0)
    end
    local names = {}
    for i = 1, 3 do names[i] = name .. "[" .. i .. "]" end
    return {layers = {linears[1], linears[2], linears[3]}, names = names, heads = m.h, order = {"scale", "mask"},
            hidden = hidden, out = linears[4], out_name = name .. "[4]"}
end

-- The spec of ch. 3's MultiHeadAttention: masked with its causal buffer, then scaled; out_proj.
function stages.ch3_spec(m)
    return {layers = {m.W_query, m.W_key, m.W_value}, names = W, heads = m.num_heads, order = {"mask", "scale"},
            hidden = m.mask and stages.causal_hidden(m.mask), out = m.out_proj, out_name = "out_proj"}
end

-- A module without a trace_stages method, written as the book writes its classes: its shape read
-- from its field names.
function stages.by_fields(tr, m)
    local linears = m.fc_layers and "fc_layers" or m.linears and "linears"
    if m.heads and m.heads[1] and m.heads[1].W_query then
        return stages.wrapper(tr, m)
    elseif m.W_query and m.num_heads then
        return stages.multi_head(tr, m, stages.ch3_spec(m))
    elseif linears and m.h then
        return stages.multi_head(tr, m, stages.annotated_spec(tr, m, m[linears], linears)), {mask = true}
    elseif m.W_query and m.W_key and m.W_value then
        return stages.single_head(tr, m)
    end
    fail("module " .. tostring(m.__name) .. " is not one of the book's attention classes (it needs W_query, " ..
         "W_key, W_value, or fc_layers/linears with h)")
end

return stages
