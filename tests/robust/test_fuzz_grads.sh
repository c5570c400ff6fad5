#!/bin/sh
# test_fuzz_grads.sh — scripts/fuzz_grads.lua as a suite: every differentiable op of its list against
# central finite differences, on random shapes, values and options, with three seeds (30 trials per op
# each). One TAP line per seed: ok when the fuzzer reports no failure and exits 0; its FAIL lines (each
# an op, a trial, an element, autograd's number and the finite differences') follow as diagnostics.
#   sh tests/robust/test_fuzz_grads.sh [path/to/attn]      (default ./attn)
BIN=${1:-./attn}
cd "$(dirname "$0")/../.." || exit 2
. tests/tap.sh
for seed in 1 2 3; do
    out=$("$BIN" scripts/fuzz_grads.lua 30 "$seed" 2>&1)
    status=$?
    summary=$(printf '%s\n' "$out" | tail -n 1)
    diagnose() { printf '%s\n' "$out" | grep -v '^cases:' | head -n 40 | sed 's/^/#   /'; }
    check "fuzz_grads seed $seed: $summary" [ "$status" -eq 0 ]
done
tap_end
