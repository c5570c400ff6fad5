#!/bin/sh
# bench-gpt2.sh — GPT-2 small in attn against Debian's PyTorch, measured in the same run:
#   1. the forward pass of chapter 4's GPTModel at GPT_CONFIG_124M (random seeded weights, eval mode) on
#      one 1024-token input: attn's time over PyTorch's (the issue's target: <= 0.6)
#   2. safetensors.load_file of GPT-2 small's weights (~500 MB, written by attn first): the time (target
#      <= 1 s) and the resident memory over the weights' size, right after loading and after every
#      weight has been read (target <= 1.2)
# Prints figures and ratios; asserts nothing (timings are not tests). Run: sh scripts/bench-gpt2.sh
set -eu
cd "$(dirname "$0")/.."
[ -x ./attn ] || make attn >/dev/null
sh scripts/install-deps.sh python3-torch
mkdir -p build/bench
st=build/bench/gpt2-small-random.safetensors
[ -s "$st" ] || ./attn scripts/bench_gpt2.lua save "$st"
bytes=$(stat -c %s "$st")

torch_ms=$(PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/bench_gpt2.py)
attn_ms=$(./attn scripts/bench_gpt2.lua forward)
# drop the file from the page cache's recent use is not possible without root tricks: the load is timed
# warm (the file was just written), as a second load of a model is
set -- $(./attn scripts/bench_gpt2.lua load "$st")
load_ms=$1 rss0=$2 rss1=$3 rss2=$4

awk -v a="$attn_ms" -v t="$torch_ms" -v l="$load_ms" -v b="$bytes" -v r0="$rss0" -v r1="$rss1" -v r2="$rss2" 'BEGIN {
    printf "GPT-2 small forward, 1024 tokens: attn %.0f ms, PyTorch %.0f ms: %.2fx PyTorch'"'"'s time (target <= 0.6x)\n", a, t, a / t
    printf "safetensors.load_file of %.0f MB: %.1f ms (target <= 1000 ms)\n", b / 1e6, l
    printf "  resident memory: %.0f MB before, %.0f MB after loading (%.2fx the weights), %.0f MB after reading every weight (%.2fx; target <= 1.2x)\n",
        r0 / 1024, r1 / 1024, (r1 - r0) * 1024 / b, r2 / 1024, (r2 - r0) * 1024 / b
}'
