-- sgd.lua — torch.optim.SGD (module attn.optim.sgd): PyTorch 1.13's _single_tensor_sgd
-- (torch/optim/sgd.py), operation for operation:
--     d_p = d_p.add(param, alpha=weight_decay)          if weight_decay != 0
--     buf = clone(d_p) on the first step, else buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
--     d_p = d_p.add(buf, alpha=momentum) if nesterov else buf        (when momentum != 0)
--     param.add_(d_p, alpha=-lr)
-- add with alpha is one fused multiply-add per element, as in PyTorch (src/core/pointwise.c); the
-- scalars (1 - dampening, -lr) are Lua doubles as Python's are floats, cast to float by the kernel.
local optimizer = require("attn.optim.optimizer")
local errors = require("attn.errors")
local check = require("attn.check")

local USAGE = "SGD(params, {lr =, momentum = 0, dampening = 0, weight_decay = 0, nesterov = false, maximize = false})"
local DEFAULTS = {lr = optimizer.REQUIRED, momentum = 0, dampening = 0, weight_decay = 0, nesterov = false,
                  maximize = false}

local function check_options(name, o)
    for _, k in ipairs({"lr", "momentum", "weight_decay"}) do
        if type(o[k]) ~= "number" or not (o[k] >= 0) then
            errors.raisef("%s: %s must be a number >= 0, got %s", name, k, check.describe(o[k]))
        end
    end
    if type(o.dampening) ~= "number" then
        errors.raisef("%s: dampening must be a number, got %s", name, check.describe(o.dampening))
    end
    check.boolean(name, "nesterov", o.nesterov)
    check.boolean(name, "maximize", o.maximize)
    if o.nesterov and (o.momentum <= 0 or o.dampening ~= 0) then
        errors.raisef("%s: Nesterov momentum requires a momentum and zero dampening", name)
    end
end

-- states[i].momentum_buffer is PyTorch's state['momentum_buffer'].
local function step_tensors(params, grads, states, o)
    for i, param in ipairs(params) do
        local d_p = o.maximize and -grads[i] or grads[i]
        if o.weight_decay ~= 0 then
            d_p = d_p:add(param, {alpha = o.weight_decay})
        end
        if o.momentum ~= 0 then
            local buf = states[i].momentum_buffer
            if buf == nil then
                buf = d_p:clone()
                states[i].momentum_buffer = buf
            else
                buf:mul_(o.momentum):add_(d_p, {alpha = 1 - o.dampening})
            end
            if o.nesterov then
                d_p = d_p:add(buf, {alpha = o.momentum})
            else
                d_p = buf
            end
        end
        param:add_(d_p, {alpha = -o.lr})
    end
end

return optimizer.class("SGD", DEFAULTS, check_options, step_tensors, USAGE)
