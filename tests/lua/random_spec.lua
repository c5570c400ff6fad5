-- Random fills against PyTorch, bit for bit (tests/data/torch/fills.txt, made by
-- scripts/torch_reference_random.py): randn / normal_ on 16 or more elements (PyTorch's AVX2 kernel with
-- avx_mathfun's log and sincos; exact where this CPU has AVX2 and FMA, as PyTorch's kernel needs), and the
-- in-place fills of tensors that are not contiguous, which PyTorch draws in memory order.
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn

local cases = {}
for line in io.lines("tests/data/torch/fills.txt") do
    local lua, python, bits = line:match("^case\t([^\t]*)\t([^\t]*)\t(.*)$")
    if lua then
        local values = {}
        for v in bits:gmatch("%S+") do values[#values + 1] = v end
        cases[#cases + 1] = {lua = lua, python = python, values = values}
    end
end

local env = setmetatable({torch = torch, nn = nn}, {__index = _G})
local avx2 = torch.backends.cpu.get_cpu_capability() == "AVX2"

describe("random fills against PyTorch (tests/data/torch/fills.txt)", function()
    local flavor
    before_each(function() flavor = torch.set_bernoulli_flavor("default") end) -- Debian's torch: no MKL
    after_each(function() torch.set_bernoulli_flavor(flavor) end)
    it("has the cases", function() assert.is_true(#cases >= 40) end)
    for _, c in ipairs(cases) do
        it(c.lua .. "   -- Python: " .. c.python, function()
            local t = assert(load("return " .. c.lua, "=case", "t", env))()
            if avx2 or not c.lua:match("randn") and not c.lua:match("normal_") and not c.lua:match("Embedding") then
                assert.is_nil(support.same_bits(t, c.values))
            else -- PyTorch's scalar kernel (no AVX2) uses libm's log/sin/cos, which attn approximates
                for i, v in ipairs(support.flat(t)) do
                    assert.is_true(math.abs(v - support.from_bits(c.values[i])) <= 1e-5)
                end
            end
        end)
    end
end)

describe("in-place fills walk memory, not rows", function()
    it("a transposed tensor gets the numbers of its storage's order", function()
        torch.manual_seed(1)
        local plain = torch.rand(15)
        torch.manual_seed(1)
        local t = torch.empty(3, 5)
        t:t():uniform_()
        assert.is_true(torch.equal(t:reshape(15), plain))
    end)
end)
