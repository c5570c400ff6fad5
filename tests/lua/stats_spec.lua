-- var and std against PyTorch, bit for bit (tests/data/torch/stats.txt, made by
-- scripts/torch_reference_stats.py): over everything and along each dim, unbiased or not, keepdim,
-- correction, on contiguous, transposed and sliced inputs, values near 0 and far from it.
local support = dofile("tests/lua/support.lua")
local torch = torch

local cases = {}
for line in io.lines("tests/data/torch/stats.txt") do
    local lua, python, bits = line:match("^case\t([^\t]*)\t([^\t]*)\t(.*)$")
    if lua then
        local values = {}
        for v in bits:gmatch("%S+") do values[#values + 1] = v end
        cases[#cases + 1] = {lua = lua, python = python, values = values}
    end
end

describe("var and std against PyTorch (tests/data/torch/stats.txt)", function()
    it("has the cases", function() assert.is_true(#cases >= 80) end)
    local env = setmetatable({torch = torch}, {__index = _G})
    for _, c in ipairs(cases) do
        it(c.lua .. "   -- Python: " .. c.python, function()
            local t = assert(load("return " .. c.lua, "=case", "t", env))()
            local got = support.flat(t)
            assert.are.equal(#c.values, #got)
            for i, hex in ipairs(c.values) do -- nan is any nan; everything else bit for bit
                local want = support.from_bits(hex)
                assert(want ~= want and got[i] ~= got[i] or support.bits(got[i]) == tonumber(hex),
                       string.format("element %d: expected %s (%.9g), got 0x%08x (%.9g)", i, hex, want,
                                     support.bits(got[i]), got[i]))
            end
        end)
    end
end)

describe("var and std refuse what PyTorch refuses", function()
    it("an int64 tensor, and unbiased with correction", function()
        assert.matches("var: expected a floating%-point tensor, got torch.int64", select(2, pcall(torch.var, torch.tensor{1, 2})))
        assert.matches("give either unbiased or correction", select(2, pcall(torch.std, torch.ones(3), {unbiased = true, correction = 0})))
    end)
end)
