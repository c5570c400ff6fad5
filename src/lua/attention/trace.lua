-- trace.lua — attention.trace: a stepper that computes and shows attention one stage at a time
-- (module attn.trace).
--
--   tr = attention.trace{x = inputs, tokens = {...}}           §3.3: ω = X·Xᵀ, α = softmax(ω), Z = α·X
--   tr = attention.trace{q = q, k = k, v = v [, mask =, scale =, dropout =, heads =, fill =]}
--   tr = attention.trace{module = m, x = batch [, tokens =]}   the book's attention classes
--   (options: write = f receives each piece of output, a string without the final newline; the
--    default writes it and a newline with io.write; color = true/false overrides attn.term's)
--   tr:step()   computes the next stage and prints it: "[i/N] name  formula  shape [..]", the matrix
--   tr:step(s)  goes to stage s (number or field name, e.g. "weights") and prints it
--   tr:run()    the remaining stages;  tr:back()  shows the previous stage again (nothing recomputed)
--   tr.scores, tr.weights, tr.context, ...   each stage's tensor, once it has been computed
--
-- Every number shown is computed here by the attention stages (or by the module's own layers);
-- weight matrices are drawn with attn.heatmap. A stage with leading dims (batch, heads) is shown one
-- matrix per batch item and head.
local heatmap = require("attn.attention.heatmap")
local width = require("attn.text.width").of
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local torch = require("attn.bind").torch
local attention = require("attn.bind").attention

local Trace = {}
Trace.__index = Trace
Trace.__name = "attention.trace"

local FIELDS = {"x", "q", "k", "v", "module", "tokens", "key_tokens", "mask", "scale", "fill", "dropout",
                "heads", "color", "write"}

local function fail(msg)
    errors.raise("attention.trace: " .. msg)
end

-- The options each kind of trace uses, besides tokens, key_tokens, color and write; any other is refused
-- rather than ignored (a trace of x alone would otherwise show no mask and no heads without saying so).
local KIND_OPTIONS = {
    x = {x = true},
    qkv = {q = true, k = true, v = true, mask = true, scale = true, fill = true, dropout = true, heads = true},
    module = {module = true, x = true},
}
local KIND_HINT = {
    x = "a trace of x alone is §3.3's attention without weights; for masks, scaling, dropout or heads " ..
        "trace q = x, k = x, v = x",
    qkv = "a trace of q, k, v takes mask, scale, fill, dropout and heads",
    module = "a module's trace computes what the module computes, with its own mask, scale and dropout " ..
             "(only Python Deep Learning's MultiHeadedAttention takes mask =, as its forward does)",
}

local function check_kind_options(args, kind)
    local allowed = KIND_OPTIONS[kind]
    if kind == "module" and (args.module.fc_layers or args.module.linears) then allowed = {module = true, x = true,
                                                                                           mask = true} end
    for _, f in ipairs({"x", "q", "k", "v", "module", "mask", "scale", "fill", "dropout", "heads"}) do
        if args[f] ~= nil and not allowed[f] then
            fail("option " .. f .. " does not apply here: " .. KIND_HINT[kind])
        end
    end
    if args.dropout ~= nil then check.probability("attention.trace", "dropout", args.dropout) end
end

-- ---- stages of the three kinds of trace --------------------------------------------------------
-- A stage: {key = field name, name = shown name, formula = one line, rows = "q" | nil,
--           cols = "k" | nil, heat = draw as heatmap, lead = names of the leading dims,
--           compute = function(tr) -> tensor}.

local function scale_stage(tr, from, d_k)
    if tr.scale == nil or tr.scale == true then
        return {key = "scaled", name = "scaled", formula = "ω / √d_k   (d_k = " .. d_k .. ")", cols = "k",
                compute = function(t) return attention.scale(t[from], d_k) end}
    elseif type(tr.scale) == "number" then
        return {key = "scaled", name = "scaled", formula = "ω · " .. tr.scale, cols = "k",
                compute = function(t) return t[from] * t.scale end}
    end
end

-- The common tail: scores, (scaled, masked in the order given), weights, (dropout), context.
-- src names the fields holding Q, K and V; d_k is the key dim (per head); hidden_of(t, q, k) gives
-- the mask (true = hidden) or is nil.
local function attention_stages(tr, src, order, hidden_of, lead, d_k)
    local list = {{key = "scores", name = "scores", formula = "ω = Q·Kᵀ", cols = "k",
                   compute = function(t) return attention.scores(t[src.q], t[src.k]) end}}
    local last = "scores"
    for _, what in ipairs(order) do
        local st
        if what == "scale" then
            st = scale_stage(tr, last, d_k)
        elseif what == "mask" and hidden_of then
            local fill = tr.fill or -math.huge
            local from = last
            st = {key = "masked", name = "masked", cols = "k", formula = "ω.masked_fill(mask, " .. tostring(fill) .. ")",
                  compute = function(t) return attention.mask(t[from], hidden_of(t, t[src.q], t[src.k]), fill) end}
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

-- attention.trace{x = inputs}: §3.3's attention without weights, Q = K = V = X.
local function plain_stages(tr)
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

-- Splitting Q, K and V (the fields named by src) into h heads; the stage shows the queries.
local function split_stage(h, lead, src)
    return {key = "split", name = "split heads", rows = "q", lead = lead,
            formula = "Q, K, V → [.., " .. h .. ", n, d/" .. h .. "]",
            note = "view + transpose, no copy; shown: the queries; keys and values are tr.split_k, tr.split_v",
            compute = function(t)
                t.split_k, t.split_v = attention.split_heads(t[src.k], h), attention.split_heads(t[src.v], h)
                return attention.split_heads(t[src.q], h)
            end}
end

-- attention.trace{q =, k =, v =, ...}: the stages of attention.forward.
local function qkv_stages(tr)
    for _, name in ipairs({"q", "k", "v"}) do
        if not torch.is_tensor(tr[name]) then fail(name .. " must be a tensor, got " .. type(tr[name])) end
    end
    local q, k, v = tr.q, tr.k, tr.v
    if q.shape[-1] ~= k.shape[-1] then
        fail("q " .. check.shape(q) .. " and k " .. check.shape(k) .. " must have the same last dim d")
    end
    if k:dim() < 2 or v:dim() < 2 or k.shape[-2] ~= v.shape[-2] then
        fail("k " .. check.shape(k) .. " and v " .. check.shape(v) .. " must have one row per key")
    end
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
        list[1] = split_stage(heads, lead, src)
        src = {q = "split", k = "split_k", v = "split_v"}
    elseif q:dim() == 3 then
        lead = {"batch"}
    end
    local hidden = hidden_from_mask(tr)
    for _, st in ipairs(attention_stages(tr, src, {"scale", "mask"}, hidden, lead, k.shape[-1] // heads)) do
        list[#list + 1] = st
    end
    if heads > 1 then
        list[#list + 1] = {key = "merged", name = "merge heads", formula = "Z → [..., n, d]",
                           rows = "q", lead = q:dim() == 3 and {"batch"} or nil,
                           compute = function(t) return attention.merge_heads(t.context) end}
    end
    return list
end

-- ---- the books' classes (LLMs from Scratch ch. 3 §3.4–3.6; Python Deep Learning ch. 7) --------------

-- x·W for SelfAttention_v1's parameter matrices, W(x) for nn.Linear layers.
local function project(layer, x)
    if torch.is_tensor(layer) then return x:matmul(layer) end
    return layer(x)
end

local function projection_stages(tr, src, how, lead)
    local list = {}
    for _, p in ipairs({{"queries", "Q", "W_query"}, {"keys", "K", "W_key"}, {"values", "V", "W_value"}}) do
        local key, sym, field = p[1], p[2], p[3]
        list[#list + 1] = {key = key, name = key, rows = "q", lead = lead,
                           formula = how == "matmul" and (sym .. " = X·" .. field) or (sym .. " = " .. field .. "(X)"),
                           compute = function() return src(field) end}
    end
    return list
end

local function causal_hidden(mask_buffer)
    return function(_, q, k)
        local n, m = q.shape[-2], k.shape[-2]
        if n > mask_buffer.shape[1] then
            fail(n .. " tokens, but the module's mask is for at most " .. mask_buffer.shape[1] ..
                 " (its context_length)")
        end
        return mask_buffer:bool()[{{1, n}, {1, m}}]
    end
end

local function module_dropout(tr, d)
    if d and tr.module.training and d.p and d.p > 0 then
        tr.p_dropout = d.p
    end
end

local QKV = {q = "queries", k = "keys", v = "values"}

local function module_stages(tr)
    local m, x = tr.module, tr.x
    if not torch.is_tensor(x) then fail("x must be the input tensor for the module, got " .. type(x)) end
    tr.dropout_fn = attention.dropout
    local list = {}
    local function add(stages) for _, st in ipairs(stages) do list[#list + 1] = st end end

    if m.heads and m.heads[1] and m.heads[1].W_query then -- MultiHeadAttentionWrapper: heads side by side
        local heads = m.heads
        local lead = x:dim() == 3 and {"batch", "head"} or {"head"}
        local hdim = x:dim() -- where the head dim goes: [b, h, n, d] or [h, n, d]
        add(projection_stages(tr, function(field)
            local outs = {}
            for i, h in ipairs(heads) do outs[i] = project(h[field], x) end
            return torch.stack(outs, hdim - 1)
        end, "call", lead))
        module_dropout(tr, heads[1].dropout)
        -- each head draws its dropout in turn, as the wrapper calls head(x) one after the other
        tr.dropout_fn = function(w, p)
            local outs = {}
            for i = 1, #heads do outs[i] = attention.dropout(w:select(hdim - 1, i), p) end
            return torch.stack(outs, hdim - 1)
        end
        add(attention_stages(tr, QKV, {"mask", "scale"}, heads[1].mask and causal_hidden(heads[1].mask), lead,
                             heads[1].W_key.weight.shape[1]))
        list[#list + 1] = {key = "output", name = "concat", formula = "torch.cat({head_1(X), …, head_h(X)}, -1)",
                           rows = "q", lead = x:dim() == 3 and {"batch"} or nil,
                           compute = function(t) return attention.merge_heads(t.context) end}
        return list
    end

    local linears = m.fc_layers or m.linears
    if m.W_query and m.num_heads or linears and m.h then -- MultiHeadAttention (ch. 3) or MultiHeadedAttention
        local h = m.num_heads or m.h
        local lead = x:dim() == 3 and {"batch"} or nil
        local hlead = x:dim() == 3 and {"batch", "head"} or {"head"}
        local layer = function(field)
            if linears then
                local i = ({W_query = 1, W_key = 2, W_value = 3})[field]
                return linears[i]
            end
            return m[field]
        end
        add(projection_stages(tr, function(field) return layer(field)(x) end, "call", lead))
        if linears then
            for i, st in ipairs(list) do st.formula = ({"Q", "K", "V"})[i] .. " = " .. (m.fc_layers and "fc_layers" or
                "linears") .. "[" .. i .. "](X)" end
        end
        list[#list + 1] = split_stage(h, hlead, QKV)
        local d_k = (linears and linears[1] or m.W_query).weight.shape[1] // h
        local split = {q = "split", k = "split_k", v = "split_v"}
        module_dropout(tr, m.dropout)
        if linears then -- Python Deep Learning / the annotated transformer: scale, then mask == 0 -> -1e9
            tr.fill = -1e9
            local hidden = tr.mask ~= nil and function(t)
                if not torch.is_tensor(t.mask) then fail("mask must be a tensor (1 = visible, as the module takes it)") end
                return t.mask:unsqueeze(2):eq(0)
            end
            add(attention_stages(tr, split, {"scale", "mask"}, hidden, hlead, d_k))
        else
            add(attention_stages(tr, split, {"mask", "scale"}, m.mask and causal_hidden(m.mask), hlead, d_k))
        end
        list[#list + 1] = {key = "merged", name = "merge heads", formula = "Z.transpose(2, 3):contiguous():view(b, n, d_out)",
                           rows = "q", lead = lead, compute = function(t) return attention.merge_heads(t.context) end}
        local out = linears and linears[4] or m.out_proj
        if out then
            list[#list + 1] = {key = "output", name = "output", rows = "q", lead = lead,
                               formula = (linears and ((m.fc_layers and "fc_layers" or "linears") .. "[4](Z)") or "out_proj(Z)"),
                               compute = function(t) return out(t.merged) end}
        end
        return list
    end

    if m.W_query and m.W_key and m.W_value then -- SelfAttention_v1/v2, CausalAttention
        local lead = x:dim() == 3 and {"batch"} or nil
        add(projection_stages(tr, function(field) return project(m[field], x) end,
                              torch.is_tensor(m.W_query) and "matmul" or "call", lead))
        local wk = m.W_key
        local d_k = torch.is_tensor(wk) and wk.shape[2] or wk.weight.shape[1]
        module_dropout(tr, m.dropout)
        add(attention_stages(tr, QKV, {"mask", "scale"}, torch.is_tensor(m.mask) and causal_hidden(m.mask), lead, d_k))
        return list
    end
    fail("module " .. tostring(m.__name) .. " is not one of the book's attention classes (it needs W_query, " ..
         "W_key, W_value, or fc_layers/linears with h)")
end

-- ---- the stepper ---------------------------------------------------------------------------------

local function check_tokens(tokens, n, what)
    if tokens == nil then return nil end
    if type(tokens) ~= "table" then fail(what .. " must be a list of strings, got " .. type(tokens)) end
    if #tokens ~= n then fail(#tokens .. " " .. what .. " for " .. n .. " rows") end
    return tokens
end

--- attention.trace{...} -> a stepper (see the top of this file).
local function trace(args)
    if type(args) ~= "table" or torch.is_tensor(args) then
        fail("expected a table such as {x = inputs, tokens = {...}}, got " .. type(args))
    end
    local known = {}
    for _, f in ipairs(FIELDS) do known[f] = true end
    for k in pairs(args) do
        if not known[k] then fail("unknown option " .. tostring(k) .. " (known: " .. table.concat(FIELDS, ", ") .. ")") end
    end
    if args.write ~= nil and type(args.write) ~= "function" then
        fail("write must be a function that receives each piece of output, got " .. type(args.write))
    end
    if args.color ~= nil and type(args.color) ~= "boolean" then
        fail("color must be true or false, got " .. tostring(args.color))
    end
    local tr = setmetatable({pos = 0, computed = 0}, Trace)
    for _, f in ipairs(FIELDS) do tr[f] = args[f] end
    tr.write = nil -- kept as _write, so that Tab after tr: offers only step, run and back
    tr._write = args.write or function(s) io.write(s, "\n") end -- to io.output() at call time
    local list, kind
    if args.module ~= nil then
        if not check.is_module(args.module) then fail("module must be an nn.Module, got " .. check.describe(args.module)) end
        check_kind_options(args, "module")
        list, kind = module_stages(tr), tostring(args.module.__name)
    elseif args.q ~= nil or args.k ~= nil or args.v ~= nil then
        check_kind_options(args, "qkv")
        list, kind = qkv_stages(tr), "attention"
    elseif torch.is_tensor(args.x) then
        if args.x:dim() ~= 2 and args.x:dim() ~= 3 then
            fail("x must be [n, d] or [b, n, d], got " .. check.shape(args.x))
        end
        check_kind_options(args, "x")
        list, kind = plain_stages(tr), "self-attention without weights"
    else
        fail("give x = inputs, or q =, k =, v =, or module = m with x =")
    end
    local first = args.q or args.x
    local n = first:dim() >= 2 and first.shape[-2] or 1
    tr.tokens = check_tokens(args.tokens, n, "tokens")
    local m = args.k and args.k.shape[-2] or n
    tr.key_tokens = check_tokens(args.key_tokens or (m == n and args.tokens or nil), m, "key_tokens")
    rawset(tr, "_stages", list)
    rawset(tr, "_kind", kind)
    return tr
end

-- The 2-D matrices of t with their titles: {{title, matrix}, ...}.
local function matrices(t, lead)
    if t:dim() <= 2 then return {{nil, t:dim() == 2 and t or t:view(1, -1)}} end
    local out = {}
    local function walk(x, prefix, d)
        if x:dim() == 2 then
            out[#out + 1] = {table.concat(prefix, ", "), x}
            return
        end
        local name = lead and lead[d] or ("dim " .. d)
        for i = 1, x.shape[1] do
            prefix[d] = name .. " " .. i
            walk(x[i], prefix, d + 1)
        end
        prefix[d] = nil
    end
    walk(t, {}, 1)
    return out
end

-- "[i/N] name  formula   shape [..]": "[9/11] " as wide as "[10/11]", the names padded to the longest of this trace's stages, so the
-- formulas line up with at least two spaces before them ("merge heads", "split heads" are 11 wide).
local function header(tr, i, st, t)
    local list = tr._stages
    local namew = 0
    for _, s in ipairs(list) do namew = math.max(namew, width(s.name)) end
    local count = string.format("[%d/%d]", i, #list)
    local left = string.format("%-" .. (2 * #tostring(#list) + 3) .. "s %s%s  %s", count, st.name,
                               string.rep(" ", namew - width(st.name)), st.formula)
    local w = width(left)
    return left .. string.rep(" ", math.max(2, 58 - w)) .. "shape " .. check.shape(t)
end

function Trace:_show(i)
    local st = self._stages[i]
    local t = rawget(self, st.key)
    local out = {header(self, i, st, t)}
    if st.note then out[2] = "  (" .. st.note .. ")" end
    for _, mt in ipairs(matrices(t, st.lead)) do
        local title, mat = mt[1], mt[2]
        if title then out[#out + 1] = "  " .. title .. ":" end
        local rows = st.rows == "q" and mat.shape[1] == (self.tokens and #self.tokens) and self.tokens or nil
        local cols = st.cols == "k" and mat.shape[2] == (self.key_tokens and #self.key_tokens) and self.key_tokens or nil
        local text = heatmap.render(mat, {rows = rows, cols = cols, shade = st.heat or false, color = self.color})
        out[#out + 1] = "  " .. text:gsub("\n", "\n  ")
    end
    self._write(table.concat(out, "\n"))
end

-- The number of the stage `which` names: its number, or its field name ("weights", "split", ...).
local function stage_index(list, which)
    if math.type(which) == "float" and which == math.floor(which) then which = math.tointeger(which) end
    if math.type(which) == "integer" and which >= 1 and which <= #list then return which end
    local names = {}
    for i, st in ipairs(list) do
        if st.key == which then return i end
        names[i] = st.key
    end
    fail("no stage " .. (type(which) == "string" and string.format("%q", which) or tostring(which)) ..
         ": give 1.." .. #list .. " or one of " .. table.concat(names, ", "))
end

-- Computes the stages up to i that are not computed yet. An error in one names it, at the user's
-- line: "attention.trace: stage 4 (masked): attention.mask: the mask [2, 2] does not fit ...".
local function compute_to(tr, i)
    local list = tr._stages
    while tr.computed < i do
        local k = tr.computed + 1
        local st = list[k]
        rawset(tr, st.key, errors.call(string.format("attention.trace: stage %d (%s)", k, st.name), st.compute, tr))
        tr.computed = k
    end
end

--- tr:step() computes the next stage (if it has not been computed yet) and prints it.
--- tr:step(which) goes to stage `which` (a number or a field name such as "weights"), computing the
--- stages before it that are not computed yet, without printing them, and prints it: showing a stage
--- again this way is the same however often it is done (a lesson step that is repeated).
-- tr.step() (a dot for the colon) calls the method without the tracer.
local function check_self(self, method)
    if getmetatable(self) ~= Trace then
        errors.raise("attention.trace: call it as tr:" .. method .. "() with a colon (tr." .. method ..
                     "() passes no tracer)")
    end
end

function Trace:step(which)
    check_self(self, "step")
    local list = self._stages
    if which ~= nil then
        local i = stage_index(list, which)
        compute_to(self, i)
        self.pos = i
        self:_show(i)
        return
    end
    if self.pos >= #list then
        self._write(string.format("(all %d stages shown: tr.%s holds the result; tr:back() goes back)", #list,
                                 list[#list].key))
        return
    end
    compute_to(self, self.pos + 1)
    self.pos = self.pos + 1
    self:_show(self.pos)
end

--- tr:run() steps through every stage not shown yet.
function Trace:run()
    check_self(self, "run")
    while self.pos < #self._stages do self:step() end
end

--- tr:back() shows the previous stage again.
function Trace:back()
    check_self(self, "back")
    if self.pos <= 1 then
        self._write(self.pos == 0 and "(nothing shown yet: tr:step() shows the first stage)"
                                  or "(this is the first stage)")
        self.pos = math.min(self.pos, 1)
        if self.pos == 1 then self:_show(1) end
        return
    end
    self.pos = self.pos - 1
    self:_show(self.pos)
end

function Trace:__tostring()
    local names = {}
    for i, st in ipairs(self._stages) do
        names[i] = i == self.pos and ("[" .. st.name .. "]") or st.name
    end
    local next = self.pos < #self._stages and "next: tr:step()" or "done"
    local out = {string.format("attention.trace of %s: %d of %d stages shown, %s", self._kind, self.pos,
                               #self._stages, next)}
    local cur = " " -- the stages on lines of at most 78 columns, the one shown last in brackets
    for i, name in ipairs(names) do
        local piece = (i > 1 and " → " or " ") .. name
        if width(cur .. piece) > 78 then
            out[#out + 1] = cur
            cur = " "
        end
        cur = cur .. piece
    end
    out[#out + 1] = cur
    return table.concat(out, "\n")
end

return trace
