-- libm_bits.lua — the C library's functions behind attn's scalar paths (each row's last n % 16 elements in
-- gelu, gelu's tanh approximation and silu, as PyTorch's scalar lambdas: glibc's erff, tanhf, expf), on
-- 100000 values of rows of 23: a checksum of their bits, which tests/web/test_node.sh compares between ./attn
-- and the WebAssembly build (emscripten's musl computes other bits for tanhf and erff; src/web/web.mk).
local F = nn.functional
torch.manual_seed(0)
local x = (torch.randn(100000 // 23 * 32) * 4):view(-1, 32):narrow(2, 1, 23)
local checksum = dofile("tests/web/checksum.lua")
print("gelu", checksum(F.gelu(x)))
print("gelu tanh", checksum(F.gelu(x, {approximate = "tanh"})))
print("silu", checksum(F.silu(x)))
