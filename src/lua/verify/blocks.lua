-- blocks.lua — what `attn --verify` reads in a Markdown file (module attn.verify.blocks): the lines,
-- and the cells, each a ```lua block with the ```output block that shows what it prints.
--
--   blocks.read(text) -> notes, or nil and problems ({{line =, message =}, ...})
--   notes.lines[l]     line l without its end of line; notes.eol[l] its end ("\n", "\r\n" or "");
--   notes.bom          the file's UTF-8 byte order mark, or "" (not part of line 1)
--   notes.cells        {{code =, output =, skip =, unchecked =}, ...} in the file's order; code and output are
--                      blocks: {info =, code =, line =, last =, column =, fence =, prefix =}
--
-- libcmark (src/bind/markdown.c) says where each code block is. The rules on top are attn's:
--   - a fenced block whose info string starts with the word `lua` is run, unless its second word is
--     `skip`; any other language (```python), indented code and prose are left alone
--   - an ```output block (or a ```text block) right after a ```lua block, blank lines apart, holds
--     what that block prints; an ```output block anywhere else is a mistake (a ```text block there is
--     plain text); ```output unchecked shows output that differs from run to run (a time): the
--     block runs, its output is not compared (nor rewritten by --update)
--   - every fence must be closed: an unclosed one silently swallows the rest of the file
-- A file that is not UTF-8 is refused before any of this.

local markdown = require("attn.bind").markdown

local blocks = {}

-- The text's lines and their ends, so that a rewrite (verify/rewrite.lua) keeps every other byte.
local function split(text)
    local lines, eol = {}, {}
    local pos = 1
    while pos <= #text do
        local nl = text:find("\n", pos, true)
        local line = text:sub(pos, (nl or #text + 1) - 1)
        local ending = nl and "\n" or ""
        if nl and line:sub(-1) == "\r" then line, ending = line:sub(1, -2), "\r\n" end
        lines[#lines + 1], eol[#eol + 1] = line, ending
        pos = (nl or #text) + 1
    end
    return lines, eol
end

-- The line and column of the first byte that is not UTF-8, or nil when the text is UTF-8.
local function first_bad_byte(text)
    local ok, at = utf8.len(text)
    if ok then return nil end
    local before = text:sub(1, at - 1)
    local _, line = before:gsub("\n", "")
    local start = before:match(".*\n()") or 1
    return line + 1, (utf8.len(text:sub(start, at - 1)) or (at - start)) + 1
end

-- The fence a block opens with ("```", "~~~~"), or nil for indented code.
local function fence_of(lines, b)
    local line = lines[b.line] or ""
    return line:sub(b.column):match("^(```+)") or line:sub(b.column):match("^(~~~+)")
end

-- Whether the block's last line closes its fence: the same character, at least as many, nothing after.
local function closed(lines, b)
    if b.last <= b.line then return false end
    local line = (lines[b.last] or ""):gsub("^[ \t>]*", "")
    local ch = b.fence:sub(1, 1)
    local run = line:match("^(" .. (ch == "`" and "`" or "~") .. "+)%s*$")
    return run ~= nil and #run >= #b.fence
end

-- What the lines of a block's container start with (a block quote's "> ", a list item's indentation):
-- the opening line before the fence, with a list marker turned into spaces.
local function prefix_of(lines, b)
    return ((lines[b.line] or ""):sub(1, b.column - 1):gsub("[^>%s]", " "))
end

local function blank_between(lines, first, last)
    for l = first, last do
        if not lines[l]:match("^[%s>]*$") then return false end
    end
    return true
end

local function word(info, n)
    local words = {}
    for w in info:gmatch("%S+") do words[#words + 1] = w:lower() end
    return words[n]
end

function blocks.read(text)
    -- a UTF-8 byte order mark (Windows editors write one) is not part of the first line: with it,
    -- libcmark would not see a fence there, and the first block would be silently left out
    local bom = text:sub(1, 3) == "\239\187\191" and text:sub(1, 3) or ""
    text = text:sub(#bom + 1)
    local bad_line, bad_col = first_bad_byte(text)
    if bad_line then
        return nil, {{line = bad_line, message = string.format(
            "not UTF-8 text: the byte at line %d, column %d is not UTF-8 (save the notes as UTF-8)",
            bad_line, bad_col)}}
    end
    local lines, eol = split(text)
    local notes = {lines = lines, eol = eol, cells = {}, bom = bom}
    local problems = {}
    local prev   -- the code block before this one, of any language
    for _, b in ipairs(markdown.code_blocks(text)) do
        b.fence = fence_of(lines, b)
        local lang = b.fence and word(b.info, 1)
        if b.fence then
            b.prefix = prefix_of(lines, b)
            if not closed(lines, b) then
                problems[#problems + 1] = {line = b.line, message = string.format(
                    "the %s fence opened here is never closed: everything after it would be code " ..
                    "(close it with a line of %s)", b.fence .. b.info, b.fence)}
            end
        end
        if lang == "lua" then
            notes.cells[#notes.cells + 1] = {code = b, skip = word(b.info, 2) == "skip"}
        elseif lang == "output" or lang == "text" then
            local cell = notes.cells[#notes.cells]
            if prev and cell and cell.code == prev and not cell.output
                and blank_between(lines, prev.last + 1, b.line - 1) then
                cell.output = b
                cell.unchecked = word(b.info, 2) == "unchecked"
            elseif lang == "output" then
                problems[#problems + 1] = {line = b.line, message =
                    "an ```output block with no ```lua block right before it (blank lines apart): " ..
                    "whose output is it?"}
            end
        end
        prev = b
    end
    if #problems > 0 then return nil, problems end
    return notes
end

return blocks
