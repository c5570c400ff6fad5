#!/bin/sh
# check-exactmath.sh — attn's own expf, logf, tanhf, erff, sinf and cosf (src/core/exactmath*.c) against
# Debian's libsleef 3.5.1, bit for bit, on all 2^32 float inputs (the sampled version is make test's
# tests/c/test_exactmath.c). Builds build/check-exactmath with attn's own compiler flags (no -mfma: fmaf
# is glibc's, exactly rounded) and runs it on both cores, niced. About 20 minutes on two idle cores.
#
#   sh scripts/check-exactmath.sh [--stride N] [--threads T]     (N > 1: every N-th float only)
set -eu
cd "$(dirname "$0")/.."
CC=${CC:-cc}
mkdir -p build
$CC -std=c11 -O2 -ffp-contract=off -Wall -Wextra -Isrc/core -o build/check-exactmath \
    scripts/check-exactmath.c src/core/exactmath_exp.c src/core/exactmath_trig.c -lsleef -lpthread -lm
exec nice build/check-exactmath "$@"
