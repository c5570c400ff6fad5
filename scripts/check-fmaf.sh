#!/bin/sh
# check-fmaf.sh [TRIPLES] — checks attn_fmaf_exact (src/core/fmaf_exact.c, the fused multiply-add of the
# portable kernels on WebAssembly) against this CPU's vfmadd instruction on TRIPLES (default 10^8) random
# and edge triples (the C library's fmaf on a CPU without FMA): tests/c/test_fmaf.c (which make test runs on 10^6) built with a larger count. Prints
# its TAP output; exits non-zero on any difference. Run from anywhere; builds into build/check-fmaf.
set -eu
cd "$(dirname "$0")/.."
triples=${1:-100000000}
mkdir -p build
# the file that says which instruction sets this CPU runs (src/core/isa.h): x86-64's asks the CPU
case $(uname -m) in
x86_64 | amd64) dispatch=src/core/x86/dispatch.c ;;
*) dispatch=src/core/generic/dispatch.c ;;
esac
cc -std=c11 -D_GNU_SOURCE -O2 -ffp-contract=off -Isrc/core -DTRIPLES="$triples" -o build/check-fmaf \
    tests/c/test_fmaf.c src/core/fmaf_exact.c src/core/isa.c "$dispatch" -lcmocka -lm
build/check-fmaf
