-- stages.lua — what attention.trace steps through for each kind of trace and each of the books'
-- classes (module attn.attention.stages): each is a spec of attention/pipeline.lua, the one description
-- of attention's stages, built into a trace's stages by pipeline.build. A built stage is a table:
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
local pipeline = require("attn.attention.pipeline")
local stages = {}

local trf = require("attn.i18n").trf
-- fail(fmt, ...): the error of attention.trace, its format translated (scripts/po.sh extracts fail's first argument)
local function fail(fmt, ...)
    errors.raisef("%s: %s", "attention.trace", trf(fmt, ...))
end

-- The options every trace's spec takes from the tracer: scale, fill, the dropout (tr.p_dropout, drawn
-- by tr.dropout_fn), and failing as attention.trace.
local function from_tracer(tr, spec)
    spec.scale, spec.fill = tr.scale, tr.fill or -math.huge
    local p = tr.p_dropout
    if p and p > 0 then
        spec.dropout = p
        spec.dropout_fn = function(w, q) return tr.dropout_fn(w, q) end
    end
    spec.fail = fail
    return spec
end

-- ---- the tracer's own kinds --------------------------------------------------------------------

-- attention.trace{x = inputs}: §3.3's attention without weights, Q = K = V = X.
function stages.plain(tr)
    local lead = tr.x:dim() == 3 and {"batch"} or nil
    return pipeline.build{src = {q = "x", k = "x", v = "x"}, plain = true, scale = false, lead = {head = lead}}
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
        if not torch.is_tensor(tr[name]) then fail("%s must be a tensor, got %s", name, type(tr[name])) end
    end
    local q, k, v = tr.q, tr.k, tr.v
    if q.shape[-1] ~= k.shape[-1] then
        fail("q %s and k %s must have the same last dim d", shape(q), shape(k))
    end
    if k:dim() < 2 or v:dim() < 2 or k.shape[-2] ~= v.shape[-2] then
        fail("k %s and v %s must have one row per key", shape(k), shape(v))
    end
end

