-- tensor_api.lua — autograd as a tensor shows it (module attn.autograd.tensor_api): the fields
-- x.requires_grad, x.is_leaf, x.grad, x.grad_fn; the methods x:requires_grad_(), x:backward(),
-- x:retain_grad(), x:detach(); requires_grad = true in the creation functions' options; printing with
-- grad_fn=<...> / requires_grad=True; indexing that keeps the graph; in-place ops and t[i] = v
-- bumping the version counter.
--
-- Indexing one element: without autograd x[i] of a 1-D tensor (and x[{i, j}] naming every dim) is a
-- Lua number, as before. When x requires grad (and grad mode is on) it is a 0-d tensor instead (as
-- PyTorch's always is), with SelectBackward0, so a number never silently drops the graph; x[i]:item()
-- gives the number.
local C = require("attn.bind")
local graph = require("attn.autograd.graph")
local registry = require("attn.autograd.registry")
local engine = require("attn.autograd.engine")
local ops_shape = require("attn.autograd.ops_shape")
local errors = require("attn.errors")

local torch, methods, mt = C.torch, C.methods, C.metatable
local meta = graph.meta
local is_tensor = torch.is_tensor
local bump = C.autograd.bump_version

local M = {}

-- ---- fields ---------------------------------------------------------------------------------------

local raw_index = mt.__index

local function grad_fn_of(t)
    local m = meta[t]
    return m and m.grad_fn or nil
end

local FIELDS = {
    requires_grad = function(t) return graph.requires_grad(t) end,
    is_leaf = function(t) return grad_fn_of(t) == nil end,
    grad = function(t)
        local m = meta[t]
        return m and m.grad or nil
    end,
    grad_fn = grad_fn_of,
    data = function(t) return M.detach(t) end,
}

-- t[i] / t[{i, {a, b}, {}}] on a tensor that requires grad: the same view, made of recorded
-- select and narrow calls (SelectBackward0, SliceBackward0), and never a bare number
local function index_recorded(t, key)
    if type(key) == "number" then return t:select(1, key) end
    local d = 1
    for k = 1, #key do
        local e = key[k]
        if type(e) == "number" then
            t = t:select(d, e)
        elseif (type(e) == "table" and #e == 0) or e == ":" then
            d = d + 1
        elseif type(e) == "table" then
            local a, b = e[1], e[#e]
            local n = t.shape[d]
            if a < 0 then a = n + 1 + a end
            if b < 0 then b = n + 1 + b end
            t = t:narrow(d, a, b - a + 1)
            d = d + 1
        else
            return raw_index(t, key) -- the bindings' own error
        end
    end
    return t
end

-- t[{..., index tensor, ...}] (advanced indexing: a copy) on a tensor that requires grad: recorded as
-- IndexBackward0, whose gradient is PyTorch's index_put_ of the gradient into zeros with accumulate
-- (repeated indices add up, in order): here, the flat position of each picked element (the same key on
-- the positions 1..numel) and a scatter_add of the gradient at those positions, which adds in the same
-- order. It was a copy without a graph: x[{torch.tensor{1, 2}}] gave x no gradient at all.
local function has_index_tensor(key)
    for _, e in ipairs(key) do
        if is_tensor(e) then return true end
    end
    return false
end

local function index_with_tensors(t, key)
    local out = raw_index(t, key)
    local shape, n = t.shape, t:numel()
    registry.record(out, "IndexBackward0", {1}, function(node, g)
        local flat = torch.zeros(1, n, {dtype = g.dtype})
        if n > 0 and g:numel() > 0 then
            local at = raw_index(torch.arange(1, n + 1):reshape(shape), key)
            flat = flat:scatter_add(2, at:reshape(1, -1), g:reshape(1, -1))
        end
        return {flat:reshape(shape)}
    end, nil, {t, n = 1})
    return out
end

mt.__index = function(t, k)
    if type(k) == "string" then
        local f = methods[k]
        if f then return f end
        local field = FIELDS[k]
        if field then return field(t) end
        if k == "T" or k == "mT" then return ops_shape.T(t, raw_index, k) end
        return raw_index(t, k)
    end
    if graph.enabled and type(k) == "table" and getmetatable(k) == nil and has_index_tensor(k)
        and graph.requires_grad(t) then
        return index_with_tensors(t, k)
    end
    if graph.enabled and (type(k) == "number" or (type(k) == "table" and getmetatable(k) == nil))
        and graph.requires_grad(t) then
        raw_index(t, k) -- the bindings check the index (and give their errors); the recorded path makes the value
        return index_recorded(t, k)
    end
    return raw_index(t, k)
end

local raw_newindex = mt.__newindex

mt.__newindex = function(t, k, v)
    if k == "grad" then
        if v ~= nil and not is_tensor(v) then
            errors.raisef("grad: expected a tensor or nil, got %s", type(v))
        end
        graph.get(t).grad = v
        return
    elseif k == "requires_grad" then
        M.requires_grad_(t, v)
        return
    end
    local m = meta[t]
    local record = false
    if graph.enabled and type(k) ~= "string" then
        if m and m.requires_grad and not m.grad_fn then
            errors.raise("assign: a leaf Variable that requires grad is being used in an in-place operation.")
        end
        record = (m and m.grad_fn) or (is_tensor(v) and graph.requires_grad(v))
        -- t[i] = v is recorded on t itself (PyTorch's CopySlices) when t is all of its storage; into a
        -- view (x[i][j] = v), whose base attn may not know, it would silently miss the base
        if (record and not C.autograd.is_whole(t)) or (m and m.base and graph.requires_grad(m.base)) then
            errors.raise("assign: t[i] = v on a view of a tensor, with a value that requires grad, is not "
                         .. "supported by attn's autograd (PyTorch records it on the base as CopySlices); "
                         .. "assign into the whole tensor (t[{i, j}] = v), build the result with torch.cat, "
                         .. "or assign under torch.no_grad()")
        end
    end
    raw_newindex(t, k, v)
    if type(k) ~= "string" then bump(t) end
    if record then
        -- CopySlices: the old values' gradient is g with the assigned place zeroed; v's is that place of g
        local v_shape = is_tensor(v) and v.shape or nil
        registry.record(t, "CopySlices", {1, 2}, function(node, g)
            local keep = g:clone()
            raw_newindex(keep, k, 0)
            local gv = nil
            if v_shape then
                gv = index_recorded(g, k)
                if type(gv) == "number" then gv = torch.tensor(gv) end
                gv = require("attn.autograd.ops_math").sum_to(gv, v_shape)
                if #v_shape ~= gv.ndim then gv = gv:reshape(v_shape) end
            end
            return {keep, gv}
        end, nil, table.pack(t, is_tensor(v) and v or nil))
    end
end

-- ---- printing ---------------------------------------------------------------------------------

local raw_tostring = mt.__tostring
M.raw_tostring = raw_tostring

-- PyTorch's suffix: grad_fn=<Name> for a result, requires_grad=True for a leaf that requires grad
function M.suffix(t)
    local m = meta[t]
    if not m then return nil end
    if m.grad_fn then return "grad_fn=<" .. m.grad_fn._name .. ">" end
    if m.requires_grad then return "requires_grad=True" end
    return nil
end

mt.__tostring = function(t)
    local m = meta[t]
    if not m then return raw_tostring(t) end
    local s = raw_tostring(t, M.suffix(t))
    if m.is_param then return "Parameter containing:\n" .. s end
    return s
end

-- ---- methods ---------------------------------------------------------------------------------------

function M.requires_grad_(t, flag)
    if not is_tensor(t) then errors.raise("requires_grad_: expected a tensor") end
    if flag == nil then flag = true end
    if type(flag) ~= "boolean" then
        errors.raisef("requires_grad_: expected true or false, got %s", type(flag))
    end
    local m = graph.get(t)
    if m.grad_fn then
        if not flag then
            errors.raise("requires_grad_: you can only change requires_grad flags of leaf variables. If you want "
                         .. "to use a computed variable in a subgraph that doesn't require differentiation use "
                         .. "var_no_grad = var:detach().")
        end
        return t
    end
    if flag and t.dtype ~= torch.float32 then
        errors.raisef("requires_grad_: only Tensors of floating point dtype can require gradients, got %s",
                      tostring(t.dtype))
    end
    m.requires_grad = flag or nil
    return t
end

function M.detach(t)
    if not is_tensor(t) then errors.raise("detach: expected a tensor") end
    return C.autograd.alias(t) -- a new tensor sharing t's storage (and version counter), outside the graph
end

function M.retain_grad(t)
    local m = meta[t]
    if not (m and (m.requires_grad or m.grad_fn)) then
        errors.raise("retain_grad: can't retain_grad on Tensor that has requires_grad=False")
    end
    if m.grad_fn then
        m.retains_grad = true
        m.grad_fn.retained = m.grad_fn.retained or setmetatable({}, {__mode = "k"})
        m.grad_fn.retained[t] = true
    end
    -- returns nothing, as PyTorch's returns None (which its prompt does not print)
end

local function size_text(shape)
    return tostring(shape)
end

-- The roots and their gradients for backward / autograd.grad (PyTorch's _make_grads).
local function make_grads(fn, outputs, grads)
    local roots, gs = {}, {}
    for i, out in ipairs(outputs) do
        if not is_tensor(out) then
            errors.raisef("%s: outputs must be tensors, got %s as output %d", fn, type(out), i)
        end
        local root = graph.edge(out)
        if not root then
            errors.raisef("%s: element %d of tensors does not require grad and does not have a grad_fn",
                          fn, i - 1)
        end
        local g = grads and grads[i]
        if g == nil then
            if out:numel() ~= 1 then
                errors.raisef("%s: grad can be implicitly created only for scalar outputs", fn)
            end
            g = torch.ones_like(out)
        elseif not is_tensor(g) then
            errors.raisef("%s: gradient must be a tensor, got %s", fn, type(g))
        elseif g.shape ~= out.shape then
            errors.raisef("%s: Mismatch in shape: grad_output[%d] has a shape of %s and output[%d] has a shape of %s.",
                          fn, i - 1, size_text(g.shape), i - 1, size_text(out.shape))
        elseif g.dtype ~= out.dtype then
            -- as PyTorch's engine (validate_outputs): the gradient takes the output's dtype, so that an
            -- int64 gradient never leaves an int64 .grad on a float leaf
            g = g:to(out.dtype)
        end
        roots[i], gs[i] = root, g
    end
    return roots, gs
end

local function check_options(fn, opts, allowed)
    if opts == nil then return {} end
    if type(opts) ~= "table" or getmetatable(opts) ~= nil then
        errors.raisef("%s: options must be a table such as {retain_graph = true}, got %s", fn, type(opts))
    end
    for k in pairs(opts) do
        if not allowed[k] then
            errors.raisef("%s: unknown option '%s'", fn, tostring(k))
        end
    end
    if opts.create_graph then
        errors.raisef("%s: create_graph = true (gradients of gradients) is not supported by attn's autograd", fn)
    end
    return opts
end

-- x:backward([gradient] [, {retain_graph = bool, inputs = ...}])
function M.backward(t, gradient, opts)
    if not is_tensor(t) then errors.raise("backward: expected a tensor") end
    if type(gradient) == "table" and not is_tensor(gradient) and opts == nil then
        gradient, opts = nil, gradient
    end
    opts = check_options("backward", opts, {retain_graph = true, create_graph = true})
    local roots, gs = make_grads("backward", {t}, {gradient})
    engine.run(roots, gs, opts.retain_graph == true)
end

-- torch.autograd.grad(outputs, inputs [, grad_outputs] [, {retain_graph =, create_graph =, allow_unused =}])
function M.grad(outputs, inputs, grad_outputs, opts)
    -- a table with no list part is the options (grad_outputs is a tensor or a list of tensors)
    if type(grad_outputs) == "table" and not is_tensor(grad_outputs) and opts == nil and grad_outputs[1] == nil then
        grad_outputs, opts = nil, grad_outputs
    end
    opts = check_options("autograd.grad", opts,
                         {retain_graph = true, create_graph = true, allow_unused = true, grad_outputs = true})
    grad_outputs = grad_outputs or opts.grad_outputs
    if is_tensor(outputs) then outputs = {outputs} end
    if type(outputs) ~= "table" then
        errors.raisef("%s: outputs must be tensors, got %s as output %d", "autograd.grad", type(outputs), 1)
    end
    if not is_tensor(inputs) and type(inputs) ~= "table" then
        errors.raisef("autograd.grad: inputs must be a tensor or a list of tensors, got %s", type(inputs))
    end
    local single = is_tensor(inputs)
    if single then inputs = {inputs} end
    if is_tensor(grad_outputs) then grad_outputs = {grad_outputs} end
    local targets, capture = {}, {}
    for i, x in ipairs(inputs) do
        if not is_tensor(x) or not graph.requires_grad(x) then
            errors.raisef("autograd.grad: input %d does not require grad", i)
        end
        targets[i] = graph.edge(x)
        capture[targets[i]] = true
    end
    local roots, gs = make_grads("autograd.grad", outputs, grad_outputs)
    local got = engine.run(roots, gs, opts.retain_graph == true, capture)
    local result = {}
    for i, node in ipairs(targets) do
        local g = got[node]
        if g == nil and not opts.allow_unused then
            errors.raisef("autograd.grad: One of the differentiated Tensors (input %d) appears to not have been "
                          .. "used in the graph. Set {allow_unused = true} if this is the desired behavior.", i)
        end
        result[i] = g and torch.clone(g) or nil
    end
    if single then return result[1] end
    return result
end

methods.requires_grad_ = M.requires_grad_
methods.detach = M.detach
methods.retain_grad = M.retain_grad
methods.backward = M.backward

-- detach_: makes t a leaf that does not require grad (its values unchanged)
function methods.detach_(t)
    local m = meta[t]
    if m then
        m.grad_fn, m.requires_grad = nil, nil
    end
    return t
end

-- ---- creation with {requires_grad = true} --------------------------------------------------------

-- The options table (the last argument) without requires_grad, and the flag.
local function take_requires_grad(n, ...)
    if n == 0 then return nil end
    local last = select(n, ...)
    if type(last) ~= "table" or getmetatable(last) ~= nil or last.requires_grad == nil then
        return nil
    end
    return last
end

local CREATORS = {"tensor", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
                  "full_like", "arange", "eye", "rand", "randn"}
for _, key in ipairs(CREATORS) do
    local orig = torch[key]
    if orig then
        torch[key] = function(...)
            local n = select("#", ...)
            local opts = take_requires_grad(n, ...)
            if not opts then return orig(...) end
            local flag = opts.requires_grad
            local rest = {}
            for k, v in pairs(opts) do
                if k ~= "requires_grad" then rest[k] = v end
            end
            local args = table.pack(...)
            if next(rest) == nil then
                args.n = args.n - 1
            else
                args[n] = rest
            end
            local t = orig(table.unpack(args, 1, args.n))
            if type(flag) ~= "boolean" then
                errors.raisef("%s: requires_grad must be true or false, got %s", key, type(flag))
            end
            if flag then M.requires_grad_(t, true) end
            return t
        end
    end
end

-- ---- in-place ops --------------------------------------------------------------------------------

local sum_to = require("attn.autograd.ops_math").sum_to

local function record_add_sub(name, sign)
    return function(self, other, opts)
        local has_t = is_tensor(other)
        -- other's gradient is maybe_multiply(±grad, alpha), as for add and sub (ops_math.lua); alpha was
        -- ignored here: c:add_(b, {alpha = 2}) gave b the gradient 1, PyTorch 2 (scripts/fuzz_grads.lua found it)
        local alpha = type(opts) == "table" and opts.alpha or 1
        -- Backward0 either way: PyTorch wraps a Python number as a tensor (x.add_(2): AddBackward0)
        registry.record(self, name .. "Backward0", has_t and {1, 2} or {1},
            function(node, g)
                local s2 = node.ctx.shapes[2]
                local go = sign < 0 and g:neg() or g
                return {g, s2 and sum_to(alpha == 1 and go or go * alpha, s2) or nil}
            end, nil, table.pack(self, other))
    end
end

local function record_scale(name, fn)
    return function(self, other)
        if is_tensor(other) and graph.requires_grad(other) then
            errors.raisef("%s_: the gradient for the other operand needs the old value of the tensor, which an "
                          .. "in-place op overwrites; use the op without _", name:lower())
        end
        local has_t = is_tensor(other)
        registry.record(self, name .. "Backward0", {1}, function(node, g)
            return {fn(g, has_t and node:saved(1) or node.ctx.plain[2])}
        end, {save = has_t and {2} or {}}, table.pack(self, other))
    end
end

registry.inplace(methods, "add_", record_add_sub("Add", 1))
registry.inplace(methods, "sub_", record_add_sub("Sub", -1))
registry.inplace(methods, "mul_", record_scale("Mul", function(g, v) return g * v end))
registry.inplace(methods, "div_", record_scale("Div", function(g, v) return g / v end))
registry.inplace(methods, "copy_", function(self, src)
    registry.record(self, "CopyBackwards", {1, 2}, function(node, g)
        return {torch.zeros_like(g), sum_to(g, node.ctx.shapes[2])}
    end, nil, table.pack(self, src))
end)
-- fill_, zero_ and the random fills: PyTorch records them (FillBackward2, ...: a zero gradient for the history
-- before), so the result still requires grad and a backward through an op that saved the overwritten tensor
-- fails on its version. attn dropped the history: "element 0 of tensors does not require grad".
local FILLS = {{"fill_", "FillBackward2"}, {"zero_", "ZeroBackward0"}, {"uniform_", "UniformBackward0"},
               {"normal_", "NormalBackward0"}, {"bernoulli_", "BernoulliBackward2"},
               {"exponential_", "ExponentialBackward0"}}
for _, fill in ipairs(FILLS) do
    local key, name = fill[1], fill[2]
    if methods[key] then
        registry.inplace(methods, key, function(self)
            registry.record(self, name, {1}, function(_, g) return {torch.zeros_like(g)} end, nil, table.pack(self))
        end)
    end
end

return M
