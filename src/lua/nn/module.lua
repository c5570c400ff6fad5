-- module.lua — PyTorch's nn.Module and nn.Parameter in Lua, and nn.deepcopy (module attn.nn.module;
-- nn/init.lua puts them into nn with the layers of nn/layers.lua and the other parts).
--
-- A model is written the way the book writes it in Python:
--
--   local SelfAttention_v2 = nn.Module:extend("SelfAttention_v2")
--   function SelfAttention_v2:__init(d_in, d_out, qkv_bias)
--       self.W_query = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
--       ...
--   end
--   function SelfAttention_v2:forward(x) ... end
--   sa_v2 = SelfAttention_v2(d_in, d_out)     -- create
--   print(sa_v2(inputs))                      -- calling the module calls forward
--
-- Child modules and parameters are found by walking the instance's fields in the order they were
-- first assigned (as PyTorch keeps registration order), so printing, parameters() and
-- named_parameters() list them as PyTorch does.

local torch = require("attn.bind").torch
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local i18n = require("attn.i18n")
local autograd = require("attn.autograd")
local nn = {} -- this file's part of the table nn

local members = require("attn.nn.members") -- which fields are parameters, buffers, children
local is_parameter, is_buffer, non_persistent = members.is_parameter, members.is_buffer, members.non_persistent
local ORDER, is_instance, fields = members.ORDER, members.is_instance, members.fields

--- nn.Parameter(t [, {requires_grad = bool}]) marks t as a trainable parameter of the module it is
--- assigned to: it requires grad (unless requires_grad = false) and prints as "Parameter containing:".
--- As PyTorch's, it is t itself made a leaf (t's history, if any, is not kept).
function nn.Parameter(t, opts)
    check.tensor("Parameter", "data", t)
    local requires_grad = true
    if type(opts) == "boolean" then
        requires_grad = opts
    elseif type(opts) == "table" then
        for k in pairs(opts) do
            if k ~= "requires_grad" then errors.raisef("Parameter: unknown option '%s'", tostring(k)) end
        end
        if opts.requires_grad ~= nil then requires_grad = opts.requires_grad and true or false end
    elseif opts ~= nil then
        errors.raise("Parameter: the second argument must be an options table such as {requires_grad = false}")
    end
    if autograd.graph.requires_grad(t) and not t.is_leaf then
        t = t:detach() -- PyTorch's Parameter(data) is a new leaf on data's storage
    end
    is_parameter[t] = true
    autograd.parameter(t, requires_grad)
    return t
end

function nn.is_parameter(t)
    return is_parameter[t] == true
end

-- ---- nn.Module ---------------------------------------------------------------------------------

local Module = {__name = "Module"}
Module.__index = Module

