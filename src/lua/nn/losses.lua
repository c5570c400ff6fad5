-- losses.lua — PyTorch's loss modules (module attn.nn.losses): nn.CrossEntropyLoss, nn.NLLLoss and
-- nn.MSELoss, each holding its options and calling nn.functional's function (C: src/core/loss.c).
local Module = require("attn.nn.module").Module
local F = require("attn.nn.functional")
local errors = require("attn.errors")

local losses = {}

-- A loss class: name, its function, the options it keeps (name -> default), how they print.
local function loss_class(name, f, known)
    local class = Module:extend(name)
    function class:__init(opts)
        if opts ~= nil and (type(opts) ~= "table" or getmetatable(opts) ~= nil) then
            errors.raisef("%s: the options must be a table such as {reduction = \"sum\"}", name)
        end
        for k, v in pairs(opts or {}) do
            if known[k] == nil then errors.raisef("%s: unknown option %s", name, tostring(k)) end
            self[k] = v
        end
        for k, default in pairs(known) do
            if self[k] == nil then self[k] = default end
        end
    end
    function class:forward(input, target)
        local opts = {}
        for k in pairs(known) do opts[k] = self[k] end
        return errors.call(name, f, input, target, opts)
    end
    function class:extra_repr() return "" end
    return class
end

losses.CrossEntropyLoss = loss_class("CrossEntropyLoss", F.cross_entropy, {ignore_index = -100, reduction = "mean"})
losses.NLLLoss = loss_class("NLLLoss", F.nll_loss, {ignore_index = -100, reduction = "mean"})
losses.MSELoss = loss_class("MSELoss", F.mse_loss, {reduction = "mean"})

return losses
