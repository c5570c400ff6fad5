#!/bin/sh
# The training-step budget: chapter 5's training step on GPT-2 small (GPT_CONFIG_124M with context 256,
# dropout 0.1, a batch of 2 x 256 tokens, cross-entropy, backward, AdamW(lr 4e-4, weight decay 0.1),
# zero_grad) <= 1.0x PyTorch's time running the book's classes (scripts/bench_train_step.py) with the same
# thread count, and peak resident memory (VmHWM) <= 1.1x PyTorch's; each in its own process, both in the
# same run. A few warm-up steps, then the median of the timed steps (wall clock, and CPU time of all
# threads, which is steadier when other programs share the cores). Prints the figures, the ratios and
# "met" / "not met"; never a test assertion. scripts/bench.sh runs it (make bench).
#   sh scripts/bench-train-step.sh [WARMUP [STEPS]]        (default 2 and 5)
# No OPENBLAS_CORETYPE: attn's bits no longer depend on OpenBLAS's kernels, and PyTorch runs as a user
# runs it, with the kernels OpenBLAS picks for this CPU (the faster SkylakeX ones on AVX-512).
set -eu
cd "$(dirname "$0")/.."
THREADS=$(nproc)
WARMUP=${1:-2}
STEPS=${2:-5}
echo "train step: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
ours=$(./attn scripts/bench_train_step.lua "$WARMUP" "$STEPS")
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -s -c 'import torch' 2>/dev/null; then
    theirs=$(OMP_NUM_THREADS=$THREADS /usr/bin/python3 -s scripts/bench_train_step.py "$THREADS" "$WARMUP" "$STEPS")
    echo "train step: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "$ours $theirs" | awk '{
        tr = $1 / $4; cr = $2 / $5; mr = $3 / $6
        printf "train step: GPT-2 small, batch 2 x 256, AdamW, %d threads: attn %.0f ms (CPU %.0f ms), PyTorch %.0f ms (CPU %.0f ms): %.2fx, CPU %.2fx (target <= 1.0x: %s)\n", '"$THREADS"', $1, $2, $4, $5, tr, cr, (tr <= 1.0 ? "met" : "not met")
        printf "train step: peak resident memory: attn %.0f MB, PyTorch %.0f MB: %.2fx (target <= 1.1x: %s)\n", $3 / 1024, $6 / 1024, mr, (mr <= 1.1 ? "met" : "not met") }'
else
    echo "$ours" | awk '{ printf "train step: GPT-2 small, batch 2 x 256, AdamW: attn %.0f ms (CPU %.0f ms), peak %.0f MB; PyTorch skipped (no python3-torch)\n", $1, $2, $3 / 1024 }'
fi
