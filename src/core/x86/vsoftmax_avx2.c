/* x86/vsoftmax_avx2.c — the last-dim softmax rows of PyTorch 1.13's AVX2 kernels (_vec_softmax_lastdim,
 * _vec_log_softmax_lastdim) in vector instructions: 8 (AVX2) or 16 (AVX-512) floats per instruction, with
 * SLEEF's vector functions, which give the bits of the scalar SLEEF build softmax.c calls (checked on all
 * 2^32 floats for expf: Sleef_expf8_u10avx2 and Sleef_expf16_u10avx512f equal Sleef_expf1_u10purecfma).
 * Sums and maxima keep PyTorch's 8 lane accumulators whatever the vector width. Each step below names
 * the PyTorch operation it reproduces (ATen/native/cpu/SoftMaxKernel.cpp and ATen/cpu/vec/functional_base.h);
 * the portable emulation of the same steps is softmax.c's with vmath.c's reductions.
 *
 * The file is compiled for any x86-64: the functions carry gcc's target attribute, and
 * x86/vector_kernels.c hands them out only when the CPU runs them (isa.h). */
#include "x86_kernels.h"

#include "vmath.h"

#include <immintrin.h>

/* SLEEF's vector functions (libsleef, as PyTorch calls them). sleef.h declares them only when this file
 * is compiled for AVX, which it is not: the run-time check below picks them. */
__m256 Sleef_expf8_u10avx2(__m256 x);
__m512 Sleef_expf16_u10avx512f(__m512 x);

#define AVX2 __attribute__((target("avx2,fma")))
#define AVX512 __attribute__((target("avx512f,avx2,fma")))

/* Lanes 0 .. count-1 set (all ones), the others clear: Vec::loadu(p, count) and Vec::set(a, b, count). */
AVX2 static __m256i first_lanes(int64_t count)
{
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)count), index);
}

/* vec::maximum (vec256_float.h): _mm256_max_ps, then all ones where either operand is nan. */
AVX2 static __m256 maximum(__m256 a, __m256 b)
{
    return _mm256_or_ps(_mm256_max_ps(a, b), _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
}

/* vec_reduce_all for AVX2 floats: lane i with i^4, then i^2, then i^1; the answer is lane 0. */
AVX2 static float horizontal_max(__m256 v)
{
    v = maximum(v, _mm256_permute2f128_ps(v, v, 0x1));
    v = maximum(v, _mm256_shuffle_ps(v, v, 0x4E));
    v = maximum(v, _mm256_shuffle_ps(v, v, 0xB1));
    return _mm256_cvtss_f32(v);
}

AVX2 static float horizontal_sum(__m256 v)
{
    v = _mm256_add_ps(v, _mm256_permute2f128_ps(v, v, 0x1));
    v = _mm256_add_ps(v, _mm256_shuffle_ps(v, v, 0x4E));
    v = _mm256_add_ps(v, _mm256_shuffle_ps(v, v, 0xB1));
    return _mm256_cvtss_f32(v);
}

/* vec::reduce_all(maximum) for n >= 8: the first 8 floats, each later block of 8 lane by lane, the
 * partial last block merged into its lanes only, then the horizontal order above. */
AVX2 static float row_max(const float *in, int64_t n)
{
    int64_t full = n - n % 8, d = 8;
    __m256 acc = _mm256_loadu_ps(in);
    for (; d < full; d += 8)
        acc = maximum(acc, _mm256_loadu_ps(in + d));
    if (d < n) {
        __m256i lanes = first_lanes(n - d);
        __m256 merged = maximum(acc, _mm256_maskload_ps(in + d, lanes));
        acc = _mm256_blendv_ps(acc, merged, _mm256_castsi256_ps(lanes));
    }
    return horizontal_max(acc);
}

/* exp(x - max) for the floats of the row (vec::map), stored to out when out is not NULL, and their sum
 * in reduce_all's order (vec::map_reduce_all, or reduce_all over out). The last partial block is
 * loaded with zeros beyond the row, as Vec::loadu(p, count) does, and only its own lanes are kept. */
AVX2 static float exp_sum_avx2(const float *in, float *out, int64_t n, float max)
{
    int64_t full = n - n % 8, d = 8;
    const __m256 m = _mm256_set1_ps(max);
    __m256 acc = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(in), m));
    if (out)
        _mm256_storeu_ps(out, acc);
    for (; d < full; d += 8) {
        __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(in + d), m));
        if (out)
            _mm256_storeu_ps(out + d, e);
        acc = _mm256_add_ps(acc, e);
    }
    if (d < n) {
        __m256i lanes = first_lanes(n - d);
        __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_maskload_ps(in + d, lanes), m));
        if (out)
            _mm256_maskstore_ps(out + d, lanes, e);
        acc = _mm256_blendv_ps(acc, _mm256_add_ps(acc, e), _mm256_castsi256_ps(lanes));
    }
    return horizontal_sum(acc);
}

