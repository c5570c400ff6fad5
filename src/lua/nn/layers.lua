-- layers.lua — PyTorch's nn.Linear, nn.Dropout, nn.ModuleList and nn.Sequential (module attn.nn.layers), each
-- initialised and printed as PyTorch does, so that after the same torch.manual_seed a layer holds the
-- book's weights.
local torch = require("attn.bind").torch
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local py_float = require("attn.text.pyrepr").float
local Module = require("attn.nn.module").Module
local Parameter = require("attn.nn.module").Parameter
local functional = require("attn.nn.functional")
local options = require("attn.options")
local layers = {}

local Linear = Module:extend("Linear")

--- nn.Linear(in_features, out_features [, {bias = true}]) — y = x W^T + b, W of shape (out, in).
--- Initialised as PyTorch does (kaiming_uniform_ with a = sqrt(5), then the bias), so with the same
--- torch.manual_seed the weights are the book's.
function Linear:__init(in_features, out_features, opts)
    if opts ~= nil and type(opts) ~= "table" then
        errors.raisef("Linear: the third argument must be an options table such as {bias = false}, got %s",
                      type(opts))
    end
    options.check("Linear", opts, {"bias"})
    local bias = true
    if opts and opts.bias ~= nil then
        bias = opts.bias and true or false
    end
    self.in_features = check.size("Linear", "in_features", in_features)
    self.out_features = check.size("Linear", "out_features", out_features)
    local ok, weight = pcall(torch.empty, self.out_features, self.in_features)
    if not ok then -- e.g. too big for this machine: say so as Linear, at the caller's line
        errors.raisef("Linear: %s", (tostring(weight):gsub("^.-empty: ", "weight: ")))
    end
    self.weight = Parameter(weight)
    self.bias = bias and Parameter(torch.empty(self.out_features)) or false
    self:reset_parameters()
end

-- PyTorch's Linear.reset_parameters: kaiming_uniform_(weight, a=sqrt(5)), all in double.
function Linear:reset_parameters()
    local fan_in = self.in_features
    local a = math.sqrt(5)
    local gain = math.sqrt(2.0 / (1 + a ^ 2))
    local std = gain / math.sqrt(fan_in)
    local bound = math.sqrt(3.0) * std
    self.weight:uniform_(-bound, bound)
    if self.bias then
        local b = 1 / math.sqrt(fan_in)
        self.bias:uniform_(-b, b)
    end
end
Linear.reset_parameters = require("attn.autograd.grad_mode").without_grad(Linear.reset_parameters)

function Linear:forward(x)
    check.tensor("Linear", "input", x)
    if x.ndim == 0 or x.shape[-1] ~= self.in_features then
        errors.raisef("Linear: expected an input whose last dim is in_features = %d, got shape %s",
                      self.in_features, tostring(x.shape):match("%((.*)%)"))
    end
    return functional.linear(x, self.weight, self.bias or nil) -- addmm, as PyTorch's F.linear
end

function Linear:extra_repr()
    return string.format("in_features=%d, out_features=%d, bias=%s", self.in_features, self.out_features,
                         self.bias and "True" or "False")
end

layers.Linear = Linear

local Dropout = Module:extend("Dropout")

--- nn.Dropout(p) — in training mode zeroes each element with probability p and scales the rest by
--- 1/(1-p); in eval mode (or p = 0) it passes the input through and draws no random numbers.
function Dropout:__init(p, opts)
    if p == nil then
        p = 0.5
    end
    if type(p) ~= "number" or not (p >= 0 and p <= 1) then
        errors.raisef("Dropout: p must be a probability between 0 and 1, got %s", tostring(p))
    end
    self.p = p
end

function Dropout:forward(x)
    check.tensor("Dropout", "input", x)
    return torch.dropout(x, self.p, self.training)
end

function Dropout:extra_repr()
    return "p=" .. py_float(self.p) .. ", inplace=False"
end

layers.Dropout = Dropout

local ModuleList = Module:extend("ModuleList")

--- nn.ModuleList{m1, m2, ...} — holds modules in a list: ml[1], #ml, ipairs(ml), ml:append(m).
function ModuleList:__init(list)
    if list ~= nil and type(list) ~= "table" then
        errors.raisef("ModuleList: expected a list of modules such as {a, b}, got %s", type(list))
    end
    for i, m in ipairs(list or {}) do
        if not check.is_module(m) then
            errors.raisef("ModuleList: element %d is not a module (it is a %s)", i, type(m))
        end
        rawset(self, i, m)
    end
end

function ModuleList:append(m)
    if not check.is_module(m) then
        errors.raisef("ModuleList:append: expected a module, got %s", type(m))
    end
    rawset(self, rawlen(self) + 1, m)
    return self
end

function ModuleList:forward()
    errors.raise("ModuleList: a ModuleList has no forward; call its modules, e.g. for _, m in ipairs(list) do ... end")
end

layers.ModuleList = ModuleList

local Sequential = Module:extend("Sequential")

--- nn.Sequential(m1, m2, ...) — its modules one after the other: seq(x) is m2(m1(x)). seq[1] is m1.
function Sequential:__init(...)
    local list, n = {...}, select("#", ...)
    if n == 1 and type(list[1]) == "table" and not check.is_module(list[1]) and getmetatable(list[1]) == nil then
        list, n = list[1], #list[1] -- nn.Sequential{m1, m2}
    end
    for i = 1, n do
        if not check.is_module(list[i]) then
            errors.raisef("Sequential: module %d is not a module, got %s", i, check.describe(list[i]))
        end
        rawset(self, i, list[i])
    end
end

function Sequential:forward(x)
    for i = 1, rawlen(self) do
        x = rawget(self, i)(x)
    end
    return x
end

layers.Sequential = Sequential

return layers
