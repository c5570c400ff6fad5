-- backward.lua — the backward half of attention.trace (module attn.attention.backward): with a loss,
--
--   tr = attention.trace{module = mha, x = batch, loss = function(out) return (out * w):sum() end}
--   tr:backward()        the next stage backward, starting from the last: its gradient ∂L/∂(its tensor)
--   tr:backward(which)   the backward step of stage `which` (a number of the backward order, or the field
--                        name of the stage, "weights"), shown again the same however often it is asked
--   tr:run_backward()    every backward step not shown yet
--   tr.grads.weights, tr.grads.scores, ...   the gradients, by the stages' field names; the projections'
--                        parameters by their names in the module ("W_query.weight", "out_proj.bias"); the
--                        inputs x, q, k, v when they take part (a trace of x or of q, k, v)
--
-- The gradients come from the trace's own stages: the stages are the ones attention/pipeline.lua's
-- records built for the forward steps (the same tensors, computed with gradients on), L = loss(the last
-- stage's tensor), and torch.autograd.grad(L, every stage's tensor and the projections' parameters)
-- gives ∂L/∂ each of them, as PyTorch's retain_grad would, without touching any .grad (the module's
-- parameters keep whatever gradients they had). Backward step i shows stage N + 1 - i (weighted sum,
-- softmax, mask, scale, scores, ..., the projections): the gradient of the loss with respect to that
-- stage's tensor, with the rule that made it from the gradients of the stages that read it (the grad
-- formulas of their records, joined by + when several read it), drawn as the forward step draws the
-- tensor (token labels; a heatmap for the score-shaped ones: ∂L/∂α, ∂L/∂ω). A projection's step shows
-- its parameters' gradients after it.
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local torch = require("attn.bind").torch
local grad_mode = require("attn.autograd.grad_mode")
local heatmap = require("attn.draw.heatmap")
local tr_, trf = require("attn.i18n").tr, require("attn.i18n").trf

local backward = {}

