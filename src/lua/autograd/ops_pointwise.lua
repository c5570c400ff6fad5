-- ops_pointwise.lua — the backward of sin, cos, erf, where, maximum/minimum, addcmul and addcdiv (module
-- attn.autograd.ops_pointwise): RoPE's sin and cos, erf's GELU, masking with torch.where, clipping with
-- maximum/minimum, the optimizers' fused multiply-adds. Each formula is PyTorch 1.13's
-- (tools/autograd/derivatives.yaml), written with the same operations in the same order, so the float32
-- gradients are PyTorch's bits (tests/lua/autograd_reference_spec.lua). A broadcast input gets its
-- gradient summed back to its shape (ops_math.sum_to, the engine's at::sum_to in PyTorch).
local C = require("attn.bind")
local registry = require("attn.autograd.registry")
local ops_math = require("attn.autograd.ops_math")
local extra = require("attn.autograd.formulas_extra")

local torch, methods = C.torch, C.methods
local is_tensor = torch.is_tensor
local sum_to = ops_math.sum_to

local M = {}

-- ---- one input ---------------------------------------------------------------------------------

local function unary(key, name, backward)
    for _, tbl in ipairs({torch, methods}) do
        if tbl[key] then registry.op(tbl, key, name, {1}, backward, {save = {1}}) end
    end
end

-- sin: grad * self.cos().conj()
unary("sin", "SinBackward0", function(node, g, x) return {g * x:cos()} end)
-- cos: grad * -self.sin().conj()
unary("cos", "CosBackward0", function(node, g, x) return {g * x:sin():neg()} end)
-- erf: 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad, left to right (the double constant is a float
-- operand to the float tensor, as PyTorch's wrapped number)
local TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
unary("erf", "ErfBackward0", function(node, g, x) return {x:pow(2):neg():exp() * TWO_OVER_SQRT_PI * g} end)

-- ---- several tensors, any of which may be a number ------------------------------------------------

-- A recorder (registry.recorder's kind) for an op whose arguments at `positions` are differentiable
-- when they are tensors (a number there has no gradient) and whose backward reads the tensors at
-- `save`: backward(node, g, arg1, arg2, ...) -> gradients by argument position.
local function tensors_recorder(name, positions, save, backward)
    return function(orig, ...)
        local out = orig(...)
        local args = table.pack(...)
        local inputs, saved = {}, {}
        for _, pos in ipairs(positions) do
            if is_tensor(args[pos]) then inputs[#inputs + 1] = pos end
        end
        for _, pos in ipairs(save) do
            if is_tensor(args[pos]) then saved[#saved + 1] = pos end
        end
        registry.record(out, name, inputs, function(node, g)
            local a = {}
            for i, pos in ipairs(saved) do a[pos] = node:saved(i) end
            for pos, v in pairs(node.ctx.plain) do a[pos] = v end
            return backward(node, g, table.unpack(a, 1, node.ctx.n))
        end, {save = saved, saves_state = true}, args)
        return out
    end
end

-- the gradient of argument pos, summed to its shape, or nil when it was a number
local function to_shape(node, g, pos)
    local shape = node.ctx.shapes[pos]
    return shape and g and sum_to(g, shape) or nil
end

-- where: self: where(condition, grad, 0); other: where(condition, 0, grad) (formulas_extra.where_backward),
-- then each summed to its input's shape. torch.where(cond, x, y)
-- and x:where(cond, y) (PyTorch's Tensor.where: the condition second).
local function where_backward(cond_pos, x_pos, y_pos)
    return function(node, g, ...)
        local gx, gy = extra.where_backward(g, (select(cond_pos, ...)))
        return {[x_pos] = to_shape(node, gx, x_pos), [y_pos] = to_shape(node, gy, y_pos)}
    end
end
registry.wrap(torch, "where", tensors_recorder("WhereBackward0", {2, 3}, {1}, where_backward(1, 2, 3)))
registry.wrap(methods, "where", tensors_recorder("WhereBackward0", {1, 3}, {2}, where_backward(2, 1, 3)))

-- maximum: self: at::where(self == other, grad / 2, grad).masked_fill_(self < other, 0)
--          other: at::where(self == other, grad / 2, grad).masked_fill_(self > other, 0)
-- minimum: the same with < and > swapped. A tie shares the gradient; NaN (no order) gives it to both.
local function pairwise_backward(is_max)
    return function(node, g, a, b)
        local shared = torch.where(a:eq(b), g / 2, g)
        local a_loses, b_loses = a:lt(b), a:gt(b)
        if not is_max then a_loses, b_loses = b_loses, a_loses end
        return {to_shape(node, shared:masked_fill(a_loses, 0), 1), to_shape(node, shared:masked_fill(b_loses, 0), 2)}
    end
end
M.maximum = tensors_recorder("MaximumBackward0", {1, 2}, {1, 2}, pairwise_backward(true))
M.minimum = tensors_recorder("MinimumBackward0", {1, 2}, {1, 2}, pairwise_backward(false))
for _, tbl in ipairs({torch, methods}) do
    registry.wrap(tbl, "maximum", M.maximum)
    registry.wrap(tbl, "minimum", M.minimum)
end

-- addcmul(self, t1, t2, {value = v}) = self + v * t1 * t2:
--   self: grad; tensor1: grad * (tensor2 * value).conj(); tensor2: grad * (tensor1 * value).conj()
-- addcdiv(self, t1, t2, {value = v}) = self + v * t1 / t2:
--   self: grad; tensor1: grad * (value / tensor2).conj();
--   tensor2: -grad * (value * tensor1 / (tensor2 * tensor2)).conj()
-- (value / tensor2 is ATen's Scalar / Tensor: a tensor filled with value, divided by tensor2)
local function value_of(opts) return type(opts) == "table" and opts.value or 1 end

local function addcmul_backward(node, g, x, t1, t2, opts)
    local v = value_of(opts)
    return {to_shape(node, g, 1), to_shape(node, t2 and g * (t2 * v), 2), to_shape(node, t1 and g * (t1 * v), 3)}
end
local function addcdiv_backward(node, g, x, t1, t2, opts)
    local v = value_of(opts)
    return {to_shape(node, g, 1), to_shape(node, g * (torch.full_like(t2, v) / t2), 2),
            to_shape(node, t1 and g:neg() * (t1 * v / (t2 * t2)), 3)}
end
for _, tbl in ipairs({torch, methods}) do
    -- each tensor's gradient reads the other: both kept (PyTorch saves both, and the value)
    registry.wrap(tbl, "addcmul", tensors_recorder("AddcmulBackward0", {1, 2, 3}, {2, 3}, addcmul_backward))
    registry.wrap(tbl, "addcdiv", tensors_recorder("AddcdivBackward0", {1, 2, 3}, {2, 3}, addcdiv_backward))
end

return M
