#!/bin/sh
# test_same_bits.sh — the same lessons give the same bits whatever computes them: every float tensor a
# lesson leaves behind (tests/lessons/bits.lua's digests) is the same under each instruction set this CPU
# runs (ATTN_ISA) and on 1, 2, 3 or 7 threads (ATTN_NUM_THREADS), and whatever OPENBLAS_CORETYPE says
# (attn no longer uses OpenBLAS: once the variable chose the kernels, and the bits, of every product).
# TAP output.
#   sh tests/lessons/test_same_bits.sh [path/to/attn]      (default ./attn)
set -u
BIN=${1:-./attn}
. "$(dirname "$0")/../tap.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
LESSONS="lessons/01_simple_attention.lua lessons/02_trainable_weights.lua lessons/03_causal_attention.lua
lessons/04_dropout.lua lessons/05_causal_class.lua lessons/06_multi_head_attention.lua lessons/16_kv_cache_gqa.lua
lessons/19_sqrt_dk_gradients.lua lessons/20_watch_attention_learn.lua lessons/22_latent_attention.lua"

digests() { # digests NAME ENV...: every lesson's digests under ENV, into $TMP/NAME
    name=$1
    shift
    : >"$TMP/$name"
    for l in $LESSONS; do
        env -u OPENBLAS_NUM_THREADS "$@" "$BIN" tests/lessons/bits.lua "$l" >>"$TMP/$name" 2>&1
    done
}

digests default
check "the lessons ran and every check passed (the digests are worth comparing)" \
    sh -c "! grep -q ': \(error\|ok, [0-9]* passed, [1-9]\)' '$TMP/default' && [ \$(grep -c ': ok, ' '$TMP/default') -eq $(echo $LESSONS | wc -w) ]"
check "the digests cover tensors (more than 100 lines)" sh -c "[ \$(wc -l <'$TMP/default') -gt 100 ]"

same_as_default() { # same_as_default DESCRIPTION ENV...
    d=$1
    shift
    digests other "$@"
    if cmp -s "$TMP/default" "$TMP/other"; then
        ok "$d"
    else
        not_ok "$d"
        diff "$TMP/default" "$TMP/other" | head -n 10 | sed 's/^/#   /'
    fi
}

if sh scripts/cpu-has.sh avx2 fma; then
    same_as_default "OPENBLAS_CORETYPE=Haswell, 1 thread: the same bits" \
        OPENBLAS_CORETYPE=Haswell ATTN_NUM_THREADS=1
    same_as_default "attn's AVX2 kernels (ATTN_ISA=avx2), 2 threads: the same bits" ATTN_ISA=avx2 ATTN_NUM_THREADS=2
else
    echo "# SKIP Haswell and AVX2 runs: this CPU has no AVX2 and FMA"
fi
if sh scripts/cpu-has.sh avx512f avx512bw avx512dq avx512vl; then
    same_as_default "OPENBLAS_CORETYPE=SkylakeX (AVX-512), 7 threads: the same bits" \
        OPENBLAS_CORETYPE=SkylakeX ATTN_NUM_THREADS=7
else
    echo "# SKIP SkylakeX run: this CPU has no AVX-512"
fi
same_as_default "attn's portable C kernels (ATTN_ISA=portable, what a browser runs), 3 threads: the same bits" \
    ATTN_ISA=portable ATTN_NUM_THREADS=3
tap_end
