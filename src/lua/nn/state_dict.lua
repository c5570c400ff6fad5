-- state_dict.lua — m:state_dict() and m:load_state_dict(sd [, {strict = false}]), PyTorch's (torch/nn/
-- modules/module.py), as methods of nn.Module (no name of nn of its own).
--
-- The names are PyTorch's, so that a file moves between the two: "trf_blocks.0.att.W_query.weight", a
-- ModuleList's or Sequential's entries counted from 0 as PyTorch counts them (m:named_parameters() and
-- printing count from 1, as Lua indexes: trf_blocks[1] is "trf_blocks.0" here). The order is PyTorch's
-- too: each module's own parameters, then its persistent buffers (the book's causal mask), then its
-- children, depth first; a buffer registered with {persistent = false} is left out.
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local check = require("attn.check")
local i18n = require("attn.i18n")
local grad_mode = require("attn.autograd.grad_mode")
local members = require("attn.nn.members")
local Module = require("attn.nn.module").Module
local ordered_dict = require("attn.ordered_dict")
local trf = i18n.trf

-- A member's name in a state dict: a list entry (Lua's [1]) is PyTorch's "0".
local function key_name(k)
    if math.type(k) == "integer" then return tostring(k - 1) end
    return tostring(k)
end

-- The entries of m's state dict, in order: a list of {key, tensor}. A module reached again below
-- itself (a loop) is not walked again; one shared by two parents is listed under both names, as PyTorch
-- lists a tied weight twice.
local function entries(m, prefix, out, on_path)
    on_path[m] = true
    local own = members.of(m)
    for _, kind in ipairs({"parameter", "buffer"}) do
        for _, e in ipairs(own) do
            if e[3] == kind then out[#out + 1] = {prefix .. key_name(e[1]), e[2]} end
        end
    end
    for _, e in ipairs(own) do
        if e[3] == "module" and not on_path[e[2]] then
            entries(e[2], prefix .. key_name(e[1]) .. ".", out, on_path)
        end
    end
    on_path[m] = nil
    return out
end

--- m:state_dict([{prefix = "", keep_vars = false}]) — every parameter and persistent buffer by its
--- PyTorch name, in PyTorch's order: an ordered table (pairs() goes through it in order). The tensors
--- share memory with the model's, detached (keep_vars = true: the parameters themselves).
function Module:state_dict(opts)
    opts = check.options("state_dict", opts, "{keep_vars = true}", {"prefix", "keep_vars"})
    local prefix = opts.prefix or ""
    if type(prefix) ~= "string" then errors.raisef("state_dict: prefix must be a string, got %s", check.describe(prefix)) end
    local sd = ordered_dict.new()
    for _, e in ipairs(entries(self, prefix, {}, {})) do
        sd[e[1]] = opts.keep_vars and e[2] or e[2]:detach()
    end
    return sd
end

-- PyTorch's _IncompatibleKeys: what load_state_dict returns.
local Incompatible = {__name = "_IncompatibleKeys"}
Incompatible.__index = Incompatible

local function py_list(keys)
    local q = {}
    for i, k in ipairs(keys) do q[i] = "'" .. k .. "'" end
    return "[" .. table.concat(q, ", ") .. "]"
end

function Incompatible.__tostring(r)
    if #r.missing_keys == 0 and #r.unexpected_keys == 0 then return "<All keys matched successfully>" end
    return "_IncompatibleKeys(missing_keys=" .. py_list(r.missing_keys) .. ", unexpected_keys="
        .. py_list(r.unexpected_keys) .. ")"
end

local function quoted(keys)
    local q = {}
    for i, k in ipairs(keys) do q[i] = '"' .. k .. '"' end
    return table.concat(q, ", ")
end

local function strict_option(opts)
    if type(opts) == "boolean" then return opts end
    opts = check.options("load_state_dict", opts, "{strict = false}", {"strict"})
    if opts.strict == nil then return true end
    check.boolean("load_state_dict", "strict", opts.strict)
    return opts.strict
end

--- m:load_state_dict(state_dict [, {strict = true}]) — copies each tensor of state_dict into the
--- parameter or buffer of the same name, as PyTorch does: a missing or unexpected key is an error
--- (strict = false: reported in the result), a tensor of another shape always is, and the message lists
--- them all, PyTorch's words. Unlike PyTorch nothing is copied when there is an error. Returns
--- {missing_keys = {...}, unexpected_keys = {...}}, shown as <All keys matched successfully>.
function Module:load_state_dict(state_dict, opts)
    local strict = strict_option(opts)
    if type(state_dict) ~= "table" or members.is_instance(state_dict) then
        errors.raisef("load_state_dict: expected a state dict, a table {name = tensor, ...} as m:state_dict() "
                      .. "or torch.load(path) gives, got %s", members.is_instance(state_dict)
                      and i18n.tr("a module (use m:state_dict())") or check.describe(state_dict))
    end
    local errs, missing, unexpected, copies, known = {}, {}, {}, {}, {}
    for _, e in ipairs(entries(self, "", {}, {})) do
        local key, t = e[1], e[2]
        known[key] = true
        local v = rawget(state_dict, key)
        if v == nil then
            missing[#missing + 1] = key
        elseif not torch.is_tensor(v) then
            errs[#errs + 1] = trf('While copying the parameter named "%s", expected a tensor from checkpoint but received %s',
                                  key, check.describe(v))
        elseif tostring(v.shape) ~= tostring(t.shape) then
            errs[#errs + 1] = trf("size mismatch for %s: copying a param with shape %s from checkpoint, the shape in current model is %s.",
                                  key, tostring(v.shape), tostring(t.shape))
        else
            copies[#copies + 1] = {t, v}
        end
    end
    for k in pairs(state_dict) do
        if not known[k] then unexpected[#unexpected + 1] = tostring(k) end
    end
    if not ordered_dict.is(state_dict) then table.sort(unexpected) end -- a plain table has no order
    if strict then
        if #unexpected > 0 then table.insert(errs, 1, trf("Unexpected key(s) in state_dict: %s. ", quoted(unexpected))) end
        if #missing > 0 then table.insert(errs, 1, trf("Missing key(s) in state_dict: %s. ", quoted(missing))) end
    end
    if #errs > 0 then
        errors.raisef("load_state_dict: Error(s) in loading state_dict for %s:\n\t%s", self.__name, table.concat(errs, "\n\t"))
    end
    grad_mode.call_with(false, function()
        for _, c in ipairs(copies) do c[1]:copy_(c[2]) end
    end)
    return setmetatable({missing_keys = missing, unexpected_keys = unexpected}, Incompatible)
end

return {}
