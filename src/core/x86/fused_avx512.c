/* x86/fused_avx512.c — attention.fused's row loops (fused_rows.h) in AVX-512: exp_row on 16 floats per
 * instruction, each exp with the same operations (so the same bits) as x86/fused_avx2.c's 8-lane exp and
 * attn_fused_exp_row_portable; row_max is the portable loop compiled for 16 floats. The row's sum is
 * added in 16 lanes, another order than the AVX2 path's 8: attention.fused promises the staged path's
 * numbers within float rounding, not bits. Compiled for any x86-64 (the target attribute);
 * x86/vector_kernels.c hands it out only when the CPU runs it. */
#include "x86_kernels.h"

#include "fused_rows.h"

#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,fma")))

/* attn_exp_nonpositive_fma on 16 lanes (see x86/fused_avx2.c's exp8_nonpositive) */
AVX512 static __m512 exp16_nonpositive(__m512 x)
{
    const __m512 magic = _mm512_set1_ps(12582912.0f);
    __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), magic);
    __m512 n = _mm512_sub_ps(t, magic);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    __m512 y = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
    __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(t),
                                                                     _mm512_set1_epi32(0x4B400000)),
                                                   _mm512_set1_epi32(127)), 23);
    __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_NLT_UQ); /* x < -87.3 gives +0 */
    return _mm512_maskz_mul_ps(keep, y, _mm512_castsi512_ps(e));
}

AVX512 float attn_fused_exp_row_avx512(float *s, int64_t n, float max)
{
    const __m512 m = _mm512_set1_ps(max);
    __m512 acc = _mm512_setzero_ps();
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        __m512 e = exp16_nonpositive(_mm512_sub_ps(_mm512_loadu_ps(s + j), m));
        _mm512_storeu_ps(s + j, e);
        acc = _mm512_add_ps(acc, e);
    }
    float tail = j < n ? attn_fused_exp_row_avx2(s + j, n - j, max) : 0.0f;
    return _mm512_reduce_add_ps(acc) + tail;
}

AVX512 float attn_fused_row_max_avx512(const float *s, int64_t n)
{
    return attn_fused_row_max_loop(s, n);
}
