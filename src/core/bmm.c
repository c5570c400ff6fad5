/* bmm.c — the BLAS calls under attn_matmul and attn_addmm (matmul.c), made as PyTorch 1.13 makes them on
 * the CPU: the same routine (the Fortran sgemm_ / sgemv_ that PyTorch calls, not the CBLAS row-major
 * wrappers), with the same transposition flags, sizes and leading dimensions. The order in which each
 * element is summed follows from these (which operand is first, how the product is tiled), so a row-major
 * call that describes the same product gives other last bits. The sgemm_ calls go to attn_sgemm
 * (gemm.c), the sgemv_ ones to attn_sgemv_n and _t (gemv.c), which sum as OpenBLAS's Haswell kernels do
 * on one thread, on every machine.
 * Also PyTorch's bmm (bmm_out_or_baddbmm_): the batch of products, each either its plain loop or one
 * sgemm. */
#include "gemm.h"
#include "gemm_n1.h"
#include "matrix.h"

#include <limits.h>
#include <string.h>

static int64_t max1(int64_t x)
{
    return x > 1 ? x : 1;
}

/* ---- sgemm: PyTorch 1.13's addmm_impl_cpu_ (LinearAlgebra.cpp) and cpublas::gemm (CPUBlas.cpp) ---- */

/* One operand of the column-major product, as addmm_impl_cpu_ casts it: read as it is ('N') when its
 * stride along BLAS's rows (lead) is 1 and the other is at least max(1, BLAS's row count); read
 * transposed ('T') when it is the other way round (the other stride 1, lead at least max(1, the row
 * count of the transposed matrix)); otherwise a contiguous copy, read 'T' unless the operands were
 * swapped, its leading dimension the copy's row stride, max(1, cols). PyTorch tests only the lower bound
 * and falls back to its own kernel beyond INT_MAX; attn copies then (a stride that large is never met). */
static void cast_operand(int64_t lead, int64_t other, int64_t rows, int64_t rows_t, int swap, int64_t cols, char *t,
                         int64_t *ld, int *copy)
{
    *copy = 0;
    if (lead == 1 && other >= max1(rows) && other <= INT_MAX) {
        *t = 'N';
        *ld = other;
    } else if (other == 1 && lead >= max1(rows_t) && lead <= INT_MAX) {
        *t = 'T';
        *ld = lead;
    } else {
        *t = swap ? 'N' : 'T';
        *ld = max1(cols);
        *copy = 1;
    }
}

void attn_gemm_plan(const mat_operand *A, const mat_operand *B, gemm_plan *p)
{
    int64_t R = A->rows, K = A->cols, C = B->cols;
    /* The result is contiguous, strides (max(1, C), 1). PyTorch writes it as a column-major matrix when
     * its first stride is 1 (only when C is 1); otherwise, its second stride being 1, as the transposed
     * product Bᵀ Aᵀ (the operands swapped). Its third case, a result it must copy, cannot arise here. */
    int64_t r0 = max1(C), r1 = 1;
    p->swap = !(r0 == 1 && (C == 1 || r1 >= max1(R)));
    const mat_operand *m1 = p->swap ? B : A, *m2 = p->swap ? A : B;
    p->m = p->swap ? C : R;
    p->n = p->swap ? R : C;
    p->k = K;
    /* BLAS's rows of m1 run along its dim 0, or dim 1 once swapped (and likewise for m2) */
    int c1, c2;
    cast_operand(p->swap ? m1->cs : m1->rs, p->swap ? m1->rs : m1->cs, p->m, p->k, p->swap, m1->cols, &p->ta, &p->lda,
                 &c1);
    cast_operand(p->swap ? m2->cs : m2->rs, p->swap ? m2->rs : m2->cs, p->k, p->n, p->swap, m2->cols, &p->tb, &p->ldb,
                 &c2);
    p->ldc = p->swap ? r0 : r1;
    p->copy_a = p->swap ? c2 : c1;
    p->copy_b = p->swap ? c1 : c2;
}

