-- lesson_spec.lua — the lesson library (src/lua/lesson*.lua): checks and how they explain a
-- failure, what steps echo, the runner's modes. Run inside attn:
--   ./attn /usr/bin/busted -o TAP tests/lua/lesson_spec.lua
-- The command line itself (--check, --list, --tap, --step through a terminal) is tested by
-- tests/lessons/test_lessons.sh, tests/lessons/test_step_tty.sh and tests/lessons/test_step_keys.sh.

local lesson = require("attn.lesson")
local compare = require("attn.lesson.compare")
local source = require("attn.lesson.source")
local run = require("attn.lesson.run")
local term = require("attn.term")

local INPUTS = {{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
                {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}
-- the book's In [3] output (ch. 3), the expected side of the checks below
local BOOK_SCORES_2 = [=[tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])]=]

local tmpfiles = {}
local function lesson_file(text)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    tmpfiles[#tmpfiles + 1] = path
    return path
end

-- Runs a lesson file in a mode, capturing what the library prints.
local function run_lesson(text, mode, opts)
    local path = lesson_file(text)
    local r
    local out = lesson.capture(function()
        r = run.file(path, {mode = mode or "run", tap = opts and opts.tap})
    end)
    lesson.begin()
    return out, r.passed, r.failed, r.status, path
end

teardown(function()
    for _, p in ipairs(tmpfiles) do os.remove(p) end
    lesson.begin()
end)

-- lesson.check, its output captured (returns the result only).
local function check(...)
    local ok
    lesson.capture(function(...) ok = lesson.check(...) end, ...)
    return ok
end

describe("lesson.check", function()
    local scores
    before_each(function()
        lesson.begin()
        scores = torch.tensor(INPUTS):matmul(torch.tensor(INPUTS)[2])
    end)

    it("passes when attn prints the book's text character for character", function()
        local ok
        local out = lesson.capture(function() ok = lesson.check("ω2", scores, BOOK_SCORES_2) end)
        assert.is_true(ok)
        assert.are.equal("  ✓ ω2\n", out)
    end)

    it("explains a mismatch: expected, got, the largest difference and its index", function()
        local ok
        local wrong = BOOK_SCORES_2:gsub("1%.4754", "1.4764")
        local out = lesson.capture(function() ok = lesson.check("ω2", scores, wrong) end)
        assert.is_false(ok)
        assert.matches("  ✗ ω2\n", out, 1, true)
        assert.matches("expected  " .. wrong, out, 1, true)
        assert.matches("got       " .. BOOK_SCORES_2, out, 1, true)
        assert.matches("largest difference 1.0e-03 at [3]", out, 1, true)
        assert.are.equal(1, lesson.state().failed)
    end)

    it("names a 2-D index, and a text difference where the numbers agree", function()
        local m = torch.tensor{{1.0, 2.0}, {3.0, 4.0}}
        local out = lesson.capture(lesson.check, "m", m, "tensor([[1., 2.],\n        [3., 5.]])")
        assert.matches("largest difference 1.0e+00 at [2, 2]", out, 1, true)
        out = lesson.capture(lesson.check, "m", m, "tensor([[1., 2.], [3., 4.]])")
        assert.matches("the numbers agree; the text differs at line 1, column 18", out, 1, true)
        out = lesson.capture(lesson.check, "m", m, "tensor([1., 2.])")
        assert.matches("2 numbers expected, 4 printed", out, 1, true)
    end)

    it("compares numbers and tables within a stated tolerance", function()
        local w = torch.softmax(scores, 1)
        assert.is_true(check("sum", w:sum(), 1.0, {tol = 1e-6}))
        assert.is_true(check("row", torch.ones(2, 2), {{1, 1}, {1, 1}}, {tol = 0}))
        assert.is_false(check("row", torch.ones(2, 2), {{1, 1}, {1, 1.5}}, {tol = 0.1}))
        local out = lesson.capture(lesson.check, "row", torch.ones(2, 2), {{1, 1}, {1, 1.5}}, {tol = 0.1})
        assert.matches("largest difference 5.0e-01 at [2, 2], tolerance 0.1", out, 1, true)
        out = lesson.capture(lesson.check, "shape", torch.ones(2, 3), {{1, 1}, {1, 1}}, {tol = 0})
        assert.matches("shape [2, 3], expected [2, 2]", out, 1, true)
        -- a plain Lua table of numbers, and nan = nan
        assert.is_true(check("t", {0 / 0, math.huge}, {0 / 0, math.huge}, {tol = 0}))
    end)

    it("compares a single number exactly without tol, booleans and strings by equality", function()
        assert.is_true(check("n", 1.0, 1.0))
        assert.is_false(check("n", 1.0 + 1e-12, 1.0))
        assert.is_true(check("n", torch.tensor(2.0), 2))
        assert.is_true(check("b", true, true))
        assert.is_false(check("b", false, true))
        assert.is_true(check("s", "torch.Size([6, 3])", "torch.Size([6, 3])"))
        assert.is_true(check("size", torch.tensor(INPUTS).shape, "torch.Size([6, 3])"))
    end)

    it("refuses a table without a tolerance, and bad arguments, with clear errors", function()
        assert.has_error(function() lesson.check("t", torch.ones(2), {1, 1}) end,
            "lesson.check: a table of expected numbers needs a stated tolerance, e.g. {tol = 5e-5}")
        assert.has_error(function() lesson.check("t", torch.ones(2), {1, 1}, {tol = -1}) end,
            "lesson.check: tol must be a number >= 0, got -1")
        assert.has_error(function() lesson.check("t", torch.ones(2), {1, {1}}, {tol = 0}) end,
            "lesson.check: the expected table: not a rectangular table of numbers")
        assert.has_error(function() lesson.check("t", 1, nil) end)
        assert.has_error(function() lesson.check(nil, 1, 1) end, "lesson.check: argument 1 must be a string, got nil")
        assert.has_error(function() lesson.check("t", 1, 1, 5e-5) end)
    end)
end)

describe("lesson.check against a tensor (PyTorch's numbers)", function()
    -- lesson 11's Q·Kᵀ as PyTorch computed it (tests/data/torch, found from the current directory)
    local function pytorch() return lesson.reference("lessons_pdl_ch7.txt", "attention.scores") end

    it("compares with a tensor from lesson.reference within the stated tolerance, and needs one", function()
        local ref = pytorch()
        assert.is_true(check("t", ref + 1e-6, pytorch(), {tol = 1e-5}))
        assert.is_false(check("t", ref + 1e-4, pytorch(), {tol = 1e-5}))
        local out = lesson.capture(lesson.check, "t", ref.T, pytorch(), {tol = 0})
        assert.matches("shape [5, 3], expected [3, 5]", out, 1, true)
        out = lesson.capture(lesson.check, "t", ref * 0, pytorch(), {tol = 1e-5})
        assert.matches("expected  tensor([[", out, 1, true)
        assert.matches("largest difference .* at %[%d, %d%], tolerance 1e%-05", out)
        assert.has_error(function() lesson.check("t", ref, pytorch()) end,
            "lesson.check: a tensor of expected numbers needs a stated tolerance, e.g. {tol = 5e-5}")
    end)

    it("refuses a tensor attn computed as the expected side, and names lesson.agree", function()
        local msg = "lesson.check: the expected side is a tensor attn computed, not the book's text or numbers " ..
                    "or PyTorch's (lesson.reference): compare two computations with lesson.agree(what, a, b " ..
                    "[, {tol = ...}])"
        assert.has_error(function() lesson.check("t", torch.ones(2, 2), torch.ones(2, 2), {tol = 1e-5}) end, msg)
        -- a view of a reference tensor is a new tensor of attn's, refused too
        assert.has_error(function() lesson.check("t", torch.ones(5, 3), pytorch().T, {tol = 1e-5}) end, msg)
    end)
end)

-- lesson.agree, its output captured (returns the result only).
local function agree(...)
    local ok
    lesson.capture(function(...) ok = lesson.agree(...) end, ...)
    return ok
end

describe("lesson.agree (identities)", function()
    local x, scores
    before_each(function()
        lesson.begin()
        x = torch.tensor(INPUTS)
        scores = x:matmul(x[2])
    end)

    it("prints ≡, what, and the largest difference with the tolerance, or exact", function()
        -- element-wise identities, the same on every CPU (a matrix product's last bit depends on the BLAS
        -- kernel): Xᵀᵀ is X itself; 3X / 3 rounds twice, and comes back to X only to the last bit
        -- (PyTorch's (x * 3 / 3 - x).abs().max() on these inputs is 5.96e-08 too)
        assert.are.equal("  ≡ Xᵀᵀ = X (exact)\n", lesson.capture(lesson.agree, "Xᵀᵀ = X", x.T.T, x))
        assert.are.equal("  ≡ 3X / 3 = X (largest difference 5.96e-08, tolerance 1e-07)\n",
            lesson.capture(lesson.agree, "3X / 3 = X", x * 3 / 3, x, {tol = 1e-7}))
        assert.are.equal("  ≡ refused\n", lesson.capture(lesson.agree, "refused", false, false))
        -- the Chinese edition's parentheses around the note, full-width as in Chinese text
        local i18n = require("attn.i18n")
        i18n.lang("zh_CN")
        local zh = lesson.capture(lesson.agree, "3X / 3 = X", x * 3 / 3, x, {tol = 1e-7})
        local exact = lesson.capture(lesson.agree, "Xᵀᵀ = X", x.T.T, x)
        i18n.lang("en")
        assert.are.equal("  ≡ 3X / 3 = X（最大差值 5.96e-08，容差 1e-07）\n", zh)
        assert.are.equal("  ≡ Xᵀᵀ = X（逐位相同）\n", exact)
    end)

    it("counts as a check, and as an identity", function()
        agree("a", scores, scores:clone())
        agree("b", scores, scores + 1)
        check("c", scores, BOOK_SCORES_2)
        local S = lesson.state()
        assert.are.same({2, 1, 2}, {S.passed, S.failed, S.identities})
    end)

    it("explains a failure: a, b, the largest difference, its index and the tolerance", function()
        local ok
        local out = lesson.capture(function() ok = lesson.agree("wrong", scores, scores + 1e-3, {tol = 1e-6}) end)
        assert.is_false(ok)
        assert.matches("  ✗ wrong\n", out, 1, true)
        assert.matches("a         " .. BOOK_SCORES_2, out, 1, true)
        assert.matches("b         tensor([0.9554,", out, 1, true)
        assert.matches("largest difference 1.0e-03 at [2], tolerance 1e-06", out, 1, true)
        out = lesson.capture(lesson.agree, "shapes", torch.ones(2, 3), torch.ones(3, 2))
        assert.matches("cannot be compared: shape [2, 3] and [3, 2]", out, 1, true)
        out = lesson.capture(lesson.agree, "kinds", torch.ones(2), 1)
        assert.matches("cannot be compared: shape [2] and a number", out, 1, true)
        out = lesson.capture(lesson.agree, "lists", {1, torch.ones(2)}, {1, torch.zeros(2)})
        assert.matches("largest difference 1.0e+00 item 2, at [1], tolerance 0", out, 1, true)
    end)

    it("compares tensors with tables, sizes, booleans, bool tensors, lists, nan and inf", function()
        assert.is_true(agree("t", torch.ones(2, 2), {{1, 1}, {1, 1}}))
        assert.is_true(agree("size", x.shape, {6, 3}))
        assert.is_false(agree("size", x.shape, {6, 2}))
        assert.is_true(agree("bool", x:gt(0.5), x:gt(0.5):clone()))
        assert.is_true(agree("bools", torch.tensor{1, 0}:eq(1), {true, false}))
        assert.is_false(agree("bools", torch.tensor{1, 0}:eq(1), {true, true}))
        assert.is_true(agree("list", {x, "name", 3}, {x:clone(), "name", 3}))
        assert.is_false(agree("list", {x, "name"}, {x, "other"}))
        assert.is_false(agree("list", {x}, {x, x}))
        assert.is_true(agree("nan", torch.tensor{0} / 0, {0 / 0}))
        assert.is_true(agree("inf", torch.exp(torch.tensor{1000, -math.huge}), {math.huge, 0}))
        assert.is_false(agree("nan vs 1", torch.tensor{0} / 0, {1}, {tol = 1e6}))
        assert.is_true(agree("0-d", scores:sum(), scores:sum():item()))
    end)

    it("refuses bad arguments with clear errors", function()
        assert.has_error(function() lesson.agree("t", scores) end,
            "lesson.agree: needs two values to compare, got userdata and nil")
        assert.has_error(function() lesson.agree("t", scores, scores, {tol = -1}) end,
            "lesson.agree: tol must be a number >= 0, got -1")
        assert.has_error(function() lesson.agree("t", scores, scores, 1e-6) end,
            "lesson.agree: argument 4 must be an options table such as {tol = 1e-6}, got number")
        assert.has_error(function() lesson.agree(nil, 1, 1) end, "lesson.agree: argument 1 must be a string, got nil")
        assert.has_error(function() lesson.agree("t", print, print) end, "lesson.agree: cannot compare a function")
    end)
end)

describe("lesson.reference", function()
    -- a repository in miniature: root/lessons/x.lua and root/tests/data/torch/ref.txt
    local root
    setup(function()
        root = os.tmpname()
        os.remove(root)
        assert(os.execute("mkdir -p " .. root .. "/lessons " .. root .. "/tests/data/torch"))
        local f = assert(io.open(root .. "/tests/data/torch/ref.txt", "w"))
        f:write("# a comment\n",
                "tensor name=a.m shape=2,2 : 0x3f800000 0x40000000 0x3f000000 0xbf800000\n",
                "tensor name=a.s shape= : 0x3e800000\n")
        f:close()
    end)
    teardown(function() os.execute("rm -rf " .. root) end)

    local function lesson_at(text)
        local path = root .. "/lessons/x.lua"
        local f = assert(io.open(path, "w"))
        f:write(text)
        f:close()
        local r
        local out = lesson.capture(function() r = run.file(path, {mode = "check"}) end)
        lesson.begin()
        return out, r.passed, r.failed, r.status
    end

    it("reads tensors from tests/data/torch beside the lesson's folder, bit for bit", function()
        local out, passed, failed, how = lesson_at([[
lesson.step("ref", function()
    m = lesson.reference("ref.txt", "a.m")
    lesson.check("values", m, {{1, 2}, {0.5, -1}}, {tol = 0})
    lesson.check("shape", m.shape, "torch.Size([2, 2])")
    lesson.check("0-d", lesson.reference("ref.txt", "a.s"), 0.25)
end)
]])
        assert.are.same({"", 3, 0, "ok"}, {out, passed, failed, how})
    end)

    it("names a missing tensor, a missing file and a bad line", function()
        local out = lesson_at('lesson.reference("ref.txt", "a.nope")')
        assert.matches("no tensor named a.nope in .*/lessons/%.%./tests/data/torch/ref%.txt", out)
        out = lesson_at('lesson.reference("nope.txt", "a.m")')
        assert.matches("lesson.reference: cannot find nope.txt (looked for", out, 1, true)
        local f = assert(io.open(root .. "/tests/data/torch/bad.txt", "w"))
        f:write("tensor a.m : 0x0\n")
        f:close()
        out = lesson_at('lesson.reference("bad.txt", "a.m")')
        assert.matches("bad.txt line 1 is not 'tensor name=N shape=S : values'", out, 1, true)
        assert.has_error(function() lesson.reference(1, "x") end, "lesson.reference: argument 1 must be a string, got number")
    end)

    it("lesson.data finds data/<file> beside the lesson file, and names where it looked when it cannot", function()
        assert(os.execute("mkdir -p " .. root .. "/lessons/data"))
        local f = assert(io.open(root .. "/lessons/data/story.txt", "w"))
        f:write("Once.")
        f:close()
        local out, passed, failed = lesson_at([[
lesson.step("data", function()
    local g = assert(io.open(lesson.data("story.txt")))
    lesson.check("the file beside the lesson", g:read("a"), "Once.")
    g:close()
end)
]])
        assert.are.same({"", 1, 0}, {out, passed, failed})
        out = lesson_at('lesson.data("nope.txt")')
        assert.matches("lesson.data: cannot find nope.txt (looked for " .. root .. "/lessons/data/nope.txt, lessons/data/nope.txt)",
                       out, 1, true)
        assert.has_error(function() lesson.data(2) end, "lesson.data: argument 1 must be a string, got number")
    end)
end)

describe("lesson.heatmaps", function()
    local A = {"causal", torch.tril(torch.ones(2, 2)), {range = {0, 1}}}
    local B = {"all", torch.ones(2, 2), {range = {0, 1}}}

    it("draws matrices side by side when they fit, else one below the other", function()
        lesson.begin()
        assert.are.equal("causal      all\n1.█  0.     1.█  1.█\n1.█  1.█    1.█  1.█\n",
                         lesson.capture(lesson.heatmaps, {A, B}))
        local width = lesson.width
        lesson.width = 10
        local ok, out = pcall(lesson.capture, lesson.heatmaps, {A, B})
        lesson.width = width
        assert.is_true(ok)
        assert.are.equal("causal\n1.█  0.\n1.█  1.█\n\nall\n1.█  1.█\n1.█  1.█\n", out)
    end)

    it("prints nothing in check mode, and names bad arguments", function()
        lesson.begin{mode = "check"}
        local out = lesson.capture(lesson.heatmaps, {A})
        lesson.begin()
        assert.are.equal("", out)
        assert.has_error(function() lesson.heatmaps({}) end)
        assert.has_error(function() lesson.heatmaps({{"x", 1}}) end, "lesson.heatmaps: item 1 must be {title, tensor [, opts]}")
    end)

    it("{frames = title}: the title over the frames; on a web page one frame at a time, with a slider", function()
        lesson.begin()
        assert.are.equal("moments\ncausal      all\n1.█  0.     1.█  1.█\n1.█  1.█    1.█  1.█\n",
                         lesson.capture(lesson.heatmaps, {A, B}, {frames = "moments"}))
        assert.has_error(function() lesson.heatmaps({A}, {frame = "x"}) end,
                         "lesson.heatmaps: unknown option 'frame' (did you mean 'frames'?)")
        assert.has_error(function() lesson.heatmaps({A}, {frames = 1}) end,
                         "lesson.heatmaps: frames must be a title (a string), got number")
        assert.has_error(function() lesson.heatmaps({A}, "x") end,
                         "lesson.heatmaps: argument 2 must be an options table such as {frames = \"title\"}, got string")
        local path = lesson_file('lesson.step("s", function()\n    lesson.heatmaps({{"a", torch.eye(2)}, ' ..
                                 '{"b", torch.ones(2, 2)}}, {frames = "moments"})\n    lesson.heatmaps{{"c", torch.eye(2)}}\nend)\n')
        local doc, result = require("attn.lesson.record").file(path)
        local html = require("attn.html.page").render(doc, result)
        local function count(pattern) return select(2, html:gsub(pattern, "")) end
        assert.are.equal(1, count('<div class="frames">'))
        assert.are.equal(2, count('<div class="frame" '))
        assert.are.equal(1, count('<div class="frame" data%-title="b" hidden>'))
        assert.are.equal(1, count('<input type="range" min="1" max="2" value="1" aria%-label="moments">'))
        assert.are.equal(1, count('<div class="figures">'))   -- the heatmap drawn without frames: as before
        assert.are.equal(3, count("<svg "))
    end)

    it("is left out of a step's echo, like lesson.show", function()
        local info = source.read(lesson_file('lesson.step("s", function()\n    lesson.heatmaps{{"a", w}}\nend)\n'))
        assert.is_true(info.hidden[2])
    end)
end)

describe("lesson_compare.numbers", function()
    it("reads the numbers of printed tensors, inf and nan included", function()
        local n = compare.numbers("tensor([[0.2899,   -inf],\n        [1.0000e-05, nan]])")
        assert.are.equal(4, #n)
        assert.are.equal(0.2899, n[1])
        assert.are.equal(-math.huge, n[2])
        assert.are.equal(1e-5, n[3])
        assert.is_true(n[4] ~= n[4])
        assert.are.same({2., -1., 100}, compare.numbers("tensor([ 2., -1., 100.])"))
        assert.are.same({6, 3}, compare.numbers("torch.Size([6, 3]) of float32"))
    end)
end)

describe("lesson.show", function()
    it("prints as the REPL does, after the name: inline for one line, below for a matrix", function()
        lesson.begin()
        assert.are.equal("Sum: tensor(1.)\n", lesson.capture(lesson.show, "Sum", torch.tensor(1.0)))
        assert.are.equal("tensor([1., 1.])\n", lesson.capture(lesson.show, torch.ones(2)))
        assert.are.equal("m:\ntensor([[1., 1.],\n        [1., 1.]])\n",
            lesson.capture(lesson.show, "m", torch.ones(2, 2)))
        assert.are.equal("x: 1.5\n", lesson.capture(lesson.show, "x", 1.5))
        assert.are.equal("{1, 2, {3}}\n", lesson.capture(lesson.show, {1, 2, {3}}))
    end)
end)

describe("lesson files", function()
    local TEXT = [==[
lesson.title("A title", {source = "ch. 3 §3.3"})
lesson.section("3.3.1  One")
lesson.say[[
    Prose.
]]
lesson.step("scores", function()
    x = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
                     {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}
    s = x:matmul(x[2])         -- Python: x @ x[1]
    lesson.show("s", s)
    lesson.check("ω2", s, [=[tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])]=])
    -- lesson.step("not a step", function() end)
end)
lesson.section("3.3.2  Two")
lesson.step("uses the global of step 1", function() n = #x end)
lesson.check("six rows", n, 6)
]==]

    it("knows its steps, title and source, not counting a step in a comment", function()
        local info = source.read(lesson_file(TEXT))
        assert.are.equal(2, info.steps)
        assert.are.same({"scores", "uses the global of step 1"}, info.step_titles)
        assert.are.same({{title = "3.3.1  One", first = 1}, {title = "3.3.2  Two", first = 2}}, info.sections)
        assert.are.equal("A title", info.title)
        assert.are.equal("ch. 3 §3.3", info.origin)
        assert.is_true(info.hidden[11])       -- the check's line
        assert.is_true(info.continues[8])     -- the second line of x's constructor
        assert.is_nil(info.continues[9])
    end)

    it("echoes a step's lines without its show and check calls, Python aligned, numbered n/total", function()
        local out, passed, failed, how = run_lesson(TEXT, "run")
        assert.are.same({2, 0, "ok"}, {passed, failed, how})
        assert.matches("A title\n━━━━━━━\nch. 3 §3.3\n", out, 1, true)
        assert.matches("══ 3.3.1  One ═", out, 1, true)
        assert.matches("\nProse.\n", out, 1, true)
        assert.matches("── step 1/2 · scores ─", out, 1, true)
        assert.matches("\n  x = torch.tensor{{0.43, 0.15, 0.89},", out, 1, true)
        assert.matches("\n  s = x:matmul(x[2])  -- Python: x @ x[1]\n", out, 1, true)
        assert.matches("s: " .. BOOK_SCORES_2 .. "\n  ✓ ω2\n", out, 1, true)
        assert.not_matches("lesson.check", out, 1, true)
        assert.matches("── step 2/2 · uses the global of step 1 ─", out, 1, true)
        assert.matches("\n  n = #x\n", out, 1, true)   -- a one-line step
    end)

    it("hides an identity's call from the echo, like a check's, and reports the identities", function()
        local text = TEXT:gsub('    %-%- lesson%.step%("not a step"', '    lesson.agree("s is row 2 of x·xᵀ", s,\n        x:matmul(x.T)[2], {tol = 2e-7})\n%0')
        local info = source.read(lesson_file(text))
        assert.is_true(info.hidden[12] and info.hidden[13])
        local r
        local out = lesson.capture(function()
            r = run.file(lesson_file(text), {mode = "run"})
        end)
        lesson.begin()
        assert.are.same({3, 0, "ok", 1}, {r.passed, r.failed, r.status, r.identities})
        assert.not_matches("lesson.agree", out, 1, true)
        assert.matches("  ✓ ω2\n  ≡ s is row 2 of x·xᵀ (largest difference 1.19e-07, tolerance 2e-07)\n", out, 1, true)
    end)

    it("prints only failures in check mode, or TAP", function()
        local out, passed, failed = run_lesson(TEXT, "check")
        assert.are.same({2, 0, ""}, {passed, failed, out})
        local bad = TEXT:gsub("n, 6%)", "n, 7)")
        out, passed, failed = run_lesson(bad, "check")
        assert.are.same({1, 1}, {passed, failed})
        assert.matches("^✗ lua_%w+: six rows\n    expected  7\n    got       6\n", out)
        out = run_lesson(bad, "check", {tap = true})
        assert.matches("^ok 1 %- lua_%w+: ω2\nnot ok 2 %- lua_%w+: six rows\n#   expected  7\n", out)
    end)

    it("turns an error inside a lesson into a failure that names the line", function()
        local text = TEXT:gsub("n = #x", "n = x:matmul(torch.ones(2, 3))")
        local out, passed, failed, how = run_lesson(text, "check")
        assert.are.same({1, 1, "error"}, {passed, failed, how})
        assert.matches("error at line 15: matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)", out, 1, true)
        local _, _, _, how2 = run_lesson("this is not Lua", "check")
        assert.are.equal("error", how2)
    end)

    it("steps: Enter goes on, r repeats, s skips the section quietly, q quits", function()
        local keys, asked = {}, 0
        local saved = term.readkey
        term.readkey = function() asked = asked + 1 return table.remove(keys, 1) or "q" end
        keys = {"r", "\n", "\n"}
        local out, passed, _, how = run_lesson(TEXT, "step")
        assert.are.equal("ok", how)
        assert.are.equal(3, asked)
        local _, headers = out:gsub("── step 1/2 · scores ─", "")
        assert.are.equal(2, headers)
        assert.matches("[Enter] next · b back · r repeat · g go to · l list · s next section · c clear · ? keys · q quit",
                       out, 1, true)
        assert.are.equal(2, passed)     -- ω2 once (from its last run), six rows once
        keys, asked = {"q"}, 0
        out, _, _, how = run_lesson(TEXT, "step")
        assert.are.equal("quit", how)
        assert.not_matches("step 2/2", out, 1, true)
        keys, asked = {"s"}, 0          -- s after step 1: the rest of 3.3.1 (nothing) then 3.3.2
        out, _, _, how = run_lesson(TEXT, "step")
        assert.matches("step 2/2", out, 1, true)
        term.readkey = saved
    end)

    -- A lesson for step mode's keys: step 2 draws from the generator step 1 seeds, step 3 counts
    -- how often it ran in a global (a run again from the start must start without it).
    local NAV = [==[
lesson.title("Keys")
lesson.section("A")
lesson.step("seed", function() torch.manual_seed(7) end)
lesson.say[[
    Draw.
]]
lesson.step("draw", function()
    d = torch.rand(3)
    lesson.show("d", d)
    lesson.check("one", 1, 1)
end)
lesson.section("B")
lesson.step("count", function()
    count = (count or 0) + 1
    lesson.show("count", count)
end)
lesson.step("last", function()
    lesson.check("two", 2, 2)
    lesson.agree("three", 3, 3)
end)
]==]

    -- Runs NAV in a step mode with keys (and lines typed after g), restoring the terminal after.
    local function navigate(mode, keys, lines, opts)
        local saved_key, saved_line = term.readkey, term.readline
        term.readkey = function() return table.remove(keys, 1) or "q" end
        term.readline = function() return table.remove(lines, 1) end
        local path = lesson_file(NAV)
        local r
        local out = lesson.capture(function()
            local o = {mode = mode}
            for k, v in pairs(opts or {}) do o[k] = v end
            r = run.file(path, o)
        end)
        term.readkey, term.readline = saved_key, saved_line
        lesson.begin()
        count = nil
        return out, r
    end

    -- The text from the last "<header>" on to the next key line.
    local function last_block(out, header)
        local at
        local from = 1
        while true do
            local i = out:find(header, from, true)
            if not i then break end
            at, from = i, i + 1
        end
        return at and out:sub(at, (out:find("[Enter]", at, true) or #out + 1) - 1)
    end

    -- The text from the first `start` at or after init on to the next key line.
    local function block_from(out, start, init)
        local i = out:find(start, init, true)
        return out:sub(i, out:find("[Enter]", i, true) - 1)
    end

    it("steps: b, g and r run the lesson again from its start; a step shown again prints the same", function()
        local out, r = navigate("step", {"\n", "\n", "b", "g", "g", "r", "\n"}, {"9", "4"})
        assert.are.equal("ok", r.status)
        -- step 2 shown twice: after Enter, and after b from step 3; the same text, the same draw
        local _, n = out:gsub("── step 2/4 · draw ─", "")
        assert.are.equal(2, n)
        local first = block_from(out, "\nDraw.\n", 1)
        local again = block_from(out, "\nDraw.\n", out:find("── step 3/4", 1, true))
        assert.matches("d: tensor(", first, 1, true)
        assert.are.equal(first, again)
        -- the global count starts afresh in every run: step 3 always prints 1
        assert.matches("count: 1", out, 1, true)
        assert.not_matches("count: 2", out, 1, true)
        -- g 9: said, and stays; g 4: step 4; r: step 4 again
        assert.matches("there is no step 9: this lesson's steps are 1 to 4", out, 1, true)
        local _, four = out:gsub("── step 4/4 · last ─", "")
        assert.are.equal(2, four)
        -- counted once each, from the run that reached the end: one, two and the identity three
        assert.are.same({3, 0, 1}, {r.passed, r.failed, r.identities})
        assert.matches("end of lesson · checks: 3 passed, 0 failed (1 of them identities)", out, 1, true)
    end)

    it("steps: l lists the steps under their sections, ? the keys, --from starts at a step", function()
        local out = navigate("step", {"\n", "l", "?", "q"}, {})
        local list = last_block(out, "the steps of this lesson")
        assert.matches("  A\n      1  seed\n  ▸   2  draw\n  B\n      3  count\n      4  last\n", list, 1, true)
        assert.matches("  g             go to a step: type its number, then Enter", out, 1, true)
        out = navigate("step", {"q"}, {}, {from = 3})
        assert.matches("^Keys\n━━━━\n", out)                   -- the lesson's title, then step 3
        assert.not_matches("step 1/4", out, 1, true)
        assert.not_matches("step 2/4", out, 1, true)
        assert.matches("══ B ═", out, 1, true)
        assert.matches("── step 3/4 · count ─", out, 1, true)
    end)

    it("lines: b, g and r stop at the first line of the step asked for, even inside the lesson's pcall", function()
        local text = NAV:gsub('d = torch.rand%(3%)', 'pcall(function()\n        d = torch.rand(3)\n    end)')
        local saved_key, saved_line = term.readkey, term.readline
        local keys = {"\n", "\n", "b", "g", "q"}   -- b at the line inside the pcall
        term.readkey = function() return table.remove(keys, 1) or "q" end
        term.readline = function() return "3" end
        local r
        local out = lesson.capture(function() r = run.file(lesson_file(text), {mode = "line"}) end)
        term.readkey, term.readline = saved_key, saved_line
        lesson.begin()
        assert.are.equal("quit", r.status)
        assert.matches("   9 │ d = torch.rand(3)\n", out, 1, true)     -- b pressed here, inside the pcall
        local _, n = out:gsub("── step 1/4 · seed ─", "")
        assert.are.equal(2, n)                                    -- the lesson again from its start
        assert.matches("── step 3/4 · count ─[^\n]*\n  16 │ count = %(count or 0%) %+ 1\n", out)   -- g 3
    end)
end)

describe("int64 differences", function()
    -- 0 - math.mininteger wraps to math.mininteger, whose math.abs is negative: 0 passed for it
    it("are computed without wrapping", function()
        assert.are.equal(2.0 ^ 64 - 1, compare.difference(math.maxinteger, math.mininteger))
        assert.are.equal(1.0, compare.difference(math.mininteger, math.mininteger + 1))
        assert.are.equal(0, compare.difference(7, 7))
    end)

    it("so lesson.check and lesson.agree refuse math.mininteger for 0", function()
        assert.is_false((compare.check(0, math.mininteger, {tol = 0.5})))
        assert.is_false((compare.check(torch.tensor{0}, {math.mininteger}, {tol = 0.5})))
        assert.is_false((compare.agree(0, math.mininteger, 0)))
        assert.is_false((compare.agree(torch.tensor{0}, torch.tensor{math.mininteger}, 0)))
        assert.is_true((compare.agree(torch.tensor{math.mininteger}, torch.tensor{math.mininteger}, 0)))
    end)
end)

describe("a check that fails by an order of additions", function()
    it("says which kernels computed the number, and only for a difference that small", function()
        local ok, lines = compare.check(torch.tensor{1.0, 2.0}, {1.0, 2.0000002}, {tol = 1e-9})
        assert.is_false(ok)
        local text = table.concat(lines, "\n")
        assert.is_truthy(text:find("its " .. torch.kernels() .. " kernels on " .. torch.get_num_threads() .. " threads", 1, true))
        ok, lines = compare.check(torch.tensor{1.0, 2.0}, {1.0, 2.5}, {tol = 1e-9})
        assert.is_false(ok)
        assert.is_falsy(table.concat(lines, "\n"):find("order of additions", 1, true))
    end)
end)

describe("--list", function()
    local run = require("attn.lesson.run")
    local i18n = require("attn.i18n")
    after_each(function() i18n.lang("en") end)

    it("shows paths as typed from here, and the sources wrapped to the terminal, no line starting with ，", function()
        i18n.lang("zh_CN")
        local lessons = {}
        for name in io.popen("ls lessons/*.lua"):lines() do lessons[#lessons + 1] = name end
        local lines = run.list_lines(lessons, 80)
        assert.matches("^lessons/01_simple_attention%.lua  ", lines[1])
        for _, l in ipairs(lines) do
            assert.is_true(require("attn.text.width").of(l) <= 80, l)
            local text = l:match("^%s+(.*)$")
            if text then
                for _, p in ipairs({"，", "、", "）", "；", "。"}) do
                    assert.is_false(text:sub(1, #p) == p, l)
                end
            end
        end
    end)
end)
