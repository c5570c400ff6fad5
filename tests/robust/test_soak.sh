#!/bin/sh
# test_soak.sh — memory stays flat in long loops (10^6 iterations of torch.rand(4, 4) took
# resident memory from 6 MB to 205 MB, 3x10^6 of rand, transpose + contiguous, + 1, sum to 1.65 GB, because
# small tensors were not counted toward the garbage collector's debt). Each loop runs 10^6 times; resident
# memory (VmRSS) after it must be within 50 MB of what it was before. A time bound catches a hang only.
# TAP output.   sh tests/robust/test_soak.sh [path/to/attn [iterations]]     (default ./attn, 1000000)
set -u

BIN=${1:-./attn}
ITERS=${2:-1000000}
. "$(dirname "$0")/../cmd.sh"

cat >"$TMP/soak.lua" <<'LUA'
local iters = tonumber(arg[1])
local function rss_mb()
    local f = assert(io.open("/proc/self/status"))
    local kb = f:read("a"):match("VmRSS:%s*(%d+)")
    f:close()
    return tonumber(kb) / 1024
end
local loops = {
    {"torch.rand(4, 4)", function() local x = torch.rand(4, 4) end},
    {"rand, transpose + contiguous, + 1, sum", function()
        local x = torch.rand(4, 4)
        local s = (x:transpose(1, 2):contiguous() + 1):sum()
    end},
}
for _, loop in ipairs(loops) do
    collectgarbage()
    local before = rss_mb()
    local f = loop[2]
    for _ = 1, iters do f() end
    print(string.format("%s: %.1f MB -> %.1f MB", loop[1], before, rss_mb()))
end
LUA

timeout -s KILL 300 "$BIN" "$TMP/soak.lua" "$ITERS" </dev/null >"$OUT" 2>"$ERR"
STATUS=$?
check "the soak ran to its end" status_is 0
# flat LABEL: the line for LABEL shows a growth under 50 MB
flat() {
    awk -v label="$1: " 'index($0, label) == 1 {
        split(substr($0, length(label) + 1), w, " ")
        found = 1; ok = (w[4] - w[1] < 50) }
        END { exit !(found && ok) }' "$OUT"
}
check "$ITERS x torch.rand(4, 4): resident memory within 50 MB of its start" \
    flat "torch.rand(4, 4)"
check "$ITERS x (rand, transpose + contiguous, + 1, sum): resident memory within 50 MB of its start" \
    flat "rand, transpose + contiguous, + 1, sum"
tap_end
