/* bmm.c — the batched matrix product under attn_matmul (matmul.c): PyTorch's bmm_out_or_baddbmm_, the
 * batch dims broadcast, each product either bmm's plain loop or cblas_sgemm in blocks of rows. */
#include "matrix.h"

#include <string.h>

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

/* One sgemm call cannot be stopped, and a product of 30000-row matrices runs for minutes. So a product of
 * more than 2^34 multiply-adds (a quarter of a second here) goes to BLAS in blocks of about 2^33,
 * checking for Ctrl-C between them. Smaller products, every one the books and lessons make among them,
 * are the one call PyTorch makes. A split changes how OpenBLAS tiles the rows, and with it the last bit
 * of some elements (as its number of threads does); both are BLAS's rounding of the same product.
 * Each call packs (copies) all of its part of both operands, so the blocks cut the larger operand: rows
 * of A when B is the smaller, columns of B when A is (GPT-2's output layer, [1024, 768] times a
 * [768, 50257] weight, went to BLAS one row at a time, packing the 154 MB weight 1024 times: 47 s
 * instead of 2), and never fewer than 256 rows or 64 columns at a time. */
#define ONE_CALL_MACS ((int64_t)1 << 34)

/* want rounded down to whole tiles of `tile`, at least one tile, at most all (up to `all`). */
static int64_t blocks_of(int64_t want, int64_t tile, int64_t all)
{
    int64_t b = want / tile * tile;
    if (b < tile)
        b = tile;
    return b < all ? b : all;
}

/* C[n, m] = A[n, k] · B[k, m] through cblas_sgemm, as above; -1 when interrupted. */
static int sgemm_rows(const mat_operand *A, const float *a, const mat_operand *B, const float *b, float *c,
                      int64_t n, int64_t m, int64_t k)
{
    int64_t rblock = n, cblock = m;
    if ((double)n * (double)m * (double)k > (double)ONE_CALL_MACS) {
        if (n >= m) { /* whole tiles of rows; columns too when even 256 rows are too many */
            rblock = blocks_of(ONE_CALL_MACS / 2 / (m * k), 256, n);
            cblock = blocks_of(ONE_CALL_MACS / 2 / (rblock * k), 64, m);
        } else {
            cblock = blocks_of(ONE_CALL_MACS / 2 / (n * k), 64, m);
            rblock = blocks_of(ONE_CALL_MACS / 2 / (cblock * k), 256, n);
        }
    }
    for (int64_t r = 0; r < n; r += rblock)
        for (int64_t j = 0; j < m; j += cblock) {
            if (attn_interrupt_requested)
                return -1;
            int64_t rows = n - r < rblock ? n - r : rblock, cols = m - j < cblock ? m - j : cblock;
            /* row r of A: r rows down (not transposed) or r columns along (transposed); column j of B:
             * j along (not transposed) or j rows down (transposed) */
            const float *ar = a + r * (A->layout.trans == CblasNoTrans ? A->layout.ld : 1);
            const float *bj = b + j * (B->layout.trans == CblasNoTrans ? 1 : B->layout.ld);
            cblas_sgemm(CblasRowMajor, A->layout.trans, B->layout.trans, (int)rows, (int)cols, (int)k, 1.0f, ar,
                        A->layout.ld, bj, B->layout.ld, 0.0f, c + r * m + j, (int)(m > 0 ? m : 1));
        }
    return 0;
}

/* One product of the batch: A's matrix at offset oa times B's at ob into out's matrix i. -1 when
 * interrupted. */
static int batch_product(const mat_operand *A, const mat_operand *B, int64_t oa, int64_t ob, attn_tensor *out,
                         int64_t i, int use_loop)
{
    int64_t n = A->rows, k = A->cols, m = B->cols;
    if (out->dtype == ATTN_INT64)
        return loop_product_i64(A->t->storage->i64 + oa, A->rs, A->cs, B->t->storage->i64 + ob, B->rs, B->cs,
                                out->storage->i64 + i * n * m, n, k, m);
    float *c = out->storage->data + i * n * m;
    if (k == 0)
        memset(c, 0, sizeof(float) * (size_t)(n * m));
    else if (use_loop)
        loop_product_f32(A->t->storage->data + oa, A->rs, A->cs, B->t->storage->data + ob, B->rs, B->cs, c, n, k, m);
    else
        return sgemm_rows(A, A->t->storage->data + oa, B, B->t->storage->data + ob, c, n, m, k);
    return 0;
}

/* Runs every product of the batch (batch dims broadcast: a size-1 dim contributes no offset). */
attn_tensor *attn_bmm_batched(const mat_operand *A, const mat_operand *B, attn_tensor *out, attn_error *err)
{
    int nbatch = out->ndim - 2, na = A->t->ndim - 2, nb = B->t->ndim - 2;
    /* PyTorch's bmm adds in its own loop when the product is small (k·n·m < 400); a plain matrix product
     * (no batch dims on either side) always goes to BLAS. */
    int use_loop = nbatch > 0 && A->cols * A->rows * B->cols < 400;
    /* An empty result has nothing to compute, however many (empty) batches its shape counts. */
    int64_t batches = attn_numel(out) > 0 ? 1 : 0, index[ATTN_MAX_DIMS] = {0};
    for (int d = 0; d < nbatch && batches > 0; d++)
        batches *= out->shape[d];
    for (int64_t i = 0; i < batches; i++) {
        if (attn_interrupt_requested) {
            attn_free(out);
            return attn_interrupted(err);
        }
        int64_t oa = A->t->offset, ob = B->t->offset;
        for (int d = 0; d < nbatch; d++) {
            int da = d - (nbatch - na), db = d - (nbatch - nb);
            if (da >= 0 && A->t->shape[da] != 1)
                oa += index[d] * A->t->stride[da];
            if (db >= 0 && B->t->shape[db] != 1)
                ob += index[d] * B->t->stride[db];
        }
        if (batch_product(A, B, oa, ob, out, i, use_loop)) {
            attn_free(out);
            return attn_interrupted(err);
        }
        for (int d = nbatch - 1; d >= 0; d--) {
            if (++index[d] < out->shape[d])
                break;
            index[d] = 0;
        }
    }
    return out;
}
