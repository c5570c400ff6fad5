#!/bin/sh
# test_memory_limit.sh — attn inside a memory limit refuses what does not fit with a Lua error naming the
# function, instead of being killed (in a 2 GB container torch.rand(1e9) ended with exit 137).
# The limit is RLIMIT_AS (ulimit -v, 2 GB), then attn's own cap for tests, which counts resident memory
# as a cgroup does: a test cannot make a cgroup without owning the machine's cgroup tree, so reading
# cgroup limits is tested on fake cgroup files by tests/c/test_memlimit.c.
# Release build only: ASan reserves terabytes of address space and cannot run under ulimit -v.
# TAP output.   sh tests/robust/test_memory_limit.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
. "$(dirname "$0")/../cmd.sh"

LIMIT_KB=2000000 # 2 GB of address space

# limited CODE: runs attn -e CODE under the limit (and a time bound that catches hangs, generous for a
# loaded machine: filling memory until a limit is reached takes seconds there).
limited() {
    (ulimit -v "$LIMIT_KB" && exec timeout -s KILL 60 "$BIN" -e "$1") </dev/null >"$OUT" 2>"$ERR"
    STATUS=$?
}

# refused DESCRIPTION CODE MESSAGE: status 1 (a Lua error, not a signal), MESSAGE on stderr.
refused() {
    limited "$2"
    check "$1" all status_is 1 -- err_has "$3"
}

refused "torch.rand(1e9) (4 GB) under a 2 GB limit is a Lua error, not a kill" 'x = torch.rand(1e9)' \
    "(command line):1: rand: 1e9 elements (4 GB) is more than half the address space left under this process's limit (ulimit -v)"
refused "torch.zeros(3e8) (1.2 GB) is refused before it is allocated" 'x = torch.zeros(3e8)' \
    '(command line):1: zeros: 3e8 elements (1.2 GB) is more than half'
refused "nn.positional_encoding(2^31, 2^31) refuses at once" 'x = nn.positional_encoding(2^31, 2^31)' \
    '(command line):1: positional_encoding:'
LIMIT_KB=600000 # 600 MB: filling it is quicker
refused "keeping 80 MB tensors until the limit is reached ends in an error" \
    't = {} for i = 1, 100 do t[i] = torch.zeros(2e7) end' '(command line):1: zeros: '
refused "a Lua string doubled until the limit is reached ends in an error" \
    's = "x" while true do s = s .. s end' 'not enough memory'
# A cgroup's limit counts the memory a process holds, not its address space. attn's own cap for tests
# (bind.testing.set_memory_cap) works the same way, a cgroup of one process: 600 MB here, no ulimit.
LIMIT_KB=unlimited
CAP="require('attn.bind').testing.set_memory_cap(600e6);"
refused "under a cgroup-like limit: torch.rand(1e9) is a Lua error" "$CAP x = torch.rand(1e9)" \
    "(command line):1: rand: 1e9 elements (4 GB) is more than half the memory left under the cap set for testing"
refused "under a cgroup-like limit: a table of a hundred million small tensors ends in an error" \
    "$CAP t = {} for i = 1, 1e8 do t[i] = torch.rand(10) end" 'not enough memory'
refused "under a cgroup-like limit: a table of tables ends in an error" \
    "$CAP t = {} for i = 1, 1e8 do t[i] = {i} end" 'not enough memory'

LIMIT_KB=2000000
limited 'x = torch.rand(1e8); print(x:numel(), x:sum():item() > 0)'
check "400 MB in 2 GB is allowed" all status_is 0 -- out_has '100000000	true'

tap_end
