#!/bin/sh
# test_autograd_soak.sh — the graph's memory goes after each backward: 10^5 training steps of
# a small model (Linear(4, 8), tanh, Linear(8, 1), mean squared error, backward, an SGD step under
# no_grad); resident memory (VmRSS) after them must be within 20 MB of what it was after 1000 warm-up
# steps, and the loss must have gone down. A time bound catches a hang only. TAP output.
#   sh tests/robust/test_autograd_soak.sh [path/to/attn [steps]]     (default ./attn, 100000)
set -u

BIN=${1:-./attn}
STEPS=${2:-100000}
. "$(dirname "$0")/../cmd.sh"

cat >"$TMP/soak.lua" <<'LUA'
local steps = tonumber(arg[1])
local function rss_mb()
    local f = assert(io.open("/proc/self/status"))
    local kb = f:read("a"):match("VmRSS:%s*(%d+)")
    f:close()
    return tonumber(kb) / 1024
end
torch.manual_seed(1)
local l1, l2 = nn.Linear(4, 8), nn.Linear(8, 1)
local params = {l1.weight, l1.bias, l2.weight, l2.bias}
local x, y = torch.rand(16, 4), torch.rand(16, 1)
local function step()
    local out = l2(torch.tanh(l1(x)))
    local loss = ((out - y) * (out - y)):mean()
    loss:backward()
    torch.no_grad(function()
        for _, p in ipairs(params) do
            p:sub_(p.grad * 0.1)
            p.grad = nil
        end
    end)
    return loss:item()
end
local first
for i = 1, 1000 do
    local l = step()
    first = first or l
end
collectgarbage()
local before = rss_mb()
local last
for _ = 1, steps do last = step() end
print(string.format("train: %.1f MB -> %.1f MB", before, rss_mb()))
print(string.format("loss: %.6f -> %.6f", first, last))
LUA

timeout -s KILL 600 "$BIN" "$TMP/soak.lua" "$STEPS" </dev/null >"$OUT" 2>"$ERR"
STATUS=$?
check "the training soak ran to its end" status_is 0
flat() {
    awk 'index($0, "train: ") == 1 { split(substr($0, 8), w, " "); found = 1; ok = (w[4] - w[1] < 20) }
         END { exit !(found && ok) }' "$OUT"
}
learned() {
    awk 'index($0, "loss: ") == 1 { split(substr($0, 7), w, " "); found = 1; ok = (w[3] < w[1]) }
         END { exit !(found && ok) }' "$OUT"
}
check "$STEPS training steps: resident memory within 20 MB of its start" flat
check "the loss went down (the gradients train the model)" learned
tap_end
