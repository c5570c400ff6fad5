-- The ops of training against PyTorch, bit for bit (tests/data/torch/learn.txt, made by
-- scripts/torch_reference_learn.py): cross_entropy (over [C], [N, C] with C across the vector widths,
-- GPT-2's 50,257 classes for the book's 2 × 256 tokens, [N, C, d...]), nll_loss, mse_loss, their modules,
-- ignore_index, the three reductions; gather and lists of indices in an index table; randperm (with and
-- without a torch.Generator); the order a DataLoader shuffles in and what it draws from the default
-- generator; linspace. Each case is computed in attn from the same seeded inputs PyTorch used.
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn

local cases = {}
for line in io.lines("tests/data/torch/learn.txt") do
    local lua, python, dtype, vals = line:match("^case\t([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
    if lua then
        local values = {}
        for v in vals:gmatch("%S+") do values[#values + 1] = v end
        cases[#cases + 1] = {lua = lua, python = python, dtype = dtype, values = values}
    end
end

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
