-- members.lua — what a module holds (module attn.nn.members, for nn/module.lua and nn/state_dict.lua;
-- no name of nn): its fields in the order they were first assigned, and which of its tensors are
-- parameters and buffers, and which buffers are left out of state_dict (persistent = false).
local torch = require("attn.bind").torch

local members = {}

-- Parameters and buffers are plain tensors, remembered in weak sets.
members.is_parameter = setmetatable({}, {__mode = "k"})
members.is_buffer = setmetatable({}, {__mode = "k"})
-- module -> {name = true} of its buffers registered with persistent = false
members.non_persistent = setmetatable({}, {__mode = "k"})
members.ORDER = {} -- private key of an instance: the list of field names in assignment order
local ORDER = members.ORDER

-- An instance made by a class (module.lua's construct gives it its ORDER list): the children to walk.
function members.is_instance(v)
    return type(v) == "table" and getmetatable(v) ~= nil and rawget(v, ORDER) ~= nil
end

-- Fields in assignment order, then any array entries (ModuleList, Sequential).
function members.fields(self)
    local out, seen = {}, {}
    for _, k in ipairs(rawget(self, ORDER) or {}) do
        if not seen[k] and rawget(self, k) ~= nil then
            seen[k] = true
            out[#out + 1] = k
        end
    end
    for i = 1, rawlen(self) do
        out[#out + 1] = i
    end
    return out
end

-- m's own parameters, buffers and child modules, in registration order: a list of {name, value, kind},
-- kind "parameter", "buffer", "non_persistent_buffer" or "module"; name a string, or the integer index
-- of a ModuleList or Sequential entry.
function members.of(m)
    local out = {}
    local np = members.non_persistent[m] or {}
    for _, k in ipairs(members.fields(m)) do
        local v = rawget(m, k)
        if torch.is_tensor(v) and members.is_parameter[v] then
            out[#out + 1] = {k, v, "parameter"}
        elseif torch.is_tensor(v) and members.is_buffer[v] then
            out[#out + 1] = {k, v, np[k] and "non_persistent_buffer" or "buffer"}
        elseif members.is_instance(v) then
            out[#out + 1] = {k, v, "module"}
        end
    end
    return out
end

return members