/* cpublas::gemm first normalizes the leading dimensions BLAS ignores (internal::normalize_last_dims):
 * a single column of C gets ldc = m; a transposed a with one row, or a plain one with one column
 * (k = 1), gets k or m; likewise b with n. Then it calls sgemm_, which attn_sgemm (gemm.c) computes as
 * OpenBLAS 0.3.21's Haswell kernels do on one thread, whatever this machine and its number of threads:
 * the bits of PyTorch's reference data everywhere. attn_sgemm checks for Ctrl-C between its output tiles
 * (a product of 30000-row matrices runs for minutes), which changes no element's order. */
static int sgemm_call(char ta, char tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                      const float *b, int64_t ldb, float beta, float *c, int64_t ldc)
{
    if (n == 1)
        ldc = m;
    if (ta != 'N') {
        if (m == 1)
            lda = k;
    } else if (k == 1) {
        lda = m;
    }
    if (tb != 'N') {
        if (k == 1)
            ldb = n;
    } else if (n == 1) {
        ldb = k;
    }
    /* one column (a one-row product: Linear on one token, the KV cache's decode step): the same order
     * without packing the whole matrix first, as OpenBLAS and attn_sgemm do (gemm_n1.c) */
    if (n == 1) {
        attn_sgemm_n1(ta, m, k, a, lda, b, tb == 'N' ? 1 : ldb, beta, c);
        return attn_interrupt_requested ? -1 : 0;
    }
    return attn_sgemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

int attn_gemm_run(const gemm_plan *p, const float *a, const float *b, float beta, float *c)
{
    return sgemm_call(p->ta, p->tb, p->m, p->n, p->k, p->swap ? b : a, p->lda, p->swap ? a : b, p->ldb, beta, c,
                      p->ldc);
}

/* ---- sgemv: PyTorch 1.13's addmv_impl_cpu (Blas.cpp) and gemv (BlasKernel.cpp) ---- */

/* addmv's test that BLAS can read a matrix with leading dimension lda: one column, or lda >= max(1, m) */
static int lda_cond(int64_t m, int64_t n, int64_t lda)
{
    return n == 1 || lda >= max1(m);
}

int attn_gemv_needs_copy(int64_t rows, int64_t cols, int64_t rs, int64_t cs)
{
    return !((rs == 1 && lda_cond(rows, cols, cs)) || (cs == 1 && lda_cond(cols, rows, rs)));
}

void attn_gemv(int64_t rows, int64_t cols, const float *mat, int64_t rs, int64_t cs, int copied, const float *x,
               int64_t incx, float *y)
{
    /* addmv: a column-major matrix (stride 1 down its rows) goes as it is ('n', rows x cols), a
     * row-major one as its transpose ('t', cols x rows); anything else was copied (contiguous) and goes
     * as the row-major one. (addmv passes the flag in lower case, gemm in upper case.) */
    char trans;
    int64_t m, n, lda;
    if (!copied && rs == 1 && lda_cond(rows, cols, cs)) {
        trans = 'n', m = rows, n = cols, lda = cs;
    } else {
        trans = 't', m = cols, n = rows, lda = copied ? max1(cols) : rs;
    }
    /* gemv: one column needs no leading dimension beyond m; sgemv when the sizes fit in an int and both
     * increments are positive (an expanded vector, stride 0, is not): attn's own, which adds in OpenBLAS's
     * order on every machine (gemv.c) */
    if (n == 1)
        lda = m;
    if (m <= INT_MAX && n <= INT_MAX && lda <= INT_MAX && incx > 0 && incx <= INT_MAX) {
        if (trans == 'n')
            attn_sgemv_n(m, n, mat, lda, x, incx, y);
        else
            attn_sgemv_t(m, n, mat, lda, x, incx, y);
        return;
    }
    /* otherwise gemv's own loop: each element the sum of its products in order, from 0, in float (both
     * of its branches add the same products in the same order when beta is 0) */
    if (copied)
        rs = max1(cols), cs = 1;
    for (int64_t r = 0; r < rows; r++) {
        float acc = 0.0f;
        for (int64_t t = 0; t < cols; t++)
            acc += x[t * incx] * mat[r * rs + t * cs];
        y[r] = acc;
    }
}

/* ---- bmm ---- */

/* bmm's plain loop (baddbmm_cpu_kernel): C[i][j] = the sum over t of A[i][t] * B[t][j], added in order,
 * starting from 0, each product and each sum rounded to float (LinearAlgebra.cpp is not compiled with
 * FMA, and attn is built with -ffp-contract=off). rs/cs are row and column strides. */
static void loop_product_f32(const float *A, int64_t ars, int64_t acs, const float *B, int64_t brs, int64_t bcs,
                             float *C, int64_t n, int64_t k, int64_t m)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++) {
            float acc = 0.0f;
            for (int64_t t = 0; t < k; t++)
                acc += A[i * ars + t * acs] * B[t * brs + j * bcs];
            C[i * m + j] = acc;
        }
}

