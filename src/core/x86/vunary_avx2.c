/* x86/vunary_avx2.c — exp, log and tanh over an array in SLEEF's 8-wide AVX2 functions, the ones PyTorch's
 * Vectorized<float> calls (vunary.c says why this gives vmath's bits). Compiled for any x86-64: the code
 * carries gcc's target attribute, and x86/vector_kernels.c hands it out only when the CPU runs it. */
#include "x86_kernels.h"

#include "vmath.h"

#include <immintrin.h>

/* SLEEF's vector functions; sleef.h declares them only when this file is compiled for AVX2. */
__m256 Sleef_expf8_u10avx2(__m256 x);
__m256 Sleef_logf8_u10avx2(__m256 x);
__m256 Sleef_tanhf8_u10avx2(__m256 x);

#define AVX2 __attribute__((target("avx2,fma")))

AVX2 static __m256 apply8(attn_unop op, __m256 x)
{
    return op == ATTN_EXP ? Sleef_expf8_u10avx2(x) : op == ATTN_LOG ? Sleef_logf8_u10avx2(x) : Sleef_tanhf8_u10avx2(x);
}

/* 8 floats at a time; the last few (fewer than 8) through vmath's scalar function, which gives a lane's bits */
AVX2 void attn_unary_avx2(attn_unop op, float *p, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(p + i, apply8(op, _mm256_loadu_ps(p + i)));
    for (; i < n; i++)
        p[i] = op == ATTN_EXP ? vmath_exp(p[i]) : op == ATTN_LOG ? vmath_log(p[i]) : vmath_tanh(p[i]);
}
