/* x86/fused_avx2.c — attention.fused's row loops (fused_rows.h) in AVX2: row_max and scale_row are the
 * portable loops compiled for 8 floats per instruction; exp_row computes exp with fused multiply-adds, a
 * third fewer instructions than gcc makes of the plain loop, and the bits of attn_fused_exp_row_portable.
 * (The softmax rows of this pass took ~13% of its time before.) Compiled for any x86-64: the code carries
 * gcc's target attribute, and x86/vector_kernels.c hands it out only when the CPU runs it. */
#include "x86_kernels.h"

#include "fused_rows.h"

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))

/* attn_exp_nonpositive_fma on 8 lanes */
AVX2 static __m256 exp8_nonpositive(__m256 x)
{
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), magic);
    __m256 n = _mm256_sub_ps(t, magic);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    __m256 y = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(_mm256_castps_si256(t),
                                                                     _mm256_set1_epi32(0x4B400000)),
                                                   _mm256_set1_epi32(127)), 23);
    __m256 keep = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_NLT_UQ); /* x < -87.3 gives +0; nan stays */
    return _mm256_and_ps(_mm256_mul_ps(y, _mm256_castsi256_ps(e)), keep);
}

AVX2 float attn_fused_exp_row_avx2(float *s, int64_t n, float max)
{
    const __m256 m = _mm256_set1_ps(max);
    __m256 acc = _mm256_setzero_ps();
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 e = exp8_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(s + j), m));
        _mm256_storeu_ps(s + j, e);
        acc = _mm256_add_ps(acc, e);
    }
    float lanes[8], tail = 0.0f;
    _mm256_storeu_ps(lanes, acc);
    for (; j < n; j++) {
        s[j] = attn_exp_nonpositive(s[j] - max);
        tail += s[j];
    }
    return ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7])) + tail;
}

AVX2 float attn_fused_row_max_avx2(const float *s, int64_t n)
{
    return attn_fused_row_max_loop(s, n);
}

AVX2 void attn_fused_scale_row_avx2(float *o, int64_t n, float a)
{
    attn_fused_scale_row_loop(o, n, a);
}
