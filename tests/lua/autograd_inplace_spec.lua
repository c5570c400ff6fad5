-- In-place ops on tensors that require grad, as PyTorch 1.13 records them (expected values: PyTorch's own
-- node names and messages, as torch 1.13 prints them for the same code).
describe("in-place fills and the version check (round 4)", function()
    -- x.fill_(1) on a result kept its values but dropped its history: the next backward said "element 0 of
    -- tensors does not require grad". PyTorch records FillBackward2 (a zero gradient for what came before).
    it("fill_, zero_ and the random fills keep the graph, with PyTorch's node and a zero gradient", function()
        local names = {}
        for _, op in ipairs({"fill_", "zero_", "uniform_", "normal_", "bernoulli_", "exponential_"}) do
            local q = torch.tensor({1.0, 2.0}):requires_grad_()
            local e = q * 2
            if op == "fill_" then e:fill_(1) elseif op == "bernoulli_" then e:bernoulli_(0.5) else e[op](e) end
            ;(e * 3):sum():backward()
            names[#names + 1] = e.grad_fn:name()
            assert.are.same({0, 0}, q.grad:tolist())
        end
        assert.are.same({"FillBackward2", "ZeroBackward0", "UniformBackward0", "NormalBackward0", "BernoulliBackward2",
                         "ExponentialBackward0"}, names)
    end)

    it("fill_ on a result an op saved: the backward's version error names that op (ExpBackward0)", function()
        local q = torch.tensor({1.0}):requires_grad_()
        local e = q:exp()
        e:fill_(1)
        local ok, err = pcall(function() e:sum():backward() end)
        assert.is_false(ok)
        assert.matches("^tests/lua/autograd_inplace_spec.lua:%d+: one of the variables needed for gradient computation "
                       .. "has been modified by an inplace operation: %[torch.FloatTensor %[1%]%], which is output 0 of "
                       .. "ExpBackward0, is at version 1; expected version 0 instead.", err)
    end)

    it("an input saved and changed in place is named by its grad_fn now; a number makes MulBackward0", function()
        local q = torch.tensor({1.0}):requires_grad_()
        local x = q * 2
        local y = x * x
        x:mul_(2)
        assert.are.equal("MulBackward0", x.grad_fn:name())
        local ok, err = pcall(function() y:sum():backward() end)
        assert.is_false(ok)
        assert.matches("which is output 0 of MulBackward0, is at version 1; expected version 0 instead.", err, 1, true)
        local names = {}
        for _, op in ipairs({"add_", "sub_", "div_"}) do
            local z = q * 2
            z[op](z, 2)
            names[#names + 1] = z.grad_fn:name()
        end
        assert.are.same({"AddBackward0", "SubBackward0", "DivBackward0"}, names)
    end)

    -- c:add_(b, {alpha = 2}) gave b the gradient 1 (alpha ignored, as add's was before round 4); PyTorch: 2, and
    -- sub_ with alpha 3: -3 (torch 1.13, the same code)
    it("add_ and sub_ with alpha give the other operand alpha times the gradient", function()
        local a = torch.tensor({1.0, 2.0}):requires_grad_()
        local b = torch.tensor({3.0, 4.0}):requires_grad_()
        local c = a * 1
        c:add_(b, {alpha = 2})
        c:sum():backward()
        assert.are.same({2, 2}, b.grad:tolist())
        a.grad, b.grad = nil, nil
        local e = a * 1
        e:sub_(b, {alpha = 3})
        e:sum():backward()
        assert.are.same({-3, -3}, b.grad:tolist())
        assert.are.same({1, 1}, a.grad:tolist())
    end)
end)
