/* gemm_n1.h — a one-column sgemm (n = 1: every product with one row or one column, as PyTorch hands it to
 * BLAS: Linear on one token, [k] · [k, m]), added in the order of OpenBLAS 0.3.21's Haswell sgemm on one
 * thread, without packing the matrix (OpenBLAS copies all of it first). The order is tabled in gemm_n1.c.
 *
 * Contract: the same bits as sgemm_(ta, tb, m, 1, k, 1, a, lda, b, ldb, beta, c, ldc) with that OpenBLAS,
 *   c[i] = beta·c[i] + sum over t < k of op(a)[i, t] · b[t * incb],   i < m
 * where op(a)[i, t] is a[i + t*lda] (ta 'N') or a[t + i*lda] (ta 'T'), and incb is 1 for tb 'N', ldb for 'T'.
 * c is contiguous (the one column); alpha is 1. beta 0 writes c without reading it. k 0: c = beta·c. */
#ifndef ATTN_GEMM_N1_H
#define ATTN_GEMM_N1_H

#include <stdint.h>

void attn_sgemm_n1(char ta, int64_t m, int64_t k, const float *a, int64_t lda, const float *b, int64_t incb,
                   float beta, float *c);

/* the length of the block of k that starts when `left` of k is still to add (gemm_n1.c's table) */
static inline int64_t attn_gemm_n1_block_len(int64_t left)
{
    enum { Q = 320, UNROLL_M = 8 };
    if (left >= 2 * Q)
        return Q;
    if (left > Q)
        return (left / 2 + UNROLL_M - 1) / UNROLL_M * UNROLL_M;
    return left;
}

/* for src/core/x86/gemm_n1_avx2.c and _avx512.c: c[0, rows) += each block's chain in turn (a at row 0, ta 'N' or 'T'),
 * c already scaled by beta; rows a multiple of 8 */
void attn_gemm_n1_rows_avx2(char ta, int64_t rows, int64_t k, const float *a, int64_t lda, const float *b,
                            int64_t incb, float *c);
void attn_gemm_n1_rows_avx512(char ta, int64_t rows, int64_t k, const float *a, int64_t lda, const float *b,
                              int64_t incb, float *c);

#endif
