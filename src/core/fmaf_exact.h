/* fmaf_exact.h — attn_fmaf(a, b, c): a * b + c rounded once, which every portable exact kernel uses.
 *
 * Where the C library's fmaf is exactly rounded (glibc; a single instruction on FMA hardware) attn_fmaf is
 * that fmaf. WebAssembly has no fused multiply-add, and Debian's emscripten (3.1.6) takes musl's fmaf, which
 * rounds wrongly in about 1 case in 22 million (its fix for the halfway cases relies on fesetround, which
 * WebAssembly lacks): there attn_fmaf is attn_fmaf_exact_inline (below), chosen when attn is built. Both are
 * checked against the x86 instruction by scripts/check-fmaf.sh (10^8 triples) and tests/c/test_fmaf.c. */
#ifndef ATTN_FMAF_EXACT_H
#define ATTN_FMAF_EXACT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* a * b + c exactly rounded to nearest (ties to even), from double arithmetic alone */
float attn_fmaf_exact(float a, float b, float c);

/* attn_fmaf_exact_inline: a fused multiply-add of floats from double arithmetic (inline, so that the
 * WebAssembly build's kernels make no call per multiply-add).
 *
 * The product of two floats (24-bit significands) has at most 48 bits: in a double (53) it is exact. Its sum
 * with c, rounded to a double, may not be; rounding that double to a float then rounds twice, and a sum
 * that the first rounding put exactly halfway between two floats goes the wrong way. So the double sum is
 * rounded to odd instead (Boldo and Melquiond: rounding to odd with at least two more bits, then to nearest,
 * is rounding to nearest once): its error, found exactly by Knuth's two-sum, says whether it was inexact, and
 * then its last bit is made 1 by moving it one step toward the exact sum, when that bit is 0. No rounding
 * mode is changed (WebAssembly has none to change). Infinities and NaN pass through the plain arithmetic. */
static inline float attn_fmaf_exact_inline(float a, float b, float c)
{
    double p = (double)a * (double)b; /* exact */
    double s = p + (double)c;
    if (!isfinite(s))
        return (float)s;
    /* two-sum: err is exactly (p + c) - s */
    double bv = s - p;
    double err = (p - (s - bv)) + ((double)c - bv);
    if (err != 0.0) {
        uint64_t u;
        memcpy(&u, &s, sizeof u);
        if ((u & 1) == 0) {
            /* s is not 0 here (a nonzero exact sum is at least 2^-298, far from underflowing a double):
             * one step away from 0 when the exact sum lies beyond s, toward 0 when it lies short of it */
            if ((err > 0) == (s > 0))
                u++;
            else
                u--;
            memcpy(&s, &u, sizeof s);
        }
    }
    return (float)s;
}

#if defined(__wasm__) || defined(__EMSCRIPTEN__)
#define ATTN_FMAF_IS_OWN 1
static inline float attn_fmaf(float a, float b, float c)
{
    return attn_fmaf_exact_inline(a, b, c);
}
#else
#define ATTN_FMAF_IS_OWN 0
static inline float attn_fmaf(float a, float b, float c)
{
    return fmaf(a, b, c);
}
#endif

#endif
