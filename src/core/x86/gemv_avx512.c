/* x86/gemv_avx512.c — gemv.c's 'N' kernel with AVX-512 (gemv.h): the same operations in the same order as
 * gemv.c's portable one (the order table is there), 16 rows of y at a time. ('T' adds a column in the order's
 * own 8 lanes: gemv.c runs the AVX2 kernel for it.) Compiled for any x86-64; run only when
 * src/core/x86/dispatch.c found AVX-512. */
#include "gemv.h"

#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")))

/* rows of y a chunk: its floats stay in the first-level cache while the column groups pass */
#define CHUNK 1024

/* the lanes [0, k) of 16 on, for a masked load or store of the last k < 16 rows */
AVX512 static __mmask16 first_lanes(int64_t k)
{
    return (__mmask16)((1u << k) - 1u);
}

#define INLINE inline __attribute__((always_inline))

/* 16 rows of y (at y, a at their row) plus one group of `wide` columns, as x86/gemv_avx2.c's group8 */
AVX512 static INLINE __m512 group16(int edge, int wide, int fused, const float *a, int64_t lda, const __m512 *xb,
                                    __mmask16 mask, __m512 yv)
{
    if (!fused) {
        for (int k = 0; k < wide; k++)
            yv = _mm512_add_ps(yv, _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, a + k * lda), xb[k]));
        return yv;
    }
    if (edge) {
        __m512 e = _mm512_setzero_ps(), o = _mm512_setzero_ps();
        for (int k = 0; k < wide; k += 2) {
            e = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, a + k * lda), xb[k], e);
            o = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, a + (k + 1) * lda), xb[k + 1], o);
        }
        return _mm512_add_ps(_mm512_add_ps(e, o), yv);
    }
    __m512 g = _mm512_setzero_ps();
    for (int k = 0; k < wide; k++)
        g = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, a + k * lda), xb[k], g);
    return _mm512_add_ps(yv, g);
}

/* the group over the rows [0, rows) of y */
AVX512 static INLINE void group_loop(int edge, int wide, int fused, int64_t rows, const float *a, int64_t lda,
                                     const __m512 *xb, float *y)
{
    for (int64_t i = 0; i < rows; i += 16) {
        __mmask16 mask = rows - i >= 16 ? (__mmask16)0xffff : first_lanes(rows - i);
        __m512 yv = group16(edge, wide, fused, a + i, lda, xb, mask, _mm512_maskz_loadu_ps(mask, y + i));
        _mm512_mask_storeu_ps(y + i, mask, yv);
    }
}

/* the group of columns j..j+wide-1 (x at x[j]) over the rows [0, rows) of y */
AVX512 static void group_rows(int edge, int wide, int fused, int64_t rows, const float *a, int64_t lda,
                              const float *x, int64_t incx, float *y)
{
    __m512 xb[8];
    for (int k = 0; k < wide; k++)
        xb[k] = _mm512_set1_ps(x[k * incx]);
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

AVX512 void attn_gemv_n_rows_avx512(int edge, int64_t rows, int64_t n, const float *a, int64_t lda, const float *x,
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
