-- complete.lua — Tab completion at the prompt (module attn.repl.complete, returns the function):
-- complete(text) -> the sorted completions of the word `text`: a global name, `a.b.c` fields, or
-- `x:method`.
local KEYWORDS = {
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}

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

return function(text)
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
