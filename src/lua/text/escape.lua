-- escape.lua — text made safe to put in HTML and SVG (module attn.text.escape): a token such as
-- "<script>" in a label, or a quote in a lesson's prose, shows as itself and never becomes markup.
--
--   escape.html(s)   s with & < > " ' written as character references (for text and attribute values)
local escape = {}

local REFS = {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;"}

function escape.html(s)
    s = tostring(s)
    -- bytes that are not valid UTF-8 would make the whole page invalid: shown as U+FFFD instead
    if not utf8.len(s) then s = s:gsub("[\128-\255]", "\239\191\189") end
    return (s:gsub("[%z\1-\8\11\12\14-\31]", "\239\191\189"):gsub("[&<>\"']", REFS))
end

return escape
