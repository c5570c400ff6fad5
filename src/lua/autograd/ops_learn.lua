-- ops_learn.lua — the training ops' backward, registered with the engine (module attn.autograd.ops_learn):
-- the losses (cross_entropy, nll_loss, mse_loss), log_softmax, gather, var/std, max/min and topk.
-- The formulas themselves are plain functions in formulas_extra.lua (checked against PyTorch there);
-- this file only says, for each op, which arguments are differentiable, what backward reads, and
-- PyTorch's node name, following the recipe at the top of registry.lua. Loaded after no_grad_ops.lua,
-- so each registration replaces that file's stand-in (which refused a backward reaching the op).
local C = require("attn.bind")
local registry = require("attn.autograd.registry")
local extra = require("attn.autograd.formulas_extra")
local pointwise = require("attn.autograd.ops_pointwise")
local torch = C.torch
local is_tensor = torch.is_tensor

-- The losses, as nn.functional calls them: learn.f(input, target, ignore_index, reduction, fn).
-- F.cross_entropy is log_softmax then nll_loss in PyTorch too, so its result's grad_fn is
-- NllLossBackward0 there; the gradient is the chain of the two (formulas_extra.cross_entropy_backward).
local L = C.learn
local function loss_opts(ignore_index, reduction) return {ignore_index = ignore_index, reduction = reduction} end
registry.op(L, "cross_entropy", "NllLossBackward0", {1}, function(node, g, input, target, ignore, reduction)
    return {extra.cross_entropy_backward(g, input, target, loss_opts(ignore, reduction))}
end, {save = {1, 2}})
registry.op(L, "nll_loss", "NllLossBackward0", {1}, function(node, g, input, target, ignore, reduction)
    return {extra.nll_loss_backward(g, input, target, loss_opts(ignore, reduction))}
end, {save = {1, 2}})
registry.op(L, "mse_loss", "MseLossBackward0", {1, 2}, function(node, g, input, target, reduction)
    local gi, gt = extra.mse_loss_backward(g, input, target, {reduction = reduction})
    return {gi, gt}
end, {save = {1, 2}})

-- var/std take x:var(), x:var(unbiased), x:var(dim [, unbiased [, keepdim]]) or x:var{dim =, unbiased =,
-- correction =, keepdim =} (src/bind/variance.c); the formulas take the table form.
local function var_opts(a, b, c)
    if type(a) == "table" then return a end
    if type(a) == "boolean" then return {unbiased = a} end
    if a == nil then return {} end
    return {dim = a, unbiased = b, keepdim = c}
end
for _, t in ipairs({torch, C.methods}) do
    if t.var then
        registry.op(t, "var", "VarBackward0", {1}, function(node, g, x, a, b, c)
            return {extra.var_backward(g, x, var_opts(a, b, c))}
        end, {save = {1}})
    end
    if t.std then
        registry.op(t, "std", "StdBackward0", {1}, function(node, g, x, a, b, c)
            return {extra.std_backward(g, node.ctx:output(), x, var_opts(a, b, c))}
        end, {save = {1}, save_output = true})
    end
    -- x:log_softmax(dim) or x:log_softmax{dim = d}
    if t.log_softmax then
        registry.op(t, "log_softmax", "LogSoftmaxBackward0", {1}, function(node, g, x, dim)
            if type(dim) == "table" then dim = dim.dim end
            return {extra.log_softmax_backward(g, node.ctx:output(), dim)}
        end, {save_output = true})
    end
    -- gather(input, dim, index): the index has no gradient
    if t.gather then
        registry.op(t, "gather", "GatherBackward0", {1}, function(node, g, x, dim, index)
            return {extra.gather_backward(g, x, dim, index)}
        end, {save = {1, 3}})
    end
    -- max/min: along a dim (values, indices: MaxBackward0) or over everything (MaxBackward1), as
    -- no_grad_ops.lua names them; x:max(other) is maximum(x, other) (ops_pointwise.lua)
    for _, key in ipairs({"max", "min"}) do
        if t[key] then
            local base = key == "max" and "Max" or "Min"
            local reduce = registry.recorder(function(x, dim)
                local d = type(dim) == "table" and dim.dim or dim
                return base .. (d == nil and "Backward1" or "Backward0")
            end, {1}, function(node, g, x, dim, keepdim)
                if type(dim) == "table" then dim, keepdim = dim.dim, dim.keepdim end
                if dim == nil then return {extra.max_all_backward(g, x, node.ctx:output())} end
                return {extra.max_backward(g, x, dim, node.ctx.outputs[2], keepdim)}
            end, {save = {1}, save_output = true})
            local pairwise = key == "max" and pointwise.maximum or pointwise.minimum
            registry.wrap(t, key, function(orig, x, other, ...)
                if is_tensor(other) then return pairwise(orig, x, other, ...) end
                return reduce(orig, x, other, ...)
            end)
        end
    end
    -- topk(x, k [, {dim = -1, ...}]): derivatives.yaml "topk": value_selecting_reduction_backward(grad,
    -- dim, indices, self.sizes(), true), zeros of x's shape with grad scattered to the indices (1-based
    -- here). Only x's shape is kept, as PyTorch keeps it.
    if t.topk then
        registry.op(t, "topk", "TopkBackward0", {1}, function(node, g, x, k, opts)
            local shape = node.ctx.shapes[1]
            local dim = type(opts) == "table" and opts.dim or -1
            if dim < 0 then dim = dim + #shape + 1 end
            return {torch.zeros(shape):scatter(dim, node.ctx.outputs[2], g)}
        end)
    end
end

return {}
