/* matrix.h — how matmul.c and bmm.c see an operand of a matrix product: as BLAS reads it. Internal to
 * the core; the API is ops.h (attn_matmul, attn_addmm, attn_dot). */
#ifndef ATTN_MATRIX_H
#define ATTN_MATRIX_H

#include "ops.h"

#include <cblas.h>

/* How BLAS should read a (rows x cols) matrix stored with row stride rs and column stride cs:
 * row-major as is, row-major transposed, or not at all (then the caller copies). */
typedef struct mat_layout {
    enum CBLAS_TRANSPOSE trans;
    int ld;
} mat_layout;

/* One operand seen as a batch of matrices: its batch dims, and the matrix dims and strides. */
typedef struct mat_operand {
    attn_tensor *t; /* a view (or copy) with at least 2 dims */
    int64_t rows, cols, rs, cs;
    mat_layout layout;
} mat_operand;

/* x · y over n elements with strides sx, sy, in int64 that wraps on overflow, as PyTorch's int64 does. */
static inline int64_t attn_dot_i64(const int64_t *x, int64_t sx, const int64_t *y, int64_t sy, int64_t n)
{
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; i++)
        acc += (uint64_t)x[i * sx] * (uint64_t)y[i * sy];
    return (int64_t)acc;
}

/* Runs every product of the batch into out ([..., n, m], allocated by the caller): PyTorch's bmm, its
 * plain loop when the product is small, one sgemm per batch otherwise (bmm.c). Frees out and returns
 * NULL with err set when interrupted. */
attn_tensor *attn_bmm_batched(const mat_operand *A, const mat_operand *B, attn_tensor *out, attn_error *err);

#endif
