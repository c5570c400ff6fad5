-- python_habits.lua — the hints attn adds to an error when the code that raised it looks like Python that
-- Lua reads differently (module attn.text.python_habits): "Lua has no @: the matrix product is
-- a:matmul(b)", a method called with '.' instead of ':', import lines, keyword arguments, Python's
-- builtins. The REPL (repl.hint) and the notes' reports (verify/run.lua) add the same hints.
--   habits.hint(message, chunk) -> the message, with "  (hint)" after it when one applies
local tr, trf = require("attn.i18n").tr, require("attn.i18n").trf
local habits = {}

-- Python's builtins that a reader of the books types out of habit, and what Lua has instead (those
-- with words in them marked by N, for xgettext, and translated by habits.hint).
local marked = {}
local function N(msgid) marked[msgid] = true; return msgid end
local PYTHON = {
    len = N("#x, or x:size(1)"), range = N("for i = 1, n do ... end (or torch.arange(n))"),
    enumerate = "for i, x_i in ipairs(list) do ... end", zip = "for i = 1, #a do ... a[i], b[i] ... end",
    int = "math.floor(x)", float = "x + 0.0", str = "tostring(x)", list = N("a table: {a, b}"),
    isinstance = "torch.is_tensor(x), type(x)", super = N("nothing: __init needs no super().__init__()"),
}

-- The bindings' words for a missing argument (src/bind/args.c's lt_typename), in the user's language.
local NO_VALUE_MSGID = "no value"
local function NO_VALUE() return tr(NO_VALUE_MSGID) end

-- A hint after the message when the chunk looks like Python that Lua reads differently.
function habits.hint(msg, chunk)
    local builtin = msg:match("attempt to call a nil value %(global '([%w_]+)'%)")
    -- "sum: input must be a tensor, got no value" in the user's language: the call's name, and no argument
    local method = msg:sub(-#NO_VALUE()) == NO_VALUE() and msg:match("^([%w_]+): ") or nil
    local hint
    if msg:find("near '@'", 1, true) then
        hint = tr("Lua has no @: the matrix product is a:matmul(b)")
    elseif msg:find("expected near '='", 1, true) and chunk:find("%([^()]*[%w_]%s*=[^=]") then
        hint = tr("keyword arguments go in a trailing table: f(x, {dim = -1})")
    elseif chunk:find("^%s*import%s") or chunk:find("^%s*from%s+[%w_.]+%s+import%s") then
        hint = tr("no import needed: torch, nn and attention are there already")
    elseif builtin and PYTHON[builtin] then
        hint = trf("Lua has no %s(): %s", builtin, marked[PYTHON[builtin]] and tr(PYTHON[builtin]) or PYTHON[builtin])
    elseif method and chunk:find("%." .. method .. "%(") then
        hint = trf("call a method with a colon: x:%s(...)", method)
    elseif msg:find("attempt to call a torch.Size value (method 'shape')", 1, true) then
        hint = tr("x.shape is a property: no colon, no ()")
    end
    -- TRANSLATORS: a message, then a hint after it in parentheses
    return hint and trf("%s  (%s)", msg, hint) or msg
end

return habits
