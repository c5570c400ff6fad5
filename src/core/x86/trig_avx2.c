/* x86/trig_avx2.c — sin and cos of one group of 8 floats through SLEEF's AVX2 functions, as
 * Vectorized<float>::sin() runs them (activation.c says why the group matters). Compiled for any x86-64:
 * the code carries gcc's target attribute, and x86/vector_kernels.c hands it out only when the CPU runs it. */
#include "x86_kernels.h"

#include <immintrin.h>

/* SLEEF's vector functions; sleef.h declares them only when this file is compiled for AVX2. */
__m256 Sleef_sinf8_u10avx2(__m256 x);
__m256 Sleef_cosf8_u10avx2(__m256 x);

__attribute__((target("avx2,fma"))) void attn_trig8_avx2(int cosine, const float *in, float *out)
{
    __m256 v = _mm256_loadu_ps(in);
    _mm256_storeu_ps(out, cosine ? Sleef_cosf8_u10avx2(v) : Sleef_sinf8_u10avx2(v));
}
