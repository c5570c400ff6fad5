/* matrix.h — how matmul.c and bmm.c see an operand of a matrix product, and the BLAS calls PyTorch 1.13
 * makes for it (bmm.c). Internal to the core; the API is ops.h (attn_matmul, attn_addmm, attn_dot). */
#ifndef ATTN_MATRIX_H
#define ATTN_MATRIX_H

#include "gemv.h"
#include "ops.h"

/* One operand: a [rows, cols] matrix, or a batch of them ([batch, rows, cols], batch stride bs), with
 * the row and column strides rs, cs of each matrix, exactly as the tensor has them (PyTorch's choice of
 * the BLAS call looks at the strides of size-1 dims too). */
typedef struct mat_operand {
    attn_tensor *t; /* a view (or copy) with 2 dims, or 3 for a batch */
    int64_t rows, cols, rs, cs, bs;
} mat_operand;

/* PyTorch 1.13's addmm_impl_cpu_ (aten/src/ATen/native/LinearAlgebra.cpp) for C [n, m] = A [n, k] ·
 * B [k, m], C contiguous: which of the operands BLAS's column-major sgemm gets first, with which
 * transposition flags and leading dimensions, and which operand it copies first. */
typedef struct gemm_plan {
    int swap;                      /* C is written as (Bᵀ Aᵀ)ᵀ: BLAS's first operand is B */
    char ta, tb;                   /* 'N' or 'T', for BLAS's first and second operand */
    int64_t m, n, k, lda, ldb, ldc; /* before normalize_last_dims (applied per call) */
    int copy_a, copy_b;            /* A (B) is read from a contiguous copy (lda / ldb are the copy's) */
} gemm_plan;

void attn_gemm_plan(const mat_operand *A, const mat_operand *B, gemm_plan *p);

/* Runs the plan on one product: a and b point at A's and B's matrix (the copies when the plan copies),
 * c at the contiguous result, which BLAS scales by beta (0: overwritten) before adding the product.
 * -1 when interrupted (attn_sgemm checks between its output tiles), ATTN_GEMM_NO_MEMORY (gemm.h). */
int attn_gemm_run(const gemm_plan *p, const float *a, const float *b, float beta, float *c);

/* PyTorch 1.13's mv (addmv_impl_cpu, Blas.cpp, and gemv, BlasKernel.cpp) for y [rows] = M · x, y contiguous:
 * sgemv when it can, else PyTorch's own loop. M (strides rs, cs) is read as it is, or, when
 * attn_gemv_needs_copy says so, from a contiguous copy (then m points at it and copied is 1). */
int attn_gemv_needs_copy(int64_t rows, int64_t cols, int64_t rs, int64_t cs);
void attn_gemv(int64_t rows, int64_t cols, const float *m, int64_t rs, int64_t cs, int copied, const float *x,
               int64_t incx, float *y);

/* x · y over n elements with strides sx, sy, in int64 that wraps on overflow, as PyTorch's int64 does. */
static inline int64_t attn_dot_i64(const int64_t *x, int64_t sx, const int64_t *y, int64_t sy, int64_t n)
{
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; i++)
        acc += (uint64_t)x[i * sx] * (uint64_t)y[i * sy];
    return (int64_t)acc;
}

/* Runs every product of the batch into out ([batch, n, m], or [n, m] for one product, allocated by the
 * caller, contiguous): PyTorch's bmm, its plain loop when the product is small, one sgemm per matrix
 * otherwise (bmm.c); out = beta · out + A · B (beta 0 or, for one product, 1: addmm). A and B have the
 * same number of dims (2 or 3) and batch; an operand the plan copies is replaced by its copy. Frees out
 * and returns NULL with err set when interrupted or out of memory. */
attn_tensor *attn_bmm_batched(mat_operand *A, mat_operand *B, float beta, attn_tensor *out, attn_error *err);

#endif
