-- width.lua — how many terminal columns text takes (module attn.text.width), for everything attn
-- lines up in columns: heatmaps, the tracer's headers, the lesson library's rules and code echo, the
-- REPL's tables, --list. East Asian wide characters (the Chinese edition's) take two columns.
--
--   width.of(s)              the columns s takes (invalid UTF-8: its length in bytes)
--   width.pad_left(s, w)     s with spaces before it, w columns in all
--   width.pad_right(s, w)    s with spaces after it
--   width.cut(s, w)          s, or its first columns and "…", at most w columns
--   width.plain(s)           s without terminal colour codes ("\27[1;31m") and operating system
--                            commands ("\27]7717;1\7": the web page's figure marker), to be measured
local width = {}

local function is_wide(c)
    return (c >= 0x1100 and c <= 0x115F) or (c >= 0x2E80 and c <= 0xA4CF) or (c >= 0xAC00 and c <= 0xD7A3)
        or (c >= 0xF900 and c <= 0xFAFF) or (c >= 0xFE30 and c <= 0xFE4F) or (c >= 0xFF00 and c <= 0xFF60)
        or (c >= 0xFFE0 and c <= 0xFFE6) or c >= 0x20000
end

function width.of(s)
    if not utf8.len(s) then return #s end
    local n = 0
    for _, c in utf8.codes(s) do
        n = n + (is_wide(c) and 2 or 1)
    end
    return n
end

function width.pad_left(s, w)
    return string.rep(" ", w - width.of(s)) .. s
end

function width.pad_right(s, w)
    return s .. string.rep(" ", w - width.of(s))
end

function width.cut(s, w)
    if width.of(s) <= w then return s end
    if not utf8.len(s) then return s:sub(1, w - 1) .. "…" end
    local out = ""
    for _, c in utf8.codes(s) do
        local ch = utf8.char(c)
        if width.of(out .. ch) > w - 1 then break end
        out = out .. ch
    end
    return out .. "…"
end

function width.plain(s)
    return (s:gsub("\27%[[%d;]*m", ""):gsub("\27%][^\7]*\7", ""))
end

return width
