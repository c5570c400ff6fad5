/* matmul.c — matrix products with PyTorch's torch.matmul semantics, computed as PyTorch 1.13 computes
 * them on the CPU (aten/src/ATen/native/LinearAlgebra.cpp: matmul, bmm_out_or_baddbmm_):
 *
 *   [k]       · [k]        -> []          dot product (cblas_sdot)
 *   [n, k]    · [k, m]     -> [n, m]      one cblas_sgemm
 *   [k]       · [k, m]     -> [m]         the vector is a 1-row matrix, the row is dropped afterwards
 *   [n, k]    · [k]        -> [n]         the vector is a 1-column matrix, the column is dropped
 *   [..., n, k] · [k, m]   -> [..., n, m] the batch dims folded into the rows: one sgemm
 *   [..., n, k] · [..., k, m] -> [..., n, m]   batch dims broadcast, then PyTorch's bmm: when
 *             k·n·m < 400 its plain loop (below), which adds the k products of each element in order
 *             in float; otherwise one sgemm per batch (Debian's torch has no MKL batch gemm)
 *
 * Transposed views (x.T, keys:transpose(2, 3)) are handed to BLAS as "transposed" without a copy.
 * int64 products (both operands int64) run the plain loop, exactly; PyTorch refuses mixed dtypes. */
#include "ops.h"

#include <cblas.h>
#include <limits.h>
#include <string.h>

/* How BLAS should read a (rows x cols) matrix stored with row stride rs and column stride cs:
 * row-major as is, row-major transposed, or not at all (then the caller copies). */
typedef struct mat_layout {
    enum CBLAS_TRANSPOSE trans;
    int ld;
} mat_layout;

static int blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, mat_layout *out)
{
    if (rows == 0 || cols == 0) { /* empty: BLAS is not called, any layout will do */
        out->trans = CblasNoTrans;
        out->ld = 1;
        return 0;
    }
    /* The stride of a size-1 dim never matters; pick the one that lets BLAS read it directly. */
    if (cols == 1)
        cs = 1;
    if (rows == 1)
        rs = 1;
    if (cs == 1 && rs >= (cols > 1 ? cols : 1) && rs <= INT_MAX) {
        out->trans = CblasNoTrans;
        out->ld = (int)rs;
        return 0;
    }
    if (rs == 1 && cs >= (rows > 1 ? rows : 1) && cs <= INT_MAX) {
        out->trans = CblasTrans;
        out->ld = (int)cs;
        return 0;
    }
    return -1;
}

/* PyTorch multiplies tensors of one dtype only; bool masks count as float (attn stores them so). */
static int check_dtypes(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    if ((a->dtype == ATTN_INT64) == (b->dtype == ATTN_INT64))
        return 0;
    attn_fail(err, "%s: expected both tensors to have the same dtype, got %s and %s (convert with :float())", fn,
              attn_dtype_name(a->dtype), attn_dtype_name(b->dtype));
    return -1;
}

static int64_t dot_i64(const int64_t *x, int64_t sx, const int64_t *y, int64_t sy, int64_t n)
{
    uint64_t acc = 0; /* wraps on overflow, as PyTorch's int64 does */
    for (int64_t i = 0; i < n; i++)
        acc += (uint64_t)x[i * sx] * (uint64_t)y[i * sy];
    return (int64_t)acc;
}

attn_tensor *attn_dot(const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    char as[160], bs[160];
    if (check_dtypes("dot", a, b, err))
        return NULL;
    if (a->ndim != 1 || b->ndim != 1)
        return attn_fail(err, "dot: expected two 1-D tensors, got %s and %s (use matmul for matrices)",
                         attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs));
    if (a->shape[0] != b->shape[0])
        return attn_fail(err, "dot: cannot take the dot product of %s and %s (%lld ≠ %lld)",
                         attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs),
                         (long long)a->shape[0], (long long)b->shape[0]);
    if (a->shape[0] > INT_MAX || a->stride[0] > INT_MAX || b->stride[0] > INT_MAX)
        return attn_fail(err, "dot: vectors of %lld elements are too long for BLAS", (long long)a->shape[0]);
    attn_tensor *out = attn_empty("dot", 0, NULL, a->dtype == ATTN_INT64 ? ATTN_INT64 : ATTN_FLOAT32, err);
    if (!out)
        return NULL;
    if (a->dtype == ATTN_INT64) {
        out->storage->i64[0] = dot_i64(a->storage->i64 + a->offset, a->stride[0], b->storage->i64 + b->offset,
                                       b->stride[0], a->shape[0]);
        return out;
    }
    out->storage->data[0] = a->shape[0] == 0 ? 0.0f
                                             : cblas_sdot((int)a->shape[0], a->storage->data + a->offset,
                                                          (int)a->stride[0], b->storage->data + b->offset,
                                                          (int)b->stride[0]);
    return out;
}

