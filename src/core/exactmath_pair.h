/* exactmath_pair.h — the arithmetic attn's own SLEEF functions are built from (exactmath.h): one fused
 * multiply-add, and numbers kept as the unevaluated sum of two floats (x + y, |y| <= ulp(x) / 2) to
 * carry about 48 bits through a computation in float.
 *
 * The algorithms are SLEEF's (src/libm/df.h, the variant its FMA builds compile; SLEEF is by Naoki
 * Shibata and contributors, Boost Software License 1.0); the code is attn's. Every operation here is
 * one IEEE float operation, in the order SLEEF's functions do them, so that the last bit agrees: the
 * file is compiled with -ffp-contract=off, and a fused multiply-add is written only where SLEEF has one.
 *
 * Private to exactmath_*.c: static inline functions, no state. */
#ifndef ATTN_EXACTMATH_PAIR_H
#define ATTN_EXACTMATH_PAIR_H

#include "fmaf_exact.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The one exactly rounded fused multiply-add every function here uses: attn_fmaf (glibc's fmaf, the FMA
 * instruction where the CPU has one; in WebAssembly attn's own, as musl's rounds wrongly in rare cases).
 * scripts/check-exactmath.sh --own-fmaf defines EXACTMATH_OWN_FMAF to check, here, WebAssembly's choice. */
static inline float em_fma(float a, float b, float c)
{
#ifdef EXACTMATH_OWN_FMAF
    return attn_fmaf_exact(a, b, c);
#else
    return attn_fmaf(a, b, c);
#endif
}

/* ---- bits ------------------------------------------------------------------------------------- */

static inline uint32_t em_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float em_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* x with the sign of x flipped where y is negative (SLEEF's mulsign). */
static inline float em_mulsign(float x, float y)
{
    return em_float(em_bits(x) ^ (em_bits(y) & 0x80000000u));
}

/* A float to int32 as x86's cvttss2si does it: truncated, and INT32_MIN for nan and out-of-range values
 * (which SLEEF's builds meet and then discard; C leaves the conversion undefined, so it is spelled out). */
static inline int32_t em_int(float x)
{
    return x >= -2147483648.0f && x < 2147483648.0f ? (int32_t)x : INT32_MIN;
}

/* The exponent field of x less the bias (SLEEF's vilogb2k): 128 for inf and nan, -127 for 0 and subnormals. */
static inline int32_t em_ilogb(float x)
{
    return (int32_t)((em_bits(x) >> 23) & 0xff) - 0x7f;
}

/* x * 2^q by adding q to the exponent field (SLEEF's vldexp3): for normal results only. */
static inline float em_ldexp_bits(float x, int32_t q)
{
    return em_float(em_bits(x) + ((uint32_t)q << 23));
}

/* 2^q for -126 <= q <= 127, built from its bits (SLEEF's vpow2i; other q give what the bits give). */
static inline float em_pow2i(int32_t q)
{
    return em_float(((uint32_t)q + 0x7f) << 23);
}

/* x * 2^q in two steps, so that q may reach twice the exponent range (SLEEF's vldexp2). */
static inline float em_ldexp2(float x, int32_t q)
{
    int32_t half = q >> 1; /* arithmetic shift, as SLEEF's vsra */
    return x * em_pow2i(half) * em_pow2i((int32_t)((uint32_t)q - (uint32_t)half));
}

/* ---- pairs of floats ---------------------------------------------------------------------------- */

typedef struct em_pair {
    float x, y;
} em_pair;

static inline em_pair em_pair_of(float x, float y)
{
    em_pair p = {x, y};
    return p;
}

static inline em_pair em_neg(em_pair a)
{
    return em_pair_of(-a.x, -a.y);
}

static inline em_pair em_normalize(em_pair a)
{
    float s = a.x + a.y;
    return em_pair_of(s, a.x - s + a.y);
}

static inline em_pair em_scale(em_pair a, float s)
{
    return em_pair_of(a.x * s, a.y * s);
}

/* Sums. The plain ones need |first| >= |second|; the "2" ones (Knuth's two-sum) do not. */

static inline em_pair em_add_ff(float x, float y)
{
    float s = x + y;
    return em_pair_of(s, x - s + y);
}

static inline em_pair em_add2_ff(float x, float y)
{
    float s = x + y;
    float v = s - x;
    return em_pair_of(s, (x - (s - v)) + (y - v));
}

static inline em_pair em_add_pf(em_pair a, float y)
{
    float s = a.x + y;
    return em_pair_of(s, a.x - s + y + a.y);
}

static inline em_pair em_add2_pf(em_pair a, float y)
{
    float s = a.x + y;
    float v = s - a.x;
    float t = (a.x - (s - v)) + (y - v);
    return em_pair_of(s, t + a.y);
}

static inline em_pair em_add_fp(float x, em_pair b)
{
    float s = x + b.x;
    return em_pair_of(s, x - s + b.x + b.y);
}

static inline em_pair em_add_pp(em_pair a, em_pair b)
{
    float s = a.x + b.x;
    return em_pair_of(s, a.x - s + b.x + a.y + b.y);
}

static inline em_pair em_add2_pp(em_pair a, em_pair b)
{
    float s = a.x + b.x;
    float v = s - a.x;
    float t = (a.x - (s - v)) + (b.x - v);
    return em_pair_of(s, t + (a.y + b.y));
}

/* Products, with the fused multiply-add recovering each rounding error. */

static inline em_pair em_mul_ff(float x, float y)
{
    float s = x * y;
    return em_pair_of(s, em_fma(x, y, -s));
}

static inline em_pair em_mul_pf(em_pair a, float y)
{
    float s = a.x * y;
    return em_pair_of(s, em_fma(a.y, y, em_fma(a.x, y, -s)));
}

static inline em_pair em_mul_pp(em_pair a, em_pair b)
{
    float s = a.x * b.x;
    return em_pair_of(s, em_fma(a.x, b.y, em_fma(a.y, b.x, em_fma(a.x, b.x, -s))));
}

/* a * b rounded to one float */
static inline float em_mul_pp_f(em_pair a, em_pair b)
{
    return em_fma(a.x, b.x, em_fma(a.y, b.x, a.x * b.y));
}

static inline em_pair em_square(em_pair a)
{
    float s = a.x * a.x;
    return em_pair_of(s, em_fma(a.x + a.x, a.y, em_fma(a.x, a.x, -s)));
}

static inline em_pair em_recip(em_pair d)
{
    float s = 1.0f / d.x;
    return em_pair_of(s, s * em_fma(-d.y, s, em_fma(-d.x, s, 1.0f)));
}

static inline em_pair em_div(em_pair n, em_pair d)
{
    float t = 1.0f / d.x;
    float s = n.x * t;
    float u = em_fma(t, n.x, -s);
    float v = em_fma(-d.y, t, em_fma(-d.x, t, 1.0f));
    return em_pair_of(s, em_fma(s, v, em_fma(n.y, t, u)));
}

/* The pair nearest a double constant (SLEEF's vcast_vf2_d), for tables of pairs. */
#define EM_PAIR_OF_DOUBLE(d) {(float)(d), (float)((d) - (double)(float)(d))}

#endif