-- attention.trace{q =, k =, v =, ...}: the stages of attention.forward.
function stages.qkv(tr)
    check_qkv(tr)
    local q, k = tr.q, tr.k
    tr.p_dropout = tr.dropout or 0
    tr.dropout_fn = attention.dropout
    local heads = tr.heads or 1
    if math.type(heads) ~= "integer" or heads < 1 then fail("heads must be a whole number >= 1") end
    local lead = q:dim() == 3 and {"batch"} or nil
    local hlead = lead
    if heads > 1 then
        if q.shape[-1] % heads ~= 0 then
            fail("d = %d is not divisible by %d heads", q.shape[-1], heads)
        end
        hlead = q:dim() == 3 and {"batch", "head"} or {"head"}
    end
    return pipeline.build(from_tracer(tr, {heads = heads, merge = heads > 1 and "short" or nil,
                                           hidden = hidden_from_mask(tr), lead = {x = lead, head = hlead},
                                           d_k = k.shape[-1] // heads}))
end

-- ---- the books' classes (LLMs from Scratch ch. 3 §3.4–3.6; Python Deep Learning ch. 7) --------------

-- x·W for SelfAttention_v1's parameter matrices, W(x) for nn.Linear layers.
local function project(layer, x)
    if torch.is_tensor(layer) then return x:matmul(layer) end
    return layer(x)
end

-- A module's causal mask buffer (ch. 3's self.mask, 1 = hidden) cut to [n, m], as hidden_of.
function stages.causal_hidden(mask_buffer)
    return function(_, q, k)
        local n, m = q.shape[-2], k.shape[-2]
        if n > mask_buffer.shape[1] then
            fail("%d tokens, but the module's mask is for at most %d (its context_length)", n, mask_buffer.shape[1])
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
local PROJ_KEYS = {"queries", "keys", "values"}

-- The parameters of a projection (a matrix, or a Linear layer's weight and bias), named as
-- model:named_parameters() names them under `name`: {{name, tensor}, ...}.
function stages.params_of(layer, name, into)
    into = into or {}
    if torch.is_tensor(layer) then
        into[#into + 1] = {name, layer}
    elseif type(layer) == "table" then
        for _, field in ipairs({"weight", "bias"}) do
            if torch.is_tensor(layer[field]) then into[#into + 1] = {name .. "." .. field, layer[field]} end
        end
    end
    return into
end

-- Gives each stage whose key params names the parameters it is computed with (st.params), which the
-- backward tracer shows with the stage's gradient: params = {queries = {{name, tensor}, ...}, ...}.
function stages.with_params(list, params)
    for _, st in ipairs(list) do st.params = params and params[st.key] end
    return list
end
local params_of, with_params = stages.params_of, stages.with_params

-- The stages of a spec and its parameters (a class's trace_spec, or the builders below).
local function built(spec, params, takes)
    return with_params(pipeline.build(spec), params), takes
end

-- SelfAttention_v1/v2, CausalAttention: Q, K, V from W_query, W_key, W_value; masked (if the module
-- has a mask), then scaled, as the book does.
function stages.single_head_spec(tr, m)
    local lead = tr.x:dim() == 3 and {"batch"} or nil
    local wk = m.W_key
    local d_k = torch.is_tensor(wk) and wk.shape[2] or wk.weight.shape[1]
    module_dropout(tr, m.dropout)
    local params = {}
    for i = 1, 3 do params[PROJ_KEYS[i]] = params_of(m[W[i]], W[i]) end
    return from_tracer(tr, {
        project = function(i, _, x) return project(m[W[i]], x) end, project_names = W,
        project_how = torch.is_tensor(m.W_query) and "matmul" or "call",
        mask_first = true, hidden = torch.is_tensor(m.mask) and stages.causal_hidden(m.mask) or nil,
        lead = {x = lead, head = lead}, d_k = d_k}), params
end
function stages.single_head(tr, m) return built(stages.single_head_spec(tr, m)) end

-- MultiHeadAttentionWrapper: the heads (single heads) side by side, then concatenated.
function stages.wrapper_spec(tr, m)
    local heads, x = m.heads, tr.x
    local lead = x:dim() == 3 and {"batch", "head"} or {"head"}
    local hdim = x:dim() -- where the head dim goes: [b, h, n, d] or [h, n, d]
    module_dropout(tr, heads[1].dropout)
    -- each head draws its dropout in turn, as the wrapper calls head(x) one after the other
    tr.dropout_fn = function(w, p)
        local outs = {}
        for i = 1, #heads do outs[i] = attention.dropout(w:select(hdim - 1, i), p) end
        return torch.stack(outs, hdim - 1)
    end
    local params = {}
    for i = 1, 3 do
        params[PROJ_KEYS[i]] = {}
        for j, h in ipairs(heads) do params_of(h[W[i]], "heads." .. j .. "." .. W[i], params[PROJ_KEYS[i]]) end
    end
    return from_tracer(tr, {
        project = function(i, _, xin)
            local outs = {}
            for j, h in ipairs(heads) do outs[j] = project(h[W[i]], xin) end
            return torch.stack(outs, hdim - 1)
        end,
        project_names = W, project_how = "call", mask_first = true,
        hidden = heads[1].mask and stages.causal_hidden(heads[1].mask) or nil,
        merge = "short", lead = {x = lead, head = lead}, d_k = heads[1].W_key.weight.shape[1],
        display = {merged = {key = "output", name = "concat", formula = "torch.cat({head_1(X), …, head_h(X)}, -1)",
                             lead = x:dim() == 3 and {"batch"} or false}}}), params
end
function stages.wrapper(tr, m) return built(stages.wrapper_spec(tr, m)) end

-- MultiHeadAttention (ch. 3) and MultiHeadedAttention (Python Deep Learning). spec:
--   layers = {Q, K, V layers}, names = how the formulas name them, heads = h,
--   mask_first = true (ch. 3) or false, hidden = hidden_of or nil,
--   out = the output layer or nil, out_name = its name
function stages.multi_head_spec(tr, m, spec)
    local x, h = tr.x, spec.heads
    local lead = x:dim() == 3 and {"batch"} or nil
    local hlead = x:dim() == 3 and {"batch", "head"} or {"head"}
    module_dropout(tr, m.dropout)
    local out = spec.out
    -- the parameters by the names named_parameters gives them (param_names), else as the formulas name them
    local pn = spec.param_names or {}
    local params = {output = out and params_of(out, pn[4] or spec.out_name) or nil}
    for i = 1, 3 do params[PROJ_KEYS[i]] = params_of(spec.layers[i], pn[i] or spec.names[i]) end
    return from_tracer(tr, {
        project = function(i, _, xin) return spec.layers[i](xin) end, project_names = spec.names, project_how = "call",
        heads = h, mask_first = spec.mask_first,
        hidden = spec.hidden or nil, merge = "view", out = out and function(z) return out(z) end,
        out_name = spec.out_name, lead = {x = lead, head = hlead}, d_k = spec.layers[1].weight.shape[1] // h}),
        params
end
function stages.multi_head(tr, m, spec) return built(stages.multi_head_spec(tr, m, spec)) end

-- The spec of the annotated transformer's MultiHeadedAttention (Python Deep Learning ch. 7), whose
-- layers are the list `linears` (named `name`): scaled, then masked with -1e9 where the mask given to
-- the trace (1 = visible, as the module takes it) is 0. It takes the option mask.
function stages.annotated_spec(tr, m, linears, name)
    tr.fill = -1e9
    local hidden = tr.mask ~= nil and function(t)
        if not torch.is_tensor(t.mask) then fail("mask must be a tensor (1 = visible, as the module takes it)") end
        return t.mask:unsqueeze(2):eq(0)
    end
    local names, param_names = {}, {}
    for i = 1, 4 do names[i], param_names[i] = name .. "[" .. i .. "]", name .. "." .. i end
    names[4] = nil
    return {layers = {linears[1], linears[2], linears[3]}, names = names, param_names = param_names, heads = m.h,
            mask_first = false,
            hidden = hidden, out = linears[4], out_name = name .. "[4]"}
end

-- The spec of ch. 3's MultiHeadAttention: masked with its causal buffer, then scaled; out_proj.
function stages.ch3_spec(m)
    return {layers = {m.W_query, m.W_key, m.W_value}, names = W, heads = m.num_heads, mask_first = true,
            hidden = m.mask and stages.causal_hidden(m.mask), out = m.out_proj, out_name = "out_proj"}
end

-- A module without a trace_stages method, written as the book writes its classes: its shape read
-- from its field names.
-- Returns the spec, its parameters and the options it takes, as a class's trace_spec method does.
function stages.spec_by_fields(tr, m)
    local linears = m.fc_layers and "fc_layers" or m.linears and "linears"
    if m.heads and m.heads[1] and m.heads[1].W_query then
        return stages.wrapper_spec(tr, m)
    elseif m.W_query and m.num_heads then
        return stages.multi_head_spec(tr, m, stages.ch3_spec(m))
    elseif linears and m.h then
        local spec, params = stages.multi_head_spec(tr, m, stages.annotated_spec(tr, m, m[linears], linears))
        return spec, params, {mask = true}
    elseif m.W_query and m.W_key and m.W_value then
        return stages.single_head_spec(tr, m)
    elseif m.att ~= nil and m.norm1 ~= nil then -- Qwen3's and Llama 3's block (llm/model.lua): QK-norm, RoPE
        fail("module %s is a Transformer block whose stages the tracer does not " ..
             "know by itself: trace its model, attention.trace{module = model, layer =, head =, text = or ids =}", tostring(m.__name))
    end
    fail("module %s is not one of the book's attention classes (it needs W_query, " ..
         "W_key, W_value, or fc_layers/linears with h)", tostring(m.__name))
end

function stages.by_fields(tr, m) return built(stages.spec_by_fields(tr, m)) end

-- The spec of attention module m (its class's trace_spec, else read by its field names), its parameters
-- and the options it takes: what a Transformer block's trace builds its attention's stages from.
function stages.spec_of(tr, m)
    if type(m.trace_spec) == "function" then return m:trace_spec(tr) end
    return stages.spec_by_fields(tr, m)
end

--- stages.from_spec(spec, params, takes): the stages of a class's trace_spec (nn/attention_variants.lua).
stages.from_spec = built

return stages
