-- bench_autograd.lua — attn's side of scripts/bench_autograd.sh: nn.MultiHeadAttention (the book's class),
-- forward and backward of (out * w):sum(), B = 8, T = 1024, d = 768, 12 heads, causal, dropout 0.
-- Prints the best of `reps` runs in ms. Run by scripts/bench_autograd.sh; not a test.
local reps = tonumber(arg[1]) or 3
local B, T, D, H = 8, 1024, 768, 12
torch.manual_seed(123)
local mha = nn.MultiHeadAttention(D, D, T, 0.0, H)
local x = torch.rand(B, T, D)
local w = torch.rand(B, T, D)
-- wall-clock milliseconds (os.clock counts the CPU time of every thread)
local function now_ms()
    local p = io.popen("date +%s%N")
    local ns = tonumber(p:read("a"))
    p:close()
    return ns / 1e6
end
local best = math.huge
for _ = 1, reps do
    mha:zero_grad()
    collectgarbage()
    local wall0 = now_ms()
    local loss = (mha(x) * w):sum()
    loss:backward()
    local wall1 = now_ms()
    best = math.min(best, wall1 - wall0)
end
print(string.format("%.1f", best))
