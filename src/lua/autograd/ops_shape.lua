-- ops_shape.lua — the backward of views and joins (module attn.autograd.ops_shape): view, reshape,
-- transpose, permute, t, .T, narrow, select, expand, squeeze, unsqueeze, contiguous, clone, flatten,
-- cat and stack; and flip (a copy). A view's gradient is the gradient put back in the input's shape; PyTorch's node
-- names (ViewBackward0, SliceBackward0 for narrow, ...). A view remembers the tensor it views
-- (meta.base), so that an in-place op on it is refused instead of silently losing the graph.
local C = require("attn.bind")
local graph = require("attn.autograd.graph")
local registry = require("attn.autograd.registry")
local sum_to = require("attn.autograd.ops_math").sum_to

local torch, methods = C.torch, C.methods
local is_tensor = torch.is_tensor

local M = {}

-- out is a view of x: remember the first tensor of the chain
local function mark_view(out, x)
    if out ~= x and C.autograd.shares_storage(out, x) then
        local mx = graph.meta[x]
        graph.get(out).base = (mx and mx.base) or x
    end
end

local function view_op(key, name, backward, tables)
    for _, tbl in ipairs(tables or {torch, methods}) do
        if tbl[key] then
            registry.wrap(tbl, key, function(orig, x, ...)
                local out = orig(x, ...)
                if out == x then return out end -- contiguous() of a contiguous tensor is the tensor
                local args = table.pack(x, ...)
                local n = type(name) == "function" and name(x, ...) or name
                registry.record(out, n, {1}, function(node, g)
                    return backward(node, g, table.unpack(args, 2, args.n))
                end, nil, args)
                args[1] = nil -- the closure keeps the dims, not the tensor
                mark_view(out, x)
                return out
            end)
        end
    end
end

local function input_shape(node) return node.ctx.shapes[1] end

local function back_to_shape(node, g) return {g:reshape(input_shape(node))} end

view_op("view", "ViewBackward0", back_to_shape)
-- PyTorch 1.13's reshape: a view when it can be one (_reshape_alias), else a copy (clone + _unsafe_view)
view_op("reshape", function(x) return x:is_contiguous() and "ViewBackward0" or "UnsafeViewBackward0" end,
        back_to_shape)
view_op("flatten", function(x) return x:is_contiguous() and "ViewBackward0" or "UnsafeViewBackward0" end,
        back_to_shape)
view_op("squeeze", function(x, dim) return dim == nil and "SqueezeBackward0" or "SqueezeBackward1" end,
        back_to_shape)
view_op("unsqueeze", "UnsqueezeBackward0", function(node, g, dim) return {g:squeeze(dim)} end)
view_op("transpose", "TransposeBackward0", function(node, g, a, b) return {g:transpose(a, b)} end)
view_op("t", "TBackward0", function(node, g) return {g:t()} end)
view_op("permute", "PermuteBackward0", function(node, g, ...)
    local dims = {...}
    if type(dims[1]) == "table" then dims = dims[1] end
    local n = #dims
    local inverse = {}
    for i, d in ipairs(dims) do
        if d < 0 then d = n + 1 + d end
        inverse[d] = i
    end
    return {g:permute(table.unpack(inverse, 1, n))}
end)
view_op("expand", "ExpandBackward0", function(node, g) return {sum_to(g, input_shape(node))} end, {methods})
view_op("contiguous", "CloneBackward0", function(node, g) return {g} end, {methods})
view_op("clone", "CloneBackward0", function(node, g) return {g} end)

-- narrow is PyTorch's slice: the gradient goes into zeros at the slice's place
view_op("narrow", "SliceBackward0", function(node, g, dim, start, length)
    local z = torch.zeros(input_shape(node))
    z:narrow(dim, start, length):copy_(g)
    return {z}
end)
view_op("select", "SelectBackward0", function(node, g, dim, index)
    local z = torch.zeros(input_shape(node))
    z:select(dim, index):copy_(g)
    return {z}
end)

-- x.T: PyTorch's Tensor.T is a permute of all dims (PermuteBackward0); x.mT a transpose of the last two
function M.T(x, raw_index, key)
    local out = raw_index(x, key)
    if not (graph.enabled and graph.requires_grad(x)) then return out end
    local n = x.ndim
    local name = key == "mT" and "TransposeBackward0" or (n == 2 and "PermuteBackward0" or "PermuteBackward0")
    registry.record(out, name, {1}, function(node, g)
        if key == "mT" then return {g:transpose(-2, -1)} end
        local dims = {}
        for i = 1, n do dims[i] = n + 1 - i end
        return {n < 2 and g or g:permute(table.unpack(dims))}
    end, nil, {x, n = 1})
    mark_view(out, x)
    return out
end

-- ---- flip: PyTorch's torch.flip(x, dims) and x:flip(dims) (a copy, FlipBackward0) -------------------
-- dims are attn's (1-based, negative from the end): x:flip(2) is Python's x.flip(1). The copy is made by
-- indexing each dim with n, n-1, ..., 1; the gradient is the gradient flipped along the same dims.
local errors = require("attn.errors")
local function flip_dims(x, ...)
    local dims = select("#", ...) == 1 and type((...)) == "table" and (...) or {...}
    local n, out = x.ndim, {}
    for i, d in ipairs(dims) do
        if math.type(d) ~= "integer" or d == 0 or d < -n or d > n then
            errors.raisef("flip: dims must be dimensions of a %d-D tensor (1 to %d, or -1 to -%d), got %s", n, n, n,
                          tostring(d))
        end
        out[i] = d < 0 and n + 1 + d or d
    end
    return out
end
local function flip(x, ...)
    if not is_tensor(x) then errors.raisef("flip: expected a tensor, got %s", type(x)) end
    local out = x:clone()
    for _, d in ipairs(flip_dims(x, ...)) do
        local index = {}
        for i = 1, x.ndim do index[i] = {} end
        index[d] = torch.arange(x.shape[d], 0, -1)
        if x.shape[d] > 1 then out = out[index] end
    end
    return out
end
torch.flip, methods.flip = flip, flip
for _, tbl in ipairs({torch, methods}) do
    registry.op(tbl, "flip", "FlipBackward0", {1}, function(node, g, x, ...) return {flip(g, ...)} end)
end

-- ---- cat and stack: the inputs are a list --------------------------------------------------------

local function join(key, name, backward)
    registry.wrap(torch, key, function(orig, list, dim, ...)
        local out = orig(list, dim, ...)
        local inputs, args = {}, {n = #list}
        for i, t in ipairs(list) do
            args[i] = t
            inputs[i] = i
        end
        local d = dim or 1
        local sizes = {}
        for i, t in ipairs(list) do sizes[i] = is_tensor(t) and t.shape or nil end
        registry.record(out, name, inputs, function(node, g)
            return backward(g, d, sizes)
        end, nil, args)
        return out
    end)
end

-- cat_tensors_backward: each input's slice of the gradient along dim
join("cat", "CatBackward0", function(g, dim, sizes)
    local grads, at = {}, 1
    if dim < 0 then dim = g.ndim + 1 + dim end
    for i, s in ipairs(sizes) do
        local len = s[dim]
        grads[i] = g:narrow(dim, at, len)
        at = at + len
    end
    return grads
end)

join("stack", "StackBackward0", function(g, dim, sizes)
    local grads = {}
    if dim < 0 then dim = g.ndim + 1 + dim end
    for i = 1, #sizes do grads[i] = g:select(dim, i) end
    return grads
end)

return M
