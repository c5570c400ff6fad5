#!/bin/sh
# bench-kv-cache.sh — generation with the KV cache, measured in the same run:
#   1. 200 new tokens with GPT-2 small's shape (random seeded weights, eval): attn with the cache, attn
#      without it, and the bonus chapter's PyTorch code with its cache (ch04/03_kv-cache, as written out
#      in scripts/torch_reference_variants.py); target: attn's cached tokens/s >= 1.5x PyTorch's
#   2. the cached decode step against reading the weights once at the memory bandwidth measured here
#      (a 400 MB copy); target: within 1.5x
# Prints figures, ratios and "met"/"not met"; asserts nothing (timings are not tests). `make bench` runs it.
set -eu
cd "$(dirname "$0")/.."
[ -x ./attn ] || make attn >/dev/null
sh scripts/install-deps.sh python3-torch
n=200
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (a loaded machine slows attn and PyTorch alike, not always evenly)" >&2
figures=$(./attn scripts/bench_kv_cache.lua generate $n) # fails the script (set -e) if attn fails
set -- $figures
cached_ms=$1 plain_ms=$2 step_ms=$3 bytes=$4
echo "attn: cached $cached_ms ms, uncached $plain_ms ms, decode step $step_ms ms, $bytes bytes of weights read per step" >&2
torch_ms=$(PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/bench_kv_cache.py $n)
bw=$(./attn scripts/bench_kv_cache.lua bandwidth)
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
awk -v c="$cached_ms" -v p="$plain_ms" -v t="$torch_ms" -v s="$step_ms" -v b="$bytes" -v bw="$bw" -v n="$n" 'BEGIN {
    ratio = t / c
    printf "%d tokens, GPT-2 small shape: attn cached %.0f ms (%.1f tokens/s), uncached %.0f ms (%.1f tokens/s), PyTorch cached %.0f ms (%.1f tokens/s)\n", n, c, n * 1000 / c, p, n * 1000 / p, t, n * 1000 / t
    verdict = (ratio >= 1.5) ? "met" : "not met"
    printf "  attn cached over PyTorch cached, tokens/s: %.2fx (target >= 1.5x): %s\n", ratio, verdict
    floor = b / bw * 1000
    verdict = (s / floor <= 1.5) ? "met" : "not met"
    printf "  decode step %.1f ms; reading the %.0f MB of weights once at %.1f GB/s: %.1f ms; %.2fx (target <= 1.5x): %s\n", s, b / 1e6, bw / 1e9, floor, s / floor, verdict
}'