/* One operand seen as a batch of matrices: its batch dims, and the matrix dims and strides. */
typedef struct mat_operand {
    attn_tensor *t; /* a view (or copy) with at least 2 dims */
    int64_t rows, cols, rs, cs;
    mat_layout layout;
} mat_operand;

static int prepare(mat_operand *op, const attn_tensor *src, int is_left, attn_error *err)
{
    /* A vector becomes a 1 x k row on the left, a k x 1 column on the right. */
    op->t = src->ndim == 1 ? attn_unsqueeze(src, is_left ? 0 : 1, err) : attn_alias(src, err);
    if (!op->t)
        return -1;
    for (int attempt = 0; attempt < 2; attempt++) {
        attn_tensor *t = op->t;
        op->rows = t->shape[t->ndim - 2];
        op->cols = t->shape[t->ndim - 1];
        op->rs = t->stride[t->ndim - 2];
        op->cs = t->stride[t->ndim - 1];
        if (blas_layout(op->rows, op->cols, op->rs, op->cs, &op->layout) == 0)
            return 0;
        attn_tensor *c = attn_clone(t, err); /* e.g. a broadcast (stride 0) or strided slice */
        attn_free(t);
        op->t = c;
        if (!c)
            return -1;
    }
    return attn_fail(err, "matmul: internal error: no BLAS layout"), -1;
}

attn_tensor *attn_matmul(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err);

static attn_tensor *fold_batch(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    int64_t rows[2] = {-1, a->shape[a->ndim - 1]};
    attn_tensor *flat = attn_reshape(fn, a, 2, rows, err);
    attn_tensor *prod = flat ? attn_matmul(fn, flat, b, err) : NULL;
    attn_free(flat);
    if (!prod)
        return NULL;
    int64_t shape[ATTN_MAX_DIMS];
    for (int d = 0; d < a->ndim - 1; d++)
        shape[d] = a->shape[d];
    shape[a->ndim - 1] = b->shape[1];
    attn_tensor *out = attn_view(fn, prod, a->ndim, shape, err);
    attn_free(prod);
    return out;
}

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
            C[i * m + j] = dot_i64(A + i * ars, acs, B + j * bcs, brs, k);
    }
    return 0;
}

/* One sgemm call cannot be stopped, and a product of 30000-row matrices runs for minutes. So a product of
 * more than 2^34 multiply-adds (a quarter of a second here) goes to BLAS in blocks of rows of about 2^33,
 * checking for Ctrl-C between them. Smaller products, every one the books and lessons make among them,
 * are the one call PyTorch makes. A split changes how OpenBLAS tiles the rows, and with it the last bit
 * of some elements (as its number of threads does); both are BLAS's rounding of the same product. */
#define ONE_CALL_MACS ((int64_t)1 << 34)

