#!/bin/sh
# check-exactmath.sh — attn's own expf, logf, tanhf, erff, sinf and cosf (src/core/exactmath*.c) against
# Debian's libsleef 3.5.1, bit for bit, on all 2^32 float inputs (the sampled version is make test's
# tests/c/test_exactmath.c). Builds build/check-exactmath with attn's own compiler flags (no -mfma: the
# fused multiply-add is glibc's fmaf, exactly rounded) and runs it on both cores, niced: about an hour on
# two shared cores. With --own-fmaf the functions use attn_fmaf_exact (fmaf_exact.h) instead, the
# multiply-add of the WebAssembly build, so that its bits are checked here too.
#
#   sh scripts/check-exactmath.sh [--own-fmaf] [--stride N] [--threads T] [--only NAME,...]
#   (N > 1: every N-th float; --only erff,sinf: only the checks of those names, as printed)
# EXTRA_CFLAGS=-mfma builds with the multiply-add inlined (the same operation as glibc's fmaf on an FMA
# CPU, about twice as fast) into build/check-exactmath-extra.
set -eu
cd "$(dirname "$0")/.."
CC=${CC:-cc}
BIN=build/check-exactmath
FLAGS=
if [ "${1:-}" = --own-fmaf ]; then
    shift
    BIN=build/check-exactmath-own-fmaf
    FLAGS=-DEXACTMATH_OWN_FMAF
fi
if [ -n "${EXTRA_CFLAGS:-}" ]; then
    BIN=$BIN-extra
    FLAGS="$FLAGS $EXTRA_CFLAGS"
fi
mkdir -p build
$CC -std=c11 -O2 -ffp-contract=off -Wall -Wextra $FLAGS -Isrc/core -o $BIN scripts/check-exactmath.c \
    src/core/exactmath_exp.c src/core/exactmath_trig.c src/core/fmaf_exact.c -lsleef -lpthread -lm
exec nice $BIN "$@"
