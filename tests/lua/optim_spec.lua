-- torch.optim against PyTorch 1.13's single-tensor CPU code, bit for bit (tests/data/torch/optim.txt, made by
-- scripts/torch_reference_learn.py): SGD (momentum, dampening, nesterov, weight_decay, maximize), Adam
-- (betas, weight_decay, amsgrad) and AdamW (the book's lr = 0.0004, weight_decay = 0.1 among them), 3 and
-- 10 steps on two parameters of shapes [37] and [5, 7] with PyTorch's seeded gradients: every weight and
-- every state tensor (momentum_buffer, exp_avg, exp_avg_sq, max_exp_avg_sq, step) compared bit for bit.
-- The updates are driven through each class's step_tensors(params, grads, states, group) — what step()
-- calls with p.grad once the autograd engine gives tensors their .grad.
local support = dofile("tests/lua/support.lua")
local torch = torch

local function tensor_of(shape, bits)
    local vals = {}
    for v in bits:gmatch("%S+") do vals[#vals + 1] = support.from_bits(v) end
    local dims = support.shape(shape)
    if #dims == 0 then return torch.tensor(vals[1]) end
    return torch.tensor(vals):reshape(dims)
end

local cases, by_id = {}, {}
for line in io.lines("tests/data/torch/optim.txt") do
    local id, class, opts, steps = line:match("^optim\t(%d+)\t(%w+)\t([^\t]*)\t(%d+)$")
    if id then
        local c = {id = id, class = class, opts = opts, steps = tonumber(steps), t = {}, bits = {}}
        cases[#cases + 1], by_id[id] = c, c
    else
        local tid, name, shape, bits = line:match("^tensor\t(%d+)\t([%w_]+)\t([^\t]*)\t(.*)$")
        if tid then
            by_id[tid].t[name] = tensor_of(shape, bits)
            by_id[tid].bits[name] = bits
        end
    end
end

local function same_bits(name, got, bits)
    local want = {}
    for v in bits:gmatch("%S+") do want[#want + 1] = tonumber(v) end
    local flat = support.flat(got)
    assert.are.equal(#want, #flat, name .. ": number of elements")
    for i = 1, #want do
        assert(support.bits(flat[i]) == want[i], string.format("%s element %d: expected 0x%08x, got 0x%08x (%.9g)",
                                                                name, i, want[i], support.bits(flat[i]), flat[i]))
    end
end

describe("torch.optim against PyTorch (tests/data/torch/optim.txt)", function()
    it("has the cases", function() assert.is_true(#cases >= 28) end)
    for _, c in ipairs(cases) do
        it(string.format("%s(params, %s), %d steps", c.class, c.opts, c.steps), function()
            local opts = assert(load("return " .. c.opts, "=opts", "t", {}))()
            local params = {c.t.p1:clone(), c.t.p2:clone()}
            local opt = torch.optim[c.class](params, opts)
            local states = {{}, {}}
            for s = 1, c.steps do
                torch.optim[c.class].step_tensors(params, {c.t["g" .. s .. "_1"], c.t["g" .. s .. "_2"]}, states,
                                                  opt.param_groups[1])
            end
            local compared = 0
            for i = 1, 2 do
                same_bits("param " .. i, params[i], c.bits["after_p" .. i])
                for name, bits in pairs(c.bits) do
                    local key = name:match("^(.-)_" .. i .. "$")
                    if key and not key:match("^g%d+$") then
                        assert(states[i][key] ~= nil, "state " .. key .. " missing")
                        same_bits(key .. " " .. i, states[i][key], bits)
                        compared = compared + 1
                    end
                end
            end
            if c.class ~= "SGD" or opts.momentum then assert.is_true(compared >= 2) end
        end)
    end
end)

describe("torch.optim's classes", function()
    it("refuse unknown options, naming the optimizer", function()
        local p = {torch.zeros(3)}
        assert.matches("SGD: unknown option momentun", select(2, pcall(torch.optim.SGD, p, {lr = 0.1, momentun = 0.9})))
        assert.matches("AdamW: unknown option beta1", select(2, pcall(torch.optim.AdamW, p, {beta1 = 0.9})))
        assert.matches("Adam: unknown option foo", select(2, pcall(torch.optim.Adam, p, {foo = 1})))
        assert.matches("SGD: lr is required", select(2, pcall(torch.optim.SGD, p)))
        assert.matches("Adam: betas must be a pair", select(2, pcall(torch.optim.Adam, p, {betas = 0.9})))
        assert.matches("SGD: params must be a non%-empty list of tensors", select(2, pcall(torch.optim.SGD, {}, {lr = 1})))
        assert.matches("Nesterov momentum requires", select(2, pcall(torch.optim.SGD, p, {lr = 1, nesterov = true})))
        assert.matches("zero_grad: unknown option", select(2, pcall(function() torch.optim.SGD(p, {lr = 1}):zero_grad{foo = 1} end)))
    end)
    it("step() leaves parameters without a gradient as they are", function()
        local p = torch.tensor{1.0, 2.0}
        local opt = torch.optim.AdamW({p}, {lr = 0.1})
        opt:step()
        assert.are.equal(1.0, p[1])
        assert.is_nil(next(opt:state_dict().state))
    end)
    it("state_dict shows the moments, parameters numbered from 1", function()
        local p = torch.tensor{1.0, 2.0}
        local opt = torch.optim.AdamW({p}, {lr = 0.1})
        local states = {opt.state}
        opt.state[p] = {}
        torch.optim.AdamW.step_tensors({p}, {torch.tensor{0.5, -0.5}}, {opt.state[p]}, opt.param_groups[1])
        local sd = opt:state_dict()
        assert.are.same({1}, sd.param_groups[1].params)
        assert.are.equal(0.1, sd.param_groups[1].lr)
        assert.are.equal(1.0, sd.state[1].step:item())
        assert.is_true(torch.is_tensor(sd.state[1].exp_avg) and torch.is_tensor(sd.state[1].exp_avg_sq))
        assert.is_not_nil(states)
    end)
    it("take parameter groups with options of their own", function()
        local a, b = torch.zeros(2), torch.zeros(3)
        local opt = torch.optim.SGD({{params = {a}}, {params = {b}, lr = 0.5}}, {lr = 0.1, momentum = 0.9})
        assert.are.equal(0.1, opt.param_groups[1].lr)
        assert.are.equal(0.5, opt.param_groups[2].lr)
        assert.are.equal(0.9, opt.param_groups[2].momentum)
    end)
end)

-- Adam and AdamW update a contiguous parameter in one pass (src/core/adam_step.c, split among threads);
-- one that is not contiguous takes the separate operations. Both give the bits of the separate
-- operations, which the cases above check against PyTorch on small tensors: here on 300,001 elements
-- (many threads' blocks and a ragged end), and on a transposed parameter.
describe("Adam and AdamW's one-pass update", function()
    local function separate(p, g, st, o, decoupled)
        local b1, b2 = o.betas[1], o.betas[2]
        local step = st.step
        if decoupled then p:mul_(1 - o.lr * o.weight_decay) else g = g:add(p, {alpha = o.weight_decay}) end
        st.m:mul_(b1):add_(g, {alpha = 1 - b1})
        st.v:mul_(b2):addcmul_(g, g, {value = 1 - b2})
        local denom = (st.v:sqrt() / math.sqrt(1 - b2 ^ step)):add_(o.eps)
        p:addcdiv_(st.m, denom, {value = -(o.lr / (1 - b1 ^ step))})
    end
    for _, case in ipairs({{"AdamW", true, {300001}}, {"Adam", false, {300001}}, {"AdamW", true, {7, 5}, true}}) do
        local name, decoupled, shape, transposed = case[1], case[2], case[3], case[4]
        it(string.format("%s, %d elements%s: the separate operations' bits over 3 steps", name,
                         shape[1] * (shape[2] or 1), transposed and ", transposed" or ""), function()
            torch.manual_seed(5)
            local p = torch.randn(table.unpack(shape))
            if transposed then p = p:t() end
            local q = p:clone()
            local o = {lr = 4e-4, betas = {0.9, 0.999}, eps = 1e-8, weight_decay = 0.1, amsgrad = false,
                       maximize = false}
            local st, mine = {}, {m = torch.zeros_like(q), v = torch.zeros_like(q)}
            for k = 1, 3 do
                local g = torch.randn(p.shape) * 0.01
                torch.optim[name].step_tensors({p}, {g}, {st}, o)
                mine.step = k
                separate(q, g, mine, o, decoupled)
                assert.is_true(torch.equal(q, p), "step " .. k)
            end
            assert.is_true(torch.equal(mine.m, st.exp_avg) and torch.equal(mine.v, st.exp_avg_sq))
        end)
    end
end)

describe("optimizers refuse what PyTorch refuses, and take a closure (round 4)", function()
    local function err_of(f)
        local ok, e = pcall(f)
        assert.is_false(ok)
        return tostring(e)
    end
    it("a non-leaf parameter is an error (PyTorch: can't optimize a non-leaf Tensor)", function()
        local w = torch.randn(3):requires_grad_()
        assert.matches("SGD: params%[1%] is not a leaf tensor %(it has grad_fn=<MulBackward0>%)",
                       err_of(function() torch.optim.SGD({w * 2}, {lr = 0.1}) end))
    end)
    it("the same parameter twice is an error (it was updated twice at each step)", function()
        local w = torch.randn(3):requires_grad_()
        assert.matches("Adam: params%[2%] is the same tensor as params%[1%]",
                       err_of(function() torch.optim.Adam({w, w}) end))
        assert.matches("SGD: param_groups%[2%]%.params%[1%] is the same tensor as param_groups%[1%]%.params%[1%]",
                       err_of(function() torch.optim.SGD({{params = {w}}, {params = {w}}}, {lr = 0.1}) end))
    end)
    it("opt.step() with a dot names the call, not attn's line", function()
        local w = torch.randn(3):requires_grad_()
        local opt = torch.optim.SGD({w}, {lr = 0.1})
        local e = err_of(function() opt.step() end)
        assert.matches("SGD.step: call it with a colon, as opt:step%(%)", e)
        assert.is_nil(e:find("[attn]", 1, true))
    end)
    -- PyTorch: TypeError "bad operand type for unary -: 'str'"; attn named [attn]/optim/sgd.lua:54 for "x",
    -- and took "0.5" as a number
    it("a string lr set in param_groups after the optimizer was made is an error at the user's step", function()
        local w = torch.randn(3):requires_grad_()
        w.grad = torch.ones(3)
        local before = w:detach():clone()
        local opt = torch.optim.SGD({w}, {lr = 0.1})
        for _, lr in ipairs({"x", "0.5"}) do
            opt.param_groups[1].lr = lr
            local e = err_of(function() opt:step() end)
            assert.matches("^tests/lua/optim_spec.lua:%d+: SGD.step: param_groups%[1%]: lr must be a number >= 0, got \"" .. lr, e)
        end
        assert.is_true(torch.equal(w:detach(), before))
        local adam = torch.optim.Adam({w})
        adam.param_groups[1].betas = {"0.9", 0.999}
        assert.matches("Adam.step: param_groups%[1%]: betas%[1%] must be in %[0, 1%)", err_of(function() adam:step() end))
    end)
    it("a closure that is not a function is refused", function()
        local w = torch.randn(3):requires_grad_()
        local opt = torch.optim.SGD({w}, {lr = 0.1})
        assert.matches("SGD.step: the closure must be a function", err_of(function() opt:step(42) end))
    end)
    it("the closure runs with grad mode on, even inside torch.no_grad", function()
        local w = torch.tensor{1.0, 2.0}:requires_grad_()
        local opt = torch.optim.SGD({w}, {lr = 0.5})
        local loss = torch.no_grad(function()
            return opt:step(function()
                opt:zero_grad()
                local l = (w * w):sum()
                l:backward()
                return l
            end)
        end)
        -- the loss PyTorch's closure returns is its own value (5), and w - 0.5 * 2w = 0
        assert.is_true(torch.equal(loss:detach(), (torch.tensor{1.0, 2.0} * torch.tensor{1.0, 2.0}):sum()))
        assert.is_true(torch.equal(w:detach(), torch.zeros(2)))
    end)
end)
