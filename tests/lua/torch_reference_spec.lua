-- attn's random numbers through the Lua API (torch.rand, nn.Linear, nn.Dropout, ...) against the
-- numbers Debian's python3-torch produced (tests/data/torch, made by scripts/gen-torch-reference.sh).
-- Bit for bit; randn/normal_ on 16+ elements go through PyTorch's AVX2 kernel (avx_mathfun's log and
-- sincos, src/core/boxmuller.c), bit for bit on a CPU with AVX2 and FMA and within 1e-6 elsewhere.
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn

local function seed_of(case)
    return math.tointeger(tonumber(case.seed))
end

-- 0 (bit for bit) where this CPU runs what PyTorch's AVX2 kernels run
local VECTOR_TOL = torch.backends.cpu.get_cpu_capability() == "AVX2" and 0 or 1e-6

local function within(t, expected_hex, tol)
    local got = support.flat(t)
    for i, hex in ipairs(expected_hex) do
        local want = support.from_bits(hex)
        if math.abs(got[i] - want) > tol then
            return string.format("element %d: expected %.9g, got %.9g", i, want, got[i])
        end
    end
end

describe("torch.rand against PyTorch", function()
    for _, case in ipairs(support.reference("rand")) do
        if case.seed ~= "default" then
            it("seed " .. case.seed .. " shape " .. case.shape, function()
                torch.manual_seed(seed_of(case))
                assert.is_nil(support.same_bits(torch.rand(support.shape(case.shape)), case.values))
            end)
        end
    end
end)

describe("Tensor:uniform_ against PyTorch", function()
    for _, case in ipairs(support.reference("uniform")) do
        it(string.format("seed %s n %s range [%s, %s)", case.seed, case.n, case.a, case.b), function()
            torch.manual_seed(seed_of(case))
            local t = torch.empty(tonumber(case.n)):uniform_(tonumber(case.a), tonumber(case.b))
            assert.is_nil(support.same_bits(t, case.values))
        end)
    end
end)

describe("torch.randn and Tensor:normal_ against PyTorch", function()
    for _, case in ipairs(support.reference("randn")) do
        it("randn seed " .. case.seed .. " n " .. case.n, function()
            torch.manual_seed(seed_of(case))
            local t = torch.randn(tonumber(case.n))
            if tonumber(case.n) < 16 then
                assert.is_nil(support.same_bits(t, case.values))
            else
                assert.is_nil(within(t, case.values, VECTOR_TOL))
            end
        end)
    end
    for _, case in ipairs(support.reference("normal")) do
        it(string.format("normal_ seed %s n %s", case.seed, case.n), function()
            torch.manual_seed(seed_of(case))
            local t = torch.empty(tonumber(case.n)):normal_(tonumber(case.mean), tonumber(case.std))
            if tonumber(case.n) < 16 then
                assert.is_nil(support.same_bits(t, case.values))
            else
                assert.is_nil(within(t, case.values, VECTOR_TOL * math.max(1, tonumber(case.std))))
            end
        end)
    end
end)

describe("torch.randint against PyTorch", function()
    for _, case in ipairs(support.reference("randint")) do
        local low, high = math.tointeger(tonumber(case.low)), math.tointeger(tonumber(case.high))
        -- values above 2^24 are not exact in float32; attn (float32 only) checks the exact range only
        if math.abs(low) < 2 ^ 24 and math.abs(high) < 2 ^ 24 then
            it(string.format("seed %s randint(%s, %s, {%s})", case.seed, case.low, case.high, case.n), function()
                torch.manual_seed(seed_of(case))
                local got = support.flat(torch.randint(low, high, {tonumber(case.n)}))
                for i, v in ipairs(case.values) do
                    assert.are.equal(tonumber(v), got[i])
                end
            end)
        end
    end
end)

describe("nn.Linear's initialisation against PyTorch", function()
    for _, case in ipairs(support.reference("linear")) do
        it("seed " .. case.seed .. " layers " .. case.layers, function()
            torch.manual_seed(seed_of(case))
            local all = {}
            for spec in case.layers:gmatch("[^,]+") do
                local i, o, b = spec:match("^(%d+)x(%d+)([bn])$")
                local layer = nn.Linear(tonumber(i), tonumber(o), {bias = b == "b"})
                for _, v in ipairs(support.flat(layer.weight)) do all[#all + 1] = v end
                if layer.bias then
                    for _, v in ipairs(support.flat(layer.bias)) do all[#all + 1] = v end
                end
            end
            local want = case.values
            if case.head then -- only the first and last few values were recorded
                local head, tail = tonumber(case.head), tonumber(case.tail)
                for k = 1, head do
                    assert.are.equal(tonumber(want[k]), support.bits(all[k]), "value " .. k)
                end
                for k = 1, tail do
                    assert.are.equal(tonumber(want[head + k]), support.bits(all[#all - tail + k]), "value -" .. k)
                end
            else
                assert.are.equal(#want, #all)
                for k = 1, #want do
                    assert.are.equal(tonumber(want[k]), support.bits(all[k]), "value " .. k)
                end
            end
        end)
    end
end)

describe("nn.Dropout masks against PyTorch (\"default\" flavour: Debian's torch is built without MKL)", function()
    local previous
    setup(function() previous = torch.set_bernoulli_flavor("default") end)
    teardown(function() torch.set_bernoulli_flavor(previous) end)
    for _, case in ipairs(support.reference("dropout")) do
        it(string.format("seed %s p %s shape %s", case.seed, case.p, case.shape), function()
            torch.manual_seed(seed_of(case))
            local out = support.flat(nn.Dropout(tonumber(case.p))(torch.ones(support.shape(case.shape))))
            local scale = support.from_bits(case.scale)
            local mask = case.values[1]
            assert.are.equal(#mask, #out)
            for k = 1, #mask do
                local want = mask:sub(k, k) == "1" and scale or 0
                if out[k] ~= want then
                    error(string.format("element %d: expected %s, got %s", k, want, out[k]))
                end
            end
        end)
    end
end)
