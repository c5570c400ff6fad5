-- optimizer.lua — what torch.optim's optimizers share (module attn.optim.optimizer): the parameter
-- groups, the options with their defaults, step() over the parameters that have a gradient,
-- zero_grad(), state_dict(). Each optimizer (sgd.lua, adam.lua, adamw.lua) gives its defaults and a
-- function step_tensors(params, grads, states, opts) that updates params[i] in place from grads[i],
-- keeping what it needs between steps in the table states[i] — the whole arithmetic, written as
-- PyTorch 1.13's single-tensor CPU implementation writes it (torch/optim/*.py, _single_tensor_*), so
-- that every weight and moment is PyTorch's to the last bit. The tests call step_tensors directly with
-- PyTorch's gradients (tests/lua/optim_spec.lua), the class's step() reads p.grad.
local errors = require("attn.errors")
local check = require("attn.check")
local torch = require("attn.bind").torch
local grad_mode = require("attn.autograd.grad_mode")

local optimizer = {}

-- p.grad: the autograd engine (src/lua/autograd) gives tensors this field. A tensor without one (no
-- backward has reached it, or no engine in this build) has no gradient: the step leaves it as it is.
local function grad_of(p)
    local ok, g = pcall(function() return p.grad end)
    if ok then return g end
    return nil
end
optimizer.grad_of = grad_of

-- Checks an options table against the optimizer's defaults: unknown keys are errors naming it.
local function merge_options(name, defaults, given, usage)
    local out = {}
    for k, v in pairs(given or {}) do
        if k ~= "params" then
            if defaults[k] == nil then errors.raisef("%s: unknown option %s (%s)", name, tostring(k), usage) end
            out[k] = v
        end
    end
    for k, v in pairs(defaults) do
        if out[k] == nil then out[k] = v end
    end
    if out.lr == optimizer.REQUIRED then errors.raisef("%s: lr is required (%s)", name, usage) end
    return out
end

optimizer.REQUIRED = setmetatable({}, {__tostring = function() return "<required parameter>" end})

local function check_params(name, list, usage)
    if type(list) ~= "table" or #list == 0 then
        errors.raisef("%s: params must be a non-empty list of tensors, got %s (%s)", name, check.describe(list), usage)
    end
    for i, p in ipairs(list) do
        if not torch.is_tensor(p) then
            errors.raisef("%s: params[%d] must be a tensor, got %s", name, i, check.describe(p))
        end
        if p.dtype ~= torch.float32 then
            errors.raisef("%s: params[%d] must be a float32 tensor, got %s", name, i, tostring(p.dtype))
        end
        -- PyTorch: ValueError "can't optimize a non-leaf Tensor" (its update would never reach the leaf)
        if not p.is_leaf then
            errors.raisef("%s: params[%d] is not a leaf tensor (it has grad_fn=<%s>): optimize the tensor it was "
                          .. "computed from, such as w in w * 2", name, i, tostring(p.grad_fn and p.grad_fn:name()))
        end
    end
    return list
end

-- A parameter given twice would be updated twice at each step (PyTorch 1.13 warns that this "will cause
-- an error"; in two groups it is already one): refused, naming both places.
local function check_distinct(name, groups)
    local seen = {}
    for gi, group in ipairs(groups) do
        for i, p in ipairs(group.params) do
            local where = #groups > 1 and string.format("param_groups[%d].params[%d]", gi, i) or string.format("params[%d]", i)
            if seen[p] then
                errors.raisef("%s: %s is the same tensor as %s: it would be updated twice at each step", name, where,
                              seen[p])
            end
            seen[p] = where
        end
    end
end

-- A copy of one parameter's saved state: tensors cloned (deep copies, as PyTorch's deepcopy), each of the
-- parameter's shape except step, which a number becomes a float32 0-d tensor of (PyTorch's __setstate__).
local function copy_state(name, saved, p, i)
    if type(saved) ~= "table" then
        errors.raisef("%s.load_state_dict: state[%s] must be a table, got %s", name, tostring(i), check.describe(saved))
    end
    local st = {}
    for k, v in pairs(saved) do
        if torch.is_tensor(v) then
            if k ~= "step" and tostring(v.shape) ~= tostring(p.shape) then
                errors.raisef("%s.load_state_dict: state[%s].%s has shape %s, but its parameter has shape %s", name,
                              tostring(i), tostring(k), check.shape(v), check.shape(p))
            end
            st[k] = v:detach():clone()
            if k ~= "step" then st[k] = st[k]:to(p.dtype) end
        else
            st[k] = v
        end
    end
    if type(st.step) == "number" then st.step = torch.tensor(st.step + 0.0) end
    return st
