-- lesson_code_spec.lua — what a class sees of a lesson's steps (the code step mode, --html and the
-- notebooks echo: lesson/source.lua's body): the book's code, none of the lesson's plumbing (looking for
-- files, skipping, translating: lesson.needs, lesson.printf and the lesson's own helpers do that outside
-- the steps), and, in the Chinese edition, every comment in Chinese (or kept on purpose: a name, a
-- formula), from the lesson's catalog.
local source = require("attn.lesson.source")
local i18n = require("attn.i18n")

local lessons = {}
for name in io.popen("ls lessons/*.lua"):lines() do lessons[#lessons + 1] = name end

-- A step's shown lines: the body less the lesson.check / lesson.show calls (which step mode hides).
local function steps(path)
    local info = assert(source.read(path))
    local list = {}
    for n, range in ipairs(info.step_lines) do
        list[n] = {info = info, first = range[1], last = range[2]}
    end
    return list
end

local plumbing = dofile("tests/lua/plumbing.lua") -- the one list of plumbing a step must not show

describe("the code of every lesson's steps", function()
    after_each(function() i18n.lang("en") end)

    it("has no plumbing: pcall, os.getenv, lesson.skip, print(lesson.tr(...))", function()
        assert.is_true(#lessons >= 23)
        for _, path in ipairs(lessons) do
            for n, st in ipairs(steps(path)) do
                local info = st.info
                for l = st.first + 1, st.last - 1 do
                    if not info.hidden[l] then
                        local p = plumbing(info.lines[l])
                        assert(not p, string.format("%s step %d, line %d shows %s: %s", path, n, l, p, info.lines[l]))
                    end
                end
            end
        end
    end)

    it("under zh_CN shows every comment from the lesson's catalog", function()
        i18n.lang("zh_CN")
        local count = 0
        for _, path in ipairs(lessons) do
            for n, st in ipairs(steps(path)) do
                local info = st.info
                for l = st.first + 1, st.last - 1 do
                    local c = info.comments[l]
                    if c and not info.hidden[l] then
                        count = count + 1
                        assert(i18n.translated(i18n.lookup(c.text)),
                               string.format("%s step %d, line %d: no translation of the comment %q", path, n, l, c.text))
                    end
                end
            end
        end
        assert.is_true(count > 200, count)
    end)

    it("shows a comment translated, and the book's '-- Python: ...' as it is", function()
        local info = assert(source.read("lessons/02_trainable_weights.lua"))
        local l
        for i, line in ipairs(info.lines) do
            if line:find("-- second input element", 1, true) then l = i end
        end
        assert.is_not_nil(l)
        i18n.lang("zh_CN")
        local shown = source.line(info, l)
        assert.matches("-- 第二个输入元素%s+%-%- Python: x_2 = inputs%[1%]$", shown)
        assert.are.equal(info.lines[l]:match("^(.-)%-%-"), shown:match("^(.-)%-%-"))
    end)
end)