/* The same for int64, wrapping on overflow; exact, so the order does not matter. -1 when interrupted
 * (checked once a row: int64 products of any size come here). */
static int loop_product_i64(const int64_t *A, int64_t ars, int64_t acs, const int64_t *B, int64_t brs,
                            int64_t bcs, int64_t *C, int64_t n, int64_t k, int64_t m)
{
    for (int64_t i = 0; i < n; i++) {
        if (attn_interrupt_requested)
            return -1;
        for (int64_t j = 0; j < m; j++)
            C[i * m + j] = attn_dot_i64(A + i * ars, acs, B + j * bcs, brs, k);
    }
    return 0;
}

/* Replaces op's tensor by a contiguous copy (what addmm_impl_cpu_ hands BLAS when it cannot read the
 * operand in place; a copy of the whole batch has each matrix as the copy of that matrix would be). */
static int copy_operand(mat_operand *op, attn_error *err)
{
    attn_tensor *c = attn_clone(op->t, err);
    if (!c)
        return -1;
    attn_free(op->t);
    op->t = c;
    op->cs = 1;
    op->rs = max1(op->cols);
    op->bs = op->rs * max1(op->rows);
    return 0;
}

attn_tensor *attn_bmm_batched(mat_operand *A, mat_operand *B, float beta, attn_tensor *out, attn_error *err)
{
    int64_t n = A->rows, k = A->cols, m = B->cols;
    int batched = out->ndim == 3;
    int64_t batches = attn_numel(out) > 0 ? (batched ? out->shape[0] : 1) : 0;
    /* PyTorch's bmm adds in its own loop when the product is small (k·n·m < 400); a plain matrix product
     * (mm, addmm) always goes to BLAS. */
    int use_loop = batched && k * n * m < 400;
    gemm_plan plan;
    if (batches > 0 && out->dtype != ATTN_INT64 && k > 0 && !use_loop) {
        attn_gemm_plan(A, B, &plan);
        if ((plan.copy_a && copy_operand(A, err)) || (plan.copy_b && copy_operand(B, err))) {
            attn_free(out);
            return NULL;
        }
    }
    for (int64_t i = 0; i < batches; i++) {
        if (attn_interrupt_requested)
            goto interrupted;
        int64_t oa = A->t->offset + i * A->bs, ob = B->t->offset + i * B->bs;
        if (out->dtype == ATTN_INT64) {
            if (loop_product_i64(A->t->storage->i64 + oa, A->rs, A->cs, B->t->storage->i64 + ob, B->rs, B->cs,
                                 out->storage->i64 + i * n * m, n, k, m))
                goto interrupted;
            continue;
        }
        float *c = out->storage->data + i * n * m;
        if (k == 0) { /* PyTorch: the product of [n, 0] and [0, m] is zeros (mm, bmm; addmm keeps its bias) */
            if (beta == 0.0f)
                memset(c, 0, sizeof(float) * (size_t)(n * m));
        }
        else if (use_loop)
            loop_product_f32(A->t->storage->data + oa, A->rs, A->cs, B->t->storage->data + ob, B->rs, B->cs, c, n, k,
                             m);
        else {
            int status = attn_gemm_run(&plan, A->t->storage->data + oa, B->t->storage->data + ob, beta, c);
            if (status == ATTN_GEMM_NO_MEMORY) {
                attn_free(out);
                return attn_fail(err, "matmul: out of memory");
            }
            if (status)
                goto interrupted;
        }
    }
    return out;
interrupted:
    attn_free(out);
    return attn_interrupted(err);
}
