-- init.lua — attn's autograd (module attn.autograd): PyTorch's reverse-mode automatic differentiation
-- for every differentiable op, so that attention can be trained, not only computed.
--
-- Loading this module makes the ops differentiable: it replaces, in place, the functions of the
-- bindings' tables (torch, the Tensor's methods and metatable, attention, nn.functional's C part) by
-- wrappers that record a node when an input requires grad. src/lua/init.lua loads it before any other
-- module reads those tables. The parts, one concept each:
--   graph.lua        per-tensor state (requires_grad, grad, grad_fn) and the nodes, saved tensors,
--                    version checks
--   engine.lua       running a backward pass; .grad stored all at once at the end (Ctrl-C safe)
--   grad_mode.lua    torch.no_grad, enable_grad, set_grad_enabled, is_grad_enabled
--   registry.lua     wrapping an op, in-place ops; how to register a new op's backward (at its top)
--   ops_math.lua     + - * / neg pow exp log sqrt tanh sigmoid relu, sum, mean, sum_to
--   ops_shape.lua    views (view, reshape, transpose, permute, narrow, select, expand, ...), cat, stack
--   ops_matmul.lua   matmul, mm, bmm, addmm, dot, attention.scores / weighted_sum
--   ops_nn.lua       softmax, masked_fill, dropout, layer_norm, embedding, gelu, silu, tril/triu, the
--                    other attention stages, attention.fused (by its stages)
--   ops_pointwise.lua sin cos erf where maximum minimum addcmul addcdiv
--   no_grad_ops.lua  the ops without a gradient (argmax, comparisons, ...) and the ones attn cannot
--                    differentiate yet, which say so
--   tensor_api.lua   x.grad, x.grad_fn, x:backward(), printing with grad_fn=<...>, indexing
local graph = require("attn.autograd.graph")
local grad_mode = require("attn.autograd.grad_mode")
require("attn.autograd.ops_math")
require("attn.autograd.ops_shape")
require("attn.autograd.ops_matmul")
require("attn.autograd.ops_nn")
require("attn.autograd.ops_pointwise")
local api = require("attn.autograd.tensor_api")
require("attn.autograd.no_grad_ops")
require("attn.autograd.ops_learn") -- the training ops (formulas_extra.lua), replacing no_grad_ops' stand-ins

local torch = require("attn.bind").torch

torch.no_grad = grad_mode.no_grad
torch.enable_grad = grad_mode.enable_grad
torch.set_grad_enabled = grad_mode.set_grad_enabled
torch.is_grad_enabled = grad_mode.is_grad_enabled
torch.autograd = {
    grad = api.grad, -- ?torch.autograd (docs/autograd.lua)
    backward = function(t, gradient, opts) return api.backward(t, gradient, opts) end,
}

return {
    graph = graph,
    grad_mode = grad_mode,
    registry = require("attn.autograd.registry"),
    tensor_api = api,
    -- marks t as a parameter (printed "Parameter containing:") that requires grad unless told not to
    parameter = function(t, requires_grad)
        graph.get(t).is_param = true
        if requires_grad ~= false then api.requires_grad_(t, true) end
        return t
    end,
}
