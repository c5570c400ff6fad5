-- define.lua — how a doc entry is written (module attn.docs.define), for the files of src/lua/docs:
--   D.def(name, sig, doc, example [, value])   any name
--   D.fn(name, ...)         torch.name            D.method(name, ...)   Tensor:name (x:name())
--   D.both(name, tsig, msig, doc, example)       torch.name and Tensor:name, one text under both
--   D.class(name, ...)      nn.name (a class)     D.mdef(class, name, ...)   nn.class:name
-- Each registers with help.register, giving the documented value so that help(value) finds it.
local help = require("attn.help")
local nn = require("attn.nn")
local torch = require("attn.bind").torch
local methods = require("attn.bind").methods

-- One paragraph: runs of white space (source line breaks included) become one space.
local function para(s)
    return (s:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", ""))
end

local D = {}

function D.def(name, sig, doc, example, value)
    help.register(name, {sig = sig, doc = para(doc), example = example and (example:gsub("%s+$", ""))}, value)
end

-- torch.name only.
function D.fn(name, sig, doc, example)
    D.def("torch." .. name, sig, doc, example, torch[name])
end

-- x:name only (a tensor method).
function D.method(name, sig, doc, example)
    D.def("Tensor:" .. name, sig, doc, example, methods[name])
end

-- Both torch.name(x, ...) and x:name(...): one text under both names, each showing both forms.
-- The two are one function value, so help(value) shows the torch entry.
function D.both(name, tsig, msig, doc, example)
    local m = methods[name]
    D.def("Tensor:" .. name, msig .. "  or  " .. tsig, doc, example, m ~= torch[name] and m or nil)
    D.def("torch." .. name, tsig .. "  or  " .. msig, doc, example, torch[name])
end

-- nn.name (a class), with its value, so help(nn.Linear) finds it.
function D.class(name, sig, doc, example)
    D.def("nn." .. name, sig, doc, example, nn[name])
end

-- nn.Class:name (a method of a class), with its value; a subclass that does not override a method
-- shares the value, so help(m.parameters) finds nn.Module's entry.
function D.mdef(class, name, sig, doc, example)
    D.def("nn." .. class .. ":" .. name, sig, doc, example, rawget(nn[class], name))
end

-- A sentence the docs of every function that takes ids share (docs/transformer.lua, docs/blocks.lua).
D.ids_note = [=[Ids are 1-based, as everything in attn: id 1 is the first row (PyTorch's id 0), so a
PyTorch id i is attn's i + 1.]=]

return D
