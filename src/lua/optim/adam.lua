-- adam.lua — torch.optim.Adam (module attn.optim.adam): PyTorch 1.13's _single_tensor_adam
-- (torch/optim/adam.py) on CPU tensors, operation for operation; adamw.lua shares its update.
--     step_t += 1                                   (a float32 0-d tensor, as PyTorch keeps it)
--     grad = grad.add(param, alpha=weight_decay)    if weight_decay != 0   (Adam; AdamW decays param)
--     exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
--     exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
--     bias_correction1 = 1 - beta1 ** step ; bias_correction2 = 1 - beta2 ** step     (doubles)
--     step_size = lr / bias_correction1 ; bias_correction2_sqrt = math.sqrt(bias_correction2)
--     denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)      (max_exp_avg_sq with amsgrad)
--     param.addcdiv_(exp_avg, denom, value=-step_size)
-- Lua's numbers are doubles and its ^ is C's pow, as Python's ** on floats: the same scalars. The
-- tensor operations round as PyTorch's kernels (add with alpha and addcmul fuse a multiply-add:
-- src/core/pointwise.c).
local optimizer = require("attn.optim.optimizer")
local errors = require("attn.errors")
local check = require("attn.check")
local torch = require("attn.bind").torch
local learn = require("attn.bind").learn

local adam = {}

adam.USAGE = "Adam(params, {lr = 0.001, betas = {0.9, 0.999}, eps = 1e-08, weight_decay = 0, amsgrad = false, maximize = false})"
adam.DEFAULTS = {lr = 1e-3, betas = {0.9, 0.999}, eps = 1e-8, weight_decay = 0, amsgrad = false, maximize = false}

function adam.check_options(name, o)
    for _, k in ipairs({"lr", "eps", "weight_decay"}) do
        if type(o[k]) ~= "number" or not (o[k] >= 0) then
            errors.raisef("%s: %s must be a number >= 0, got %s", name, k, check.describe(o[k]))
        end
    end
    local b = o.betas
    if type(b) ~= "table" or #b ~= 2 then
        errors.raisef("%s: betas must be a pair such as {0.9, 0.999}, got %s", name, check.describe(b))
    end
    for j = 1, 2 do
        if type(b[j]) ~= "number" or not (b[j] >= 0 and b[j] < 1) then
            errors.raisef("%s: betas[%d] must be in [0, 1), got %s", name, j, check.describe(b[j]))
        end
    end
    check.boolean(name, "amsgrad", o.amsgrad)
    check.boolean(name, "maximize", o.maximize)
end

-- One parameter's update. decoupled: AdamW's weight decay (param.mul_(1 - lr * weight_decay)) instead
-- of Adam's (grad + weight_decay * param). st holds PyTorch's state: step (a float32 0-d tensor),
-- exp_avg, exp_avg_sq (and max_exp_avg_sq with amsgrad), made on the first step.
function adam.update(param, grad, st, o, decoupled)
    local beta1, beta2 = o.betas[1], o.betas[2]
    if st.step == nil then
        st.step = torch.tensor(0.0)
        st.exp_avg = torch.zeros_like(param)
        st.exp_avg_sq = torch.zeros_like(param)
        if o.amsgrad then st.max_exp_avg_sq = torch.zeros_like(param) end
    end
    if o.maximize then grad = -grad end
    st.step:add_(1)
    local step = st.step:item()
    local bias_correction1 = 1 - beta1 ^ step
    local bias_correction2 = 1 - beta2 ^ step
    local step_size = o.lr / bias_correction1
    local bias_correction2_sqrt = math.sqrt(bias_correction2)
    if not decoupled and o.weight_decay ~= 0 then
        grad = grad:add(param, {alpha = o.weight_decay})
    end
    -- the whole update in one pass, the same roundings (src/core/adam_step.c); false when a tensor is
    -- not contiguous float32, and then the operations one by one
    if not o.amsgrad and learn.adam_step(param, grad, st.exp_avg, st.exp_avg_sq,
            {decoupled = decoupled, decay = 1 - o.lr * o.weight_decay, beta1 = beta1, beta2 = beta2, eps = o.eps,
             bias_correction2_sqrt = bias_correction2_sqrt, step_size = step_size}) then
        return
    end
    if decoupled then
        param:mul_(1 - o.lr * o.weight_decay)
    end
    st.exp_avg:mul_(beta1):add_(grad, {alpha = 1 - beta1})
    st.exp_avg_sq:mul_(beta2):addcmul_(grad, grad, {value = 1 - beta2})
    local second = st.exp_avg_sq
    if o.amsgrad then
        st.max_exp_avg_sq:copy_(torch.maximum(st.max_exp_avg_sq, st.exp_avg_sq))
        second = st.max_exp_avg_sq
    end
    local denom = (second:sqrt() / bias_correction2_sqrt):add_(o.eps)
    param:addcdiv_(st.exp_avg, denom, {value = -step_size})
end

local function step_tensors(params, grads, states, o)
    for i, param in ipairs(params) do
        adam.update(param, grads[i], states[i], o, false)
    end
end

adam.class = optimizer.class("Adam", adam.DEFAULTS, adam.check_options, step_tensors, adam.USAGE)

return adam
