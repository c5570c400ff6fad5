#!/bin/sh
# bench-gemv.sh — attn's one-row products (src/core/gemm_n1.c, gemv.c, dot.c) against OpenBLAS's, and the
# one-column sgemm of a GPT-2 small decode step against reading its weights once at the memory bandwidth
# measured in the same run (target: within 1.5x). tests/bench/bench_gemv.c says what is measured. Prints
# figures, ratios and "met"/"not met"; asserts nothing (timings are not tests). `make bench` runs it.
set -eu
cd "$(dirname "$0")/.."
make --no-print-directory build/release/bench_gemv >/dev/null
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
build/release/bench_gemv