-- Records the order in which fields are first assigned (the instance is a plain table, so
-- __newindex fires exactly on the first assignment of each name).
local function record_field(self, k, v)
    local order = rawget(self, ORDER)
    if order and type(k) == "string" then
        order[#order + 1] = k
    end
    rawset(self, k, v)
end

-- m(x) calls m:forward(x). When the user calls one of attn's own classes, an error raised inside it
-- (by a layer it calls) names the class: "PositionwiseFFN: Linear: expected an input ...".
local function instance_call(self, ...)
    local forward = self.forward
    if errors.is_library(forward) and not errors.called_from_library() then
        return errors.call(self.__name, forward, self, ...)
    end
    return forward(self, ...)
end

-- PyTorch's _addindent: every line after the first is indented by n spaces.
local function add_indent(s, n)
    local pad = string.rep(" ", n)
    return (s:gsub("\n", "\n" .. pad))
end

local function module_tostring(self)
    local lines = {}
    local extra = self:extra_repr()
    if extra ~= "" then
        for line in (extra .. "\n"):gmatch("(.-)\n") do
            lines[#lines + 1] = line
        end
    end
    for name, child in self:named_children() do
        lines[#lines + 1] = "(" .. name .. "): " .. add_indent(tostring(child), 2)
    end
    local head = self.__name .. "("
    if #lines == 0 then
        return head .. ")"
    end
    if extra ~= "" and #lines == 1 and not extra:find("\n") then
        return head .. extra .. ")"
    end
    return head .. "\n  " .. table.concat(lines, "\n  ") .. "\n)"
end

local CLASS_META = {"__index", "__newindex", "__call", "__tostring", "__name"}

local function construct(cls, ...)
    local self = setmetatable({[ORDER] = {}}, cls)
    rawset(self, "training", true) -- modules start in training mode, as in PyTorch
    if errors.is_library(cls.__init) then
        -- attn's own layers fill their parameters in place (uniform_, normal_), which PyTorch's
        -- initialisers do under no_grad
        autograd.grad_mode.call_with(false, self.__init, self, ...)
    else
        self:__init(...)
    end
    return self
end

local function new_instance(cls, ...)
    if errors.is_library(cls.__init) and not errors.called_from_library() then
        return errors.call(cls.__name, construct, cls, ...)
    end
    return construct(cls, ...)
end

--- Module:extend(name) makes a subclass: local M = nn.Module:extend("SelfAttention_v1").
function Module:extend(name)
    if type(name) ~= "string" or name == "" then
        errors.raise("extend: the class needs a name, e.g. nn.Module:extend(\"SelfAttention_v1\")")
    end
    local cls = {}
    for _, k in ipairs(CLASS_META) do
        cls[k] = rawget(self, k)
    end
    cls.__name = name
    cls.__index = cls
    cls.super = self
    return setmetatable(cls, {__index = self, __call = new_instance,
                              __tostring = function() return "class " .. name end})
end

setmetatable(Module, {__call = new_instance, __tostring = function() return "class Module" end})
Module.__newindex = record_field
Module.__call = instance_call
Module.__tostring = module_tostring

function Module:__init() end

function Module:forward()
    errors.raisef("%s: forward is not defined; write function %s:forward(x) ... end", self.__name, self.__name)
end

-- One-line description shown inside the parentheses when printing (Linear shows its sizes).
function Module:extra_repr()
    return ""
end

--- m:named_children() iterates (name, module) over direct children in registration order.
function Module:named_children()
    local list = {}
    for _, k in ipairs(fields(self)) do
        local v = rawget(self, k)
        if is_instance(v) then
            list[#list + 1] = {tostring(k), v}
        end
    end
    local i = 0
    return function()
        i = i + 1
        if list[i] then
            return list[i][1], list[i][2]
        end
    end
end

function Module:children()
    local out = {}
    for _, child in self:named_children() do
        out[#out + 1] = child
    end
    return out
end

-- Depth-first walk collecting tensors that satisfy `keep`, with dotted names, each tensor and each
-- module once (a module reachable twice, or referring to itself, is walked once).
local function collect(self, keep, prefix, out, seen)
    seen[self] = true
    for _, k in ipairs(fields(self)) do
        local v = rawget(self, k)
        local name = prefix .. tostring(k)
        if torch.is_tensor(v) and keep(v) and not seen[v] then
            seen[v] = true
            out[#out + 1] = {name, v}
        elseif is_instance(v) and not seen[v] then
            collect(v, keep, name .. ".", out, seen)
        end
    end
    return out
end

--- m:named_parameters() returns a list of {name, tensor} pairs, e.g. {"W_query.weight", W}.
function Module:named_parameters()
    return collect(self, function(t) return is_parameter[t] end, "", {}, {})
end

--- m:parameters() returns the list of parameter tensors (each once), in registration order.
function Module:parameters()
    local out = {}
    for _, pair in ipairs(self:named_parameters()) do
        out[#out + 1] = pair[2]
    end
    return out
end

--- m:zero_grad([{set_to_none = true}]) — forgets the gradients of every parameter (p.grad = nil, the
--- default of PyTorch 2.x), or with {set_to_none = false} fills them with zeros (PyTorch 1.13's default).
function Module:zero_grad(opts)
    local to_none = true
    if opts ~= nil then
        if type(opts) ~= "table" then errors.raise("zero_grad: expected an options table such as {set_to_none = false}") end
        for k in pairs(opts) do
            if k ~= "set_to_none" then errors.raisef("zero_grad: unknown option '%s'", tostring(k)) end
        end
        if opts.set_to_none ~= nil then to_none = opts.set_to_none and true or false end
    end
    for _, p in ipairs(self:parameters()) do
        if to_none then
            p.grad = nil
        elseif p.grad then
            autograd.grad_mode.call_with(false, p.grad.zero_, p.grad)
        end
    end
end

function Module:named_buffers()
    return collect(self, function(t) return is_buffer[t] end, "", {}, {})
end

function Module:buffers()
    local out = {}
    for _, pair in ipairs(self:named_buffers()) do
        out[#out + 1] = pair[2]
    end
    return out
end

--- m:register_buffer(name, t [, {persistent = false}]): a tensor that belongs to the module but is not
--- trained (a mask). A persistent buffer (the default) is part of m:state_dict(); a non-persistent one
--- (persistent = false, as Qwen3's cos and sin in the notebooks) is not, as in PyTorch.
function Module:register_buffer(name, t, opts)
    if type(name) ~= "string" then
        errors.raisef("register_buffer: name must be a string, got %s", type(name))
    end
    check.tensor("register_buffer", "buffer", t)
    local persistent = true
    if type(opts) == "boolean" then
        persistent = opts
    elseif type(opts) == "table" then
        for k in pairs(opts) do
            if k ~= "persistent" then errors.raisef("register_buffer: unknown option '%s'", tostring(k)) end
        end
        if opts.persistent ~= nil then persistent = opts.persistent and true or false end
    elseif opts ~= nil then
        errors.raise("register_buffer: the third argument must be an options table such as {persistent = false}")
    end
    is_buffer[t] = true
    self[name] = t
    local set = non_persistent[self]
    if not persistent then
        set = set or {}
        set[name] = true
        non_persistent[self] = set
    elseif set then
        set[name] = nil
    end
end

local function walk_modules(m, out, seen)
    if seen[m] then
        return out
    end
    seen[m] = true
    out[#out + 1] = m
    for _, child in m:named_children() do
        walk_modules(child, out, seen)
    end
    return out
end

--- m:modules() lists m and every module below it, depth first.
function Module:modules()
    return walk_modules(self, {}, {})
end

--- m:train(mode) sets training mode (default true) on m and all its children; m:eval() = m:train(false).
function Module:train(mode)
    if mode == nil then
        mode = true
    end
    if type(mode) ~= "boolean" then
        errors.raisef("train: mode must be true or false, got %s", tostring(mode))
    end
    for _, m in ipairs(self:modules()) do
        rawset(m, "training", mode)
    end
    return self
end

function Module:eval()
    return self:train(false)
end

--- m:num_parameters() — the total number of trainable numbers (sum of numel over parameters()).
function Module:num_parameters()
    local n = 0
    for _, p in ipairs(self:parameters()) do
        n = n + p:numel()
    end
    return n
end

nn.Module = Module

-- ---- copying -------------------------------------------------------------------------------------

local function copy_value(v, memo)
    if memo[v] ~= nil then
        return memo[v]
    end
    local c = v
    if torch.is_tensor(v) then
        c = v:clone()
        if is_parameter[v] then
            -- a parameter's copy is a parameter, a leaf that requires grad as the original does (PyTorch's
            -- deepcopy), whatever the grad mode: a library constructor (nn.clones in EncoderBlock, Encoder)
            -- runs with gradients off, where the clone alone would require none
            c = v:detach():clone()
            autograd.parameter(c, v.requires_grad)
        end
        is_parameter[c] = is_parameter[v]
        is_buffer[c] = is_buffer[v]
    elseif is_instance(v) then
        c = setmetatable({[ORDER] = {}}, getmetatable(v))
        memo[v] = c
        if non_persistent[v] then
            non_persistent[c] = {}
            for k in pairs(non_persistent[v]) do non_persistent[c][k] = true end
        end
        for _, k in ipairs(rawget(v, ORDER)) do -- assignment order, so the copy registers as the original
            if rawget(v, k) ~= nil and rawget(c, k) == nil then
                c[k] = copy_value(rawget(v, k), memo)
            end
        end
        for k, x in pairs(v) do -- the rest: "training", ModuleList entries
            if k ~= ORDER and rawget(c, k) == nil then
                rawset(c, k, copy_value(x, memo))
            end
        end
    elseif type(v) == "table" and getmetatable(v) == nil then
        c = {}
        memo[v] = c
        for k, x in pairs(v) do
            c[k] = copy_value(x, memo)
        end
    end
    memo[v] = c
    return c
end

--- nn.deepcopy(m) — Python's copy.deepcopy(m): a new module with copies of every child module, parameter
--- and buffer (equal values, separate storage), in the same registration order. Modules or tensors
--- reached twice are copied once; functions and classes are shared.
function nn.deepcopy(m)
    if not is_instance(m) then
        errors.raisef("deepcopy: expected a module, got %s", torch.is_tensor(m) and i18n.tr("a tensor (use t:clone())") or type(m))
    end
    return copy_value(m, {})
end

--- m:clone() — nn.deepcopy(m) as a method: Python's copy.deepcopy(m), the book's c(attn).
function Module:clone()
    return nn.deepcopy(self)
end

return nn
