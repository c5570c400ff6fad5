/* vmath.c — exp, log, tanh, sigmoid and the vector reductions of PyTorch 1.13's AVX2 CPU kernels.
 *
 * The math: Vectorized<float>::exp() is Sleef_expf8_u10 (log, tanh likewise), and Debian's torch calls
 * Debian's libsleef. SLEEF builds every function from one source per precision: the 8-wide AVX2 variant
 * and the scalar "purecfma" variant run the same operations with the same fused multiply-adds, so
 * Sleef_expf1_u10purecfma gives the AVX2 lanes' bits one float at a time. (Checked on all 2^32 inputs:
 * expf, logf and tanhf purecfma equal the 8-wide dispatcher everywhere; SLEEF's plain scalar and non-FMA
 * builds do not, nor does glibc.) sleefmath.h gives those bits on every machine, from libsleef or attn's own.
 *
 * The reductions: vec::reduce_all (ATen/cpu/vec/functional_base.h) keeps 8 lane accumulators and
 * finishes with the AVX2 VecReduceAllSIMD shuffles; emulated below on plain arrays. */
#include "vmath.h"

#include "sleefmath.h"

#include <math.h>
#include <string.h>

#define LANES 8 /* Vectorized<float>::size() with AVX2 */

/* ---- the math functions --------------------------------------------------------------------- */

float vmath_exp(float x)
{
    return sleefmath_expf(x);
}

float vmath_log(float x)
{
    return sleefmath_logf(x);
}

float vmath_tanh(float x)
{
    return sleefmath_tanhf(x);
}

/* sigmoid_kernel's vector lambda (UnaryOpsKernel.cpp): a = 0 - a; a = a.exp(); a = a + 1; a.reciprocal().
 * 0 - x rather than -x: exp(+0) and exp(-0) are both 1, so only nan payloads could tell them apart. */
float vmath_sigmoid(float x)
{
    return 1.0f / (vmath_exp(0.0f - x) + 1.0f);
}

float vmath_sigmoid_tail(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

/* ---- reductions ----------------------------------------------------------------------------- */

typedef float (*lane_op)(float a, float b);

static float lane_add(float a, float b)
{
    return a + b;
}

float vmath_max(float a, float b)
{
    if (a != a || b != b) {
        const uint32_t all_ones = 0xFFFFFFFFu; /* max | (a unordered b) */
        float nan;
        memcpy(&nan, &all_ones, sizeof nan);
        return nan;
    }
    return a > b ? a : b; /* _mm256_max_ps: the second operand on ties (+0 vs -0) */
}

/* VecReduceAllSIMD<float> (AVX2): v op permute2f128(v, 0x1) pairs lane i with i^4, then
 * shuffle_ps(0x4E) pairs i with i^2, then shuffle_ps(0xB1) i with i^1; the answer is lane 0. */
static float horizontal(const float *acc, lane_op op)
{
    float v[LANES], w[LANES];
    for (int i = 0; i < LANES; i++)
        w[i] = op(acc[i], acc[i ^ 4]);
    for (int i = 0; i < LANES; i++)
        v[i] = op(w[i], w[i ^ 2]);
    return op(v[0], v[1]);
}

/* map_reduce_all's map: exp(x - max) when map_exp is set, else the identity (plain reduce_all). */
static float mapped(float x, int map_exp, float max)
{
    return map_exp ? vmath_exp(x - max) : x;
}

static float reduce_all(const float *p, int64_t n, lane_op op, int map_exp, float max)
{
    if (n < LANES) {
        /* vec_reduce_all(fun, loadu(p, n), n): lane 0 combined with lanes 1..n-1 in turn */
        float acc = mapped(p[0], map_exp, max);
        for (int64_t i = 1; i < n; i++)
            acc = op(acc, mapped(p[i], map_exp, max));
        return acc;
    }
    float acc[LANES];
    for (int l = 0; l < LANES; l++)
        acc[l] = mapped(p[l], map_exp, max);
    int64_t d = LANES;
    for (; d < n - n % LANES; d += LANES)
        for (int l = 0; l < LANES; l++)
            acc[l] = op(acc[l], mapped(p[d + l], map_exp, max));
    /* the partial block: Vec::set(acc, fun(acc, loadu(p + d, n - d)), n - d) */
    for (int l = 0; l < n - d; l++)
        acc[l] = op(acc[l], mapped(p[d + l], map_exp, max));
    return horizontal(acc, op);
}

float vmath_reduce_sum(const float *p, int64_t n)
{
    return reduce_all(p, n, lane_add, 0, 0.0f);
}

float vmath_reduce_max(const float *p, int64_t n)
{
    return reduce_all(p, n, vmath_max, 0, 0.0f);
}

float vmath_sum_exp(const float *p, int64_t n, float max)
{
    return reduce_all(p, n, lane_add, 1, max);
}
