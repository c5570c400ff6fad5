-- glossary.lua — ?glossary (module attn.glossary): the terms of attention in English and in each
-- translation, and where the source texts use them, from src/po/<lang>/glossary.tsv (embedded in the
-- binary with the catalogs). A translator keeps the glossary beside the catalogs and the catalogs
-- use its terms; lessons/README.md says more.
--   glossary.entries([lang]) -> {{en =, term =, where =}, ...} in the file's order
--   glossary.text()          what ?glossary prints: a table in display columns
local i18n = require("attn.i18n")
local width = require("attn.text.width")
local wrap_line = require("attn.text.wrap").line
local tr = i18n.tr

local glossary = {}

function glossary.entries(lang)
    local data = i18n.data((lang or "zh_CN") .. "/glossary.tsv") or ""
    local list = {}
    for line in data:gmatch("[^\n]+") do
        if not line:match("^#") then
            local en, term, where = line:match("^([^\t]+)\t([^\t]+)\t?(.*)$")
            if en then list[#list + 1] = {en = en, term = term, where = where} end
        end
    end
    return list
end

function glossary.text()
    local lang = i18n.lang() ~= "en" and i18n.lang() or "zh_CN"
    local list = glossary.entries(lang)
    if #list == 0 then return tr("no glossary: this build has no translation catalogs") end
    local w1, w2 = 0, 0
    for _, e in ipairs(list) do
        w1, w2 = math.max(w1, width.of(e.en)), math.max(w2, width.of(e.term))
    end
    local out = {tr("Glossary: the English term, its Chinese term, where the source texts use it")}
    -- the file's "#= " lines: the legend of its abbreviations (the books' short names)
    for line in (i18n.data(lang .. "/glossary.tsv") or ""):gmatch("[^\n]+") do
        local legend = line:match("^#= (.*)$")
        if legend then out[#out + 1] = legend end
    end
    out[#out + 1] = ""
    local indent = string.rep(" ", 2 + w1 + 2 + w2 + 2)
    for _, e in ipairs(list) do
        local where = wrap_line(e.where, math.max(20, 100 - #indent))
        out[#out + 1] = "  " .. width.pad_right(e.en, w1) .. "  " .. width.pad_right(e.term, w2) .. "  " .. where[1]
        for i = 2, #where do out[#out + 1] = indent .. where[i] end
    end
    return table.concat(out, "\n")
end

return glossary
