/* x86/dot_avx2.c — sdot's 32 lanes (dot.c's order table) as AVX2's four vectors of 8, with FMA: the same
 * operations in the same order as dot.c's portable lanes. Run only when src/core/x86/dispatch.c found AVX2
 * and FMA. */
#include "gemv.h"

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))

AVX2 static __m128 halves(__m256 v)
{
    return _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
}

AVX2 float attn_sdot32_avx2(int64_t n, const float *x, const float *y)
{
    __m256 v0 = _mm256_setzero_ps(), v1 = _mm256_setzero_ps(), v2 = _mm256_setzero_ps(), v3 = _mm256_setzero_ps();
    for (int64_t i = 0; i < n; i += 32) {
        v0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), v0);
        v1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), v1);
        v2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 16), _mm256_loadu_ps(y + i + 16), v2);
        v3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 24), _mm256_loadu_ps(y + i + 24), v3);
    }
    __m128 s = _mm_add_ps(_mm_add_ps(halves(v0), halves(v1)), _mm_add_ps(halves(v2), halves(v3)));
    s = _mm_hadd_ps(s, s);
    s = _mm_hadd_ps(s, s);
    return _mm_cvtss_f32(s);
}
