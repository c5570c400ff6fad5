#!/bin/sh
# bench-safetensors-load.sh — safetensors.load_file of GPT-2 small's weights (~500 MB of random seeded
# weights, written by ./attn first into build/bench/), before and after the change from mapping
# the file to reading each tensor into memory of its own (src/core/safetensors.c, read_tensor, says
# why). For each attn given (default: ./attn; name a build of the older main as a second argument to
# compare), three loads in fresh processes, warm (the file is in the page cache): the time, and the
# resident memory (VmRSS) before, right after loading, and after every weight has been read.
# Prints figures; asserts nothing (timings are not tests).
#   sh scripts/bench-safetensors-load.sh [ATTN [OTHER_ATTN]]
set -eu
cd "$(dirname "$0")/.."
[ -x ./attn ] || make attn >/dev/null
mkdir -p build/bench
st=build/bench/gpt2-small-random.safetensors
[ -s "$st" ] || ./attn scripts/bench_gpt2.lua save "$st"
bytes=$(stat -c %s "$st")
cat "$st" >/dev/null # into the page cache
for bin in "${1:-./attn}" ${2:+"$2"}; do
    for i in 1 2 3; do
        set -- $("$bin" scripts/bench_gpt2.lua load "$st")
        awk -v bin="$bin" -v l="$1" -v b="$bytes" -v r0="$2" -v r1="$3" -v r2="$4" 'BEGIN {
            printf "%s: load_file of %.0f MB: %.1f ms; resident %.0f MB before, %.0f MB after loading, %.0f MB after reading every weight\n",
                bin, b / 1e6, l, r0 / 1024, r1 / 1024, r2 / 1024 }'
    done
done
