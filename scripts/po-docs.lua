-- po-docs.lua — the templates of the ?name entries' translations: ./attn scripts/po-docs.lua DIR writes
-- DIR/<topic>.pot for every file src/lua/docs/<topic>.lua, with one message per paragraph of doc (as
-- help shows it: line breaks joined), per comment of an example (the text after "-- ") and per group
-- title of help.groups. The docs are Lua values joined at load time ([=[...]=] .. batched .. [=[...]=]),
-- which xgettext cannot follow, so they are read here, from the registry help itself uses. Run by
-- scripts/po.sh; help.lua looks the same strings up when it shows an entry.
local dir = assert(arg[1], "usage: attn scripts/po-docs.lua DIR")
local help = require("attn.help")
local comments = require("attn.help").example_comments

local topic
local messages = {}   -- topic -> {list of msgids}, seen
local seen = {}
local function add(msgid, where)
    if not msgid or msgid == "" or not msgid:find("%a") then return end
    local key = topic .. "\0" .. msgid
    messages[topic] = messages[topic] or {}
    if not seen[key] then
        seen[key] = true
        table.insert(messages[topic], {id = msgid, where = where})
    end
end

local register, groups = help.register, help.groups
help.register = function(name, entry, value)
    if entry.doc then add((entry.doc:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")), name) end
    for _, c in ipairs(comments(entry.example or "")) do add(c, name) end
    return register(name, entry, value)
end
help.groups = function(name, list)
    for _, g in ipairs(list) do add(g[1], "?" .. name) end
    return groups(name, list)
end

local topics = {}
for name in pairs(package.preload) do
    local t = name:match("^attn%.docs%.(.+)$")
    if t and t ~= "define" then topics[#topics + 1] = t end
end
table.sort(topics)
for _, t in ipairs(topics) do
    topic = t
    require("attn.docs." .. t)
end

local function po_string(s)
    s = s:gsub("\\", "\\\\"):gsub('"', '\\"'):gsub("\t", "\\t")
    if not s:find("\n") then return '"' .. s .. '"' end
    local out = {'""'}
    for line, nl in s:gmatch("([^\n]*)(\n?)") do
        if line == "" and nl == "" then break end
        out[#out + 1] = '"' .. line .. (nl ~= "" and "\\n" or "") .. '"'
    end
    return table.concat(out, "\n")
end

for t, list in pairs(messages) do
    local f = assert(io.open(dir .. "/" .. t .. ".pot", "w"))
    f:write('msgid ""\nmsgstr ""\n"Project-Id-Version: attn\\n"\n"PO-Revision-Date: 2026-11-24 00:00+0000\\n"\n"MIME-Version: 1.0\\n"\n',
            '"Content-Type: text/plain; charset=UTF-8\\n"\n"Content-Transfer-Encoding: 8bit\\n"\n\n')
    for _, m in ipairs(list) do
        f:write("#. ?", m.where, "\nmsgid ", po_string(m.id), '\nmsgstr ""\n\n')
    end
    f:close()
end
