-- show.lua — what the prompt prints for a value (module attn.repl.show): tostring, except for plain
-- tables, which Lua would show as "table: 0x55...", and attn's libraries, which are named.
--
--   show.value(v)      the text for one value ({1, 2} for a table)
--   show.results(...)  the text for an expression's values: each through show.value, separated by
--                      tabs as Lua's print does, or one below the other when one takes several lines
local errors = require("attn.errors")
local width = require("attn.text.width").of
local show = {}

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
function show.value(v)
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

-- The text the prompt prints for the values of an expression: each through show.value, separated by
-- tabs as Lua's print does, or, when one takes several lines (a tensor), one below the other.
function show.results(...)
    local parts, sep = {}, "\t"
    for i = 1, select("#", ...) do
        parts[i] = show.value((select(i, ...)))
        if parts[i]:find("\n", 1, true) and select("#", ...) > 1 then sep = "\n" end
    end
    return table.concat(parts, sep)
end

return show
