-- adamw.lua — torch.optim.AdamW (module attn.optim.adamw): PyTorch 1.13's _single_tensor_adamw
-- (torch/optim/adamw.py): Adam's update (adam.lua) with the weight decay applied to the parameter
-- first, param.mul_(1 - lr * weight_decay), instead of being added to the gradient. Default
-- weight_decay 0.01. Chapter 5 trains GPT with it.
local optimizer = require("attn.optim.optimizer")
local adam = require("attn.optim.adam")

local USAGE = "AdamW(params, {lr = 0.001, betas = {0.9, 0.999}, eps = 1e-08, weight_decay = 0.01, amsgrad = false, maximize = false})"
local DEFAULTS = {}
for k, v in pairs(adam.DEFAULTS) do DEFAULTS[k] = v end
DEFAULTS.weight_decay = 1e-2

local function step_tensors(params, grads, states, o)
    for i, param in ipairs(params) do
        adam.update(param, grads[i], states[i], o, true)
    end
end

return optimizer.class("AdamW", DEFAULTS, adam.check_options, step_tensors, USAGE)
