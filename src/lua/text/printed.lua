-- printed.lua — what a block printed, as a Markdown file can hold it and give it back (module
-- attn.text.printed): the text --verify compares (verify/output.lua) and --verify --update and
-- --markdown write (verify/run.lua, lesson/markdown.lua), so that what they write verifies again.
--
--   printed.lines(text)  -> its lines: trailing spaces and trailing blank lines removed, each line
--                           visible (below)
--   printed.normal(text) -> the same lines with "\n" at the end of every one ("" for none)

local printed = {}

-- A line as a Markdown file can hold it and give it back: a control character (a carriage return
-- inside the line, a NUL, an escape) as its Unicode control picture (␍, ␀, ␛), a byte that is not
-- UTF-8 (a token cut inside a character) as U+FFFD. Both sides of a comparison go through this, so
-- what --update and --markdown write verifies again; text already written this way is unchanged.
local function visible(line)
    line = line:gsub("[%z\1-\8\11-\31]", function(c) return utf8.char(0x2400 + c:byte()) end)
    line = line:gsub("\127", "\u{2421}")
    if utf8.len(line) then return line end
    local out, i = {}, 1
    while i <= #line do
        local ok, bad = utf8.len(line, i)
        if ok then out[#out + 1] = line:sub(i) break end
        out[#out + 1] = line:sub(i, bad - 1) .. "\u{FFFD}"
        i = bad + 1
    end
    return table.concat(out)
end

function printed.lines(text)
    local lines = {}
    for line in (text .. "\n"):gmatch("(.-)\r?\n") do lines[#lines + 1] = visible((line:gsub("[ \t]+$", ""))) end
    if text:sub(-1) == "\n" or text == "" then lines[#lines] = nil end
    while #lines > 0 and lines[#lines] == "" do lines[#lines] = nil end
    return lines
end

function printed.normal(text)
    local lines = printed.lines(text)
    if #lines == 0 then return "" end
    return table.concat(lines, "\n") .. "\n"
end

return printed
