/* x86/gemm_avx2.c — gemm.c's tile kernels with AVX2 and FMA: eight rows of C in a vector, so each lane is
 * one element and adds its terms in the order of gemm_portable.c (vectors across elements only). Runs
 * only when isa.h chose AVX2 or AVX-512 (the 8-row tiles serve both). */
#include "gemm.h"

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define INLINE inline __attribute__((always_inline))
#define UNROLLED _Pragma("GCC unroll 16") /* keeps the sums in registers */

/* lanes 0 .. rows-1 */
AVX2 static INLINE __m256i first_lanes(int rows)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(rows), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* C[0 .. rows) += s: C + s, one rounding per element (lanes past rows neither read nor written) */
AVX2 static INLINE void add_to_c(float *c, int rows, __m256 s)
{
    if (rows == 8) {
        _mm256_storeu_ps(c, _mm256_add_ps(_mm256_loadu_ps(c), s));
    } else {
        __m256i m = first_lanes(rows);
        _mm256_maskstore_ps(c, m, _mm256_add_ps(_mm256_maskload_ps(c, m), s));
    }
}

/* 16 rows (two panels of 8) by W columns, one chain */
AVX2 static INLINE void one16(const int W, int64_t kl, const float *pa, int rows, const float *pb, int ldpb, float *c,
                              int64_t ldc)
{
    __m256 s0[6], s1[6];
    UNROLLED
    for (int j = 0; j < W; j++)
        s0[j] = s1[j] = _mm256_setzero_ps();
    const float *pa1 = pa + 8 * kl;
#pragma GCC unroll 4
    for (int64_t l = 0; l < kl; l++) {
        _mm_prefetch((const char *)(pa + l * 8 + 128), _MM_HINT_T0); /* A streams from L2 */
        _mm_prefetch((const char *)(pa1 + l * 8 + 128), _MM_HINT_T0);
        __m256 a0 = _mm256_loadu_ps(pa + l * 8), a1 = _mm256_loadu_ps(pa1 + l * 8);
        UNROLLED
        for (int j = 0; j < W; j++) {
            __m256 b = _mm256_broadcast_ss(pb + j * ldpb + l);
            s0[j] = _mm256_fmadd_ps(a0, b, s0[j]);
            s1[j] = _mm256_fmadd_ps(a1, b, s1[j]);
        }
    }
    UNROLLED
    for (int j = 0; j < W; j++) {
        add_to_c(c + j * ldc, 8, s0[j]);
        add_to_c(c + j * ldc + 8, rows - 8, s1[j]);
    }
}

/* up to 8 rows (k-stride `stride`) by W columns, one chain */
AVX2 static INLINE void one8(const int W, int64_t kl, const float *pa, int stride, int rows, const float *pb, int ldpb,
                             float *c, int64_t ldc)
{
    __m256 s[6];
    UNROLLED
    for (int j = 0; j < W; j++)
        s[j] = _mm256_setzero_ps();
    for (int64_t l = 0; l < kl; l++) {
        __m256 a = _mm256_loadu_ps(pa + l * stride);
        UNROLLED
        for (int j = 0; j < W; j++)
            s[j] = _mm256_fmadd_ps(a, _mm256_broadcast_ss(pb + j * ldpb + l), s[j]);
    }
    UNROLLED
    for (int j = 0; j < W; j++)
        add_to_c(c + j * ldc, rows, s[j]);
}

/* 8 rows by W columns, two chains: even l below kl & ~7 into e, odd into o, the rest into e */
AVX2 static INLINE void two8(const int W, int64_t kl, const float *pa, int stride, int rows, const float *pb, int ldpb,
                             float *c, int64_t ldc)
{
    __m256 e[6], o[6];
    UNROLLED
    for (int j = 0; j < W; j++)
        e[j] = o[j] = _mm256_setzero_ps();
    int64_t k8 = kl & ~(int64_t)7, l = 0;
    for (; l < k8; l += 2) {
        __m256 a0 = _mm256_loadu_ps(pa + l * stride), a1 = _mm256_loadu_ps(pa + (l + 1) * stride);
        UNROLLED
        for (int j = 0; j < W; j++) {
            e[j] = _mm256_fmadd_ps(a0, _mm256_broadcast_ss(pb + j * ldpb + l), e[j]);
            o[j] = _mm256_fmadd_ps(a1, _mm256_broadcast_ss(pb + j * ldpb + l + 1), o[j]);
        }
    }
    for (; l < kl; l++) {
        __m256 a = _mm256_loadu_ps(pa + l * stride);
        UNROLLED
        for (int j = 0; j < W; j++)
            e[j] = _mm256_fmadd_ps(a, _mm256_broadcast_ss(pb + j * ldpb + l), e[j]);
    }
    UNROLLED
    for (int j = 0; j < W; j++)
        add_to_c(c + j * ldc, rows, _mm256_add_ps(e[j], o[j]));
}

#define BY_WIDTH(call)                                                                                             \
    switch (w) {                                                                                                   \
    case 1: call(1); break;                                                                                        \
    case 2: call(2); break;                                                                                        \
    case 3: call(3); break;                                                                                        \
    case 4: call(4); break;                                                                                        \
    case 5: call(5); break;                                                                                        \
    default: call(6); break;                                                                                       \
    }

AVX2 void attn_gemm_avx2_one8(int64_t kl, const float *pa, int stride, int rows, const float *pb, int ldpb, int w,
                              float *c, int64_t ldc)
{
#define ONE8(W) one8(W, kl, pa, stride, rows, pb, ldpb, c, ldc)
    BY_WIDTH(ONE8)
}

AVX2 void attn_gemm_avx2_two8(int64_t kl, const float *pa, int stride, int rows, const float *pb, int ldpb, int w,
                              float *c, int64_t ldc)
{
#define TWO8(W) two8(W, kl, pa, stride, rows, pb, ldpb, c, ldc)
    BY_WIDTH(TWO8)
}

AVX2 static void one_chain(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c,
                      int64_t ldc)
{
    if (rows <= 8) {
        attn_gemm_avx2_one8(kl, pa, 8, rows, pb, ldpb, w, c, ldc);
        return;
    }
#define ONE16(W) one16(W, kl, pa, rows, pb, ldpb, c, ldc)
    BY_WIDTH(ONE16)
}

static void two_chains(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c, int64_t ldc)
{
    attn_gemm_avx2_two8(kl, pa, 8, rows, pb, ldpb, w, c, ldc);
}

const attn_gemm_kernels attn_gemm_avx2 = {
    .pw = 8, .wide_rows = 16, .wide_cols = 6, .one_chain = one_chain, .two_chains = two_chains};
