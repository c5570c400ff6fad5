#!/bin/sh
# Performance budgets of attn, measured against baselines in the same run (tests/bench/bench.c):
#   REPL start to prompt <= 30 ms (baseline: lua5.4 -i to its prompt)
#   a [1024,768] x [768,768] matmul through the Lua API <= 1.5x the same cblas_sgemm call from C
#   attn's exact sgemm >= 0.9x OpenBLAS's sgemm_ on GPT-2 small's and the MHA benchmark's products, 1 and
#   2 threads, widest ISA and AVX2 forced (scripts/bench-gemm.sh)
#   multi-head causal attention (batch 8, 1024 tokens, 768 dims, 12 heads), the whole forward on the
#   fused path <= 2x its four projection GEMMs alone; attention.fused and the staged path beside it;
#   PyTorch running the book's MultiHeadAttention (scripts/bench_torch.py) with the same thread count;
#   then the performance targets, each with "met" or "not met"; then tokenizers.Tokenizer on 40,000-character
#   words against @lenml/tokenizers (scripts/bench-tokenizers.sh);
#   GPT-2's tokenizer on a 10,000-letter word against the quadratic algorithm it replaced
#   (scripts/bench_tokenizer.lua; give it 40000 by hand for the 40,000-letter figure: the old one takes minutes)
#   the autograd budgets: MultiHeadAttention forward + backward (scripts/bench_autograd.sh) and chapter 5's
#   training step on GPT-2 small, time and peak memory (scripts/bench-train-step.sh); attn's own SLEEF
#   functions against libsleef's (scripts/bench-exactmath.sh)
# Prints timings and ratios only; timings are never test assertions. `make bench` runs this.
set -eu
cd "$(dirname "$0")/.."
make --no-print-directory attn build/release/bench >/dev/null
build/release/bench ./attn scripts/bench_torch.py
sh scripts/bench-gemm.sh
sh scripts/bench-tokenizers.sh
sh scripts/fetch-gpt2-vocab.sh build/gpt2-vocab >/dev/null
ATTN_TIKTOKEN_DIR="$(pwd)/build/gpt2-vocab" ./attn scripts/bench_tokenizer.lua 10000
sh scripts/bench_autograd.sh
sh scripts/bench-train-step.sh
sh scripts/bench-exactmath.sh
