/* x86/gemm_avx512.c — gemm.c's tile kernels with AVX-512: sixteen rows of C in a vector (A packed in
 * panels of 16), each lane one element adding its terms in the order of gemm_portable.c. Tiles of 8 rows
 * (a group taking two chains, or its one-chain neighbour in the same panel) use x86/gemm_avx2.c's. */
#include "gemm.h"

#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512vl,avx2,fma")))
#define INLINE inline __attribute__((always_inline))
#define UNROLLED _Pragma("GCC unroll 16") /* keeps the sums in registers */

/* C[0 .. rows) += s, rows <= 16 (lanes past rows neither read nor written) */
AVX512 static INLINE void add_to_c(float *c, int rows, __m512 s)
{
    if (rows == 16) {
        _mm512_storeu_ps(c, _mm512_add_ps(_mm512_loadu_ps(c), s));
    } else if (rows > 0) {
        __mmask16 m = (__mmask16)((1u << rows) - 1);
        _mm512_mask_storeu_ps(c, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, c), s));
    }
}

/* 32 rows (two panels of 16) by W columns, one chain; the second panel's rows past `rows` are zeros */
AVX512 static INLINE void one32(const int W, int64_t kl, const float *pa, int rows, const float *pb, int ldpb, float *c,
                                int64_t ldc)
{
    __m512 s0[12], s1[12];
    UNROLLED
    for (int j = 0; j < W; j++)
        s0[j] = s1[j] = _mm512_setzero_ps();
    const float *pa1 = pa + 16 * kl;
    for (int64_t l = 0; l < kl; l++) {
        __m512 a0 = _mm512_loadu_ps(pa + l * 16), a1 = _mm512_loadu_ps(pa1 + l * 16);
        UNROLLED
        for (int j = 0; j < W; j++) {
            __m512 b = _mm512_set1_ps(pb[j * ldpb + l]);
            s0[j] = _mm512_fmadd_ps(a0, b, s0[j]);
            s1[j] = _mm512_fmadd_ps(a1, b, s1[j]);
        }
    }
    UNROLLED
    for (int j = 0; j < W; j++) {
        add_to_c(c + j * ldc, 16, s0[j]);
        add_to_c(c + j * ldc + 16, rows - 16, s1[j]);
    }
}

/* 9 to 16 rows (one panel) by W columns, one chain */
AVX512 static INLINE void one16(const int W, int64_t kl, const float *pa, int rows, const float *pb, int ldpb, float *c,
                                int64_t ldc)
{
    __m512 s[12];
    UNROLLED
    for (int j = 0; j < W; j++)
        s[j] = _mm512_setzero_ps();
    for (int64_t l = 0; l < kl; l++) {
        __m512 a = _mm512_loadu_ps(pa + l * 16);
        UNROLLED
        for (int j = 0; j < W; j++)
            s[j] = _mm512_fmadd_ps(a, _mm512_set1_ps(pb[j * ldpb + l]), s[j]);
    }
    UNROLLED
    for (int j = 0; j < W; j++)
        add_to_c(c + j * ldc, rows, s[j]);
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

/* up to 12 columns: 32 rows by 12 is 24 of the 32 vector registers */
#define BY_WIDTH12(call)                                                                                           \
    switch (w) {                                                                                                   \
    case 1: call(1); break;                                                                                        \
    case 2: call(2); break;                                                                                        \
    case 3: call(3); break;                                                                                        \
    case 4: call(4); break;                                                                                        \
    case 5: call(5); break;                                                                                        \
    case 6: call(6); break;                                                                                        \
    case 7: call(7); break;                                                                                        \
    case 8: call(8); break;                                                                                        \
    case 9: call(9); break;                                                                                        \
    case 10: call(10); break;                                                                                      \
    case 11: call(11); break;                                                                                      \
    default: call(12); break;                                                                                      \
    }

AVX512 static void one_chain(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c,
                             int64_t ldc)
{
    if (rows <= 8) { /* AVX2's tile takes 6 columns at most */
        for (int j = 0; j < w; j += 6)
            attn_gemm_avx2_one8(kl, pa, 16, rows, pb + j * ldpb, ldpb, w - j < 6 ? w - j : 6, c + j * ldc, ldc);
    } else if (rows <= 16) {
#define ONE16(W) one16(W, kl, pa, rows, pb, ldpb, c, ldc)
        BY_WIDTH12(ONE16)
    } else {
#define ONE32(W) one32(W, kl, pa, rows, pb, ldpb, c, ldc)
        BY_WIDTH12(ONE32)
    }
}

static void two_chains(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c, int64_t ldc)
{
    attn_gemm_avx2_two8(kl, pa, 16, rows, pb, ldpb, w, c, ldc);
}

const attn_gemm_kernels attn_gemm_avx512 = {
    .pw = 16, .wide_rows = 32, .wide_cols = 12, .one_chain = one_chain, .two_chains = two_chains};
