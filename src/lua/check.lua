-- check.lua — the argument checks of attn's Lua library (module attn.check), one meaning per name.
-- Each check returns the value it accepts (sizes as Lua integers) or raises, at the user's line
-- (attn.errors), "fn: what must be ..., got <the value, described>":
--
--   check.describe(v)                  a value as an error message shows it: 11, 2.5, nan, "x", nil,
--                                      true, a tensor of shape [2, 3], a table, a function
--   check.shape(t)                     a tensor's shape as text: [2, 6, 3]
--   check.tensor(fn, what, v)          a tensor
--   check.size(fn, what, v)            a positive whole number (a layer's size, a count), as an integer
--   check.probability(fn, what, v)     a number from 0 to 1 (nil is refused: a default is the caller's)
--   check.boolean(fn, what, v)         true or false
--   check.options(fn, v, example, known)
--                                      a plain table of options, or nil (then {}); example: "{bias = false}";
--                                      every key one of the list known (attn.options: "did you mean")
--   check.is_module(v)                 whether v is an instance of an nn.Module class (not a class)
--   check.module(fn, what, v)          an instance of an nn.Module class
--   check.args(fn, usage, names, defaults, ...)
--                                      Python's argument binding: the arguments ... by position in the
--                                      order of names, then a trailing options table for the keyword
--                                      ones; a name without a value takes defaults[name], or is missing
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local options = require("attn.options")
local i18n = require("attn.i18n")
local fail = errors.raisef
local check = {}

function check.shape(t)
    local out = {}
    for i = 1, t.ndim do out[i] = t.shape[i] end
    return "[" .. table.concat(out, ", ") .. "]"
end

function check.describe(v)
    if torch.is_tensor(v) then
        return i18n.trf("a tensor of shape %s", check.shape(v))
    elseif type(v) == "string" then
        return string.format("%q", v)
    elseif type(v) == "number" then
        if v ~= v then return "nan" end -- not C's "-nan"
        return tostring(math.tointeger(v) or v) -- 11, not 11.0
    elseif type(v) == "table" then
        return i18n.tr("a table")
    elseif type(v) == "function" then
        return i18n.tr("a function")
    end
    return tostring(v) -- nil, true, false
end

function check.tensor(fn, what, v)
    if not torch.is_tensor(v) then
        fail("%s: %s must be a tensor, got %s", fn, what, check.describe(v))
    end
    return v
end

function check.size(fn, what, v)
    local n = type(v) == "number" and math.tointeger(v) -- 2.0 -> 2; 2.5, inf, nan, 1e300 -> nil
    if not n or n < 1 then
        fail("%s: %s must be a positive integer, got %s", fn, what, check.describe(v))
    end
    return n
end

function check.probability(fn, what, v)
    if type(v) ~= "number" or not (v >= 0 and v <= 1) then
        fail("%s: %s must be a probability between 0 and 1, got %s", fn, what, check.describe(v))
    end
    return v
end

function check.boolean(fn, what, v)
    if type(v) ~= "boolean" then
        fail("%s: %s must be true or false, got %s", fn, what, check.describe(v))
    end
    return v
end

function check.options(fn, v, example, known)
    if v ~= nil and type(v) ~= "table" then
        fail("%s: the options must be a table such as %s, got %s", fn, example, check.describe(v))
    end
    return options.check(fn, v, known)
end

function check.is_module(v)
    return type(v) == "table" and rawget(v, "__index") == nil and type(v.forward) == "function"
        and type(v.parameters) == "function"
end

function check.module(fn, what, v)
    if not check.is_module(v) then
        fail("%s: %s must be a module, got %s", fn, what, check.describe(v))
    end
    return v
end

function check.args(fn, usage, names, defaults, ...)
    local n, args = select("#", ...), {...}
    local opts
    if n > 0 and type(args[n]) == "table" and getmetatable(args[n]) == nil then
        opts, n = args[n], n - 1
    end
    if n > #names then
        fail("%s: expected at most %d arguments, got %d (%s)", fn, #names, n, usage)
    end
    local out = {}
    for i = 1, n do out[names[i]] = args[i] end
    for k, v in pairs(opts or {}) do
        local known = false
        for _, name in ipairs(names) do known = known or name == k end
        if not known then
            local near = type(k) == "string" and options.near(k, names)
            if near then fail("%s: unknown option '%s' (did you mean '%s'?)", fn, k, near) end
            fail("%s: unknown option %s (%s)", fn, tostring(k), usage)
        elseif out[k] ~= nil then
            fail("%s: %s is given twice, as an argument and as an option", fn, k)
        end
        out[k] = v
    end
    for _, name in ipairs(names) do
        if out[name] == nil then
            if defaults[name] == nil then
                fail("%s: missing argument %s (%s)", fn, name, usage)
            end
            out[name] = defaults[name]
        end
    end
    return out
end

return check
