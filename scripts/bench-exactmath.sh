#!/bin/sh
# bench-exactmath.sh — the speed of attn's own SLEEF functions against libsleef's FMA build, measured in
# the same run (scripts/bench-exactmath.c), built three ways: with attn's flags (the fused multiply-add is a
# call to glibc's fmaf: what a CPU without FMA and ATTN_ISA=portable run), with -mavx2 -mfma (the fused
# multiply-add inlined, as libsleef's own build has it), and with attn_fmaf_exact (WebAssembly's
# multiply-add, here on this CPU). Prints ratios, never asserts them. `make bench` runs it.
set -eu
cd "$(dirname "$0")/.."
CC=${CC:-cc}
mkdir -p build
SRC="scripts/bench-exactmath.c src/core/exactmath_exp.c src/core/exactmath_trig.c src/core/fmaf_exact.c"
COMMON="-std=c11 -O2 -ffp-contract=off -Wall -Isrc/core"
$CC $COMMON -o build/bench-exactmath $SRC -lsleef -lm
$CC $COMMON -mavx2 -mfma -o build/bench-exactmath-fma $SRC -lsleef -lm
$CC $COMMON -DEXACTMATH_OWN_FMAF -o build/bench-exactmath-own-fmaf $SRC -lsleef -lm
build/bench-exactmath "attn's flags (fmaf a call to glibc)"
build/bench-exactmath-fma "-mavx2 -mfma (fmaf inlined)"
build/bench-exactmath-own-fmaf "attn_fmaf_exact (WebAssembly's fmaf)"