/* C[n, m] = A[n, k] · B[k, m] through cblas_sgemm, as above; -1 when interrupted. */
static int sgemm_rows(const mat_operand *A, const float *a, const mat_operand *B, const float *b, float *c,
                      int64_t n, int64_t m, int64_t k)
{
    int64_t block = n;
    if ((double)n * (double)m * (double)k > (double)ONE_CALL_MACS) {
        block = (ONE_CALL_MACS / 2) / (m * k) / 256 * 256; /* whole tiles of rows */
        if (block < 1)
            block = 1;
    }
    for (int64_t r = 0; r < n; r += block) {
        if (attn_interrupt_requested)
            return -1;
        int64_t rows = n - r < block ? n - r : block;
        /* row r of A: r rows down (not transposed) or r columns along (transposed) */
        const float *ar = a + r * (A->layout.trans == CblasNoTrans ? A->layout.ld : 1);
        cblas_sgemm(CblasRowMajor, A->layout.trans, B->layout.trans, (int)rows, (int)m, (int)k, 1.0f, ar,
                    A->layout.ld, b, B->layout.ld, 0.0f, c + r * m, (int)(m > 0 ? m : 1));
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

/* Checks shapes and dtypes; returns 1 when the caller is done (*out set: a dot product, or NULL with err
 * set), 0 when the product goes on. */
static int check_operands(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_tensor **out,
                          attn_error *err)
{
    char as[160], bs[160];
    *out = NULL;
    if (a->ndim == 0 || b->ndim == 0)
        return attn_fail(err, "%s: both arguments need at least 1 dimension, got %s and %s (use * to scale)", fn,
                         attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs)), 1;
    if (check_dtypes(fn, a, b, err))
        return 1;
    int64_t k_a = a->shape[a->ndim - 1], k_b = b->ndim == 1 ? b->shape[0] : b->shape[b->ndim - 2];
    if (k_a != k_b)
        return attn_fail(err, "%s: cannot multiply %s by %s (%lld ≠ %lld)", fn, attn_shape_str(a, as, sizeof as),
                         attn_shape_str(b, bs, sizeof bs), (long long)k_a, (long long)k_b), 1;
    if (a->ndim == 1 && b->ndim == 1)
        return *out = attn_dot(a, b, err), 1;
    return 0;
}

/* The batch shape of the product (broadcast), then the result's [..., n, m]; returns its ndim or -1. */
static int product_shape(const char *fn, const attn_tensor *a, const attn_tensor *b, const mat_operand *A,
                         const mat_operand *B, int64_t *shape, attn_error *err)
{
    char as[160], bs[160];
    attn_tensor ba = *A->t, bb = *B->t;
    ba.ndim -= 2;
    bb.ndim -= 2;
    int nbatch;
    if (attn_broadcast_shape(fn, &ba, &bb, &nbatch, shape, err))
        return attn_fail(err, "%s: batch dimensions of %s and %s cannot be broadcast", fn,
                         attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs)), -1;
    if (nbatch + 2 > ATTN_MAX_DIMS)
        return attn_fail(err, "%s: attn supports at most %d dimensions", fn, ATTN_MAX_DIMS), -1;
    if (A->rows > INT_MAX || A->cols > INT_MAX || B->cols > INT_MAX)
        return attn_fail(err, "%s: matrices with more than %d rows or columns are too large for BLAS", fn,
                         INT_MAX), -1;
    shape[nbatch] = A->rows;
    shape[nbatch + 1] = B->cols;
    return nbatch + 2;
}

/* Runs every product of the batch (batch dims broadcast: a size-1 dim contributes no offset). */
static attn_tensor *batched(const mat_operand *A, const mat_operand *B, attn_tensor *out, attn_error *err)
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

attn_tensor *attn_matmul(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    attn_tensor *out = NULL;
    if (check_operands(fn, a, b, &out, err))
        return out;
    /* [..., n, k] · [k, m]: fold the batch dims into the rows and make one sgemm call, as PyTorch's
     * matmul does (nn.Linear on a batch takes this path). Each output element is the same sum. */
    if (a->ndim >= 3 && b->ndim == 2 && attn_numel(a) > 0)
        return fold_batch(fn, a, b, err);

    mat_operand A = {0}, B = {0};
    int64_t shape[ATTN_MAX_DIMS];
    int ndim;
    if (prepare(&A, a, 1, err) || prepare(&B, b, 0, err) ||
        (ndim = product_shape(fn, a, b, &A, &B, shape, err)) < 0 ||
        !(out = attn_empty(fn, ndim, shape, a->dtype == ATTN_INT64 ? ATTN_INT64 : ATTN_FLOAT32, err)) ||
        !(out = batched(&A, &B, out, err)))
        goto done;

    /* Drop the row/column that stood in for a vector operand. */
    if (a->ndim == 1 || b->ndim == 1) {
        attn_tensor *squeezed = attn_squeeze(out, out->ndim - (a->ndim == 1 ? 2 : 1), err);
        attn_free(out);
        out = squeezed;
    }
done:
    attn_free(A.t);
    attn_free(B.t);
    return out;
}
