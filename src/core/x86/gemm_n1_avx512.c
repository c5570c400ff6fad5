/* x86/gemm_n1_avx512.c — gemm_n1.c's chains for a 'T' matrix with AVX-512: 16 rows of c in the lanes of a
 * vector, each lane's chain the same operations in the same order as gemm_n1.c's portable one. 16 rows are
 * read 16 floats at a time and transposed in registers (half the instructions per element of AVX2's 8 by 8).
 * Run only when src/core/x86/dispatch.c found AVX-512. */
#include "gemm_n1.h"

#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")))

/* r[0..15] (16 rows, 16 floats each) become r[t] = element t of the 16 rows */
AVX512 static void transpose16(__m512 r[16])
{
    __m512 a[16], b[16];
    for (int j = 0; j < 8; j++) {
        a[2 * j] = _mm512_unpacklo_ps(r[2 * j], r[2 * j + 1]);
        a[2 * j + 1] = _mm512_unpackhi_ps(r[2 * j], r[2 * j + 1]);
    }
    for (int j = 0; j < 4; j++) { /* b[4j + q], 128-bit lane L: rows 4j..4j+3 at t = 4L + q */
        b[4 * j] = _mm512_shuffle_ps(a[4 * j], a[4 * j + 2], 0x44);
        b[4 * j + 1] = _mm512_shuffle_ps(a[4 * j], a[4 * j + 2], 0xee);
        b[4 * j + 2] = _mm512_shuffle_ps(a[4 * j + 1], a[4 * j + 3], 0x44);
        b[4 * j + 3] = _mm512_shuffle_ps(a[4 * j + 1], a[4 * j + 3], 0xee);
    }
    for (int q = 0; q < 4; q++) {
        __m512 c0 = _mm512_shuffle_f32x4(b[q], b[4 + q], 0x44), c1 = _mm512_shuffle_f32x4(b[q], b[4 + q], 0xee);
        __m512 c2 = _mm512_shuffle_f32x4(b[8 + q], b[12 + q], 0x44), c3 = _mm512_shuffle_f32x4(b[8 + q], b[12 + q], 0xee);
        r[q] = _mm512_shuffle_f32x4(c0, c2, 0x88);
        r[4 + q] = _mm512_shuffle_f32x4(c0, c2, 0xdd);
        r[8 + q] = _mm512_shuffle_f32x4(c1, c3, 0x88);
        r[12 + q] = _mm512_shuffle_f32x4(c1, c3, 0xdd);
    }
}

/* 16 contiguous rows (a at row 0, rows lda apart): the chains over t < len, added to cv. Each row is asked
 * for 64 floats ahead: 16 rows are more streams than the hardware's prefetcher follows well (measured on
 * GPT-2's output layer: 1.4x OpenBLAS's time without, 0.7x with). */
AVX512 static __m512 rows16_t(int64_t len, const float *a, int64_t lda, const float *b, int64_t incb, __m512 cv)
{
    __m512 g = _mm512_setzero_ps(), r[16];
    for (int64_t t = 0; t < len; t += 16) {
        int64_t n = len - t < 16 ? len - t : 16;
        __mmask16 mask = (__mmask16)((1u << n) - 1u);
        for (int i = 0; i < 16; i++) {
            _mm_prefetch((const char *)(a + i * lda + t + 64), _MM_HINT_T0);
            r[i] = _mm512_maskz_loadu_ps(mask, a + i * lda + t);
        }
        transpose16(r);
        for (int s = 0; s < n; s++)
            g = _mm512_fmadd_ps(r[s], _mm512_set1_ps(b[(t + s) * incb]), g);
    }
    return _mm512_add_ps(cv, g);
}

AVX512 void attn_gemm_n1_rows_avx512(char ta, int64_t rows, int64_t k, const float *a, int64_t lda,
                                     const float *b, int64_t incb, float *c)
{
    if (ta == 'N') {
        attn_gemm_n1_rows_avx2(ta, rows, k, a, lda, b, incb, c);
        return;
    }
    int64_t i = 0;
    for (; i + 16 <= rows; i += 16) {
        __m512 cv = _mm512_loadu_ps(c + i);
        for (int64_t t = 0, len; t < k; t += len) {
            len = attn_gemm_n1_block_len(k - t);
            cv = rows16_t(len, a + i * lda + t, lda, b + t * incb, incb, cv);
        }
        _mm512_storeu_ps(c + i, cv);
    }
    if (i < rows)
        attn_gemm_n1_rows_avx2(ta, rows - i, k, a + i * lda, lda, b, incb, c + i);
}
