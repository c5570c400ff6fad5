-- repl_spec.lua — the REPL's logic (src/lua/repl/, src/lua/help.lua), without a terminal.
-- Run inside attn: ./attn /usr/bin/busted -o TAP tests/lua

local repl = require("attn.repl")
local help = require("attn.help")

-- Evaluates chunk with writers that collect the output; returns status, results, errors, accepted.
local function eval(chunk, at_eof)
    local res, errs, acc = {}, {}, {}
    local status = repl.eval(chunk, {
        write = function(s) res[#res + 1] = s end,
        error = function(m) errs[#errs + 1] = m end,
        accept = function(c) acc[#acc + 1] = c end,
    }, at_eof)
    return status, table.concat(res), errs, acc
end

-- Globals the tests create, removed after each test.
local created = {"x", "y", "z", "a", "b", "c", "f", "g", "k", "s", "t", "_", "zz_nested",
                 "zz_unique_name", "zz_obj"}

describe("repl.eval", function()
    after_each(function()
        for _, n in ipairs(created) do _G[n] = nil end
    end)

    it("prints the value of an expression and sets _", function()
        local status, out = eval("1 + 1")
        assert.are.equal("ok", status)
        assert.are.equal("2\n", out)
        assert.are.equal(2, _G._)
    end)

    it("prints several values separated by tabs, nil included", function()
        local _, out = eval("1, nil, 'a'")
        assert.are.equal("1\tnil\ta\n", out)
        assert.are.equal(1, _G._)
    end)

    it("uses __tostring to print values", function()
        _G.t = setmetatable({}, {__tostring = function() return "tensor([1.])" end})
        local _, out = eval("t")
        assert.are.equal("tensor([1.])\n", out)
    end)

    it("prints nothing for a statement, or a call that returns nothing", function()
        local status, out = eval("x = 3")
        assert.are.equal("ok", status)
        assert.are.equal("", out)
        assert.are.equal(3, _G.x)
        local _, out2 = eval("(function() end)()")
        assert.are.equal("", out2)
    end)

    it("uses _ in the next chunk", function()
        eval("10")
        local _, out = eval("_ * 2")
        assert.are.equal("20\n", out)
    end)

    it("asks for more lines when the chunk is unfinished", function()
        assert.are.equal("incomplete", (eval("function f()")))
        assert.are.equal("incomplete", (eval("x = {1,")))
        assert.are.equal("incomplete", (eval("{1,")))         -- unfinished expression
        assert.are.equal("incomplete", (eval("1 +")))
        assert.are.equal("incomplete", (eval("s = [[abc")))
        assert.are.equal("incomplete", (eval("if x then")))
    end)

    it("does not accept (add to history) an unfinished chunk", function()
        local _, _, _, acc = eval("function f()")
        assert.are.same({}, acc)
        _, _, _, acc = eval("function f()\nreturn 1\nend")
        assert.are.same({"function f()\nreturn 1\nend"}, acc)
    end)

    it("runs a multi-line function definition", function()
        assert.are.equal("ok", (eval("function f(a)\n  return a * 2\nend")))
        local _, out = eval("f(21)")
        assert.are.equal("42\n", out)
    end)

    it("evaluates a multi-line expression as an expression", function()
        local _, out = eval("(1 +\n 2)")
        assert.are.equal("3\n", out)
    end)

    it("reports an unfinished chunk at the end of input as an error", function()
        local status, _, errs = eval("function f()", true)
        assert.are.equal("error", status)
        assert.matches("'end' expected near <eof>", errs[1], 1, true)
    end)

    it("reports a runtime error without the stdin:1: prefix", function()
        local status, out, errs = eval('error("boom")')
        assert.are.equal("error", status)
        assert.are.equal("", out)
        assert.are.same({"boom"}, errs)
    end)

    it("keeps a message from C exactly", function()
        _G.f = function() error("matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)", 0) end
        local _, _, errs = eval("f()")
        assert.are.same({"matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)"}, errs)
    end)

    it("reports bad arguments", function()
        local _, _, errs = eval("string.rep()")
        assert.matches("^bad argument #1 to 'rep'", errs[1])
    end)

    it("keeps line numbers for errors in multi-line chunks", function()
        local _, _, errs = eval("x = 1\nerror('two')")
        assert.are.same({"stdin:2: two"}, errs)
    end)

    it("reports syntax errors without the prefix", function()
        local status, _, errs = eval("x = = 1")
        assert.are.equal("error", status)
        assert.matches("^unexpected symbol near '='", errs[1])
    end)

    it("describes error objects that are not strings", function()
        local _, _, errs = eval("error({})")
        assert.are.same({"(error object is a table value)"}, errs)
        _, _, errs = eval("error(setmetatable({}, {__tostring = function() return 'custom' end}))")
        assert.are.same({"custom"}, errs)
    end)

    it("keeps the traceback of the last error", function()
        eval('error("deep")')
        assert.matches("stack traceback", repl.last_traceback, 1, true)
    end)

    it("accepts lua.c's =expr shorthand", function()
        local _, out = eval("=1 + 2")
        assert.are.equal("3\n", out)
    end)

    it("keeps top-level locals for the next chunk", function()
        eval("local x = 5")
        local _, out = eval("x + 1")
        assert.are.equal("6\n", out)
        eval("local function g() return 'g' end")
        _, out = eval("g()")
        assert.are.equal("g\n", out)
        eval("local a, b = 1, 2")
        _, out = eval("a + b")
        assert.are.equal("3\n", out)
    end)

    it("runs the help system for ?name and ?", function()
        local saved, asked, n = _G.help, nil, nil
        _G.help = function(...) n = select("#", ...); asked = ... end
        eval("?torch.softmax")
        assert.are.equal("torch.softmax", asked)
        eval("?")
        assert.are.equal(nil, asked)
        assert.are.equal(0, n)          -- help() itself: the tour
        eval("  ?  x:matmul ")
        assert.are.equal("x:matmul", asked)
        assert.are.equal(1, n)
        _G.help = saved
    end)
end)

describe("repl.rewrite_locals", function()
    local rw = repl.rewrite_locals

    it("turns top-level locals into globals", function()
        assert.are.equal("x = 5", rw("local x = 5"))
        assert.are.equal("a, b = 1, 2", rw("local a, b = 1, 2"))
        assert.are.equal("x = nil", rw("local x"))
        assert.are.equal("a, b = nil", rw("local a, b"))
        assert.are.equal("function f() end", rw("local function f() end"))
    end)

    it("drops <const> and leaves <close> locals alone", function()
        assert.are.equal("x = 1", rw("local x <const> = 1"))
        assert.are.equal("a, b = 1, 2", rw("local a <const>, b = 1, 2"))
        assert.are.equal("local c <close> = nil", rw("local c <close> = nil"))
    end)

    it("leaves strings and comments alone", function()
        assert.are.equal('s = "local x = 1"', rw('local s = "local x = 1"'))
        assert.are.equal("s = 'it\\'s local'", rw("local s = 'it\\'s local'"))
        assert.are.equal("s = [==[ local y ]] end ]==]", rw("local s = [==[ local y ]] end ]==]"))
        assert.are.equal("-- local x = 1\nx = 2", rw("-- local x = 1\nlocal x = 2"))
        assert.are.equal("--[[ local x\nend ]] x = 2", rw("--[[ local x\nend ]] local x = 2"))
        assert.are.equal("--[=[ ]] local z ]=] z = 3", rw("--[=[ ]] local z ]=] local z = 3"))
    end)

    it("leaves locals inside functions and blocks alone", function()
        local src = "function f()\n  local x = 1\n  return x\nend"
        assert.are.equal(src, rw(src))
        src = "local function g()\n  local function h() local y = 2 end\nend"
        assert.are.equal("function g()\n  local function h() local y = 2 end\nend", rw(src))
        src = "for i = 1, 3 do local k = i end"
        assert.are.equal(src, rw(src))
        src = "while false do local w = 1 end local after = 1"
        assert.are.equal("while false do local w = 1 end after = 1", rw(src))
        src = "if x then local a = 1 elseif y then local b = 2 else local c = 3 end"
        assert.are.equal(src, rw(src))
        src = "repeat local r = 1 until r == 1 local q = 2"
        assert.are.equal("repeat local r = 1 until r == 1 q = 2", rw(src))
        src = "do local d = 1 end"
        assert.are.equal(src, rw(src))
    end)

    it("handles several statements and anonymous functions", function()
        assert.are.equal("x = 1 y = function() local z = 2 end",
                         rw("local x = 1 local y = function() local z = 2 end"))
    end)

    it("keeps the line structure", function()
        local src = "local x = 1\n\nlocal y = [[\na\n]]\nlocal z"
        assert.are.equal("x = 1\n\ny = [[\na\n]]\nz = nil", rw(src))
    end)

    it("leaves a malformed local to the compiler", function()
        assert.are.equal("local", rw("local"))
        assert.are.equal("local 1 = 2", rw("local 1 = 2"))
    end)

    it("does not mistake numbers or fields for keywords", function()
        assert.are.equal("x = 1e-5 + 0x1p4 + t.done", rw("local x = 1e-5 + 0x1p4 + t.done"))
    end)
end)

describe("repl.complete", function()
    after_each(function()
        for _, n in ipairs(created) do _G[n] = nil end
    end)

    it("completes globals and keywords", function()
        assert.are.same({"collectgarbage"}, repl.complete("collectg"))
        assert.are.same({"function"}, repl.complete("functio"))
    end)

    it("completes fields of tables, sorted and without duplicates", function()
        assert.are.same({"string.rep", "string.reverse"}, repl.complete("string.re"))
        _G.zz_nested = {inner = {alpha = 1, alps = 2, beta = 3}}
        assert.are.same({"zz_nested.inner.alpha", "zz_nested.inner.alps"},
                        repl.complete("zz_nested.inner.al"))
    end)

    it("walks __index tables", function()
        local base = {shared = 1}
        _G.zz_obj = setmetatable({own = 1}, {__index = setmetatable({}, {__index = base})})
        assert.are.same({"zz_obj.own", "zz_obj.shared"}, repl.complete("zz_obj."))
    end)

    it("hides names starting with _ unless asked", function()
        _G.zz_nested = {_private = 1, public = 2}
        assert.are.same({"zz_nested.public"}, repl.complete("zz_nested."))
        assert.are.same({"zz_nested._private"}, repl.complete("zz_nested._"))
        for _, name in ipairs(repl.complete("")) do
            assert.are_not.equal("_", name:sub(1, 1))
        end
    end)

    it("completes methods of userdata through the metatable's __index table", function()
        _G.zz_obj = io.stdout
        local list = repl.complete("zz_obj:wr")
        assert.are.same({"zz_obj:write"}, list)
    end)

    it("completes methods of userdata whose __index is a function, through __methods", function()
        local u = io.tmpfile()
        u:close()
        local methods = {matmul = function() end, max = function() end, mean = function() end}
        debug.setmetatable(u, {__index = function(_, k) return methods[k] end, __methods = methods})
        _G.zz_obj = u
        assert.are.same({"zz_obj:matmul", "zz_obj:max"}, repl.complete("zz_obj:ma"))
        assert.are.same({"zz_obj.matmul", "zz_obj.max", "zz_obj.mean"}, repl.complete("zz_obj.m"))
    end)

    it("completes methods of strings and of tables", function()
        _G.s = "abc"
        assert.are.same({"s:upper"}, repl.complete("s:up"))
        _G.zz_obj = {value = 1, get = function() end}
        assert.are.same({"zz_obj:get"}, repl.complete("zz_obj:"))
    end)

    it("returns nothing for unknown or odd words", function()
        assert.are.same({}, repl.complete("no_such_global.x"))
        assert.are.same({}, repl.complete("a..b"))
        assert.are.same({}, repl.complete("1.5"))
        assert.are.same({}, repl.complete("zz_unique_name"))
    end)

    it("survives an __index that raises", function()
        _G.zz_obj = setmetatable({}, {__index = function() error("no") end})
        assert.are.same({}, repl.complete("zz_obj.a.b"))
    end)
end)

describe("help", function()
    local out
    local saved_write = help.write
    before_each(function()
        out = {}
        help.write = function(s) out[#out + 1] = s end
    end)
    after_each(function()
        help.write = saved_write
        _G.zz_obj = nil
    end)

    it("prints a tour", function()
        help()
        assert.matches("attn", table.concat(out), 1, true)
        assert.matches("?torch.softmax", table.concat(out), 1, true)
    end)

    it("prints a registered doc by name and by value", function()
        local fn = function() end
        _G.zz_obj = {double = fn}
        help.register("zz_obj.double", {sig = "zz_obj.double(x)", doc = "Doubles x.",
                                        example = "zz_obj.double(2)"})
        help("zz_obj.double")
        local text = table.concat(out)
        assert.matches("^zz_obj%.double%(x%)\n", text)
        assert.matches("  Doubles x.\n", text, 1, true)
        assert.matches("  Example: zz_obj.double(2)\n", text, 1, true)
        out = {}
        help(fn)
        assert.are.equal(text, table.concat(out))
    end)

    it("finds a doc through the value given to register", function()
        local hidden = function() end
        help.register("Tensor:secret", {sig = "x:secret()", doc = "A method."}, hidden)
        assert.are.equal("x:secret()\n  A method.", help.text(hidden))
    end)

    it("lists the documented members of a table", function()
        _G.zz_obj = {double = function() end}
        help.register("zz_obj.double", {sig = "zz_obj.double(x)"})
        assert.matches("zz_obj.double", help.text("zz_obj"), 1, true)
        assert.matches("zz_obj.double", help.text(_G.zz_obj), 1, true)
    end)

    it("says when there is no help", function()
        assert.are.equal("no help for nothing.here; try help() for a tour", help.text("nothing.here"))
        help(nil)
        assert.matches("^no help for nil", table.concat(out))
    end)

    it("rejects malformed registrations", function()
        assert.has_error(function() help.register(1, {}) end)
        assert.has_error(function() help.register("x", "doc") end)
        assert.has_error(function() help.register("x", {sig = 1}) end)
    end)
end)

describe("repl.show: what the prompt prints for a value", function()
    it("shows a plain table's contents instead of its address", function()
        assert.are.equal("{1, 2, 3}", repl.show({1, 2, 3}))
        assert.are.equal('{"Your", "journey"}', repl.show({"Your", "journey"}))
        assert.are.equal("{}", repl.show({}))
        assert.are.equal('{a = 1, b = {c = true}, ["x y"] = 2.5}', repl.show({a = 1, b = {c = true}, ["x y"] = 2.5}))
        assert.are.equal("{{1.0, 2.0}, {3.0, 4.0}}", repl.show(torch.tensor{{1.0, 2.0}, {3.0, 4.0}}:tolist()))
        assert.are.equal("{{1, 2}, {3, 4}}", repl.show(torch.tensor{{1, 2}, {3, 4}}:tolist())) -- int64: integers
    end)

    it("puts tensors that take several lines one to a line, aligned", function()
        assert.are.equal("{tensor([1., 1.]), tensor([0., 0.])}", repl.show({torch.ones(2), torch.zeros(2)}))
        assert.are.equal("{tensor([[1., 1.],\n         [1., 1.]]),\n tensor([0.])}",
                         repl.show({torch.ones(2, 2), torch.zeros(1)}))
    end)

    it("wraps long lists, stops after 50 elements, and survives cycles", function()
        local t = {}
        for i = 1, 60 do t[i] = i end
        local text = repl.show(t)
        assert.matches("^{1, 2, 3, ", text)
        assert.matches(", 50, %.%.%. %(10 more%)}$", text)
        for line in text:gmatch("[^\n]+") do assert.is_true(#line <= 78) end
        local c = {}
        c.self = c
        assert.are.equal("{self = {...}}", repl.show(c))
    end)

    it("leaves values with a metatable to tostring", function()
        assert.are.equal("tensor([1., 2.])", repl.show(torch.tensor{1.0, 2.0}))
        assert.are.equal("Linear(in_features=2, out_features=1, bias=True)", repl.show(nn.Linear(2, 1)))
        assert.matches("^table: ", repl.show(setmetatable({}, {})))
    end)

    it("names a library instead of listing function addresses", function()
        assert.matches("^<attention: %d+ names; attention%.<Tab> completes them, %?attention lists them>$",
                       repl.show(attention))
        assert.matches("^<nn: %d+ names; nn%.<Tab> completes them, %?nn lists them>$", repl.show(nn))
        assert.matches("^<math: %d+ names; math%.<Tab> completes them>$", repl.show(math))
    end)

    it("puts several values that take several lines one below the other", function()
        assert.are.equal("1\t2", repl.results(1, 2))
        assert.are.equal("tensor([[1.],\n        [1.]])\ntensor([0.])", repl.results(torch.ones(2, 1), torch.zeros(1)))
        local _, out = eval("torch.ones(2, 1), 3")
        assert.are.equal("tensor([[1.],\n        [1.]])\n3\n", out)
    end)

    it("is what eval prints", function()
        local _, out = eval("{1, 'a'}")
        assert.are.equal('{1, "a"}\n', out)
    end)
end)

describe("repl.hint: Python habits get a hint after the message", function()
    local function err_of(chunk)
        local _, _, errs = eval(chunk, true)
        return errs[1] or ""
    end
    after_each(function() _G.x = nil end)

    it("a @, keyword arguments, import, Python builtins, x.method(), x:shape()", function()
        _G.x = torch.tensor{1, 2, 3}
        assert.matches("(Lua has no @: the matrix product is a:matmul(b))", err_of("x @ x"), 1, true)
        assert.matches("(keyword arguments go in a trailing table: f(x, {dim = -1}))",
                       err_of("torch.softmax(x, dim=-1)"), 1, true)
        assert.matches("(no import needed", err_of("import torch"), 1, true)
        assert.matches("(Lua has no len(): #x", err_of("len(x)"), 1, true)
        assert.matches("sum: input must be a tensor, got no value  (call a method with a colon: x:sum(...))",
                       err_of("x.sum()"), 1, true)
        assert.matches("(x.shape is a property: no colon, no ())", err_of("x:shape()"), 1, true)
    end)

    it("leaves other messages alone", function()
        assert.are.equal("boom", err_of("error('boom')"))
        assert.are.equal("matmul: cannot multiply [3] by [2] (3 ≠ 2)",
                         err_of("torch.ones(3):matmul(torch.ones(2))"))
    end)

    it("x.shape[0] is an error, not a silent nil", function()
        assert.matches("Size: index 0 is out of range: attn counts from 1", err_of("torch.ones(2, 3).shape[0]"), 1, true)
    end)
end)

describe("every hint of the English REPL is there under zh_CN, in Chinese", function()
    local i18n = require("attn.i18n")
    local function err_of(chunk)
        local _, _, errs = eval(chunk, true)
        return errs[1] or ""
    end
    before_each(function()
        _G.x = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}}
        _G.query = torch.tensor{0.55, 0.87, 0.66}
        -- a class defined at the prompt, as the book's chapter 3 does
        eval('SelfAttention_v2 = nn.Module:extend("SelfAttention_v2")')
        eval("function SelfAttention_v2:__init() self.W_query = nn.Linear(3, 2) end")
        eval("function SelfAttention_v2:forward(inputs) return self.W_query(inputs) end")
        _G.sa = SelfAttention_v2()
    end)
    after_each(function()
        i18n.lang("en")
        _G.x, _G.query, _G.sa, _G.SelfAttention_v2 = nil, nil, nil, nil
    end)

    -- each chunk, the hint's words in English and in Chinese (src/po/zh_CN/lib/repl.po, attn.po)
    local HINTS = {
        {"sa.forward(x)", "forward was called with '.' instead of ':'", "forward 是用 '.' 而不是 ':' 调用的"},
        {"x.sum()", "call a method with a colon: x:sum(...)", "用冒号调用方法：x:sum(...)"},
        {"x.matmul(query)", "call a method with a colon: x:matmul(...)", "用冒号调用方法：x:matmul(...)"},
        {"x @ x", "Lua has no @", "Lua 没有 @"},
        {"len(x)", "Lua has no len()", "Lua 没有 len()"},
        {"x:shape()", "x.shape is a property", "x.shape 是属性"},
    }
    for _, h in ipairs(HINTS) do
        it(h[1], function()
            assert.matches(h[2], err_of(h[1]), 1, true)
            i18n.lang("zh_CN")
            local zh = err_of(h[1])
            assert.matches(h[3], zh, 1, true)
            assert.is_nil(zh:find("no value", 1, true), zh)
            -- the hint after the message in the Chinese edition's parentheses
            if not h[3]:find("调用的", 1, true) then
                assert.matches("（" .. h[3], zh, 1, true)
                assert.are.equal("）", zh:sub(-#"）"))
            end
        end)
    end
end)

describe("the prompt's error line in the Chinese edition", function()
    local i18n = require("attn.i18n")
    it("says 出错： and Ctrl-C's 已中断, and error: and interrupted in English", function()
        local got = {}
        local saved = io.stderr
        io.stderr = {write = function(self, ...)
            for _, s in ipairs({...}) do got[#got + 1] = s end
            return self
        end}
        local ok, err = pcall(function()
            repl.write_error("interrupted", false)
            i18n.lang("zh_CN")
            repl.write_error("interrupted", false)
            repl.write_error("boom", false)
        end)
        i18n.lang("en")
        io.stderr = saved
        assert(ok, err)
        local text = table.concat(got):gsub("\27%[[%d;]*m", "")
        assert.are.equal("error: interrupted\n出错：已中断\n出错：boom\n", text)
    end)
end)

describe("a call that returns nothing in PyTorch", function()
    it("w:retain_grad() prints nothing at the prompt (PyTorch's None), not nil", function()
        _G.w = torch.ones(2, {requires_grad = true}) * 2
        local status, out = eval("w:retain_grad()")
        _G.w = nil
        assert.are.same({"ok", ""}, {status, out})
    end)
end)
