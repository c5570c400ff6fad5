#!/bin/sh
# attn's exact sgemm (src/core/gemm.c) against OpenBLAS's sgemm_ on GPT-2 small's and the MHA benchmark's
# products, 1 and 2 threads, measured in the same run (tests/bench/bench_gemm.c): attn's widest
# instruction set against OpenBLAS's widest kernels (SkylakeX's on a CPU with AVX-512, else Haswell's),
# and attn's AVX2 against OpenBLAS's Haswell kernels; the portable C path's rate printed. Target: >= 0.9x.
# `quick` skips the 50257-column logits product. Prints rates and ratios only; `make bench` runs it.
set -eu
cd "$(dirname "$0")/.."
make --no-print-directory build/release/bench-gemm >/dev/null
if sh scripts/cpu-has.sh avx512f avx512bw avx512dq avx512vl; then
    OPENBLAS_CORETYPE=SkylakeX nice build/release/bench-gemm "$@" avx512
fi
if sh scripts/cpu-has.sh avx2 fma; then
    OPENBLAS_CORETYPE=Haswell nice build/release/bench-gemm "$@" avx2
else
    nice build/release/bench-gemm "$@" portable
fi
