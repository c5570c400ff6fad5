/* fmaf_exact.h — attn_fmaf(a, b, c): a * b + c rounded once, which every portable exact kernel uses.
 *
 * Where the C library's fmaf is exactly rounded (glibc; a single instruction on FMA hardware) attn_fmaf is
 * that fmaf. WebAssembly has no fused multiply-add, and Debian's emscripten (3.1.6) takes musl's fmaf, which
 * rounds wrongly in about 1 case in 22 million (its fix for the halfway cases relies on fesetround, which
 * WebAssembly lacks): there attn_fmaf is attn_fmaf_exact (fmaf_exact.c), chosen when attn is built. Both are
 * checked against the x86 instruction by scripts/check-fmaf.sh (10^8 triples) and tests/c/test_fmaf.c. */
#ifndef ATTN_FMAF_EXACT_H
#define ATTN_FMAF_EXACT_H

#include <math.h>

/* a * b + c exactly rounded to nearest (ties to even), from double arithmetic alone */
float attn_fmaf_exact(float a, float b, float c);

#if defined(__wasm__) || defined(__EMSCRIPTEN__)
#define ATTN_FMAF_IS_OWN 1
static inline float attn_fmaf(float a, float b, float c)
{
    return attn_fmaf_exact(a, b, c);
}
#else
#define ATTN_FMAF_IS_OWN 0
static inline float attn_fmaf(float a, float b, float c)
{
    return fmaf(a, b, c);
}
#endif

#endif
