-- repl.lua — what happens to a chunk typed at attn's prompt, kept in Lua so that it can be tested
-- without a terminal (src/cli/repl.c only reads lines, keeps history and calls these functions).
--
--   repl.eval(chunk [, out [, at_eof]])  -> "incomplete" | "ok" | "error"
--   repl.complete(text)                  -> sorted list of completions for the word `text`
--   repl.rewrite_locals(chunk)           -> chunk with its top-level locals made global
--   repl.show(v)                         -> the text the prompt prints for v ({1, 2} for a table)
--   repl.results(...)                    -> the text the prompt prints for an expression's values
--
-- `out` is an optional table of writers: out.write(s) receives the printed results (s ends with
-- "\n"), out.error(msg) receives an error message (without the "error: " prefix), and
-- out.accept(chunk) is called with every complete chunk before it runs (the C side adds it to the
-- history there, so a chunk that calls os.exit() is still remembered).

local errors = require("attn.errors")
local tokenize = require("attn.text.tokens").tokenize
local width = require("attn.text.width").of
local repl = {}

repl.chunkname = "=stdin"   -- errors then read "stdin:1: ...", which eval strips for one-liners
repl.color = false          -- set by the C side when stdout is a terminal and NO_COLOR is unset
repl.last_traceback = nil   -- the traceback of the last error, for the curious

local KEYWORDS = {
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}

local OPENS = {["function"] = true, ["do"] = true, ["if"] = true, ["repeat"] = true}
local CLOSES = {["end"] = true, ["until"] = true}

