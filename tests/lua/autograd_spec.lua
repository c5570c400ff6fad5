-- autograd: the API, printing against PyTorch (tests/data/torch/autograd_print.txt, made by
-- scripts/torch_reference_autograd.py), the errors PyTorch gives, Ctrl-C during a backward, and a
-- finite-difference check. The gradients against PyTorch are in autograd_reference_spec.lua.
local F = nn.functional

local function message(f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok, "expected an error")
    return tostring(err)
end

describe("autograd: the API", function()
    it("leaves: requires_grad, is_leaf, grad nil until a backward reaches it", function()
        local x = torch.tensor({1.0, 2.0, 3.0}, {requires_grad = true})
        assert.is_true(x.requires_grad)
        assert.is_true(x.is_leaf)
        assert.is_nil(x.grad)
        assert.is_nil(x.grad_fn)
        local y = torch.ones(3)
        assert.is_false(y.requires_grad)
        assert.are.equal(y, y:requires_grad_())
        assert.is_true(y.requires_grad)
    end)

    it("grad_fn: PyTorch's class name, next_functions down to AccumulateGrad", function()
        local x = torch.ones(2, 2):requires_grad_()
        local w = torch.ones(2, 2)
        local y = x:matmul(w):sum()
        assert.are.equal("SumBackward0", y.grad_fn:name())
        local mm = y.grad_fn.next_functions[1][1]
        assert.are.equal("MmBackward0", mm:name())
        assert.are.equal("AccumulateGrad", mm.next_functions[1][1]:name())
        assert.is_nil(mm.next_functions[2][1]) -- w does not require grad
        assert.is_false(y.is_leaf)
    end)

    it("backward: the gradient of sum(x * x) is 2x, accumulated over two backwards", function()
        local x = torch.tensor({1.0, -2.0, 3.0}, {requires_grad = true})
        ;(x * x):sum():backward()
        assert.are.equal("tensor([ 2., -4.,  6.])", tostring(x.grad))
        ;(x * x):sum():backward()
        assert.are.equal("tensor([ 4., -8., 12.])", tostring(x.grad))
        x.grad = nil
        assert.is_nil(x.grad)
    end)

    it("backward with a gradient for a non-scalar output", function()
        local x = torch.tensor({1.0, 2.0}, {requires_grad = true})
        local y = x * 3
        y:backward(torch.tensor({1.0, 0.5}))
        assert.are.equal("tensor([3.0000, 1.5000])", tostring(x.grad))
    end)

    it("retain_grad keeps a non-leaf's gradient; detach leaves the graph", function()
        local x = torch.tensor({1.0, 2.0}, {requires_grad = true})
        local y = x * 2
        y:retain_grad()
        local z = y:detach()
        assert.is_false(z.requires_grad)
        assert.is_true(torch.equal(z, y))
        ;(y * y):sum():backward()
        assert.are.equal("tensor([4., 8.])", tostring(y.grad))
        assert.are.equal("tensor([ 8., 16.])", tostring(x.grad))
    end)

    it("torch.autograd.grad returns the gradients and leaves .grad alone", function()
        local x = torch.tensor({1.0, 2.0}, {requires_grad = true})
        local y = (x * x * x):sum()
        local g = torch.autograd.grad(y, x)
        assert.are.equal("tensor([ 3., 12.])", tostring(g))
        assert.is_nil(x.grad)
        local a = torch.ones(2):requires_grad_()
        local b = torch.ones(2):requires_grad_()
        local both = torch.autograd.grad((a * 2 + b * 3):sum(), {a, b}, {retain_graph = true})
        assert.are.equal("tensor([2., 2.])", tostring(both[1]))
        assert.are.equal("tensor([3., 3.])", tostring(both[2]))
        assert.matches("create_graph = true", message(torch.autograd.grad, (a * 2):sum(), a, {create_graph = true}), 1, true)
        assert.matches("unknown option 'retain'", message(torch.autograd.grad, (a * 2):sum(), a, {retain = true}), 1, true)
    end)

    it("no_grad as a function and as a to-be-closed value; enable_grad; is_grad_enabled", function()
        local x = torch.ones(2):requires_grad_()
        local y = torch.no_grad(function() return x * 2 end)
        assert.is_false(y.requires_grad)
        assert.is_true(torch.is_grad_enabled())
        do
            local _ <close> = torch.no_grad()
            assert.is_false(torch.is_grad_enabled())
            assert.is_false((x * 2).requires_grad)
            local z = torch.enable_grad(function() return x * 2 end)
            assert.is_true(z.requires_grad)
        end
        assert.is_true(torch.is_grad_enabled())
        -- an error inside no_grad restores the mode
        pcall(torch.no_grad, function() error("boom") end)
        assert.is_true(torch.is_grad_enabled())
    end)

    it("nn.Parameter requires grad; parameters(), named_parameters(), zero_grad()", function()
        torch.manual_seed(123)
        local lin = nn.Linear(3, 2)
        assert.is_true(lin.weight.requires_grad)
        assert.is_true(lin.weight.is_leaf)
        local out = lin(torch.ones(4, 3)):sum()
        assert.are.equal("SumBackward0", out.grad_fn:name())
        out:backward()
        assert.are.equal("tensor([4., 4.])", tostring(lin.bias.grad))
        assert.are.equal(2, #lin:parameters())
        lin:zero_grad()
        assert.is_nil(lin.weight.grad)
        local frozen = nn.Parameter(torch.ones(2), {requires_grad = false})
        assert.is_false(frozen.requires_grad)
        assert.matches("unknown option 'grad'", message(nn.Parameter, torch.ones(2), {grad = true}), 1, true)
        assert.are.equal("Linear(in_features=3, out_features=2, bias=True)", tostring(lin))
    end)

    it("one element of a tensor that requires grad is a 0-d tensor that keeps the graph", function()
        local x = torch.tensor({{1.0, 2.0}, {3.0, 4.0}}, {requires_grad = true})
        local e = x[{2, 1}]
        assert.are.equal("tensor(3., grad_fn=<SelectBackward0>)", tostring(e))
        e:backward()
        assert.are.equal("tensor([[0., 0.],\n        [1., 0.]])", tostring(x.grad))
        assert.are.equal(3.0, x[{2, 1}]:item())
        -- without grad, as before: a Lua number
        assert.are.equal(3.0, torch.tensor({{1.0, 2.0}, {3.0, 4.0}})[{2, 1}])
        assert.are.equal(2.0, torch.no_grad(function() return x[1][2] end))
    end)

    it("t[i] = v records CopySlices on a whole tensor; into a view with a value in a graph it is refused", function()
        local x = torch.tensor({1.0, 2.0, 3.0}, {requires_grad = true})
        local t = torch.zeros(3)
        for i = 1, 3 do t[i] = x[i] * i end
        assert.are.equal("tensor([1., 4., 9.], grad_fn=<CopySlices>)", tostring(t))
        t:sum():backward()
        assert.are.equal("tensor([1., 2., 3.])", tostring(x.grad))
        local m = torch.zeros(2, 3)
        assert.matches("on a view of a tensor, with a value that requires grad, is not supported",
                       message(function() m[2][1] = x[1] end), 1, true)
    end)

    -- The engine keeps a gradient it made as the leaf's .grad instead of copying it, when nothing else
    -- refers to it (as PyTorch's AccumulateGrad): a gradient handed to two leaves, the caller's own
    -- gradient, or a view of another tensor is still copied.
    it("a leaf's .grad is its own: never another leaf's, the caller's gradient or a view", function()
        local a = torch.tensor({1.0, 2.0}, {requires_grad = true})
        local b = torch.tensor({3.0, 4.0}, {requires_grad = true})
        ;(a + b):backward(torch.tensor{1.0, 1.0}) -- AddBackward0 hands the same gradient to both
        a.grad:mul_(5)
        assert.are.equal("tensor([1., 1.])", tostring(b.grad))
        local x = torch.tensor({1.0, 2.0}, {requires_grad = true})
        local g = torch.tensor{0.5, 0.25}
        x:clone():backward(g) -- CloneBackward0 passes the caller's gradient on as it is
        g:fill_(7)
        assert.are.equal("tensor([0.5000, 0.2500])", tostring(x.grad))
        local w = torch.tensor({{1.0, 2.0}, {3.0, 4.0}}, {requires_grad = true})
        w:t():sum():backward() -- the gradient reaches w as a transposed view of ones
        assert.is_true(w.grad:is_contiguous())
        assert.are.equal("tensor([[1., 1.],\n        [1., 1.]])", tostring(w.grad))
        local y = torch.tensor({1.0, -2.0}, {requires_grad = true})
        ;(y * y):sum():backward()
        local kept = y.grad
        ;(y * y):sum():backward() -- accumulated into a new tensor, the first one as it was
        assert.are.equal("tensor([ 2., -4.])", tostring(kept))
        assert.are.equal("tensor([ 4., -8.])", tostring(y.grad))
    end)

    it("ops without a gradient give results that do not require grad", function()
        local x = torch.tensor({1.0, 3.0, 2.0}, {requires_grad = true})
        assert.is_false(x:argmax().requires_grad)
        assert.is_false(x:gt(1).requires_grad)
    end)
end)

describe("autograd: errors as PyTorch's", function()
    it("backward through a freed graph", function()
        local x = torch.ones(3):requires_grad_()
        local y = (x:exp()):sum()
        y:backward()
        assert.matches("Trying to backward through the graph a second time", message(y.backward, y), 1, true)
        local z = x:exp():sum()
        z:backward({retain_graph = true})
        z:backward()
        assert.is_true(torch.equal(x.grad, torch.exp(torch.ones(3)) * 3))
    end)

    it("a saved tensor changed in place is caught by its version counter", function()
        local x = torch.ones(3):requires_grad_()
        local y = x:exp()
        local s = y:sum()
        y:add_(torch.ones(3))
        local err = message(s.backward, s)
        assert.matches("one of the variables needed for gradient computation has been modified by an inplace "
                       -- the op that saved it, as PyTorch 1.13 names it (this said AddBackward0, y's grad_fn now)
                       .. "operation: [torch.FloatTensor [3]], which is output 0 of ExpBackward0, is at version 1; "
                       .. "expected version 0 instead.", err, 1, true)
    end)

    it("in-place ops on a leaf that requires grad are refused, allowed under no_grad", function()
        local w = torch.ones(3):requires_grad_()
        assert.matches("add_: a leaf Variable that requires grad is being used in an in-place operation.",
                       message(w.add_, w, 1), 1, true)
        assert.matches("assign: a leaf Variable that requires grad",
                       message(function() w[1] = 5 end), 1, true)
        torch.no_grad(function() w:sub_(0.5) end)
        assert.are.equal("tensor([0.5000, 0.5000, 0.5000], requires_grad=True)", tostring(w))
    end)

    it("backward of a non-scalar without a gradient, of a tensor without grad, with a wrong shape", function()
        local x = torch.ones(3):requires_grad_()
        local y = x * 2
        assert.matches("grad can be implicitly created only for scalar outputs", message(y.backward, y), 1, true)
        local c = torch.ones(3)
        assert.matches("element 0 of tensors does not require grad and does not have a grad_fn",
                       message(c.backward, c), 1, true)
        assert.matches("Mismatch in shape", message(y.backward, y, torch.ones(2)), 1, true)
    end)

    it("an op without a backward in attn is refused in grad mode, naming it; the ones once refused have one", function()
        local x = torch.ones(2, 2):requires_grad_()
        assert.matches("scatter: attn's autograd has no backward for this op yet",
                       message(x.scatter, x, 1, torch.tensor{{1, 2}}, torch.ones(1, 2)), 1, true)
        local registry = require("attn.autograd.registry")
        for _, key in ipairs({"max", "min", "var", "std", "log_softmax", "where", "maximum", "minimum", "erf",
                              "sin", "cos", "topk", "addcmul", "addcdiv"}) do
            assert.is_true(registry.has_backward(torch, key), key)
            assert.is_true(registry.has_backward(require("attn.bind").methods, key), key)
        end
        local s = torch.cos(x):sum()
        s:backward() -- no longer "CosBackward0 (of cos) has no backward in attn yet"; its numbers: autograd.txt
        assert.are.same({2, 2}, x.grad.shape)
    end)

    it("requires_grad on an integer tensor is refused", function()
        assert.matches("only Tensors of floating point dtype can require gradients",
                       message(torch.tensor, {1, 2}, {requires_grad = true}), 1, true)
    end)

    -- What * and / save is derivatives.yaml's (PyTorch 1.13): a * b keeps b only when a requires grad
    -- and a only when b does; a / b keeps b when either does, a when b does. So an in-place change of a
    -- tensor that was not kept is no error, and one of a kept tensor is (each case as PyTorch 1.13 ran it).
    it("* and / keep only what the other operand's gradient needs, as PyTorch", function()
        local x = torch.ones(3):requires_grad_()
        local c = torch.tensor({1.0, 2.0, 4.0}) -- no grad
        local h = x + 0
        local y = h * c -- keeps c, not h
        h:mul_(3)
        y:sum():backward()
        assert.is_true(torch.equal(x.grad, c))
        x.grad = nil
        h = x + 0
        y = h / c -- keeps c, not h
        h:mul_(3)
        y:sum():backward()
        assert.is_true(torch.equal(x.grad, torch.ones(3) / c))
        h = x + 0
        y = c / h -- keeps both
        h:mul_(3)
        assert.matches("modified by an inplace operation", message(function() y:sum():backward() end), 1, true)
        h = x + 0
        y = h * c
        c:add_(1)
        assert.matches("modified by an inplace operation: [torch.FloatTensor [3]] is at version 1",
                       message(function() y:sum():backward() end), 1, true)
    end)

    it("x * 2 and x / 2 refuse a second backward (PyTorch keeps the number), x + 2 does not", function()
        local x = torch.ones(3):requires_grad_()
        for _, f in ipairs({function() return x * 2 end, function() return x / 2 end}) do
            local y = f():sum()
            y:backward()
            assert.matches("Trying to backward through the graph a second time", message(y.backward, y), 1, true)
        end
        local y = (x + 2):sum()
        y:backward()
        y:backward()
    end)
end)

describe("autograd: memory", function()
    -- torch.memory_allocated() counts the tensor bytes alive; after a full collection only what is
    -- reachable is left. The engine once kept the last backward's gradients reachable (in its storing
    -- coroutine's locals) after zero_grad had let go of them: a whole model's worth during the next forward.
    it("a backward's gradients are freed once zero_grad lets go of them", function()
        local m = nn.Linear(256, 256)
        local opt = torch.optim.SGD(m:parameters(), {lr = 0.1})
        local x = torch.rand(4, 256)
        collectgarbage()
        collectgarbage()
        local before = torch.memory_allocated()
        m(x):sum():backward()
        assert.is_not_nil(m.weight.grad)
        opt:zero_grad() -- set_to_none
        collectgarbage()
        collectgarbage()
        assert.are.equal(before, torch.memory_allocated())
    end)

    -- The forward's tensors that no backward reads are not kept: dropout's x * noise keeps the noise
    -- (PyTorch's MulBackward0 keeps the operand that does not require grad), not x.
    it("dropout keeps its mask, not its input", function()
        torch.manual_seed(1)
        local w = torch.ones(64, 64):requires_grad_()
        local bytes = 64 * 64 * 4
        collectgarbage()
        collectgarbage()
        local before = torch.memory_allocated()
        local y = F.dropout(w * 1, 0.5, true) -- w * 1: a result with a history, as a layer's output is
        collectgarbage()
        collectgarbage()
        assert.are.equal(2 * bytes, torch.memory_allocated() - before) -- y and the mask
        y = nil
        collectgarbage()
        collectgarbage()
        assert.are.equal(before, torch.memory_allocated())
    end)
end)

describe("autograd: Ctrl-C during a backward", function()
    it("leaves every .grad as it was before that backward", function()
        torch.manual_seed(1)
        local m = nn.MultiHeadAttention(8, 8, 16, 0.0, 2)
        local x = torch.rand(2, 16, 8)
        m(x):sum():backward()
        local before = {}
        for i, p in ipairs(m:parameters()) do before[i] = p.grad:clone() end
        local loss = (m(x) * 3):sum()
        -- "interrupted", as src/cli/main.c's hook raises it, a few hundred instructions into the backward
        debug.sethook(function() debug.sethook(); error("interrupted", 0) end, "", 300)
        local ok, err = pcall(loss.backward, loss)
        debug.sethook()
        assert.is_false(ok)
        assert.are.equal("interrupted", err)
        for i, p in ipairs(m:parameters()) do
            assert.is_true(torch.equal(before[i], p.grad), "parameter " .. i)
        end
    end)
end)

describe("autograd: printing as PyTorch (tests/data/torch/autograd_print.txt)", function()
    local cases = {}
    for line in io.lines("tests/data/torch/autograd_print.txt") do
        local head = line:match("^=== (.*)$")
        if head then
            cases[#cases + 1] = {head = head, lines = {}}
        elseif #cases > 0 then
            table.insert(cases[#cases].lines, line)
        end
    end
    -- the script's ((arange(n) % 7) - 3) * step, reshaped (the product in float32, as PyTorch's)
    local function base(shape, step)
        local dims, n = {}, 1
        for d in shape:gmatch("%d+") do dims[#dims + 1] = tonumber(d); n = n * tonumber(d) end
        local values = {}
        for i = 0, n - 1 do values[#values + 1] = (i % 7) - 3.0 end
        local t = n > 0 and torch.tensor(values) or torch.zeros(0)
        return (t * step):reshape(dims)
    end
    local OPS = {
        leaf = function(x) return x end,
        mul = function(x) return x * 1.5 end,
        sum_last = function(x) return x.ndim > 0 and x:sum(-1) or x * 1 end,
        softmax = function(x) return x.ndim > 0 and torch.softmax(x, -1) or x / 2 end,
    }
    it("has its 300 prints", function() assert.are.equal(300, #cases) end)
    for _, c in ipairs(cases) do
        it(c.head, function()
            local shape, step, op = c.head:match("shape=(%S+) step=(%S+) op=(%S+)")
            step = tonumber(step)
            local got
            if op == "param" then
                got = tostring(nn.Parameter(base(shape, step)))
            else
                got = tostring(OPS[op](base(shape, step):requires_grad_()))
            end
            assert.are.equal(table.concat(c.lines, "\n"), got)
        end)
    end
end)

-- Finite differences in float32 (torch.autograd.gradcheck in spirit, without float64): for each input
-- element, (f(x + h) - f(x - h)) / 2h with h = 1e-2, against the analytic gradient. float32 rounding of
-- f (a sum of ~10-100 terms of size ~1) is ~1e-6, divided by 2h gives ~1e-4; the central difference's own
-- error is h^2 f''' / 6 ~ 2e-5: a tolerance of 2e-3 (relative to max(1, |g|)) holds with room and still
-- catches any wrong formula (whose errors are of the size of the gradient).
describe("autograd: finite differences (float32, h = 1e-2, tolerance 2e-3)", function()
    local H, TOL = 1e-2, 2e-3
    local function check(name, f, ...)
        local inputs = {...}
        it(name, function()
            for _, x in ipairs(inputs) do x:requires_grad_() end
            f(table.unpack(inputs)):backward()
            for k, x in ipairs(inputs) do
                local flat = x:detach():reshape(-1)
                local analytic = x.grad:reshape(-1)
                for i = 1, flat:numel() do
                    local v = flat[i]
                    local function at(value)
                        return torch.no_grad(function()
                            flat[i] = value
                            return f(table.unpack(inputs)):item()
                        end)
                    end
                    local numeric = (at(v + H) - at(v - H)) / (2 * H)
                    torch.no_grad(function() flat[i] = v end)
                    local a = analytic[i]
                    assert(math.abs(numeric - a) <= TOL * math.max(1, math.abs(a)),
                           string.format("input %d element %d: numeric %.6f, analytic %.6f", k, i, numeric, a))
                end
            end
        end)
    end
    torch.manual_seed(5)
    check("attention of q, k, v (scores, scale, causal mask, softmax, weighted sum)", function(q, k, v)
        local s = attention.mask(attention.scale(attention.scores(q, k), 4), attention.causal_mask(5))
        return (attention.weighted_sum(attention.softmax(s, -1), v) * torch.arange(1, 21):view(5, 4):float()):sum()
    end, torch.rand(5, 4), torch.rand(5, 4), torch.rand(5, 4))
    check("layer_norm with weight and bias", function(x, w, b)
        return (torch.layer_norm(x, {6}, w, b) * torch.arange(1, 19):view(3, 6):float()):sum()
    end, torch.rand(3, 6), torch.rand(6), torch.rand(6))
    check("gelu, silu, tanh, sigmoid, exp, log, sqrt", function(x)
        return (F.gelu(x) + F.silu(x) + x:tanh() + x:sigmoid() + (x * 0.5):exp() + (x + 2):log() + (x + 2):sqrt()):sum()
    end, torch.rand(2, 5))
    check("linear (addmm), 3-D input, and a mean", function(x, w, b)
        return (F.linear(x, w, b) ^ 2):mean()
    end, torch.rand(2, 3, 4), torch.rand(5, 4), torch.rand(5))
    check("embedding then cat and stack", function(w)
        local e = torch.embedding(w, torch.tensor({{1, 3}, {3, 2}}))
        return (torch.cat({e, e * 2}, -1):sum(1) * torch.stack({e[1][1], e[2][2]}, 1):sum()):sum()
    end, torch.rand(4, 3))
end)

describe("autograd: what was silently wrong or pointed into attn (round 4)", function()
    it("an int64 gradient given to backward leaves a float32 .grad, as PyTorch converts it", function()
        local x = torch.randn(3):requires_grad_()
        ;(x * 2):backward(torch.tensor{1, 2, 3})
        assert.are.equal(torch.float32, x.grad.dtype)
    end)
    it("autograd.grad of numbers names the call", function()
        local ok, e = pcall(torch.autograd.grad, 5, 6)
        assert.is_false(ok)
        assert.matches("autograd.grad: outputs must be tensors, got number as output 1", tostring(e))
    end)
    it("x ^ t and 3 ^ x record PowBackward1 and PowBackward2 (the values: tests/data/torch/grads.txt)", function()
        local x = torch.rand(3):requires_grad_()
        assert.are.equal("PowBackward1", (x ^ x).grad_fn:name())
        assert.are.equal("PowBackward2", (3 ^ x).grad_fn:name())
        assert.are.equal("PowBackward0", (x ^ 2).grad_fn:name())
        assert.are.equal("IndexBackward0", x[{torch.tensor{1, 1}}].grad_fn:name())
    end)
end)

describe("flip (lesson 20's src.flip(1), x:flip(2) in attn's 1-based dims)", function()
    it("reverses the dims given, as indexing with n..1 does, and its gradient is flipped back", function()
        local x = torch.randn(2, 3, 4):requires_grad_()
        local rev3, rev2 = torch.arange(3, 0, -1), torch.arange(2, 0, -1)
        local by_index = x:detach()[{{}, rev3}][{rev2}]
        local y = x:flip(1, 2)
        assert.is_true(torch.equal(y:detach(), by_index))
        assert.is_true(torch.equal(torch.flip(x, {-2, 1}):detach(), by_index))
        assert.are.equal("FlipBackward0", y.grad_fn:name())
        local w = torch.randn(2, 3, 4)
        local loss = (y * w):sum()
        loss:backward()
        assert.is_true(torch.equal(x.grad, w[{{}, rev3}][{rev2}]))
        -- a copy, as PyTorch's: writing into it leaves x alone
        local z = x:detach():flip(3)
        z:zero_()
        assert.is_false(torch.equal(x:detach(), torch.zeros(2, 3, 4)))
        assert.matches("flip: dims must be dimensions of a 3%-D tensor", select(2, pcall(x.flip, x, 4)))
    end)
end)

describe("torch.no_grad() as a statement of its own (round 4)", function()
    local function run_chunk(code)
        local f = assert(load(code, code, "t", setmetatable({}, {__index = _G})))
        return pcall(f)
    end
    it("is refused, naming the two forms (it switched autograd off for the rest of the script)", function()
        local ok, e = run_chunk("local x = torch.ones(2):requires_grad_()\ntorch.no_grad()\nreturn (x * 2).requires_grad")
        assert.is_false(ok)
        assert.matches(":2: torch.no_grad%(%) on its own line would switch autograd off", tostring(e))
        assert.matches("torch.no_grad%(function%(%) ... end%)", tostring(e))
        assert.is_true(torch.is_grad_enabled())
        ok, e = run_chunk("torch.enable_grad()")
        assert.is_false(ok)
        assert.matches("torch.enable_grad%(%) on its own line would switch autograd on", tostring(e))
    end)
    it("the forms that close it still work", function()
        local ok, r = run_chunk("local x = torch.ones(2):requires_grad_()\n"
                                .. "do local _ <close> = torch.no_grad(); assert(not (x * 2).requires_grad) end\n"
                                .. "return (x * 2).requires_grad")
        assert.is_true(ok, r)
        assert.is_true(r)
        assert.is_false(torch.no_grad(function() return (torch.ones(1):requires_grad_() * 2).requires_grad end))
    end)
end)
