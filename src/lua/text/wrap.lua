-- wrap.lua — lines of text broken to fit a width in terminal columns (module attn.text.wrap), for
-- prose in any language: English breaks between words; Chinese, written without spaces, may break
-- between any two characters, but not before closing punctuation (，。）…) or after opening
-- punctuation (（“《…), the usual rule of Chinese typesetting. Widths are display columns
-- (text/width.lua: a Chinese character takes two).
--
--   wrap.line(s, width)        a list of lines, each at most width columns (a word wider than the
--                              width gets a line of its own)
--   wrap.text(s, width, keep)  every line of s wrapped and joined again with "\n"; lines for which
--                              keep(line) is true (indented code, tables) are left as they are
local columns = require("attn.text.width").of

local wrap = {}

local function is_wide(c)
    return columns(utf8.char(c)) == 2
end

-- Punctuation that must not start a line, and that must not end one.
local CLOSING = {}
for _, c in utf8.codes("，。、；：！？）】」』”’》〉…·%)],.;:!?") do CLOSING[c] = true end
local OPENING = {}
for _, c in utf8.codes("（【「『“‘《〈") do OPENING[c] = true end

-- The pieces a line may break between: {text =, space = whether a space came before it}.
local function units(s)
    local list, word, space, glue = {}, nil, false, false
    local function push(ch, wide)
        local last = list[#list]
        if last and not space and (glue or CLOSING[utf8.codepoint(ch)] or (word and not wide)) then
            last.text = last.text .. ch
        elseif last and space and wide and CLOSING[utf8.codepoint(ch)] then
            last.text = last.text .. " " .. ch   -- "hoy ，": the space kept, the ， still not first on a line
        else
            list[#list + 1] = {text = ch, space = space}
        end
        space, glue = false, false
        word = not wide
    end
    for _, c in utf8.codes(s) do
        if c == 32 then
            space, word = #list > 0, false
        else
            local wide = is_wide(c)
            push(utf8.char(c), wide or CLOSING[c] and wide)
            if wide then word = false end
            if OPENING[c] then glue = true end
        end
    end
    return list
end

function wrap.line(s, width)
    if not utf8.len(s) or columns(s) <= width then return {s} end
    local lines, line, used = {}, "", 0
    for _, u in ipairs(units(s)) do
        local w = columns(u.text)
        local gap = (u.space and used > 0) and 1 or 0
        if used > 0 and used + gap + w > width then
            lines[#lines + 1] = line
            line, used = u.text, w
        else
            line = line .. (gap == 1 and " " or "") .. u.text
            used = used + gap + w
        end
    end
    lines[#lines + 1] = line
    return lines
end

function wrap.text(s, width, keep)
    local out = {}
    for line in (s .. "\n"):gmatch("(.-)\n") do
        if keep and keep(line) then
            out[#out + 1] = line
        else
            for _, l in ipairs(wrap.line(line, width)) do out[#out + 1] = l end
        end
    end
    return table.concat(out, "\n")
end

return wrap
