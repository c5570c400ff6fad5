-- gemm_bits.lua — matrix products of every tile shape gemm.c makes (rows around the panel of 8, columns
-- around 6, sums short and long, one chain and two), on normal numbers with one in 16 an awkward one (0,
-- -0, subnormals, large): a checksum of each product's bits. tests/web/test_node.sh compares it between
-- ./attn (the CPU's fused multiply-add) and the WebAssembly build (src/core/wasm/gemm_simd128.c, and with
-- ATTN_ISA=portable the portable C), and so the exact rounding of WebAssembly's kernels.
torch.manual_seed(7)
local awkward = {0.0, -0.0, 1e-40, -1e-40, 3e-39, 1e20, -1e20, 1.5, 2 ^ -24, 65504.0}
local function sample(rows, cols)
    local t = torch.randn(rows, cols)
    local flat = t:view(-1)
    local k = 0
    for i = 1, flat:size(1) do
        k = (k * 1103515245 + 12345) % 2147483648
        if k % 16 == 0 then flat[i] = awkward[(k // 16) % #awkward + 1] end
    end
    return t
end
local checksum = dofile("tests/web/checksum.lua")
for _, m in ipairs({1, 3, 8, 9, 17, 40}) do
    for _, k in ipairs({1, 7, 8, 9, 31, 64, 257}) do
        for _, n in ipairs({1, 2, 5, 6, 7, 13, 64}) do
            local a, b = sample(m, k), sample(k, n)
            print(m, k, n, checksum(a:matmul(b)), checksum(a.T:contiguous().T:matmul(b)))
        end
    end
end
