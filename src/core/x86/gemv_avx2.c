/* x86/gemv_avx2.c — gemv.c's inner kernels with AVX2 and FMA (gemv.h): the same operations in the same
 * order as gemv.c's portable ones (the order table is there), 8 rows of y at a time for 'N', a column's own
 * 8 lanes for 'T'. Compiled for any x86-64; run only when src/core/x86/dispatch.c found AVX2 and FMA. */
#include "gemv.h"

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))

/* rows of y a chunk: its floats stay in the first-level cache while the column groups pass */
#define CHUNK 1024

/* the lanes [0, k) of 8 on, for a masked load or store of the last k < 8 rows */
AVX2 static __m256i first_lanes(int64_t k)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* one group of `wide` (8 or 4) columns j.. added into 8 rows of y: a and y at the rows, mask their lanes */
AVX2 static __m256 group_fused(int edge, int wide, const float *a, int64_t lda, const float *x, int64_t incx,
                               __m256i mask, __m256 yv)
{
    if (edge) {
        __m256 e = _mm256_setzero_ps(), o = _mm256_setzero_ps();
        for (int k = 0; k < wide; k += 2) {
            e = _mm256_fmadd_ps(_mm256_maskload_ps(a + k * lda, mask), _mm256_set1_ps(x[k * incx]), e);
            o = _mm256_fmadd_ps(_mm256_maskload_ps(a + (k + 1) * lda, mask), _mm256_set1_ps(x[(k + 1) * incx]), o);
        }
        return _mm256_add_ps(_mm256_add_ps(e, o), yv);
    }
    __m256 g = _mm256_setzero_ps();
    for (int k = 0; k < wide; k++)
        g = _mm256_fmadd_ps(_mm256_maskload_ps(a + k * lda, mask), _mm256_set1_ps(x[k * incx]), g);
    return _mm256_add_ps(yv, g);
}

/* the group of j..j+wide-1 (wide 8, 4; 2 and 1 unfused) over the rows [0, rows) of y */
AVX2 static void group_rows(int edge, int wide, int fused, int64_t rows, const float *a, int64_t lda,
                            const float *x, int64_t incx, float *y)
{
    const __m256i all = _mm256_set1_epi32(-1);
    for (int64_t i = 0; i < rows; i += 8) {
        __m256i mask = rows - i >= 8 ? all : first_lanes(rows - i);
        __m256 yv = _mm256_maskload_ps(y + i, mask);
        if (fused) {
            yv = group_fused(edge, wide, a + i, lda, x, incx, mask, yv);
        } else {
            for (int k = 0; k < wide; k++) /* (y + A0 x0) + A1 x1, or y + A0 x0 */
                yv = _mm256_add_ps(yv, _mm256_mul_ps(_mm256_maskload_ps(a + i + k * lda, mask),
                                                     _mm256_set1_ps(x[k * incx])));
        }
        _mm256_maskstore_ps(y + i, mask, yv);
    }
}

AVX2 void attn_gemv_n_rows_avx2(int edge, int64_t rows, int64_t n, const float *a, int64_t lda, const float *x,
                                int64_t incx, float *y)
{
    int wide = incx == 1 ? 8 : 4;
    for (int64_t r = 0; r < rows; r += CHUNK) {
        int64_t rc = rows - r < CHUNK ? rows - r : CHUNK;
        float *yc = y + r;
        const float *ac = a + r;
        for (int64_t i = 0; i < rc; i++)
            yc[i] = 0.0f;
        int64_t j = 0;
        for (; j + wide <= n; j += wide)
            group_rows(edge, wide, 1, rc, ac + j * lda, lda, x + j * incx, incx, yc);
        if (incx == 1 && (n & 4)) {
            group_rows(edge, 4, 1, rc, ac + j * lda, lda, x + j, 1, yc);
            j += 4;
        }
        if (incx == 1 && (n & 2)) {
            group_rows(edge, 2, 0, rc, ac + j * lda, lda, x + j, 1, yc);
            j += 2;
        }
        for (; j < n; j++)
            group_rows(edge, 1, 0, rc, ac + j * lda, lda, x + j * incx, incx, yc);
    }
}

/* the reduction of a column's 8 lanes: h = low half + high half, then (h0 + h1) + (h2 + h3) */
AVX2 static float reduce8(__m256 v)
{
    __m128 h = _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
    h = _mm_hadd_ps(h, h);
    h = _mm_hadd_ps(h, h);
    return _mm_cvtss_f32(h);
}

/* one block's 8 lanes of columns a.. (count of them, up to 4 at once for more multiply-adds in flight):
 * the first four elements when nb & 4 to lanes 0-3, then eights */
AVX2 static void t_block(int count, int64_t nb, const float *a, int64_t lda, const float *x, float *y)
{
    __m256 acc[4];
    for (int c = 0; c < count; c++)
        acc[c] = _mm256_setzero_ps();
    int64_t p = 0;
    if (nb & 4) {
        __m256 xv = _mm256_castps128_ps256(_mm_loadu_ps(x));
        xv = _mm256_insertf128_ps(xv, _mm_setzero_ps(), 1);
        for (int c = 0; c < count; c++) {
            __m256 av = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + c * lda)), _mm_setzero_ps(), 1);
            acc[c] = _mm256_fmadd_ps(av, xv, acc[c]);
        }
        p = 4;
    }
    for (; p < nb; p += 8) {
        __m256 xv = _mm256_loadu_ps(x + p);
        for (int c = 0; c < count; c++)
            acc[c] = _mm256_fmadd_ps(_mm256_loadu_ps(a + c * lda + p), xv, acc[c]);
    }
    for (int c = 0; c < count; c++)
        y[c] = y[c] + reduce8(acc[c]);
}

AVX2 void attn_gemv_t_cols_avx2(int64_t nb, int64_t cols, const float *a, int64_t lda, const float *x, float *y)
{
    int64_t j = 0;
    for (; j + 4 <= cols; j += 4)
        t_block(4, nb, a + j * lda, lda, x, y + j);
    for (; j < cols; j++)
        t_block(1, nb, a + j * lda, lda, x, y + j);
}
