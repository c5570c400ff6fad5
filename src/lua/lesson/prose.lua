-- prose.lua — how a paragraph of a lesson (lesson.say) is laid out (module attn.lesson.prose).
--   prose.dedent(text)         text written in a [[long string]]: blank lines around it, common
--                              indentation and trailing spaces removed
--   prose.layout(text, width)  a translated paragraph's lines wrapped at the terminal's width (or
--                              width off a terminal), between Chinese characters (text/wrap.lua);
--                              indented lines (code, tables) are left alone. An English paragraph is
--                              not laid out: it keeps the lesson's own line breaks.
local term = require("attn.term")
local wrap = require("attn.text.wrap")

local prose = {}

function prose.dedent(text)
    local lines = {}
    for line in (text .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
    while lines[1] and lines[1]:match("^%s*$") do table.remove(lines, 1) end
    while lines[#lines] and lines[#lines]:match("^%s*$") do lines[#lines] = nil end
    local indent
    for _, l in ipairs(lines) do
        if not l:match("^%s*$") then
            local w = #l:match("^[ \t]*")
            if not indent or w < indent then indent = w end
        end
    end
    for i, l in ipairs(lines) do lines[i] = l:sub((indent or 0) + 1):gsub("%s+$", "") end
    return table.concat(lines, "\n")
end

function prose.layout(text, width)
    local cols = term.size and select(2, term.size())
    local w = math.max(40, (cols and cols < 100) and cols - 1 or width)
    return wrap.text(text, w, function(l) return l:match("^%s") end)
end

return prose
