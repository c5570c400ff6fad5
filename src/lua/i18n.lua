-- i18n.lua — the translations of attn's text (module attn.i18n): gettext catalogs, looked up at run
-- time. English is the source language, written in the code and the lessons; src/po/<lang>/*.po hold
-- the translations (lessons/README.md says how to add a message or a language). The build compiles
-- each .po with msgfmt and embeds the .mo files in ./attn (scripts/embed-data.sh), so no file is
-- read at run time; this module reads the .mo format itself (a table of offsets, read with
-- string.unpack), which is why attn needs neither installed locales nor bindtextdomain's directory.
--
--   i18n.tr(msgid)           the translation of msgid in the current language, or msgid itself
--   i18n.trf(fmt, ...)       string.format(i18n.tr(fmt), ...)
--   i18n.lookup(msgid)       i18n.tr without counting a miss (errors.raise: a message built at run time)
--   i18n.lang([name])        the current language ("en", "zh_CN"); with a name, switches to it
--                            (nil and a message when there is no catalog for it)
--   i18n.languages()         the languages with catalogs, "en" first
--   i18n.misses()            the messages looked up and not found since the start (a list)
--   i18n.data(name)          an embedded data file beside the catalogs ("zh_CN/glossary.tsv")
--
-- The language, as gettext programs choose it: ATTN_LANG (what --lang sets), then the first of
-- LANGUAGE (a list, "zh_CN:en"), LC_ALL, LC_MESSAGES, LANG that is set; "zh_CN.UTF-8" means zh_CN,
-- "zh" the first zh_* with a catalog; C, POSIX and languages without a catalog mean English.
-- With ATTN_I18N_MISSES=1 in the environment every miss is also written to stderr, once (the test of
-- tests/i18n/test_chinese.sh runs each lesson in Chinese this way).
local bind = require("attn.bind")

local i18n = {}

local current = "en"
local tables = {}      -- lang -> {msgid = msgstr}, read on first use
local produced = {}    -- strings tr and trf returned: passing them through tr again is no miss
local misses, missed = {}, {}
local report_misses = os.getenv("ATTN_I18N_MISSES") == "1"

local function embedded()
    return bind.i18n and bind.i18n.files() or {}
end

-- The messages of one .mo file (GNU's format: magic, revision, count, the offsets of the tables of
-- originals and translations, each entry a length and an offset) into t. Contexts (msgctxt) and
-- plural forms are not used by attn's catalogs; the header entry (msgid "") is skipped.
local function read_mo(data, t)
    local magic = string.unpack("<I4", data, 1)
    local e = magic == 0x950412de and "<" or ">"
    local n, orig, trans = string.unpack(e .. "I4I4I4", data, 9)
    for i = 0, n - 1 do
        local olen, ooff = string.unpack(e .. "I4I4", data, orig + 8 * i + 1)
        local tlen, toff = string.unpack(e .. "I4I4", data, trans + 8 * i + 1)
        local id, str = data:sub(ooff + 1, ooff + olen), data:sub(toff + 1, toff + tlen)
        -- one table for every domain: a message kept as it is (a code name in a lesson's catalog) never
        -- hides another domain's translation of the same words
        if olen > 0 and (str ~= id or t[id] == nil) then t[id] = str end
    end
end

local function catalog(lang)
    local t = tables[lang]
    if t then return t end
    t = {}
    local files = embedded()
    local names = {}
    for name in pairs(files) do names[#names + 1] = name end
    table.sort(names)   -- the same table on every run
    for _, name in ipairs(names) do
        if name:match("^([^/]+)/.*%.mo$") == lang then read_mo(files[name], t) end
    end
    tables[lang] = t
    return t
end

function i18n.languages()
    local seen, list = {}, {}
    for name in pairs(embedded()) do
        local l = name:match("^([^/]+)/.*%.mo$")
        if l and not seen[l] then seen[l], list[#list + 1] = true, l end
    end
    table.sort(list)
    table.insert(list, 1, "en")
    return list
end

-- The language a locale name means ("zh_CN.UTF-8@x" -> "zh_CN"), or nil when there is no catalog.
local function resolve(name)
    if type(name) ~= "string" then return nil end
    local base = name:match("^([%a_]+)")
    if not base or base == "C" or base == "POSIX" then return nil end
    if base:match("^en") then return "en" end
    local langs = i18n.languages()
    for _, l in ipairs(langs) do if l == base then return l end end
    local lang = base:match("^(%a+)")
    for _, l in ipairs(langs) do if l:match("^(%a+)") == lang then return l end end
    return nil
end

-- The C core's and the bindings' error messages are translated in C (src/bind/i18n.c): it is told the
-- language whenever it changes.
local function use_in_c()
    if bind.i18n and bind.i18n.use then bind.i18n.use(current) end
end

local function from_environment()
    local forced = os.getenv("ATTN_LANG")
    if forced and forced ~= "" then return resolve(forced) or "en" end
    local list = os.getenv("LANGUAGE")
    local locale
    for _, v in ipairs({"LC_ALL", "LC_MESSAGES", "LANG"}) do
        local s = os.getenv(v)
        if s and s ~= "" then locale = s break end
    end
    if list and list ~= "" then
        for name in list:gmatch("[^:]+") do
            local l = resolve(name)
            if l then return l end
        end
    end
    return resolve(locale) or "en"
end

function i18n.tr(msgid)
    if current == "en" or type(msgid) ~= "string" then return msgid end
    local s = catalog(current)[msgid]
    if s and s ~= "" then
        produced[s] = true
        return s
    end
    if not produced[msgid] and not missed[msgid] and msgid:find("%a") then
        missed[msgid] = true
        misses[#misses + 1] = msgid
        if report_misses then
            io.stderr:write("attn: no ", current, " translation: ", (msgid:gsub("\n", "\\n")), "\n")
        end
    end
    return msgid
end

-- The translation of msgid when the catalog has one, else msgid itself, and no miss counted: for a
-- message that may have been put together at run time from parts already translated (errors.raise).
function i18n.lookup(msgid)
    if current == "en" or type(msgid) ~= "string" then return msgid end
    local s = catalog(current)[msgid]
    if s and s ~= "" then
        produced[s] = true
        return s
    end
    return msgid
end

function i18n.trf(fmt, ...)
    local s = string.format(i18n.tr(fmt), ...)
    if current ~= "en" then produced[s] = true end
    return s
end

-- Whether s is text a translation produced (tr's or trf's result) in a language other than English:
-- the lesson library lays such text out for its language (text/wrap.lua).
function i18n.translated(s)
    return current ~= "en" and produced[s] == true
end

function i18n.misses()
    local copy = {}
    for i, m in ipairs(misses) do copy[i] = m end
    return copy
end

function i18n.data(name)
    return embedded()[name]
end

-- With a name: switches to that language and returns it; nil and a message when there is no
-- catalog for it (attn.lang, in init.lua, raises that as the user's error).
function i18n.lang(name)
    if name == nil then return current end
    if type(name) ~= "string" then
        return nil, i18n.trf("expected a language name such as \"zh_CN\" or \"en\", got %s", type(name))
    end
    local l = resolve(name)
    if not l then
        return nil, i18n.trf("no catalog for %s (there are: %s)", name, table.concat(i18n.languages(), ", "))
    end
    current = l
    use_in_c()
    return current
end

current = from_environment()
use_in_c()

return i18n
