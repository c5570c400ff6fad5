-- manual.lua — ?tour, ?exact, ?safety, ?performance (module attn.manual): the manual pages of section 7
-- (src/cli/man/attn-TOPIC.7, and attn-TOPIC.zh_CN.7 in Chinese), embedded in the binary with the
-- catalogs, so that the prompt shows the text `man attn-TOPIC` shows, offline and in the user's language.
--
--   manual.topics()        {"exact", "performance", "safety", "tour"}: the pages attn has
--   manual.source(topic)   the page's troff, in the current language (English when it has no page)
--   manual.text(topic)     the page laid out for a terminal of 78 columns; nil when there is no page
--
-- The pages use a small part of man(7), the part this file lays out: .TH, .SH, .SS, .PP, .IP, .TP, .RS,
-- .RE, .nf, .fi, .ad and comments; the escapes \fB \fI \fR \fP \e \& \: \(bu \(dq \(em \-. A page with any
-- other request fails tests/lua/manual_spec.lua, so what `man` shows and what ?topic shows stay the same.
local i18n = require("attn.i18n")
local wrap_line = require("attn.text.wrap").line
local columns = require("attn.text.width").of

local manual = {}

local WIDTH = 78

-- The embedded name of a topic's page in a language: "attn-tour.7", "zh_CN/man/attn-tour.7".
local function embedded_name(topic, lang)
    if lang == "en" then return "attn-" .. topic .. ".7" end
    return lang .. "/man/attn-" .. topic .. ".7"
end

function manual.topics()
    local list = {}
    for _, name in ipairs({"exact", "performance", "safety", "tour"}) do
        if i18n.data(embedded_name(name, "en")) then list[#list + 1] = name end
    end
    return list
end

function manual.source(topic, lang)
    if type(topic) ~= "string" or not topic:match("^[%a]+$") then return nil end
    lang = lang or i18n.lang()
    return i18n.data(embedded_name(topic, lang)) or i18n.data(embedded_name(topic, "en"))
end

local ESCAPES = {["\\e"] = "\\", ["\\&"] = "", ["\\:"] = "", ["\\-"] = "-", ["\\(bu"] = "•",
                 ["\\(dq"] = "\"", ["\\(em"] = "—"}

-- A line of troff text as plain text: fonts dropped, escapes replaced.
local function plain(s)
    s = s:gsub("\\f[BIRP]", "")
    s = s:gsub("\\%(%a%a", ESCAPES):gsub("\\[e&:%-]", ESCAPES)
    return s
end

-- The arguments of a request, quotes removed (.SH "A heading").
local function argument(rest)
    rest = rest:gsub("^%s+", "")
    return plain(rest:match('^"(.*)"$') or rest)
end

-- Lays a page out: headings at the margin, paragraphs filled to WIDTH, literal blocks as they are.
function manual.render(src)
    local out, para, indent, rs = {}, {}, "  ", 0
    local tag, hang -- the tag of .IP/.TP and the indent of the paragraph after it
    local literal = false
    local function blank() if out[#out] ~= "" then out[#out + 1] = "" end end
    local function flush()
        if #para == 0 then return end
        local text = table.concat(para, " "):gsub("%s+", " "):gsub("^ ", "")
        para = {}
        local first, rest = indent, indent
        if hang then
            rest = indent .. string.rep(" ", hang)
            if tag and columns(tag) < hang then
                first = indent .. tag .. string.rep(" ", hang - columns(tag))
            elseif tag then
                out[#out + 1] = indent .. tag
                first = rest
            else
                first = rest
            end
        end
        for k, l in ipairs(wrap_line(text, WIDTH - columns(rest))) do
            out[#out + 1] = (k == 1 and first or rest) .. l
        end
        tag = nil
    end
    local pending_tp = false
    for line in (src .. "\n"):gmatch("(.-)\n") do
        local req, rest = line:match("^%.(%a%a?)(.*)$")
        if line:match('^%.\\"') then -- a comment
        elseif literal and req ~= "fi" and req ~= "RS" and req ~= "RE" then
            out[#out + 1] = indent .. string.rep(" ", rs) .. plain(line)
        elseif req == "TH" or req == "ad" then -- the title line (the REPL shows NAME's), the adjustment
        elseif req == "SH" or req == "SS" then
            flush(); blank()
            out[#out + 1] = (req == "SH" and "" or "  ") .. argument(rest)
            hang = nil
        elseif req == "PP" or req == "P" then
            flush(); blank(); hang = nil
        elseif req == "IP" then
            flush(); blank()
            local t, w = rest:match('^%s*(%S*)%s*(%d*)')
            tag, hang = plain(t), tonumber(w) or 4
            if tag ~= "" then hang = math.max(hang, columns(tag) + 1) end
        elseif req == "TP" then
            flush(); blank(); pending_tp, hang = true, 4
        elseif req == "RS" then
            flush(); rs = rs + (tonumber(rest:match("%d+")) or 4)
        elseif req == "RE" then
            flush(); rs = 0
        elseif req == "nf" then
            flush(); literal = true
        elseif req == "fi" then
            literal = false
        elseif pending_tp then -- the tag of .TP: a line of its own, the paragraph under it
            pending_tp = false
            for _, l in ipairs(wrap_line(plain(line), WIDTH - columns(indent))) do out[#out + 1] = indent .. l end
        else
            para[#para + 1] = plain(line)
        end
    end
    flush()
    while out[#out] == "" do out[#out] = nil end
    while out[1] == "" do table.remove(out, 1) end
    return table.concat(out, "\n")
end

function manual.text(topic)
    local src = manual.source(topic)
    return src and manual.render(src) or nil
end

return manual
