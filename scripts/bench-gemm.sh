#!/bin/sh
# attn's exact sgemm (src/core/gemm.c) against OpenBLAS's sgemm_ on GPT-2 small's and the MHA benchmark's
# products, 1 and 2 threads, measured in the same run (tests/bench/bench_gemm.c); `quick` skips the
# 50257-column logits product. Prints rates and ratios only; `make bench` runs it (scripts/bench.sh).
set -eu
cd "$(dirname "$0")/.."
make --no-print-directory build/release/bench-gemm >/dev/null
nice build/release/bench-gemm "$@"
