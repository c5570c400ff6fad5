#!/bin/sh
# bench-qwen3.sh — a Qwen3-0.6B-shaped model (random seeded weights, bfloat16 on disk, float32 in memory) in
# attn against the book's from-scratch PyTorch model (Debian's PyTorch 1.13), measured in the same run:
#   1. a forward pass of 512 tokens: attn's time over PyTorch's (target <= 0.7x)
#   2. greedy decoding of N tokens with the KV cache: attn's tokens/s over PyTorch's (target >= 1.5x)
#   3. qwen3.Qwen3Model.from_pretrained: attn's resident memory after loading (VmRSS, and VmHWM, the peak
#      while loading) over the weights' float32 bytes (target <= 1.1x)
# scripts/bench_qwen3.py writes the model in the Hugging Face layout (config.json, model.safetensors:
# ~1.2 GB) into a directory under build/, removed at the end; both programs load it, PyTorch with as many
# threads as attn computes with (OpenBLAS's count). Prints figures, ratios and "met"/"not met"; asserts
# nothing (timings are not tests). `make bench` runs it. Usage: sh scripts/bench-qwen3.sh [N]  (N = 16)
set -eu
cd "$(dirname "$0")/.."
[ -x ./attn ] || make attn >/dev/null
sh scripts/install-deps.sh python3-torch
n=${1:-16}
dir=build/bench/qwen3-0.6b-random
mkdir -p build/bench
trap 'rm -rf "$dir"' EXIT INT TERM
[ -s "$dir/model.safetensors" ] || PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/bench_qwen3.py save "$dir"
threads=${OPENBLAS_NUM_THREADS:-$(nproc)} # attn computes with as many threads as OpenBLAS (core/parallel.h)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min; $(nproc) cores); threads: $threads" >&2
set -- $(PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/bench_qwen3.py run "$dir" "$threads" "$n")
torch_fwd=$1 torch_dec=$2
set -- $(./attn scripts/bench_qwen3.lua "$dir" "$n")
load_ms=$1 rss0=$2 rss1=$3 hwm=$4 bytes=$5 attn_fwd=$6 attn_dec=$7
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

awk -v af="$attn_fwd" -v tf="$torch_fwd" -v ad="$attn_dec" -v td="$torch_dec" -v n="$n" -v l="$load_ms" \
    -v r0="$rss0" -v r1="$rss1" -v h="$hwm" -v b="$bytes" 'BEGIN {
    printf "Qwen3-0.6B shape, random weights, float32 (%.2f GB of weights):\n", b / 1e9
    r = af / tf
    printf "  forward of 512 tokens: attn %.0f ms, PyTorch %.0f ms: %.2fx PyTorch'"'"'s time (target <= 0.7x): %s\n", af, tf, r, (r <= 0.7) ? "met" : "not met"
    r = td / ad
    printf "  decoding %d tokens with the KV cache: attn %.2f tokens/s, PyTorch %.2f tokens/s: %.2fx (target >= 1.5x): %s\n", n, n * 1000 / ad, n * 1000 / td, r, (r >= 1.5) ? "met" : "not met"
    r = r1 * 1024 / b
    printf "  from_pretrained: %.1f s; resident %.0f MB before, %.0f MB after loading: %.2fx the weights (target <= 1.1x): %s\n", l / 1000, r0 / 1024, r1 / 1024, r, (r <= 1.1) ? "met" : "not met"
    r = h * 1024 / b
    printf "  peak resident memory while loading %.0f MB: %.2fx the weights (target <= 1.1x): %s\n", h / 1024, r, (r <= 1.1) ? "met" : "not met"
}'
