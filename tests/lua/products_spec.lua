-- Matrix products and Linear layers against PyTorch, bit for bit (tests/data/torch/products.txt, made by
-- scripts/torch_reference_products.py): matmul's every case (mm, mv, vector products, batch dims folded
-- into one product, PyTorch's own loop for small batched products and BLAS for large ones), nn.Linear
-- (addmm with the bias in the output before BLAS accumulates, for 2-D and contiguous 3-D inputs) and
-- torch.addmm. The inputs are torch.rand's, which attn draws bit for bit.
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn
-- tests/run.sh runs this spec a second time with OpenBLAS told to use its SkylakeX kernels (on a CPU with
-- AVX-512): attn's products are its own, so the same PyTorch results hold.
local REFERENCE = "products"

local function operand(shape, transposed)
    local s = support.shape(shape)
    if transposed then
        s[#s - 1], s[#s] = s[#s], s[#s - 1]
        return (torch.rand(s) * 2 - 1):transpose(-2, -1)
    end
    return torch.rand(s) * 2 - 1
end

local function seed(case)
    torch.manual_seed(math.tointeger(tonumber(case.seed)))
end

describe("torch.matmul against PyTorch, bit for bit", function()
    for _, c in ipairs(support.reference(REFERENCE)) do
        if c.kind == "matmul" then
            it(string.format("[%s]%s @ [%s]%s", c.a, c.at == "1" and ".mT" or "", c.b, c.bt == "1" and ".mT" or ""),
               function()
                seed(c)
                local a = operand(c.a, c.at == "1")
                local b = operand(c.b, c.bt == "1")
                assert.is_nil(support.same_bits(a:matmul(b), c.values))
            end)
        end
    end
end)

-- An operand expanded from a first size of 1 (stride 0): PyTorch's mv adds a vector of stride 0 in its
-- own loop (no sgemv), and copies a matrix of stride 0 before BLAS reads it.
local function expanded(shape, e)
    local s = support.shape(shape)
    if e ~= "1" then
        return torch.rand(s) * 2 - 1
    end
    local one = support.shape(shape)
    one[1] = 1
    return (torch.rand(one) * 2 - 1):expand(s)
end

describe("torch.matmul on expanded operands against PyTorch, bit for bit", function()
    for _, c in ipairs(support.reference(REFERENCE)) do
        if c.kind == "expanded" then
            it(string.format("[%s]%s @ [%s]%s", c.a, c.ae == "1" and " (expanded)" or "", c.b,
                             c.be == "1" and " (expanded)" or ""), function()
                seed(c)
                local a = expanded(c.a, c.ae)
                local b = expanded(c.b, c.be)
                assert.is_nil(support.same_bits(a:matmul(b), c.values))
            end)
        end
    end
end)

describe("nn.Linear against PyTorch, bit for bit", function()
    for _, c in ipairs(support.reference(REFERENCE)) do
        if c.kind == "linear" then
            it(string.format("Linear(%s, %s, bias=%s) on [%s]%s", c["in"], c.out, c.bias, c.x,
                             c.xt == "1" and " (transposed)" or ""), function()
                seed(c)
                local lin = nn.Linear(tonumber(c["in"]), tonumber(c.out), {bias = c.bias == "1"})
                local x = operand(c.x, c.xt == "1")
                assert.is_nil(support.same_bits(lin(x), c.values))
                assert.is_nil(support.same_bits(nn.functional.linear(x, lin.weight, lin.bias or nil), c.values))
            end)
        end
    end
end)

describe("torch.addmm against PyTorch, bit for bit", function()
    for _, c in ipairs(support.reference(REFERENCE)) do
        if c.kind == "addmm" then
            it(string.format("addmm([%s], [%s], [%s])", c.bias, c.a, c.b), function()
                seed(c)
                local bias, a, b = operand(c.bias), operand(c.a), operand(c.b)
                assert.is_nil(support.same_bits(torch.addmm(bias, a, b), c.values))
            end)
        end
    end
end)
