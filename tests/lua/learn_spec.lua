-- The ops of training against PyTorch, bit for bit (tests/data/torch/learn.txt, made by
-- scripts/torch_reference_learn.py): cross_entropy (over [C], [N, C] with C across the vector widths,
-- GPT-2's 50,257 classes for the book's 2 × 256 tokens, [N, C, d...]), nll_loss, mse_loss, their modules,
-- ignore_index, the three reductions; gather and lists of indices in an index table; randperm (with and
-- without a torch.Generator); the order a DataLoader shuffles in and what it draws from the default
-- generator; linspace. Each case is computed in attn from the same seeded inputs PyTorch used.
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn

local cases = support.tab_cases("tests/data/torch/learn.txt", "dtype")

describe("the ops of training against PyTorch (tests/data/torch/learn.txt)", function()
    it("has the cases", function() assert.is_true(#cases >= 70) end)
    local env = setmetatable({torch = torch, nn = nn, F = nn.functional}, {__index = _G})
    for _, c in ipairs(cases) do
        it(c.lua:sub(1, 200) .. "   -- Python: " .. c.python:sub(1, 200), function()
            local t = assert(load("return " .. c.lua, "=case", "t", env))()
            assert.are.equal("torch." .. c.dtype, tostring(t.dtype))
            local got = support.flat(t)
            assert.are.equal(#c.values, #got)
            for i, v in ipairs(c.values) do
                if c.dtype == "int64" then
                    assert(got[i] == tonumber(v), string.format("element %d: expected %s, got %s", i, v, tostring(got[i])))
                else -- nan is any nan; everything else bit for bit
                    local want = support.from_bits(v)
                    assert(want ~= want and got[i] ~= got[i] or support.bits(got[i]) == tonumber(v),
                           string.format("element %d: expected %s (%.9g), got 0x%08x (%.9g)", i, v, want,
                                         support.bits(got[i]), got[i]))
                end
            end
        end)
    end
end)

describe("the ops of training refuse what they cannot do, naming the function", function()
    local F = nn.functional
    local function err(f, ...) return select(2, pcall(f, ...)) end
    it("losses", function()
        local x = torch.zeros(2, 3)
        assert.matches("cross_entropy: unknown option foo", err(F.cross_entropy, x, torch.tensor{1, 2}, {foo = 1}))
        assert.matches("cross_entropy: target must be an int64 tensor", err(F.cross_entropy, x, torch.zeros(2)))
        assert.matches("cross_entropy: target 4 is out of bounds", err(F.cross_entropy, x, torch.tensor{1, 4}))
        assert.matches("cross_entropy: target 0 is out of bounds", err(F.cross_entropy, x, torch.tensor{1, 0}))
        assert.matches("does not fit the input", err(F.cross_entropy, x, torch.tensor{1, 2, 3}))
        assert.matches('reduction must be "mean", "sum" or "none"', err(F.nll_loss, x, torch.tensor{1, 2}, {reduction = "avg"}))
        assert.matches("MSELoss: unknown option ignore_index", err(nn.MSELoss, {ignore_index = 1}))
        -- every target ignored: 0/0 for the mean, as PyTorch
        local all = F.cross_entropy(x, torch.tensor{-100, -100})
        assert.is_true(all:item() ~= all:item())
    end)
    it("gather, scatter and lists of indices", function()
        local x = torch.zeros(2, 3)
        assert.matches("gather: index 4 is out of range for dim 2 of size 3", err(torch.gather, x, 2, torch.tensor{{4}, {1}}))
        assert.matches("gather: the index must have as many dims", err(torch.gather, x, 2, torch.tensor{1, 2}))
        assert.matches("scatter_add: src is torch.int64", err(torch.scatter_add, x, 2, torch.tensor{{1}, {1}}, torch.tensor{{1}, {1}}))
        assert.matches("indices are 1%-based", err(function() return x[{torch.tensor{0, 1}}] end))
        assert.matches("out of range for dim 1 of size 2", err(function() return x[{torch.tensor{3}}] end))
        assert.matches("assigning through it", err(function() x[{torch.tensor{1}}] = 1 end))
        assert.matches("must hold int64 indices", err(function() return x[{torch.tensor{1.0}}] end))
    end)
    it("randperm, Generator, DataLoader, linspace", function()
        assert.matches("randperm: unknown option 'gen' %(did you mean 'generator'%?%)", err(torch.randperm, 3, {gen = 1}))
        assert.matches("randperm: n must be a non%-negative integer", err(torch.randperm, -1))
        assert.matches("randperm: generator must be a torch.Generator", err(torch.randperm, 3, {generator = 1}))
        assert.matches("DataLoader: unknown option 'batchsize' %(did you mean 'batch_size'%?%)", err(torch.utils.data.DataLoader, {1, 2}, {batchsize = 2}))
        assert.matches("DataLoader: dataset must have a length", err(torch.utils.data.DataLoader, 5))
        assert.matches("DataLoader: num_workers must be 0", err(torch.utils.data.DataLoader, {1}, {num_workers = 2}))
        assert.matches("DataLoader: cannot make a batch of", err(function()
            for _ in torch.utils.data.DataLoader({"a", "b"}) do end
        end))
        assert.matches("linspace: steps must be non%-negative", err(torch.linspace, 0, 1, -1))
    end)
    it("a generator's draws leave the default stream alone, an error in between too", function()
        torch.manual_seed(3)
        local want = torch.rand(4)
        torch.manual_seed(3)
        local g = torch.Generator():manual_seed(9)
        torch.randperm(10, {generator = g})
        assert.is_true(torch.equal(want, torch.rand(4)))
        assert.are.equal(4, #torch.utils.data.DataLoader({1, 2, 3, 4, 5, 6, 7}, {batch_size = 2}))
        assert.are.equal(3, #torch.utils.data.DataLoader({1, 2, 3, 4, 5, 6, 7}, {batch_size = 2, drop_last = true}))
    end)
    it("loops over one loader nest as Python's do: an inner loop takes a pass of its own", function()
        -- chapter 5's train_model_simple evaluates on the training loader inside its loop over it
        local loader = torch.utils.data.DataLoader({10, 20, 30, 40, 50, 60}, {batch_size = 2, shuffle = true})
        torch.manual_seed(5)
        local alone = {}
        for x in loader do alone[#alone + 1] = x:tolist()[1] end
        torch.manual_seed(5)
        local outer, inner = {}, 0
        for x in loader do
            outer[#outer + 1] = x:tolist()[1]
            for _ in loader do inner = inner + 1 end
        end
        assert.are.same(alone, outer)
        assert.are.equal(9, inner)
    end)
end)

describe("DataLoader and ipairs (round 4)", function()
    -- it ran zero times (Lua's ipairs asked loader[1] and got nil); attn's ipairs enumerates the batches
    it("for i, x, y in ipairs(loader) is Python's enumerate(loader): one pass, i from 1", function()
        torch.manual_seed(3)
        local data = {{torch.tensor{1.0}, 1}, {torch.tensor{2.0}, 2}, {torch.tensor{3.0}, 3}}
        local loader = torch.utils.data.DataLoader(data, {batch_size = 2, shuffle = true})
        local seen = {}
        for i, x, y in ipairs(loader) do seen[#seen + 1] = i .. ":" .. tostring(y) end
        torch.manual_seed(3) -- the same draws as a plain loop over the loader
        local plain, i = {}, 0
        for _, y in loader do i = i + 1; plain[#plain + 1] = i .. ":" .. tostring(y) end
        assert.are.same(plain, seen)
        assert.are.equal(2, #seen)
    end)
    it("loader[1] is an error naming the two right forms", function()
        local loader = torch.utils.data.DataLoader({1, 2, 3}, {batch_size = 2})
        local ok, e = pcall(function() return loader[1] end)
        assert.is_false(ok)
        assert.matches("DataLoader: a loader has no items by number %(loader%[1%]%); loop over its batches with "
                       .. "`for x, y in loader do ... end`, or `for i, x, y in ipairs%(loader%) do ... end`", tostring(e))
        assert.matches("learn_spec.lua:%d+:", tostring(e)) -- the user's line
    end)
end)
