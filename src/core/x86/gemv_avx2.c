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

#define INLINE inline __attribute__((always_inline))

/* 8 rows of y (at y, a at their row) plus one group of `wide` columns, the broadcast x's in xb: fused
 * groups (8, 4) as one chain, or two for edge rows; unfused ones (2, 1) as (y + A0 x0) + A1 x1 or y + A0 x0.
 * Called with constant kind so that each becomes its own loop; mask off: all 8 rows, loaded plainly. */
AVX2 static INLINE __m256 load8(const float *p, int masked, __m256i mask)
{
    return masked ? _mm256_maskload_ps(p, mask) : _mm256_loadu_ps(p);
}

AVX2 static INLINE __m256 group8(int edge, int wide, int fused, const float *a, int64_t lda, const __m256 *xb,
                                 int masked, __m256i mask, __m256 yv)
{
    if (!fused) {
        for (int k = 0; k < wide; k++)
            yv = _mm256_add_ps(yv, _mm256_mul_ps(load8(a + k * lda, masked, mask), xb[k]));
        return yv;
    }
    if (edge) {
        __m256 e = _mm256_setzero_ps(), o = _mm256_setzero_ps();
        for (int k = 0; k < wide; k += 2) {
            e = _mm256_fmadd_ps(load8(a + k * lda, masked, mask), xb[k], e);
            o = _mm256_fmadd_ps(load8(a + (k + 1) * lda, masked, mask), xb[k + 1], o);
        }
        return _mm256_add_ps(_mm256_add_ps(e, o), yv);
    }
    __m256 g = _mm256_setzero_ps();
    for (int k = 0; k < wide; k++)
        g = _mm256_fmadd_ps(load8(a + k * lda, masked, mask), xb[k], g);
    return _mm256_add_ps(yv, g);
}

/* the group over the rows [0, rows) of y */
AVX2 static INLINE void group_loop(int edge, int wide, int fused, int64_t rows, const float *a, int64_t lda,
                                   const __m256 *xb, float *y)
{
    int64_t i = 0;
    const __m256i none = _mm256_setzero_si256();
    for (; i + 8 <= rows; i += 8)
        _mm256_storeu_ps(y + i, group8(edge, wide, fused, a + i, lda, xb, 0, none, _mm256_loadu_ps(y + i)));
    if (i < rows) {
        __m256i mask = first_lanes(rows - i);
        __m256 yv = group8(edge, wide, fused, a + i, lda, xb, 1, mask, _mm256_maskload_ps(y + i, mask));
        _mm256_maskstore_ps(y + i, mask, yv);
    }
}

/* the group of columns j..j+wide-1 (x at x[j]) over the rows [0, rows) of y */
AVX2 static void group_rows(int edge, int wide, int fused, int64_t rows, const float *a, int64_t lda,
                            const float *x, int64_t incx, float *y)
{
    __m256 xb[8];
    for (int k = 0; k < wide; k++)
        xb[k] = _mm256_set1_ps(x[k * incx]);
    if (!fused) {
        if (wide == 2)
            group_loop(0, 2, 0, rows, a, lda, xb, y);
        else
            group_loop(0, 1, 0, rows, a, lda, xb, y);
    } else if (edge) {
        if (wide == 8)
            group_loop(1, 8, 1, rows, a, lda, xb, y);
        else
            group_loop(1, 4, 1, rows, a, lda, xb, y);
    } else {
        if (wide == 8)
            group_loop(0, 8, 1, rows, a, lda, xb, y);
        else
            group_loop(0, 4, 1, rows, a, lda, xb, y);
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

/* the first four elements when nb & 4 go to lanes 0-3 (the others stay +0), then eights */
AVX2 static __m256 first4(const float *p)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_setzero_ps(), 1);
}

/* one block's 8 lanes of four columns at once (more multiply-adds in flight), each column its own chain */
AVX2 static void t_block4(int64_t nb, const float *a, int64_t lda, const float *x, float *y)
{
    __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
    const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda;
    int64_t p = 0;
    if (nb & 4) {
        __m256 xv = first4(x);
        c0 = _mm256_fmadd_ps(first4(a0), xv, c0);
        c1 = _mm256_fmadd_ps(first4(a1), xv, c1);
        c2 = _mm256_fmadd_ps(first4(a2), xv, c2);
        c3 = _mm256_fmadd_ps(first4(a3), xv, c3);
        p = 4;
    }
    for (; p < nb; p += 8) {
        __m256 xv = _mm256_loadu_ps(x + p);
        c0 = _mm256_fmadd_ps(_mm256_loadu_ps(a0 + p), xv, c0);
        c1 = _mm256_fmadd_ps(_mm256_loadu_ps(a1 + p), xv, c1);
        c2 = _mm256_fmadd_ps(_mm256_loadu_ps(a2 + p), xv, c2);
        c3 = _mm256_fmadd_ps(_mm256_loadu_ps(a3 + p), xv, c3);
    }
    y[0] = y[0] + reduce8(c0);
    y[1] = y[1] + reduce8(c1);
    y[2] = y[2] + reduce8(c2);
    y[3] = y[3] + reduce8(c3);
}

/* the same for one column */
AVX2 static void t_block1(int64_t nb, const float *a, const float *x, float *y)
{
    __m256 c = _mm256_setzero_ps();
    int64_t p = 0;
    if (nb & 4) {
        c = _mm256_fmadd_ps(first4(a), first4(x), c);
        p = 4;
    }
    for (; p < nb; p += 8)
        c = _mm256_fmadd_ps(_mm256_loadu_ps(a + p), _mm256_loadu_ps(x + p), c);
    y[0] = y[0] + reduce8(c);
}

AVX2 void attn_gemv_t_cols_avx2(int64_t nb, int64_t cols, const float *a, int64_t lda, const float *x, float *y)
{
    int64_t j = 0;
    for (; j + 4 <= cols; j += 4)
        t_block4(nb, a + j * lda, lda, x, y + j);
    for (; j < cols; j++)
        t_block1(nb, a + j * lda, x, y + j);
}