-- fail(fmt, ...): the error of attention.trace, its format translated (scripts/po.sh extracts fail's first argument)
local function fail(fmt, ...)
    errors.raisef("%s: %s", "attention.trace", trf(fmt, ...))
end

-- Whether t takes part in the graph (a leaf that requires grad, or a result of one).
local function in_graph(t)
    return torch.is_tensor(t) and t.requires_grad == true
end

-- attention.trace{..., loss = f}: the inputs of a trace of x or of q, k, v require no gradient as the
-- user made them; their stages get gradients only from inputs that do. A trace with a loss keeps an
-- alias of each input that requires grad (the same numbers, the same storage, the user's tensor unchanged).
function backward.prepare_inputs(tr, kind)
    if tr.loss == nil then return end
    if type(tr.loss) ~= "function" then
        fail("loss must be a function that takes the last stage's tensor and returns the loss, got %s",
             check.describe(tr.loss))
    end
    if kind == "module" then return end
    for _, f in ipairs({"x", "q", "k", "v"}) do
        local t = rawget(tr, f)
        if torch.is_tensor(t) and not in_graph(t) and t.dtype == torch.float32 then
            rawset(tr, f, t:detach():requires_grad_())
        end
    end
end

-- Every stage's tensors, then the parameters, each once: the list autograd.grad differentiates
-- with respect to, and what each one is called in tr.grads.
local function targets(tr)
    local list, names, seen = {}, {}, {}
    local function add(name, t)
        if in_graph(t) and not seen[t] then
            seen[t] = true
            list[#list + 1], names[#names + 1] = t, name
        end
    end
    for _, st in ipairs(tr._stages) do
        for _, key in ipairs(st.keys or {st.key}) do add(key, rawget(tr, key)) end
    end
    for _, st in ipairs(tr._stages) do
        for _, p in ipairs(st.params or {}) do add(p[1], p[2]) end
    end
    for _, f in ipairs({"x", "q", "k", "v"}) do add(f, rawget(tr, f)) end -- the inputs, when they take part
    return list, names
end

-- Computes every stage (with gradients on, so that each is part of the graph), the loss and the
-- gradients, once: tr.grads.
local function compute(tr, compute_to)
    if rawget(tr, "grads") then return end
    if tr.loss == nil then
        fail("tr:backward needs the loss: make the trace with loss = function(out) return ... end, " ..
             "a function of the last stage's tensor that returns one number (a tensor of one element)")
    end
    local list = tr._stages
    grad_mode.call_with(true, compute_to, tr, #list)
    local last = list[#list]
    local out = rawget(tr, last.key)
    if not in_graph(out) then
        fail("tr:backward: the last stage (%s) is not part of a graph: it was computed with gradients off " ..
             "(torch.no_grad), or nothing it is made from requires grad", last.key)
    end
    local loss = grad_mode.call_with(true, errors.call, "attention.trace: loss", tr.loss, out)
    if not torch.is_tensor(loss) then
        fail("loss must return the loss, a tensor of one number, got %s", check.describe(loss))
    elseif loss:numel() ~= 1 or loss.dtype ~= torch.float32 then
        fail("loss must return the loss, a tensor of one number, got a %s tensor of shape %s",
             tostring(loss.dtype), check.shape(loss))
    end
    if not in_graph(loss) then
        fail("loss(out) does not depend on out: its result requires no grad")
    end
    local inputs, names = targets(tr)
    -- retain_graph: the tracer's tensors stay usable in the user's own backward afterwards
    local grads = torch.autograd.grad({loss}, inputs, {retain_graph = true, allow_unused = true})
    local by_name = {}
    for i, name in ipairs(names) do by_name[name] = grads[i] end
    rawset(tr, "loss_value", loss:detach())
    rawset(tr, "grads", by_name)
    rawset(tr, "bpos", rawget(tr, "bpos") or 0)
end

-- The rule that gives stage i's gradient: the gradients the stages after it send back to the tensor
-- it shows (their records' grad formulas, for each role they read it in), summed; the last stage's
-- comes from the loss.
local function formula_of(list, i)
    local st = list[i]
    local terms = {}
    for j = i + 1, #list do
        local r = list[j]
        for _, role in ipairs(r.record.reads) do
            if r.from[role] == st.key and r.grad and r.grad[role] then terms[#terms + 1] = r.grad[role] end
        end
    end
    local sym = st.sym or st.key
    if #terms == 0 then
        if i == #list then return "∂L/∂" .. sym .. "   (L = loss(" .. sym .. "))" end
        return "∂L/∂" .. sym
    end
    return "∂L/∂" .. sym .. " = " .. table.concat(terms, " + ")
end

-- The backward step k (1 = the last stage) as text.
local function show(tr, k, header)
    local list = tr._stages
    local i = #list + 1 - k
    local st = list[i]
    local g = tr.grads[st.key]
    local shown_t = g or rawget(tr, st.key)
    local out = {header(tr, "←", k, st, formula_of(list, i), shown_t)}
    if g == nil then
        out[#out + 1] = "  " .. trf("(%s)", tr_("no gradient reaches this stage: the loss does not depend on it"))
        return table.concat(out, "\n")
    end
    local view = st.view and st.view(g) or g -- a long vector shown in part, as its forward step shows it
    if view.shape[-1] < g.shape[-1] then
        out[#out + 1] = "  " .. trf("(%s)", trf("first %d of %d dims shown; all in tr.grads.%s", view.shape[-1], g.shape[-1], st.key))
    elseif st.keys and #st.keys > 1 then
        out[#out + 1] = "  " .. trf("(%s)", trf("shown: the gradient of tr.%s; the others are tr.grads.%s", st.key,
                                                table.concat(st.keys, ", tr.grads.", 2)))
    end
    -- the score-shaped gradients (∂L/∂ω, ∂L/∂α: one column per key) as heatmaps
    for _, line in ipairs(tr:_matrices(st, view, st.cols == "k")) do out[#out + 1] = line end
    for _, p in ipairs(st.params or {}) do
        local pg = tr.grads[p[1]]
        if pg then
            out[#out + 1] = "  ∂L/∂" .. p[1] .. string.rep(" ", math.max(2, 40 - #p[1])) .. tr_("shape") .. " " ..
                            check.shape(pg)
            out[#out + 1] = "  " .. heatmap.render(pg:dim() == 1 and pg:view(1, -1) or pg,
                {shade = false, color = tr.color}):gsub("\n", "\n  ")
        end
    end
    return table.concat(out, "\n")
end

-- The backward step that `which` names: a number 1..N (backward order) or a stage's field name.
local function step_index(list, which)
    if math.type(which) == "float" and which == math.floor(which) then which = math.tointeger(which) end
    if math.type(which) == "integer" and which >= 1 and which <= #list then return which end
    local names = {}
    for i, st in ipairs(list) do
        if st.key == which then return #list + 1 - i end
        names[#names + 1] = list[#list + 1 - i].key
    end
    fail("no backward step %s: give 1..%d (1 is the last stage) or one of %s",
         type(which) == "string" and string.format("%q", which) or tostring(which), #list, table.concat(names, ", "))
end

--- Adds tr:backward and tr:run_backward to the tracer's class (trace.lua passes what they share with
--- the forward steps: computing stages, the header line, the check of the colon call).
function backward.install(Trace, shared)
    function Trace:backward(which)
        shared.check_self(self, "backward")
        compute(self, shared.compute_to)
        local list = self._stages
        if which ~= nil then
            self.bpos = step_index(list, which)
            self._write(show(self, self.bpos, shared.header))
            return
        end
        if self.bpos >= #list then
            self._write(trf("(all %d stages shown backward: tr.grads holds the gradients, the loss was %s)", #list,
                            string.format("%.4f", self.loss_value:item())))
            return
        end
        self.bpos = self.bpos + 1
        self._write(show(self, self.bpos, shared.header))
    end

    function Trace:run_backward()
        shared.check_self(self, "run_backward")
        compute(self, shared.compute_to)
        while self.bpos < #self._stages do self:backward() end
    end
end

-- The backward steps as text, for tr:save's page: {text, ...} in backward order.
function backward.pages(tr, compute_to, header)
    compute(tr, compute_to)
    local out = {}
    for k = 1, #tr._stages do out[k] = show(tr, k, header) end
    return out
end

return backward
