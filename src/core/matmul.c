/* matmul.c — matrix products with PyTorch's torch.matmul semantics, computed as PyTorch 1.13 computes
 * them on the CPU (aten/src/ATen/native/LinearAlgebra.cpp: matmul, bmm_out_or_baddbmm_):
 *
 *   [k]       · [k]        -> []          dot product (sdot: attn_sdot, dot.c)
 *   [n, k]    · [k, m]     -> [n, m]      one sgemm (PyTorch's mm)
 *   [k]       · [k, m]     -> [m]         the vector is a 1-row matrix (sgemm), the row is dropped
 *   [n, k]    · [k]        -> [n]         matrix times vector: sgemv (PyTorch's mv)
 *   [..., n, k] · [k, m] or [k]           "folded": the batch dims merged into the rows, one sgemm (or
 *                                         sgemv), as PyTorch's should_fold decides (below); and the
 *   [n, k] or [k] · [..., k, m]           mirror image, the other operand folded and transposed
 *   [..., n, k] · [..., k, m] -> [..., n, m]   batch dims broadcast, then PyTorch's bmm: when
 *             k·n·m < 400 its plain loop (bmm.c), which adds the k products of each element in order
 *             in float; otherwise one sgemm per batch (Debian's torch has no MKL batch gemm)
 *
 * Every sgemm and sgemv is the call PyTorch makes (bmm.c): the same Fortran routine, transposition flags,
 * sizes and leading dimensions, decided from the operands' strides as PyTorch decides them, so
 * transposed views (x.T, keys:transpose(2, 3)) go to BLAS without a copy exactly when PyTorch's do.
 * int64 products (both operands int64) run the plain loop, exactly; PyTorch refuses mixed dtypes.
 * The batched product (bmm, its plain loop) is in bmm.c; matrix.h is how both see an operand. */
#include "matrix.h"

#include <limits.h>
#include <string.h>

/* PyTorch multiplies tensors of one dtype only; bool masks count as float (attn stores them so). */
static int check_dtypes(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    if ((a->dtype == ATTN_INT64) == (b->dtype == ATTN_INT64))
        return 0;
    attn_fail(err, "%s: expected both tensors to have the same dtype, got %s and %s (convert with :float())", fn,
              attn_dtype_name(a->dtype), attn_dtype_name(b->dtype));
    return -1;
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
        return attn_fail(err, "dot: vectors of %lld elements are too long for attn's kernels", (long long)a->shape[0]);
    attn_tensor *out = attn_empty("dot", 0, NULL, a->dtype == ATTN_INT64 ? ATTN_INT64 : ATTN_FLOAT32, err);
    if (!out)
        return NULL;
    if (a->dtype == ATTN_INT64) {
        out->storage->i64[0] = attn_dot_i64(a->storage->i64 + a->offset, a->stride[0], b->storage->i64 + b->offset,
                                       b->stride[0], a->shape[0]);
        return out;
    }
    out->storage->data[0] = a->shape[0] == 0 ? 0.0f
                                             : attn_sdot(a->shape[0], a->storage->data + a->offset, a->stride[0],
                                                         b->storage->data + b->offset, b->stride[0]);
    return out;
}

/* An operand as it is: a vector becomes a 1 x k row on the left (PyTorch's unsqueeze(0) for [k] · [k, m]),
 * a k x 1 column on the right; its last two dims are the matrix. No copy: whether BLAS needs one is
 * PyTorch's decision, made in bmm.c. */
static int prepare(mat_operand *op, const attn_tensor *src, int is_left, attn_error *err)
{
    op->t = src->ndim == 1 ? attn_unsqueeze(src, is_left ? 0 : 1, err) : attn_alias(src, err);
    if (!op->t)
        return -1;
    attn_tensor *t = op->t;
    op->rows = t->shape[t->ndim - 2];
    op->cols = t->shape[t->ndim - 1];
    op->rs = t->stride[t->ndim - 2];
    op->cs = t->stride[t->ndim - 1];
    op->bs = 0;
    return 0;
}

attn_tensor *attn_matmul(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err);

/* m [rows, k] times v [k] -> [rows], PyTorch's mv: the sgemv PyTorch calls (bmm.c), on m as it is or on a
 * contiguous copy of it, as addmv decides; PyTorch's own loop for a vector of stride 0 (expanded). */
