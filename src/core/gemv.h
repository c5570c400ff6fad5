/* gemv.h — attn's own one-row products: y = A x (sgemv, both ways) and the dot product (sdot), each element
 * added in the order OpenBLAS 0.3.21's Haswell kernels add it on one thread (what PyTorch 1.13 computed the
 * project's reference numbers with), on every machine, instruction set and number of threads. The orders are
 * tabled at the top of gemv.c and dot.c.
 *
 * The matrix is column-major, as in BLAS: element (i, j) at a[i + j * lda]. Only what PyTorch's mv and dot
 * use: alpha 1, beta 0 (y is written, never read), y contiguous, increments of x (and of dot's y) >= 0
 * (0: an expanded vector, every element the same). */
#ifndef ATTN_GEMV_H
#define ATTN_GEMV_H

#include <stdint.h>

/* sgemv_("N", m, n, 1, a, lda, x, incx, 0, y, 1): y[i] = sum over j < n of a[i + j*lda] * x[j*incx], i < m */
void attn_sgemv_n(int64_t m, int64_t n, const float *a, int64_t lda, const float *x, int64_t incx, float *y);

/* sgemv_("T", m, n, 1, a, lda, x, incx, 0, y, 1): y[j] = sum over i < m of a[i + j*lda] * x[i*incx], j < n */
void attn_sgemv_t(int64_t m, int64_t n, const float *a, int64_t lda, const float *x, int64_t incx, float *y);

/* The least multiply-adds a thread is given in gemv.c and gemm_n1.c (2^20: threads start for each call, see
 * gemv.c); the tests lower it so that small products are shared by every thread too. */
extern int64_t attn_gemv_thread_work;

/* cblas_sdot(n, x, incx, y, incy) (0 when n is 0) */
float attn_sdot(int64_t n, const float *x, int64_t incx, const float *y, int64_t incy);

/* ---- for the instruction-set files (src/core/x86/gemv_*.c): the inner kernels gemv.c drives ---- */

/* 'N': rows [0, rows) of y (a and y already at the first of them), every one of the same kind: edge rows
 * (edge = 1) add each group of columns as two chains, main rows as one (gemv.c's table). */
typedef void (*gemv_n_rows_fn)(int edge, int64_t rows, int64_t n, const float *a, int64_t lda, const float *x,
                               int64_t incx, float *y);

/* 'T': for the columns [0, cols) of a (a at the first), all of the kind "4" (within n rounded down to 4),
 * y[j] += the block's dot of column j with x over rows [0, nb) (nb a multiple of 4, x contiguous here). */
typedef void (*gemv_t_cols_fn)(int64_t nb, int64_t cols, const float *a, int64_t lda, const float *x, float *y);

void attn_gemv_n_rows_avx2(int edge, int64_t rows, int64_t n, const float *a, int64_t lda, const float *x,
                           int64_t incx, float *y);
void attn_gemv_n_rows_avx512(int edge, int64_t rows, int64_t n, const float *a, int64_t lda, const float *x,
                             int64_t incx, float *y);
void attn_gemv_t_cols_avx2(int64_t nb, int64_t cols, const float *a, int64_t lda, const float *x, float *y);

/* sdot's 32 lanes over n (a multiple of 32) contiguous elements, reduced as OpenBLAS's kernel reduces them */
float attn_sdot32_avx2(int64_t n, const float *x, const float *y);

#endif
