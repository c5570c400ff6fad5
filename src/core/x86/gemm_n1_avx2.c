/* x86/gemm_n1_avx2.c — gemm_n1.c's block of fma chains with AVX2 and FMA, 8 rows of c in the lanes of a
 * vector, each lane's chain the same operations in the same order as gemm_n1.c's portable one. The rows of
 * a 'T' matrix are contiguous along k: 8 of them are read 8 floats at a time and transposed in registers,
 * so that each vector holds one t of 8 rows. Run only when src/core/x86/dispatch.c found AVX2 and FMA. */
#include "gemm_n1.h"

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))

/* r[0..7] (8 rows, 8 floats each) become r[t] = element t of the 8 rows */
AVX2 static void transpose8(__m256 r[8])
{
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
    r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
    r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
    r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

/* 8 contiguous rows (a at row 0, rows lda apart): g = the chains over t < len */
AVX2 static __m256 rows8_t(int64_t len, const float *a, int64_t lda, const float *b, int64_t incb)
{
    __m256 g = _mm256_setzero_ps(), r[8];
    int64_t t = 0;
    for (; t + 8 <= len; t += 8) {
        for (int i = 0; i < 8; i++) {
            if ((t & 15) == 0) /* a line ahead in each row: more streams than the prefetcher follows well */
                _mm_prefetch((const char *)(a + i * lda + t + 64), _MM_HINT_T0);
            r[i] = _mm256_loadu_ps(a + i * lda + t);
        }
        transpose8(r);
        for (int s = 0; s < 8; s++)
            g = _mm256_fmadd_ps(r[s], _mm256_set1_ps(b[(t + s) * incb]), g);
    }
    if (t < len) {
        __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(len - t)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        for (int i = 0; i < 8; i++)
            r[i] = _mm256_maskload_ps(a + i * lda + t, mask);
        transpose8(r);
        for (int s = 0; s < len - t; s++)
            g = _mm256_fmadd_ps(r[s], _mm256_set1_ps(b[(t + s) * incb]), g);
    }
    return g;
}

AVX2 void attn_gemm_n1_rows_avx2(char ta, int64_t rows, int64_t k, const float *a, int64_t lda, const float *b,
                                 int64_t incb, float *c)
{
    if (ta != 'N') { /* 8 rows at a time, each read from its start to its end */
        for (int64_t i = 0; i < rows; i += 8) {
            __m256 cv = _mm256_loadu_ps(c + i);
            for (int64_t t = 0, len; t < k; t += len) {
                len = attn_gemm_n1_block_len(k - t);
                cv = _mm256_add_ps(cv, rows8_t(len, a + i * lda + t, lda, b + t * incb, incb));
            }
            _mm256_storeu_ps(c + i, cv);
        }
        return;
    }
    /* 'N': 8 rows are contiguous down each column; 4 vectors of them at once for more chains in flight */
    for (int64_t t0 = 0, len; t0 < k; t0 += len) {
        len = attn_gemm_n1_block_len(k - t0);
        const float *ab = a + t0 * lda, *bb = b + t0 * incb;
        int64_t i = 0;
        for (; i + 32 <= rows; i += 32) {
            __m256 g0 = _mm256_setzero_ps(), g1 = g0, g2 = g0, g3 = g0;
            for (int64_t t = 0; t < len; t++) {
                const float *at = ab + i + t * lda;
                __m256 bt = _mm256_set1_ps(bb[t * incb]);
                g0 = _mm256_fmadd_ps(_mm256_loadu_ps(at), bt, g0);
                g1 = _mm256_fmadd_ps(_mm256_loadu_ps(at + 8), bt, g1);
                g2 = _mm256_fmadd_ps(_mm256_loadu_ps(at + 16), bt, g2);
                g3 = _mm256_fmadd_ps(_mm256_loadu_ps(at + 24), bt, g3);
            }
            _mm256_storeu_ps(c + i, _mm256_add_ps(_mm256_loadu_ps(c + i), g0));
            _mm256_storeu_ps(c + i + 8, _mm256_add_ps(_mm256_loadu_ps(c + i + 8), g1));
            _mm256_storeu_ps(c + i + 16, _mm256_add_ps(_mm256_loadu_ps(c + i + 16), g2));
            _mm256_storeu_ps(c + i + 24, _mm256_add_ps(_mm256_loadu_ps(c + i + 24), g3));
        }
        for (; i < rows; i += 8) {
            __m256 g = _mm256_setzero_ps();
            for (int64_t t = 0; t < len; t++)
                g = _mm256_fmadd_ps(_mm256_loadu_ps(ab + i + t * lda), _mm256_set1_ps(bb[t * incb]), g);
            _mm256_storeu_ps(c + i, _mm256_add_ps(_mm256_loadu_ps(c + i), g));
        }
    }
}