end

-- opt:load_state_dict(sd), torch/optim/optimizer.py's checks and steps: as many groups, each with as
-- many parameters; then the saved groups' options (checked as the constructor checks them) with this
-- optimizer's parameters, and the saved state of parameter i given to this optimizer's i-th.
local function load_state(self, sd, name, check_options, defaults, usage)
    local fn = name .. ".load_state_dict"
    if type(sd) ~= "table" or type(sd.state) ~= "table" or type(sd.param_groups) ~= "table" then
        errors.raisef("%s: expected an optimizer's state dict {state = ..., param_groups = ...}, as opt:state_dict() gives, got %s",
                      fn, check.describe(sd))
    end
    local saved_groups = sd.param_groups
    if #saved_groups ~= #self.param_groups then
        errors.raisef("%s: loaded state dict has a different number of parameter groups (%d, this optimizer has %d)",
                      fn, #saved_groups, #self.param_groups)
    end
    local by_id, groups = {}, {}
    for gi, group in ipairs(self.param_groups) do
        local saved = saved_groups[gi]
        if type(saved) ~= "table" or type(saved.params) ~= "table" or #saved.params ~= #group.params then
            errors.raisef("%s: loaded state dict contains a parameter group that doesn't match the size of optimizer's group "
                          .. "(group %d: %s parameters, this optimizer's has %d)", fn, gi,
                          type(saved) == "table" and type(saved.params) == "table" and tostring(#saved.params) or "?", #group.params)
        end
        for i, id in ipairs(saved.params) do by_id[id] = group.params[i] end
        local g = merge_options(name, defaults, saved, usage)
        check_options(name, g)
        g.params = group.params
        groups[gi] = g
    end
    local state = {}
    for id, saved in pairs(sd.state) do
        local p = by_id[id]
        if p then -- PyTorch keeps the state of an unknown id too, where no parameter ever reads it
            state[p] = copy_state(name, saved, p, id)
        end
    end
    self.param_groups, self.state = groups, state
end

-- A new optimizer class: name, its defaults (lr = optimizer.REQUIRED for SGD), a check of the merged
-- options, step_tensors, and its usage line for errors.
function optimizer.class(name, defaults, check_options, step_tensors, usage)
    local class = {__name = name}
    class.__index = class

    local function new(params, opts)
        if opts ~= nil and (type(opts) ~= "table" or getmetatable(opts) ~= nil) then
            errors.raisef("%s: the options must be a table such as {lr = 0.1}, got %s (%s)", name, check.describe(opts), usage)
        end
        local self = setmetatable({param_groups = {}, state = {}, defaults = merge_options(name, defaults, opts, usage)}, class)
        check_options(name, self.defaults)
        -- params: a list of tensors, or of groups {params = {...}, lr = ...} (PyTorch's param groups)
        local groups = (type(params) == "table" and type(params[1]) == "table" and not torch.is_tensor(params[1]))
            and params or {{params = params}}
        for _, g in ipairs(groups) do
            local group = merge_options(name, self.defaults, g, usage)
            check_options(name, group)
            group.params = check_params(name, g.params, usage)
            self.param_groups[#self.param_groups + 1] = group
        end
        check_distinct(name, self.param_groups)
        return self
    end

    -- one update of every parameter that has a gradient (p.grad), in place, under torch.no_grad, as
    -- PyTorch's optimizers run it: the in-place updates of parameters that require grad must not be
    -- recorded (and would be refused on a leaf with grad mode on)
    local update = grad_mode.without_grad(function(self)
        for gi, group in ipairs(self.param_groups) do
            -- a group's options may have changed since the optimizer was made (opt.param_groups[1].lr = ...,
            -- a schedule): checked again, or a string lr reached the arithmetic ("0.1" even worked, as a number)
            check_options(string.format("%s.step: param_groups[%d]", name, gi), group)
            local params, grads, states = {}, {}, {}
            for _, p in ipairs(group.params) do
                local g = grad_of(p)
                if g ~= nil then
                    params[#params + 1], grads[#grads + 1] = p, g
                    self.state[p] = self.state[p] or {}
                    states[#states + 1] = self.state[p]
                end
            end
            step_tensors(params, grads, states, group)
        end
    end)

    --- opt:step([closure]) -> the closure's loss, or nil. As PyTorch's step(closure): the closure (which
    --- zeroes the gradients, computes the loss, calls backward and returns the loss) runs first, with
    --- grad mode on, then the update. It was never called: nothing was updated, and step returned nil.
    function class.step(self, closure)
        if getmetatable(self) ~= class then
            errors.raisef("%s.step: call it with a colon, as opt:step() (opt.step() gives it no optimizer)", name)
        end
        local loss
        if closure ~= nil then
            if type(closure) ~= "function" then
                errors.raisef("%s.step: the closure must be a function that returns the loss, got %s", name,
                              check.describe(closure))
            end
            loss = grad_mode.call_with(true, closure)
        end
        update(self)
        return loss
    end

    --- opt:zero_grad({set_to_none = true}) — forgets the gradients: p.grad = nil (PyTorch 2.x's default;
    --- PyTorch 1.13's was set_to_none = false, which zeroes p.grad in place instead).
    function class:zero_grad(opts)
        opts = check.options(name .. ".zero_grad", opts, "{set_to_none = false}", {"set_to_none"})
        for k in pairs(opts) do
            if k ~= "set_to_none" then errors.raisef("%s.zero_grad: unknown option %s", name, tostring(k)) end
        end
        local to_none = opts.set_to_none
        if to_none == nil then to_none = true end
        check.boolean(name .. ".zero_grad", "set_to_none", to_none)
        for _, group in ipairs(self.param_groups) do
            for _, p in ipairs(group.params) do
                local g = grad_of(p)
                if g ~= nil then
                    if to_none then p.grad = nil else g:zero_() end
                end
            end
        end
    end

    --- opt:state_dict() — {state = {[i] = {step =, exp_avg =, ...}}, param_groups = {{lr =, ..., params = {i, ...}}}},
    --- parameters numbered from 1 in the order of the groups (PyTorch numbers them from 0).
    function class:state_dict()
        local state, groups, i = {}, {}, 0
        for _, group in ipairs(self.param_groups) do
            local g = {params = {}}
            for k, v in pairs(group) do
                if k ~= "params" then g[k] = v end
            end
            for _, p in ipairs(group.params) do
                i = i + 1
                g.params[#g.params + 1] = i
                if self.state[p] then state[i] = self.state[p] end
            end
            groups[#groups + 1] = g
        end
        return {state = state, param_groups = groups}
    end

    --- opt:load_state_dict(sd) — PyTorch's: the hyper-parameters of sd's groups (lr, betas, ...) and the
    --- state of each parameter (copies of its tensors), the parameters matched by position; this
    --- optimizer's groups must have as many parameters as sd's.
    function class:load_state_dict(sd)
        load_state(self, sd, name, check_options, defaults, usage)
    end

    function class:__tostring()
        local lines = {name .. " ("}
        for gi, group in ipairs(self.param_groups) do
            lines[#lines + 1] = "Parameter Group " .. (gi - 1)
            local keys = {}
            for k in pairs(group) do
                if k ~= "params" then keys[#keys + 1] = k end
            end
            table.sort(keys)
            for _, k in ipairs(keys) do
                local v = group[k]
                if type(v) == "table" then v = "(" .. table.concat(v, ", ") .. ")" end
                lines[#lines + 1] = "    " .. k .. ": " .. tostring(v)
            end
        end
        lines[#lines + 1] = ")"
        return table.concat(lines, "\n")
    end

    class.step_tensors = step_tensors
    return setmetatable({step_tensors = step_tensors}, {__call = function(_, ...) return new(...) end,
                                                        __index = class})
end

return optimizer
