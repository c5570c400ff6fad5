-- The manual's pages of section 7 (src/cli/man/attn-TOPIC.7 and the Chinese attn-TOPIC.zh_CN.7): each has
-- its twin, the twins have the same sections and the same literal blocks (code is the same code in both
-- languages), they use only what src/lua/manual.lua lays out, man renders them without a warning, and
-- ?TOPIC at the prompt shows the page of the current language, embedded in the binary.
local manual = require("attn.manual")
local help = require("attn.help")
local i18n = require("attn.i18n")

local DIR = "src/cli/man/"
local LAID_OUT = {TH = true, SH = true, SS = true, PP = true, IP = true, TP = true, RS = true, RE = true,
                  nf = true, fi = true, ad = true}

local function read(path)
    local f <close> = assert(io.open(path, "rb"))
    return f:read("a")
end

-- The topics of the English pages in src/cli/man, sorted.
local function pages()
    local list = {}
    for name in assert(io.popen("ls " .. DIR)):lines() do list[#list + 1] = name:match("^attn%-(%a+)%.7$") end
    return list
end

-- The outline of a page: its section requests in order (their count, not their words, which are
-- translated) and its literal blocks' text.
local function outline(src)
    local sections, blocks, block = 0, {}, nil
    for line in (src .. "\n"):gmatch("(.-)\n") do
        if line:match("^%.S[HS] ") then sections = sections + 1
        elseif line == ".nf" then block = {}
        elseif line == ".fi" then blocks[#blocks + 1], block = table.concat(block, "\n"), nil
        elseif block and not line:match("^%.R[SE]") then block[#block + 1] = line
        end
    end
    return sections, blocks
end

describe("the manual's pages", function()
    local topics = pages()
    it("are the four topics, each embedded", function()
        assert.are.same({"exact", "performance", "safety", "tour"}, topics)
        assert.are.same(topics, manual.topics())
    end)
    for _, topic in ipairs(topics) do
        local en_path, zh_path = DIR .. "attn-" .. topic .. ".7", DIR .. "attn-" .. topic .. ".zh_CN.7"
        it(topic .. ": has a Chinese twin with the same sections and the same literal blocks", function()
            local en, zh = read(en_path), read(zh_path)
            local en_sections, en_blocks = outline(en)
            local zh_sections, zh_blocks = outline(zh)
            assert.are.equal(en_sections, zh_sections)
            assert.are.same(en_blocks, zh_blocks)
            local plain = zh:gsub("\\:", "")   -- the places a Chinese line may break
            assert.truthy(plain:find("attn 的", 1, true) or plain:find("的", 1, true))
        end)
        it(topic .. ": uses only the requests manual.lua lays out", function()
            for _, path in ipairs({en_path, zh_path}) do
                local n = 0
                for line in io.lines(path) do
                    n = n + 1
                    local req = line:match("^[.'](%a+)")
                    if req and not line:match('^%.\\"') then
                        assert(LAID_OUT[req], path .. ":" .. n .. ": ." .. req .. " is not laid out by src/lua/manual.lua")
                    end
                end
            end
        end)
        it(topic .. ": man --warnings renders both without a warning", function()
            for _, path in ipairs({en_path, zh_path}) do
                local p = assert(io.popen("MANWIDTH=80 man --warnings -E UTF-8 -l " .. path .. " 2>&1 >/dev/null"))
                local warnings = p:read("a")
                p:close()
                assert.are.equal("", warnings, path)
            end
        end)
        it("?" .. topic .. " shows the embedded page of the current language", function()
            local lang = i18n.lang()
            local ok, err = pcall(function()
                assert(i18n.lang("en"))
                assert.are.equal(read(en_path), manual.source(topic))
                local text = help.text(topic)
                assert.are.equal(manual.render(read(en_path)), text)
                assert.truthy(text:find("^NAME\n  attn%-" .. topic .. " %- "))
                assert(i18n.lang("zh_CN"))
                assert.are.equal(read(zh_path), manual.source(topic))
                text = help.text(topic)
                assert.are.equal(manual.render(read(zh_path)), text)
                assert.truthy(text:find("^名称\n  attn%-" .. topic .. " %- "))
            end)
            i18n.lang(lang)
            assert(ok, err)
        end)
    end
    it("a name that is no topic is not a page (?nn stays nn's help)", function()
        assert.is_nil(manual.text("nn"))
        assert.is_nil(manual.source("../attn"))
    end)
end)

describe("manual.render", function()
    it("lays out headings, filled paragraphs, tagged items and literal blocks", function()
        local src = table.concat({
            ".TH X 7", ".SH NAME", "x \\- a page", ".SH Usage", ".PP", "one", "two \\fBthree\\fR.",
            ".IP \\(bu 2", "an item", ".TP", "tag", "body", ".PP", ".nf", ".RS 2", "  code \\e", ".RE", ".fi",
        }, "\n")
        assert.are.equal(table.concat({
            "NAME", "  x - a page", "", "Usage", "", "  one two three.", "", "  • an item", "", "  tag",
            "      body", "", "      code \\",
        }, "\n"), manual.render(src))
    end)
end)
