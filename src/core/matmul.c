/* matmul.c — matrix products with PyTorch's torch.matmul semantics, computed by OpenBLAS.
 *
 *   [k]       · [k]        -> []          dot product
 *   [n, k]    · [k, m]     -> [n, m]      one cblas_sgemm
 *   [k]       · [k, m]     -> [m]         the vector is a 1-row matrix, the row is dropped afterwards
 *   [n, k]    · [k]        -> [n]         the vector is a 1-column matrix, the column is dropped
 *   [..., n, k] · [..., k, m] -> [..., n, m]   one sgemm per batch; batch dims broadcast
 *
 * Transposed views (x.T, keys:transpose(2, 3)) are handed to BLAS as "transposed" without a copy. */
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

attn_tensor *attn_dot(const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    char as[160], bs[160];
    if (a->ndim != 1 || b->ndim != 1)
        return attn_fail(err, "dot: expected two 1-D tensors, got %s and %s (use matmul for matrices)",
                         attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs));
    if (a->shape[0] != b->shape[0])
        return attn_fail(err, "dot: cannot take the dot product of %s and %s (%lld ≠ %lld)",
                         attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs),
                         (long long)a->shape[0], (long long)b->shape[0]);
    if (a->shape[0] > INT_MAX || a->stride[0] > INT_MAX || b->stride[0] > INT_MAX)
        return attn_fail(err, "dot: vectors of %lld elements are too long for BLAS", (long long)a->shape[0]);
    attn_tensor *out = attn_empty("dot", 0, NULL, ATTN_FLOAT32, err);
    if (!out)
        return NULL;
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

attn_tensor *attn_matmul(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    char as[160], bs[160];
    if (a->ndim == 0 || b->ndim == 0)
        return attn_fail(err, "%s: both arguments need at least 1 dimension, got %s and %s (use * to scale)", fn,
                         attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs));
    if (a->ndim == 1 && b->ndim == 1) {
        if (a->shape[0] != b->shape[0])
            return attn_fail(err, "%s: cannot multiply %s by %s (%lld ≠ %lld)", fn, attn_shape_str(a, as, sizeof as),
                             attn_shape_str(b, bs, sizeof bs), (long long)a->shape[0], (long long)b->shape[0]);
        return attn_dot(a, b, err);
    }
    int64_t k_a = a->shape[a->ndim - 1], k_b = b->ndim == 1 ? b->shape[0] : b->shape[b->ndim - 2];
    if (k_a != k_b)
        return attn_fail(err, "%s: cannot multiply %s by %s (%lld ≠ %lld)", fn, attn_shape_str(a, as, sizeof as),
                         attn_shape_str(b, bs, sizeof bs), (long long)k_a, (long long)k_b);

    /* [..., n, k] · [k, m]: fold the batch dims into the rows and make one sgemm call, as PyTorch's
     * matmul does (nn.Linear on a batch takes this path). Each output element is the same sum. */
    if (a->ndim >= 3 && b->ndim == 2 && attn_numel(a) > 0)
        return fold_batch(fn, a, b, err);

    mat_operand A = {0}, B = {0};
    attn_tensor *out = NULL;
    if (prepare(&A, a, 1, err) || prepare(&B, b, 0, err))
        goto done;

    /* Broadcast the batch dims (all but the last two). */
    attn_tensor ba = *A.t, bb = *B.t;
    ba.ndim -= 2;
    bb.ndim -= 2;
    int nbatch;
    int64_t shape[ATTN_MAX_DIMS];
    if (attn_broadcast_shape(fn, &ba, &bb, &nbatch, shape, err)) {
        attn_fail(err, "%s: batch dimensions of %s and %s cannot be broadcast", fn, attn_shape_str(a, as, sizeof as),
                  attn_shape_str(b, bs, sizeof bs));
        goto done;
    }
    if (nbatch + 2 > ATTN_MAX_DIMS) {
        attn_fail(err, "%s: attn supports at most %d dimensions", fn, ATTN_MAX_DIMS);
        goto done;
    }
    int64_t n = A.rows, k = A.cols, m = B.cols;
    if (n > INT_MAX || k > INT_MAX || m > INT_MAX) {
        attn_fail(err, "%s: matrices with more than %d rows or columns are too large for BLAS", fn, INT_MAX);
        goto done;
    }
    shape[nbatch] = n;
    shape[nbatch + 1] = m;
    out = attn_empty(fn, nbatch + 2, shape, ATTN_FLOAT32, err);
    if (!out)
        goto done;

    /* An empty result has nothing to compute, however many (empty) batches its shape counts. */
    int64_t batches = attn_numel(out) > 0 ? 1 : 0, index[ATTN_MAX_DIMS] = {0};
    for (int d = 0; d < nbatch && batches > 0; d++)
        batches *= shape[d];
    for (int64_t i = 0; i < batches; i++) {
        if (attn_interrupt_requested) {
            attn_free(out);
            out = attn_fail(err, "interrupted");
            goto done;
        }
        /* Offsets of this batch's matrices; a broadcast batch dim (size 1) contributes nothing. */
        int64_t oa = A.t->offset, ob = B.t->offset;
        for (int d = 0; d < nbatch; d++) {
            int da = d - (nbatch - ba.ndim), db = d - (nbatch - bb.ndim);
            if (da >= 0 && ba.shape[da] != 1)
                oa += index[d] * ba.stride[da];
            if (db >= 0 && bb.shape[db] != 1)
                ob += index[d] * bb.stride[db];
        }
        float *c = out->storage->data + i * n * m;
        if (k == 0 || n == 0 || m == 0)
            memset(c, 0, sizeof(float) * (size_t)(n * m));
        else
            cblas_sgemm(CblasRowMajor, A.layout.trans, B.layout.trans, (int)n, (int)m, (int)k, 1.0f,
                        A.t->storage->data + oa, A.layout.ld, B.t->storage->data + ob, B.layout.ld, 0.0f, c,
                        (int)(m > 0 ? m : 1));
        for (int d = nbatch - 1; d >= 0; d--) {
            if (++index[d] < shape[d])
                break;
            index[d] = 0;
        }
    }

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
