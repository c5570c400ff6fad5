-- i18n_spec.lua — the Chinese edition's machinery (issues 24 and 29): the error messages of the C
-- core and of the Lua library in the current language, the lookup that counts no miss, and the
-- wrapper that never starts a line with closing punctuation.
local i18n = require("attn.i18n")
local wrap = require("attn.text.wrap")

local function message(f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok)
    return tostring(err):gsub("^[^:]*:%d+: ", "")
end

describe("error messages follow attn.lang", function()
    after_each(function() i18n.lang("en") end)

    it("the core's (attn_fail): English, then Chinese with the same arguments, then English again", function()
        local a, b = torch.ones(2, 3), torch.ones(2, 5)
        assert.are.equal("matmul: cannot multiply [2, 3] by [2, 5] (3 ≠ 2)", message(a.matmul, a, b))
        i18n.lang("zh_CN")
        assert.are.equal("matmul: 无法把 [2, 3] 与 [2, 5] 相乘（3 ≠ 2）", message(a.matmul, a, b))
        i18n.lang("en")
        assert.are.equal("matmul: cannot multiply [2, 3] by [2, 5] (3 ≠ 2)", message(a.matmul, a, b))
    end)

    it("the bindings' (lt_error)", function()
        i18n.lang("zh_CN")
        assert.are.equal("tensor: 第 2 行有 1 个元素，应为 2 个", message(torch.tensor, {{1, 2}, {3}}))
    end)

    it("the Lua library's (errors.raisef)", function()
        i18n.lang("zh_CN")
        assert.are.equal("Dropout: p 必须是 0 到 1 之间的概率，实际是 3", message(nn.Dropout, 3))
    end)
end)

describe("i18n.lookup", function()
    after_each(function() i18n.lang("en") end)

    it("translates what the catalogs have and returns anything else as it is, counting no miss", function()
        i18n.lang("zh_CN")
        local before = #i18n.misses()
        assert.are.equal("实际", i18n.lookup("got"))
        assert.are.equal("matmul: built at run time", i18n.lookup("matmul: built at run time"))
        assert.are.equal(before, #i18n.misses())
    end)
end)

describe("wrap", function()
    local CLOSING = {}
    for _, c in utf8.codes("，。、；：！？）”’》") do CLOSING[c] = true end
    local function starts_closed(l) return #l > 0 and CLOSING[utf8.codepoint(l, 1)] == true end

    it("never starts a line with closing punctuation, at any width", function()
        local s = "他说：“注意力权重之和为 1。”然后，（括号里的话）结束了；对吗？是的、是的。"
        for width = 4, 40 do
            for _, l in ipairs(wrap.line(s, width)) do
                assert.is_false(starts_closed(l), ("width %d: %q"):format(width, l))
            end
        end
    end)

    it("nor after a Latin word and a space (\"hoy ，\")", function()
        local s = "第 5 步：读入 hoy ，必须预测 ?"
        for width = 4, 30 do
            for _, l in ipairs(wrap.line(s, width)) do
                assert.is_false(starts_closed(l), ("width %d: %q"):format(width, l))
            end
        end
    end)
end)