-- Parses `name [<attr>] {, name [<attr>]}` from tokens[k]; returns the index after it, the
-- attribute spans to delete, and whether one attribute is <close>. nil when it is not a name list.
local function namelist(tokens, k)
    local drops, close = {}, false
    while true do
        local t = tokens[k]
        if not t or t.kind ~= "name" then return nil end
        k = k + 1
        if tokens[k] and tokens[k].text == "<" then
            local attr, gt = tokens[k + 1], tokens[k + 2]
            if not (attr and attr.kind == "name" and gt and gt.text == ">") then return nil end
            if attr.text == "close" then close = true end
            drops[#drops + 1] = {t.e + 1, gt.e}   -- with the space before it
            k = k + 3
        end
        if not (tokens[k] and tokens[k].text == ",") then return k, drops, close end
        k = k + 1
    end
end

-- Torch7's trepl lost `local x = 1` between lines (each line is its own chunk, so its locals die
-- with it). Top-level locals become globals instead: `local x = 1` -> `x = 1`, `local x` ->
-- `x = nil`, `local function f` -> `function f`. A <const> attribute is dropped; a <close> local
-- stays local, since closing it at the end of the line is the point of it.
function repl.rewrite_locals(src)
    local tokens = tokenize(src)
    local edits, depth = {}, 0      -- edits: {from, to, replacement}, in source order
    local k = 1
    while k <= #tokens do
        local t = tokens[k]
        if t.kind == "name" then
            if OPENS[t.text] then
                depth = depth + 1
            elseif CLOSES[t.text] then
                depth = math.max(depth - 1, 0)
            elseif t.text == "local" and depth == 0 then
                local nxt = tokens[k + 1]
                if nxt and nxt.text == "function" then
                    edits[#edits + 1] = {t.s, nxt.s - 1, ""}
                else
                    local after, drops, close = namelist(tokens, k + 1)
                    if after and not close then
                        edits[#edits + 1] = {t.s, tokens[k + 1].s - 1, ""}
                        for _, d in ipairs(drops) do edits[#edits + 1] = {d[1], d[2], ""} end
                        if not (tokens[after] and tokens[after].text == "=") then
                            local last = tokens[after - 1]
                            edits[#edits + 1] = {last.e + 1, last.e, " = nil"}
                        end
                    end
                end
            end
        end
        k = k + 1
    end
    for e = #edits, 1, -1 do
        local from, to, rep = edits[e][1], edits[e][2], edits[e][3]
        src = src:sub(1, from - 1) .. rep .. src:sub(to + 1)
    end
    return src
end

---------------------------------------------------------------------------------------------------
-- Evaluation
---------------------------------------------------------------------------------------------------

local function write_result(s)
    io.stdout:write(s)
end

local function write_error(msg)
    io.stdout:flush()   -- results printed before the error must appear before it
    if repl.color then
        io.stderr:write("\27[31merror: ", msg, "\27[0m\n")
    else
        io.stderr:write("error: ", msg, "\n")
    end
end

-- Lua's messages for an unfinished chunk end in "<eof>" (lua.c's test for a continuation line).
local function is_incomplete(msg)
    return msg ~= nil and msg:sub(-5) == "<eof>"
end

-- Python's builtins that a reader of the books types out of habit, and what Lua has instead.
local PYTHON = {
    len = "#x, or x:size(1)", range = "for i = 1, n do ... end (or torch.arange(n))",
    enumerate = "for i, x_i in ipairs(list) do ... end", zip = "for i = 1, #a do ... a[i], b[i] ... end",
    int = "math.floor(x)", float = "x + 0.0", str = "tostring(x)", list = "a table: {a, b}",
    isinstance = "torch.is_tensor(x), type(x)", super = "nothing: __init needs no super().__init__()",
}

-- A hint after the message when the chunk looks like Python that Lua reads differently.
function repl.hint(msg, chunk)
    local builtin = msg:match("attempt to call a nil value %(global '([%w_]+)'%)")
    local method = msg:match("^([%w_]+): [%w_ ()]+ must be a tensor, got no value")
    local hint
    if msg:find("near '@'", 1, true) then
        hint = "Lua has no @: the matrix product is a:matmul(b)"
    elseif msg:find("expected near '='", 1, true) and chunk:find("%([^()]*[%w_]%s*=[^=]") then
        hint = "keyword arguments go in a trailing table: f(x, {dim = -1})"
    elseif chunk:find("^%s*import%s") or chunk:find("^%s*from%s+[%w_.]+%s+import%s") then
        hint = "no import needed: torch, nn and attention are there already"
    elseif builtin and PYTHON[builtin] then
        hint = "Lua has no " .. builtin .. "(): " .. PYTHON[builtin]
    elseif method and chunk:find("%." .. method .. "%(") then
        hint = "call a method with a colon: x:" .. method .. "(...)"
    elseif msg:find("attempt to call a torch.Size value (method 'shape')", 1, true) then
        hint = "x.shape is a property: no colon, no ()"
    end
    return hint and (msg .. "  (" .. hint .. ")") or msg
end

-- One-line chunks do not need "stdin:1: " in front of every message; longer ones keep their
-- line numbers, which then point somewhere.
local function clean(msg, chunk)
    if not chunk:find("\n", 1, true) then
        local prefix = repl.chunkname:gsub("^[=@]", "") .. ":1: "
        if msg:sub(1, #prefix) == prefix then msg = msg:sub(#prefix + 1) end
    end
    return repl.hint(msg, chunk)
end

local function handler(err)
    local msg = errors.text(err)
    repl.last_traceback = debug.traceback(msg, 2)
    return msg
end

---------------------------------------------------------------------------------------------------
-- Showing values: tostring, except for plain tables, which Lua would show as "table: 0x55..."
---------------------------------------------------------------------------------------------------

local SHOW_MAX = 50 -- elements shown of one table
local IDENT = "^[%a_][%w_]*$"

local function show_string(v)
    local ok, s = pcall(tostring, v)
    return ok and tostring(s) or ("<tostring failed: " .. errors.text(s) .. ">")
end

local show_table

-- A value as it appears inside a table: strings quoted, plain tables shown, the rest tostring'd.
local function show_item(v, depth, seen)
    if type(v) == "string" then return string.format("%q", v):gsub("\\\n", "\\n") end
    if type(v) == "table" and getmetatable(v) == nil then return show_table(v, depth + 1, seen) end
    return show_string(v)
end

-- {1, 2, 3}, {"Your", "journey"}, {a = 1}, a list of tensors one per line: the array part first,
-- then the other keys in order; nested at most 4 deep, at most SHOW_MAX elements.
function show_table(t, depth, seen)
    if seen[t] then return "{...}" end
    if depth > 4 then return "{...}" end
    seen[t] = true
    local items, n = {}, rawlen(t)
    for i = 1, math.min(n, SHOW_MAX) do items[#items + 1] = show_item(rawget(t, i), depth, seen) end
    local keys = {}
    for k in pairs(t) do
        if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
    end
    table.sort(keys, function(a, b)
        if type(a) == type(b) and (type(a) == "string" or type(a) == "number") then return a < b end
        return type(a) < type(b)
    end)
    for _, k in ipairs(keys) do
        if #items >= SHOW_MAX then break end
        local name = type(k) == "string" and k:match(IDENT) and k or ("[" .. show_item(k, depth, seen) .. "]")
        items[#items + 1] = name .. " = " .. show_item(rawget(t, k), depth, seen)
    end
    local more = n + #keys - #items
    if more > 0 then items[#items + 1] = "... (" .. more .. " more)" end
    seen[t] = nil
    local one = "{" .. table.concat(items, ", ") .. "}"
    if not one:find("\n", 1, true) then
        if width(one) <= 78 then return one end
        local lines, line = {}, "{" -- short elements: as many to a line as fit in 78 columns
        for i, item in ipairs(items) do
            local piece = item .. (i < #items and "," or "}")
            if line ~= "{" and width(line .. " " .. piece) > 78 then
                lines[#lines + 1] = line
                line = " " .. piece
            else
                line = line .. (line == "{" and "" or " ") .. piece
            end
        end
        lines[#lines + 1] = line
        return table.concat(lines, "\n")
    end
    -- elements that take several lines (tensors): one to a line, shifted under the "{"
    for i, item in ipairs(items) do items[i] = item:gsub("\n", "\n ") end
    return "{" .. table.concat(items, ",\n ") .. "}"
end

-- The libraries a student may type the name of: a page of function addresses says nothing, so
-- they are shown by name, with where to look (Tab after the dot, ? for the documented ones).
local LIBRARIES = {"torch", "nn", "nn.functional", "attention", "lesson", "help", "math", "string", "table",
                   "io", "os", "utf8", "coroutine", "debug", "package"}
local DOCUMENTED = {torch = true, nn = true, ["nn.functional"] = true, attention = true, lesson = true}

local function library_name(v)
    for _, name in ipairs(LIBRARIES) do
        local x = _G
        for part in name:gmatch("[^.]+") do x = type(x) == "table" and rawget(x, part) or nil end
        if x == v then return name end
    end
end

-- What the prompt prints for a value.
function repl.show(v)
    local lib = type(v) == "table" and library_name(v)
    if lib then
        local n = 0
        for _ in pairs(v) do n = n + 1 end
        return string.format("<%s: %d names; %s.<Tab> completes them%s>", lib, n, lib,
                             DOCUMENTED[lib] and (", ?" .. lib .. " lists them") or "")
    end
    if type(v) == "table" and getmetatable(v) == nil then return show_table(v, 1, {}) end
    return show_string(v)
end

-- The text the prompt prints for the values of an expression: each through repl.show, separated by
-- tabs as Lua's print does, or, when one takes several lines (a tensor), one below the other.
function repl.results(...)
    local parts, sep = {}, "\t"
    for i = 1, select("#", ...) do
        parts[i] = repl.show((select(i, ...)))
        if parts[i]:find("\n", 1, true) and select("#", ...) > 1 then sep = "\n" end
    end
    return table.concat(parts, sep)
end

-- Runs f, prints its results (repl.results) and sets _ to the first one.
local function run(f, chunk, out)
    local r = table.pack(xpcall(f, handler))
    if not r[1] then
        out.error(clean(r[2], chunk))
        return "error"
    end
    if r.n > 1 then
        _G._ = r[2]
        out.write(repl.results(table.unpack(r, 2, r.n)) .. "\n")
    end
    return "ok"
end

-- `?` alone and `?name`: the help system, without having to type help("...").
local function ask_help(name, out)
    local h = _G.help
    if h == nil then
        local ok, mod = pcall(require, "attn.help")
        if ok then h = mod end
    end
    if h == nil then
        out.error("help is not available")
        return "error"
    end
    local ok, err
    if name == "" then ok, err = pcall(h) else ok, err = pcall(h, name) end
    if not ok then
        out.error(errors.text(err))
        return "error"
    end
    return "ok"
end

-- Evaluates one chunk typed at the prompt: first as an expression (its values are printed), then
-- as statements. Returns "incomplete" when more lines are needed (unless at_eof: no more lines
-- will come, so the chunk is reported as the syntax error it is).
function repl.eval(chunk, out, at_eof)
    out = out or {}
    local o = {write = out.write or write_result, error = out.error or write_error,
               accept = out.accept or function() end}
    local q = chunk:match("^%s*%?%s*([%w_%.:]*)%s*$")
    if q then
        o.accept(chunk)
        return ask_help(q, o)
    end
    local code = chunk:gsub("^=", "return ")   -- lua.c's "=expr" shorthand
    local f, experr = load("return " .. code, repl.chunkname, "t")
    local sterr
    if not f then
        f, sterr = load(repl.rewrite_locals(code), repl.chunkname, "t")
    end
    if not f and not at_eof and (is_incomplete(experr) or is_incomplete(sterr)) then
        return "incomplete"
    end
    o.accept(chunk)
    if not f then
        o.error(clean(sterr, chunk))
        return "error"
    end
    return run(f, chunk, o)
end

---------------------------------------------------------------------------------------------------
-- Completion
---------------------------------------------------------------------------------------------------

-- Indexes v without letting an error (or a strange __index) escape; a Ctrl-C in an __index that never
-- returns still stops the completion (src/cli/repl.c then abandons the line).
local function field(v, k)
    local ok, r = pcall(function() return v[k] end)
    if ok then return r end
    if r == "interrupted" then error(r, 0) end
    return nil
end

-- Adds the string keys of table t (and of the tables its metatables' __index point to) to names.
-- only_functions (after a colon): the methods, not a module's layers (mha:W_query is no method).
local function add_keys(names, t, only_functions, seen)
    seen = seen or {}
    if type(t) ~= "table" or seen[t] then return end
    seen[t] = true
    for k, v in pairs(t) do
        if type(k) == "string" and (not only_functions or type(v) == "function") then
            names[k] = true
        end
    end
    local mt = getmetatable(t)
    if type(mt) == "table" and type(rawget(mt, "__index")) == "table" then
        add_keys(names, rawget(mt, "__index"), only_functions, seen)
    end
end

-- The methods of any value: its metatable's __index table, or, when __index is a function (as for
-- tensors, whose properties x.T and x.shape are computed), the table at the metatable's __methods.
local function add_methods(names, v, only_functions)
    local mt = getmetatable(v)
    if type(mt) ~= "table" then return end
    local index, methods = rawget(mt, "__index"), rawget(mt, "__methods")
    if type(index) == "table" then add_keys(names, index, only_functions) end
    if type(methods) == "table" then add_keys(names, methods, only_functions) end
end

-- Returns the sorted completions of `text`: a global name, `a.b.c` fields, or `x:method`.
function repl.complete(text)
    local head, sep, partial = text:match("^(.*)([%.:])([%w_]*)$")
    local names, base = {}, nil
    if not head then
        partial = text
        add_keys(names, _G)
        for _, kw in ipairs(KEYWORDS) do names[kw] = true end
    else
        if not head:match("^[%a_][%w_%.]*$") or head:match("%.%.") or head:sub(-1) == "." then
            return {}
        end
        local v = _G
        for part in head:gmatch("[^%.]+") do
            v = field(v, part)
            if v == nil then return {} end
        end
        local only_functions = (sep == ":")
        if type(v) == "table" then add_keys(names, v, only_functions) end
        add_methods(names, v, only_functions)
        base = head .. sep
        if not partial:match("^[%a_]?[%w_]*$") then return {} end
    end
    local list = {}
    for name in pairs(names) do
        if name:match("^[%a_][%w_]*$") and name:sub(1, #partial) == partial
           and (name:sub(1, 1) ~= "_" or partial:sub(1, 1) == "_") then
            list[#list + 1] = (base or "") .. name
        end
    end
    table.sort(list)
    return list
end

return repl