static attn_tensor *matrix_vector(const char *fn, const attn_tensor *m, const attn_tensor *v, attn_error *err)
{
    int64_t rows = m->shape[0], k = m->shape[1];
    attn_tensor *out = attn_empty(fn, 1, &rows, m->dtype == ATTN_INT64 ? ATTN_INT64 : ATTN_FLOAT32, err);
    if (!out || rows == 0)
        return out;
    if (out->dtype == ATTN_INT64) {
        for (int64_t r = 0; r < rows; r++)
            out->storage->i64[r] = attn_dot_i64(m->storage->i64 + m->offset + r * m->stride[0], m->stride[1],
                                           v->storage->i64 + v->offset, v->stride[0], k);
        return out;
    }
    if (k == 0) {
        memset(out->storage->data, 0, sizeof(float) * (size_t)rows);
        return out;
    }
    if (rows > INT_MAX || k > INT_MAX) {
        attn_free(out);
        return attn_fail(err, "%s: matrices with more than %d rows or columns are too large for attn's kernels", fn, INT_MAX);
    }
    int copied = attn_gemv_needs_copy(rows, k, m->stride[0], m->stride[1]);
    attn_tensor *M = copied ? attn_clone(m, err) : attn_alias(m, err);
    if (!M) {
        attn_free(out);
        return NULL;
    }
    attn_gemv(rows, k, M->storage->data + M->offset, M->stride[0], M->stride[1], copied,
              v->storage->data + v->offset, v->stride[0], out->storage->data);
    attn_free(M);
    return out;
}

/* PyTorch 1.13's should_fold(t, dim of the other operand): a product of a tensor of 3 or more dims with a
 * matrix or vector merges t's batch dims into its rows (one BLAS call) rather than running bmm, except when
 * t is 3-D with its last two dims transposed in memory (stride[-1] != 1 and stride[0] == size[1] * size[2]):
 * then bmm reads each matrix transposed instead of copying (and adds in its own loop when small). */
static int should_fold(const attn_tensor *t, int other_ndim)
{
    if (t->ndim < 3 || (other_ndim != 1 && other_ndim != 2) || attn_numel(t) == 0)
        return 0;
    return !(t->ndim == 3 && other_ndim == 2 && t->stride[2] != 1 && t->stride[0] == t->shape[1] * t->shape[2]);
}

/* The folded product: t1 [..., r, k] reshaped to [R, k] (a copy when its strides do not allow a view) times
 * t2 [k, c] or [k]; the result is viewed back as [..., r, c] or [..., r]. */
static attn_tensor *folded(const char *fn, const attn_tensor *t1, const attn_tensor *t2, attn_error *err)
{
    int64_t rows[2] = {-1, t1->shape[t1->ndim - 1]};
    attn_tensor *flat = attn_reshape(fn, t1, 2, rows, err);
    attn_tensor *prod = !flat ? NULL : t2->ndim == 1 ? matrix_vector(fn, flat, t2, err) : attn_matmul(fn, flat, t2, err);
    attn_free(flat);
    if (!prod)
        return NULL;
    int64_t shape[ATTN_MAX_DIMS];
    int ndim = t1->ndim - 1;
    memcpy(shape, t1->shape, sizeof(int64_t) * (size_t)ndim);
    if (t2->ndim == 2)
        shape[ndim++] = t2->shape[1];
    attn_tensor *out = attn_view(fn, prod, ndim, shape, err);
    attn_free(prod);
    return out;
}

/* a [n, k] or [k] times b [..., k, m] when b folds: bᵀ [..., m, k] folded times aᵀ, then transposed back
 * (and made contiguous) for a matrix a: the mirror image of folded(), as PyTorch 1.13 computes it. */
static attn_tensor *folded_mirror(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    attn_tensor *bt = attn_transpose(b, b->ndim - 2, b->ndim - 1, err);
    attn_tensor *at = !bt ? NULL : a->ndim == 2 ? attn_transpose(a, 0, 1, err) : attn_alias(a, err);
    attn_tensor *prod = at ? folded(fn, bt, at, err) : NULL;
    attn_free(bt);
    attn_free(at);
    if (!prod || a->ndim == 1)
        return prod;
    attn_tensor *back = attn_transpose(prod, prod->ndim - 2, prod->ndim - 1, err);
    attn_tensor *out = back ? attn_contiguous(back, err) : NULL;
    attn_free(prod);
    attn_free(back);
    return out;
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
        return attn_fail(err, "%s: matrices with more than %d rows or columns are too large for attn's kernels", fn,
                         INT_MAX), -1;
    shape[nbatch] = A->rows;
    shape[nbatch + 1] = B->cols;
    return nbatch + 2;
}

/* PyTorch 1.13's batched matmul expands each operand to the broadcast batch shape and reshapes it to
 * [batch, rows, cols] for bmm: a view when the strides allow it, else a contiguous copy (a broadcast
 * operand, or keys:transpose(3, 4) of heads split by a transpose, when the batch dims do not merge).
 * The strides bmm sees, and with them the BLAS calls, are this tensor's. */
static int flatten_batch(const char *fn, mat_operand *op, int nbatch, const int64_t *shape, int64_t batch,
                         attn_error *err)
{
    int64_t want[ATTN_MAX_DIMS], three[3] = {batch, op->rows, op->cols};
    memcpy(want, shape, sizeof(int64_t) * (size_t)nbatch);
    want[nbatch] = op->rows;
    want[nbatch + 1] = op->cols;
    attn_tensor *e = attn_expand(op->t, nbatch + 2, want, err);
    attn_tensor *f = e ? attn_reshape(fn, e, 3, three, err) : NULL;
    attn_free(e);
    if (!f)
        return -1;
    attn_free(op->t);
    op->t = f;
    op->bs = f->stride[0];
    op->rs = f->stride[1];
    op->cs = f->stride[2];
    return 0;
}

