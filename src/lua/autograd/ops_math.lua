-- ops_math.lua — the backward of arithmetic, element-wise functions and reductions (module
-- attn.autograd.ops_math). Each formula is PyTorch 1.13's (tools/autograd/derivatives.yaml and
-- FunctionsManual.cpp), written with the same operations in the same order, so that the float32
-- results are the same bits wherever attn's forward op is PyTorch's.
local C = require("attn.bind")
local registry = require("attn.autograd.registry")
local graph = require("attn.autograd.graph")

local torch, methods, mt = C.torch, C.methods, C.metatable
local is_tensor = torch.is_tensor
local op = registry.op

local M = {}

-- PyTorch's at::sum_to: the gradient of a broadcast input, summed back to its shape. The leading
-- dims go in one reduction (reshaped to [-1, rest]: a contiguous gradient's leading dims are one
-- dim to PyTorch's TensorIterator too), then each dim the input had as 1, kept.
function M.sum_to(g, shape)
    local n = #shape
    -- PyTorch reduces the inner (stride-1) dims first: the dims kept as 1, innermost first, then the
    -- leading ones
    local lead = g.ndim - n
    for d = n, 1, -1 do
        if shape[d] == 1 and g.shape[lead + d] ~= 1 then g = g:sum(lead + d, true) end
    end
    if g.ndim > n then
        local rest = {-1}
        for d = g.ndim - n + 1, g.ndim do rest[#rest + 1] = g.shape[d] end
        g = g:reshape(table.unpack(rest)):sum(1)
        if n == 0 then return g:reshape({}) end
    end
    return g
end
local sum_to = M.sum_to

local function shape_of(node, pos) return node.ctx.shapes[pos] end

-- the gradient of input pos of a broadcasting op, or nil when that argument was a number
local function to_input(node, g, pos)
    local shape = shape_of(node, pos)
    if not shape then return nil end
    return sum_to(g, shape)
end

-- a op b: PyTorch 1.13 names both a op tensor and a op number ...Backward0 (Python wraps the number in
-- a tensor); number - tensor is RsubBackward1
local function binary_name(base)
    return function(a, b)
        if not is_tensor(a) and base == "Sub" then return "RsubBackward1" end
        return base .. "Backward0"
    end
end

-- The alpha of add(a, b, {alpha = s}) and sub: the options table after the two operands, or 1.
local function alpha_of(node)
    local opts = node.ctx.plain[3]
    if type(opts) == "table" and opts.alpha ~= nil then return opts.alpha end
    return 1
end

-- derivatives.yaml: other gets maybe_multiply(grad, alpha) (grad itself when alpha is 1), then the
-- engine's sum_to; alpha was ignored here: x:add(x * x, {alpha = 3}) gave 1 + 2x instead of 1 + 6x
local function add_backward(node, g)
    local alpha = alpha_of(node)
    local b = shape_of(node, 2)
    return {to_input(node, g, 1), b and sum_to(alpha == 1 and g or g * alpha, b)}
end

-- other gets maybe_multiply(-grad, alpha)
local function sub_backward(node, g)
    local alpha = alpha_of(node)
    local a, b = node.ctx.shapes[1], node.ctx.shapes[2]
    local nb = b and g:neg()
    return {a and sum_to(g, a), b and sum_to(alpha == 1 and nb or nb * alpha, b)}
end

-- need_a, need_b: whether a, b get a gradient (require grad); only those are computed, from what was saved
local function mul_backward(node, g, a, b, need_a, need_b)
    -- grad * other (mul_tensor_backward); a number side has no gradient
    return {need_a and sum_to(g * b, node.ctx.shapes[1]) or nil,
            need_b and sum_to(g * a, node.ctx.shapes[2]) or nil}
end

local function div_backward(node, g, a, b, need_a, need_b)
    local ga, gb
    if need_a then ga = sum_to(g / b, node.ctx.shapes[1]) end
    if need_b then
        -- div_tensor_other_backward: -grad * ((self / other) / other)
        gb = sum_to(g:neg() * ((a / b) / b), node.ctx.shapes[2])
    end
    return {ga, gb}
end

-- What * and / save, as derivatives.yaml has them: a * b keeps b when a requires grad and a when b
-- does (dropout's x * noise keeps only the noise, 0.5 * x nothing); a / b keeps b when either does and
-- a when b does. A number operand is kept in the closure as it is.
local SAVES = {
    mul = function(need_a, need_b) return need_b, need_a end,
    div = function(need_a, need_b) return need_b, need_a or need_b end,
}

-- the arithmetic ops save only what their formula reads (SAVES); saves: nil for + and -
local function binary(tbl, key, base, backward, saves)
    local names = binary_name(base)
    registry.wrap(tbl, key, function(orig, a, b, ...)
        local out = orig(a, b, ...)
        local args = table.pack(a, b, ...)
        local inputs = {}
        if is_tensor(a) then inputs[#inputs + 1] = 1 end
        if is_tensor(b) then inputs[#inputs + 1] = 2 end
        -- the closure keeps numbers and flags, never the tensors (those only as saved, checked, freed)
        local ta, tb = is_tensor(a), is_tensor(b)
        local na, nb = (not ta) and a or nil, (not tb) and b or nil
        local need_a, need_b = ta and graph.requires_grad(a), tb and graph.requires_grad(b)
        local opts, keep_a, keep_b
        if saves then
            keep_a, keep_b = saves(need_a, need_b)
            keep_a, keep_b = ta and keep_a, tb and keep_b
            local save = {}
            if keep_a then save[#save + 1] = 1 end
            if keep_b then save[#save + 1] = 2 end
            -- PyTorch saves a number operand too (a wrapped scalar): a second backward through a freed
            -- graph is refused even when no tensor was kept
            opts = {save = save, saves_state = true}
        end
        local bw = function(node, g)
            local x, y = na, nb
            if saves then
                node:check_unfreed()
                local k = 0
                if keep_a then k = k + 1; x = node:saved(k) end
                if keep_b then k = k + 1; y = node:saved(k) end
            end
            return backward(node, g, x, y, need_a, need_b)
        end
        registry.record(out, names(a, b), inputs, bw, opts, args)
        return out
    end)
end

for _, tbl in ipairs({torch, methods}) do
    binary(tbl, "add", "Add", add_backward)
    binary(tbl, "sub", "Sub", sub_backward)
    binary(tbl, "mul", "Mul", mul_backward, SAVES.mul)
    binary(tbl, "div", "Div", div_backward, SAVES.div)
end
binary(mt, "__add", "Add", add_backward)
binary(mt, "__sub", "Sub", sub_backward)
binary(mt, "__mul", "Mul", mul_backward, SAVES.mul)
binary(mt, "__div", "Div", div_backward, SAVES.div)

local function neg_backward(node, g) return {g:neg()} end
op(torch, "neg", "NegBackward0", {1}, neg_backward)
op(methods, "neg", "NegBackward0", {1}, neg_backward)
op(mt, "__unm", "NegBackward0", {1}, neg_backward)

-- pow, as derivatives.yaml's three: x ^ number (PowBackward0), x ^ tensor (PowBackward1), number ^ x
-- (PowBackward2). FunctionsManual.cpp's formulas:
--   the base:     grad * (exponent * self.pow(exponent - 1)), zero where the exponent is 0
--   the exponent: grad * (result * self.log()), zero where self is 0 and the exponent >= 0; with a
--                 number base b, grad * (result * log(b)) (zero where the exponent >= 0 when b is 0)
-- A tensor exponent's gradient was missing (an error inside attn), and 3 ^ x with gradients failed.
local function pow_backward(node, g, x, e, result, need_x, need_e)
    local gx, ge
    if need_x then
        if not is_tensor(e) then
            gx = e == 0 and g * 0 or g * (x:pow(e - 1) * e)
        else
            local d = g * (e * x:pow(e - 1))
            gx = torch.where(e:eq(0), torch.zeros_like(d), d)
        end
        gx = sum_to(gx, shape_of(node, 1))
    end
    if need_e then
        if is_tensor(x) then
            local d = result * x:log()
            ge = g * torch.where(x:eq(0):logical_and(e:ge(0)), torch.zeros_like(d), d)
        elseif x == 0 then
            local d = result * math.log(x)
            ge = g * torch.where(e:ge(0), torch.zeros_like(d), d)
        else
            ge = g * (result * math.log(x))
        end
        ge = sum_to(ge, shape_of(node, 2))
    end
    return {gx, ge}
end

local function pow_op(tbl, key)
    registry.wrap(tbl, key, function(orig, a, b, ...)
        local out = orig(a, b, ...)
        local ta, tb = is_tensor(a), is_tensor(b)
        local need_a, need_b = ta and graph.requires_grad(a), tb and graph.requires_grad(b)
        local inputs, save = {}, {}
        if ta then inputs[#inputs + 1], save[#save + 1] = 1, 1 end
        if tb then inputs[#inputs + 1], save[#save + 1] = 2, 2 end
        local name = not tb and "PowBackward0" or ta and "PowBackward1" or "PowBackward2"
        local na, nb = (not ta) and a or nil, (not tb) and b or nil
        registry.record(out, name, inputs, function(node, g)
            node:check_unfreed()
            local x, e, k = na, nb, 0
            if ta then k = k + 1; x = node:saved(k) end
            if tb then k = k + 1; e = node:saved(k) end
            return pow_backward(node, g, x, e, tb and node.ctx:output() or nil, need_a, need_b)
        end, {save = save, save_output = tb, saves_state = true}, table.pack(a, b, ...))
        return out
    end)
end
for _, tbl in ipairs({torch, methods}) do pow_op(tbl, "pow") end
pow_op(mt, "__pow")

-- ---- element-wise functions ---------------------------------------------------------------------

local function unary(key, name, backward, opts)
    op(torch, key, name, {1}, backward, opts)
    if methods[key] then op(methods, key, name, {1}, backward, opts) end
end

unary("exp", "ExpBackward0", function(node, g) return {g * node.ctx:output()} end, {save_output = true})
unary("log", "LogBackward0", function(node, g, x) return {g / x} end, {save = {1}})
unary("sqrt", "SqrtBackward0", function(node, g) return {g / (node.ctx:output() * 2)} end, {save_output = true})
unary("tanh", "TanhBackward0", function(node, g)
    -- tanh_backward: grad * (1 - y * y), 1 - y * y fused as PyTorch's kernel has it (src/core/backward.c)
    return {C.autograd.tanh_backward(g, node.ctx:output())}
end, {save_output = true})
unary("sigmoid", "SigmoidBackward0", function(node, g)
    local y = node.ctx:output()
    return {g * (y:neg() + 1) * y} -- sigmoid_backward: grad * (1 - y) * y
end, {save_output = true})
unary("relu", "ReluBackward0", function(node, g)
    return {g:masked_fill(node.ctx:output():le(0), 0)} -- threshold_backward(grad, result, 0)
end, {save_output = true})

-- abs: grad * sgn(x)
unary("abs", "AbsBackward0", function(node, g, x)
    return {g * (x:gt(0):float() - x:lt(0):float())}
end, {save = {1}})

-- ---- reductions -------------------------------------------------------------------------------

-- sum_backward: the gradient, its reduced dim put back, expanded to the input's shape
local function expand_back(g, shape, dim, keepdim)
    if dim ~= nil and not keepdim then g = g:unsqueeze(dim) end
    return g:expand(shape)
end

local function reduce_args(x, a, b)
    -- x:sum(), x:sum(dim [, keepdim]), x:sum{dim = d, keepdim = k}
    if type(a) == "table" then return a.dim, a.keepdim end
    return a, b
end

local function sum_backward(node, g, x, a, b)
    local dim, keepdim = reduce_args(x, a, b)
    return {expand_back(g, node.ctx.shapes[1], dim, keepdim)}
end

local function mean_backward(node, g, x, a, b)
    local dim, keepdim = reduce_args(x, a, b)
    local shape = node.ctx.shapes[1]
    local n = 1
    if dim == nil then
        for i = 1, #shape do n = n * shape[i] end
    else
        n = shape[dim < 0 and #shape + 1 + dim or dim]
    end
    return {expand_back(g, shape, dim, keepdim) / n}
end

local function reduction_name(base)
    return function(x, a)
        local dim = type(a) == "table" and a.dim or a
        return base .. (dim == nil and "Backward0" or "Backward1")
    end
end

for _, tbl in ipairs({torch, methods}) do
    op(tbl, "sum", reduction_name("Sum"), {1}, sum_backward)
    op(tbl, "mean", reduction_name("Mean"), {1}, mean_backward)
end

return M