/* The same with AVX-512: 16 exponentials per call (the same bits lane for lane), added into the 8 lane
 * accumulators one half after the other, which is the order of the 8-float blocks. */
AVX512 static float exp_sum_avx512(const float *in, float *out, int64_t n, float max)
{
    int64_t full = n - n % 8, d = 8;
    const __m256 m = _mm256_set1_ps(max);
    const __m512 m16 = _mm512_set1_ps(max);
    __m256 acc = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(in), m));
    if (out)
        _mm256_storeu_ps(out, acc);
    for (; d + 16 <= full; d += 16) {
        __m512 e = Sleef_expf16_u10avx512f(_mm512_sub_ps(_mm512_loadu_ps(in + d), m16));
        if (out)
            _mm512_storeu_ps(out + d, e);
        acc = _mm256_add_ps(acc, _mm512_castps512_ps256(e));
        acc = _mm256_add_ps(acc, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(e), 1)));
    }
    if (d < full) {
        __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(in + d), m));
        if (out)
            _mm256_storeu_ps(out + d, e);
        acc = _mm256_add_ps(acc, e);
        d += 8;
    }
    if (d < n) {
        __m256i lanes = first_lanes(n - d);
        __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_maskload_ps(in + d, lanes), m));
        if (out)
            _mm256_maskstore_ps(out + d, lanes, e);
        acc = _mm256_blendv_ps(acc, _mm256_add_ps(acc, e), _mm256_castsi256_ps(lanes));
    }
    return horizontal_sum(acc);
}

/* vec::map(x * Vec(inv)) */
AVX2 static void scale(float *out, int64_t n, float inv)
{
    const __m256 s = _mm256_set1_ps(inv);
    int64_t d = 0;
    for (; d + 8 <= n; d += 8)
        _mm256_storeu_ps(out + d, _mm256_mul_ps(_mm256_loadu_ps(out + d), s));
    for (; d < n; d++)
        out[d] = out[d] * inv;
}

/* vec::map(x - Vec(max) - Vec(lse)), left to right */
AVX2 static void shift(const float *in, float *out, int64_t n, float max, float lse)
{
    const __m256 m = _mm256_set1_ps(max), l = _mm256_set1_ps(lse);
    int64_t d = 0;
    for (; d + 8 <= n; d += 8)
        _mm256_storeu_ps(out + d, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(in + d), m), l));
    for (; d < n; d++)
        out[d] = in[d] - max - lse;
}

/* _vec_softmax_lastdim: max, out = exp(x - max) with its sum, then out * (1 / sum). */
AVX2 void attn_softmax_row_avx2(const float *in, float *out, int64_t n)
{
    float max = row_max(in, n);
    float sum = exp_sum_avx2(in, out, n, max);
    scale(out, n, 1.0f / sum);
}

AVX512 void attn_softmax_row_avx512(const float *in, float *out, int64_t n)
{
    float max = row_max(in, n);
    float sum = exp_sum_avx512(in, out, n, max);
    scale(out, n, 1.0f / sum);
}

/* _vec_log_softmax_lastdim: max, the sum of exp(x - max), its log (SLEEF), x - max - log(sum). */
AVX2 void attn_log_softmax_row_avx2(const float *in, float *out, int64_t n)
{
    float max = row_max(in, n);
    float lse = vmath_log(exp_sum_avx2(in, NULL, n, max));
    shift(in, out, n, max, lse);
}

AVX512 void attn_log_softmax_row_avx512(const float *in, float *out, int64_t n)
{
    float max = row_max(in, n);
    float lse = vmath_log(exp_sum_avx512(in, NULL, n, max));
    shift(in, out, n, max, lse);
}
