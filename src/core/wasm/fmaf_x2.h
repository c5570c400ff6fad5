/* wasm/fmaf_x2.h — attn_fmaf_exact (fmaf_exact.h) on two lanes at once: the same operations, lane by lane,
 * so the same bits, with the branches made masks. The WebAssembly build's SIMD kernels (wasm/gemm_simd128.c)
 * use it; written with GNU C's vector types rather than wasm_simd128.h so that tests/c/test_fmaf.c also runs
 * it natively against the hardware's fused multiply-add (clang makes it f64x2 instructions with -msimd128).
 *
 * The lanes are doubles that hold floats: a float converts to double exactly, and attn_fmaf_x2's result is
 * rounded to float and back, so a kernel may keep its float sums in this form from one step to the next. */
#ifndef ATTN_FMAF_X2_H
#define ATTN_FMAF_X2_H

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

typedef double attn_f64x2 __attribute__((vector_size(16)));
typedef long long attn_i64x2 __attribute__((vector_size(16)));
typedef float attn_f32x2 __attribute__((vector_size(8)));

/* each lane rounded to float (to nearest, ties to even) and back: one instruction each way in WebAssembly
 * (clang 14 makes the generic conversions lane by lane) */
static inline attn_f64x2 attn_float_x2(attn_f64x2 x)
{
#if defined(__wasm_simd128__)
    return (attn_f64x2)wasm_f64x2_promote_low_f32x4(wasm_f32x4_demote_f64x2_zero((v128_t)x));
#else
    return __builtin_convertvector(__builtin_convertvector(x, attn_f32x2), attn_f64x2);
#endif
}

/* a * b + c for floats a, b, c (held as doubles), rounded once to float, per lane: fmaf_exact.h's rounding
 * to odd. A lane's double sum s is moved one step toward the exact sum when two-sum's error is nonzero, s is
 * finite, and its last bit is 0: +1 on its bits when the error has s's sign, else -1. */
static inline attn_f64x2 attn_fmaf_x2(attn_f64x2 a, attn_f64x2 b, attn_f64x2 c)
{
    attn_f64x2 p = a * b; /* exact */
    attn_f64x2 s = p + c;
    attn_f64x2 bv = s - p;
    attn_f64x2 err = (p - (s - bv)) + (c - bv);
    attn_i64x2 u = (attn_i64x2)s, e = (attn_i64x2)err;
    attn_f64x2 zero = s - s; /* 0 where s is finite, NaN where it is not */
    attn_i64x2 nudge = (attn_i64x2)(err != 0.0) & (attn_i64x2)(zero == 0.0) & (attn_i64x2)((u & 1) == 0);
    attn_i64x2 step = ((u ^ e) >> 63) | 1;
    u += step & nudge;
    return attn_float_x2((attn_f64x2)u);
}

/* Where (a lane of -1) attn_fmaf_x2(a, b, c) may differ from the double sum s = a * b + c rounded to float
 * once: rounding s is rounding the exact sum when s is not halfway between two floats (a halfway point is a
 * double: an exact sum beyond it would have been rounded to it, or past it, never across). In the floats'
 * normal range a halfway point is a double whose 29 bits below a float's last are 1000...0; below 2^-126
 * (the floats' subnormals, and 0: one test fewer) it is left to attn_fmaf_x2. Nonfinite sums round alike. */
static inline attn_i64x2 attn_fmaf_x2_care(attn_f64x2 s)
{
    attn_i64x2 u = (attn_i64x2)s;
    attn_f64x2 mag = (attn_f64x2)(u & 0x7fffffffffffffffLL); /* |s| */
    return (attn_i64x2)((u & 0x1fffffffLL) == 0x10000000LL) | (attn_i64x2)(mag < 0x1p-126);
}

/* whether any lane of a mask is set */
static inline int attn_any_x2(attn_i64x2 m)
{
#if defined(__wasm_simd128__)
    return wasm_v128_any_true((v128_t)m);
#else
    return (m[0] | m[1]) != 0;
#endif
}

/* attn_fmaf_x2's result, by the double sum rounded to float when no lane needs care (nearly always) */
static inline attn_f64x2 attn_fmaf_x2_fast(attn_f64x2 a, attn_f64x2 b, attn_f64x2 c)
{
    attn_f64x2 s = a * b + c; /* -ffp-contract=off: a product, then a sum */
    if (__builtin_expect(attn_any_x2(attn_fmaf_x2_care(s)), 0))
        return attn_fmaf_x2(a, b, c);
    return attn_float_x2(s);
}

#endif
