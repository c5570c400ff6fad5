#!/bin/sh
# the autograd budget: nn.MultiHeadAttention forward + backward (B = 8, T = 1024, d = 768, 12 heads, causal)
# <= 1.0x PyTorch running the book's class (scripts/bench_autograd.py) with the same thread count, in the
# same run. Prints both times, the ratio and "met" / "not met"; never a test assertion. scripts/bench.sh
# runs it (make bench).
# No OPENBLAS_CORETYPE: attn's bits no longer depend on OpenBLAS's kernels, and PyTorch runs as a user
# runs it, with the kernels OpenBLAS picks for this CPU (the faster SkylakeX ones on AVX-512).
set -eu
cd "$(dirname "$0")/.."
THREADS=$(nproc)
REPS=${1:-3}
ours=$(./attn scripts/bench_autograd.lua "$REPS")
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -s -c 'import torch' 2>/dev/null; then
    theirs=$(OMP_NUM_THREADS=$THREADS /usr/bin/python3 -s scripts/bench_autograd.py "$THREADS" "$REPS")
    awk -v a="$ours" -v t="$theirs" 'BEGIN {
        r = a / t
        printf "autograd: MultiHeadAttention forward+backward [8, 1024, 768], 12 heads, causal: attn %.1f ms, PyTorch %.1f ms: %.2fx (target <= 1.0x: %s)\n", a, t, r, (r <= 1.0 ? "met" : "not met") }'
else
    echo "autograd: MultiHeadAttention forward+backward: attn $ours ms; PyTorch skipped (no python3-torch)"
fi