attn_tensor *attn_matmul(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    attn_tensor *out = NULL;
    if (check_operands(fn, a, b, &out, err))
        return out;
    if (a->ndim == 2 && b->ndim == 1)
        return matrix_vector(fn, a, b, err);
    /* nn.Linear on a batch ([b, n, k] · [k, m]) takes this path: one sgemm over all rows */
    if (should_fold(a, b->ndim))
        return folded(fn, a, b, err);
    if (should_fold(b, a->ndim))
        return folded_mirror(fn, a, b, err);

    mat_operand A = {0}, B = {0};
    int64_t shape[ATTN_MAX_DIMS];
    int ndim;
    if (prepare(&A, a, 1, err) || prepare(&B, b, 0, err) ||
        (ndim = product_shape(fn, a, b, &A, &B, shape, err)) < 0 ||
        !(out = attn_empty(fn, ndim, shape, a->dtype == ATTN_INT64 ? ATTN_INT64 : ATTN_FLOAT32, err)))
        goto done;
    if (attn_numel(out) > 0) {
        int nbatch = ndim - 2;
        int64_t flat[3] = {attn_numel(out) / (A.rows * B.cols), A.rows, B.cols};
        attn_tensor *prod = NULL;
        if ((nbatch > 0 && (flatten_batch(fn, &A, nbatch, shape, flat[0], err) ||
                            flatten_batch(fn, &B, nbatch, shape, flat[0], err))) ||
            !(prod = attn_view(fn, out, nbatch > 0 ? 3 : 2, nbatch > 0 ? flat : flat + 1, err)) ||
            !(prod = attn_bmm_batched(&A, &B, 0.0f, prod, err))) {
            attn_free(out);
            out = NULL;
            goto done;
        }
        attn_free(prod);
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

/* PyTorch's addmm(bias, a, b) = bias + a·b for a [n, k], b [k, m], bias broadcast to [n, m] (what F.linear
 * computes for a 2-D input): the result starts as a copy of the broadcast bias and BLAS adds the product
 * into it (beta = 1). Past its first block of k (about 320 for sgemm here) BLAS adds the partial sums
 * one block at a time, so bias + a·b is not (a·b) + bias in the last bit there. */
attn_tensor *attn_addmm(const char *fn, const attn_tensor *bias, const attn_tensor *a, const attn_tensor *b,
                        attn_error *err)
{
    char as[160], bs[160], cs[160];
    if (a->ndim != 2 || b->ndim != 2 || a->shape[1] != b->shape[0])
        return attn_fail(err, "%s: expected matrices [n, k] and [k, m], got %s and %s", fn,
                         attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs));
    if (check_dtypes(fn, a, b, err) || check_dtypes(fn, bias, a, err))
        return NULL;
    int64_t shape[2] = {a->shape[0], b->shape[1]};
    attn_tensor *out = attn_empty(fn, 2, shape, a->dtype == ATTN_INT64 ? ATTN_INT64 : ATTN_FLOAT32, err);
    attn_tensor *c = out ? attn_expand(bias, 2, shape, err) : NULL;
    if (!c) {
        attn_free(out);
        return out ? attn_fail(err, "%s: the bias %s does not broadcast to the product's shape [%lld, %lld]", fn,
                               attn_shape_str(bias, cs, sizeof cs), (long long)shape[0], (long long)shape[1])
                   : NULL;
    }
    int bad = attn_copy_(out, c, err);
    attn_free(c);
    if (bad || attn_numel(out) == 0 || a->shape[1] == 0) {
        if (bad)
            attn_free(out);
        return bad ? NULL : out;
    }
    if (out->dtype == ATTN_INT64) { /* exact: the order does not matter */
        attn_tensor *p = attn_matmul(fn, a, b, err);
        for (int64_t i = 0; p && i < attn_numel(out); i++)
            out->storage->i64[i] = (int64_t)((uint64_t)out->storage->i64[i] + (uint64_t)p->storage->i64[i]);
        attn_free(p);
        return p ? out : (attn_free(out), NULL);
    }
    mat_operand A = {0}, B = {0};
    if (prepare(&A, a, 1, err) || prepare(&B, b, 0, err) || A.rows > INT_MAX || A.cols > INT_MAX || B.cols > INT_MAX) {
        if (A.t && B.t)
            attn_fail(err, "%s: matrices with more than %d rows or columns are too large for attn's kernels", fn, INT_MAX);
        attn_free(A.t), attn_free(B.t), attn_free(out);
        return NULL;
    }
    out = attn_bmm_batched(&A, &B, 1.0f, out, err); /* the sgemm PyTorch's addmm_impl_cpu_ makes, beta = 1 */
    attn_free(A.t), attn_free(B.t);
    return out;
}
