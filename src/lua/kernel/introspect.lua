-- introspect.lua — the requests about code not run (module attn.kernel.introspect): complete_request
-- (the REPL's Tab completion), inspect_request (the REPL's ?name), is_complete_request (whether Enter in
-- `jupyter console` runs the cell or starts a new line, as the REPL's continuation prompt decides).
-- Cursor positions are in UTF-16 code units, as the protocol (5.2 on) counts them; Lua strings are bytes.
local wire = require("attn.kernel.wire")
local json = require("attn.json")
local repl = require("attn.repl")
local help = require("attn.help")

local introspect = {}

-- The characters that end a word for completion: readline's list in src/cli/repl.c (`.` and `:` are in
-- words, so torch.so and t:ma complete as one).
local WORD = "[^ \t\n\"'`@$><=;|&{(,)}%[%]+%-*/%%^~#!]*$"

-- The UTF-16 length of a UTF-8 string (a character beyond U+FFFF takes two units).
local function units(s)
    local n = 0
    for _, cp in utf8.codes(s, true) do n = n + (cp > 0xFFFF and 2 or 1) end
    return n
end

-- The byte offset in s of a cursor at UTF-16 position pos (past the end: the end).
local function byte_at(s, pos)
    if type(pos) ~= "number" then return #s end
    local n = 0
    for p, cp in utf8.codes(s, true) do
        if n >= pos then return p - 1 end
        n = n + (cp > 0xFFFF and 2 or 1)
    end
    return #s
end

local function valid(s) return utf8.len(s, 1, -1, true) ~= nil end

function introspect.complete(msg)
    local code, pos = msg.content.code, msg.content.cursor_pos
    if type(code) ~= "string" or not valid(code) then error("complete_request: code is not UTF-8 text", 0) end
    local before = code:sub(1, byte_at(code, pos))
    local word = before:match(WORD) or ""
    local ok, matches = wire.run(repl.complete, word)
    if not ok or type(matches) ~= "table" then matches = {} end
    local cursor_end = units(before)
    return {status = "ok", matches = json.array(matches), cursor_start = cursor_end - units(word),
            cursor_end = cursor_end, metadata = {}}
end

-- The name under the cursor: torch.softmax in "y = torch.soft|max(x)".
local function name_at(code, pos)
    local at = byte_at(code, pos)
    local left = code:sub(1, at):match("[%w_%.:]*$") or ""
    local right = code:sub(at + 1):match("^[%w_]*") or ""
    return (left .. right):gsub("^[%.:]+", ""):gsub("[%.:]+$", "")
end

function introspect.inspect(msg)
    local code = msg.content.code
    if type(code) ~= "string" or not valid(code) then error("inspect_request: code is not UTF-8 text", 0) end
    local name = name_at(code, msg.content.cursor_pos)
    if name == "" then return {status = "ok", found = false, data = {}, metadata = {}} end
    local ok, text = wire.run(help.text, name)
    local found = ok and help.lookup(name) ~= nil
    if not ok then return {status = "ok", found = false, data = {}, metadata = {}} end
    return {status = "ok", found = found, data = {["text/plain"] = text}, metadata = {}}
end

-- Lua's messages for an unfinished chunk end in "<eof>" (as attn.repl, and lua.c, tell).
local function unfinished(msg) return msg ~= nil and msg:sub(-5) == "<eof>" end

function introspect.is_complete(msg)
    local code = msg.content.code
    if type(code) ~= "string" then error("is_complete_request: code is not text", 0) end
    if code:match("^%s*%?") or code:match("^%s*$") then return {status = "complete"} end
    local body = code:gsub("^=", "return ")
    local f, experr = load("return " .. body, "=cell", "t")
    if f then return {status = "complete"} end
    local g, sterr = load(repl.rewrite_locals(body), "=cell", "t")
    if g then return {status = "complete"} end
    if unfinished(experr) or unfinished(sterr) then return {status = "incomplete", indent = "  "} end
    return {status = "invalid"}
end

return introspect
