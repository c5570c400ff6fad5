/* layers.c — layer_norm and the embedding lookup.
 *
 * layer_norm follows LayerNormKernelImplInternal (aten/src/ATen/native/cpu/layer_norm_kernel.cpp, PyTorch
 * 1.13, float, AVX2) so the last bit matches: per row, the moments by RowwiseMoments (moments_utils.h),
 * rstd = 1 / sqrt(var + eps) and bias = -rstd * mean in float, then y = (x * rstd + bias) * gamma + beta,
 * which GCC compiled to two fused multiply-adds. The moments themselves are not fused (checked against
 * Debian's torch on 186 rows of 1 to 4100 numbers, with and without weights: every bit equal). */
#include "layers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LANES 8  /* Vectorized<float>::size() with AVX2 */
#define CHUNK 16 /* kChunkSize: vectors per Welford chunk */
#define MAX_DEPTH 64

/* utils::CeilLog2: the number of cascade levels for m chunks (1 for m <= 2). */
static int ceil_log2(int64_t m)
{
    if (m <= 2)
        return 1;
    int bits = 0;
    for (uint64_t v = (uint64_t)m - 1; v; v >>= 1)
        bits++;
    return bits;
}

/* AddMoments / AddMomentsVec on one lane: merges (m0_add, m1_add, m2_add) into (m0, m1, m2); m0 is the count
 * shared by all lanes, updated by the caller. */
static void add_moments(int64_t m0, int64_t m0_add, float m1_add, float m2_add, float *m1, float *m2)
{
    int64_t n = m0 + m0_add;
    float c = n == 0 ? 0.0f : (float)m0_add / (float)n;
    float delta = m1_add - *m1;
    *m1 += c * delta;
    *m2 += m2_add + delta * delta * c * (float)m0;
}

typedef struct lanes {
    int64_t m0; /* count per lane */
    float m1[LANES], m2[LANES];
} lanes;

static void add_lanes(lanes *into, lanes *from)
{
    for (int l = 0; l < LANES; l++)
        add_moments(into->m0, from->m0, from->m1[l], from->m2[l], &into->m1[l], &into->m2[l]);
    into->m0 += from->m0;
}

/* RowwiseMomentsImpl: the n / 8 full vectors go through Welford in chunks of 16 vectors (lane l sees
 * elements 8j + l), the chunks merge pairwise up a stack like a binary counter; the leftover n % 8 numbers
 * go through scalar Welford, and the 8 lanes are merged into that in lane order. */
void attn_row_moments(const float *x, int64_t n, float *mean, float *var)
{
    int64_t nvec = n / LANES, nchunks = (nvec + CHUNK - 1) / CHUNK;
    int depth = ceil_log2(nchunks);
    lanes stack[MAX_DEPTH];
    memset(stack, 0, sizeof stack);
    for (int64_t i = 0; i < nchunks; i++) {
        const float *p = x + i * CHUNK * LANES;
        lanes chunk = {.m0 = nvec - i * CHUNK < CHUNK ? nvec - i * CHUNK : CHUNK};
        for (int64_t j = 0; j < chunk.m0; j++) {
            float c = 1.0f / (float)(j + 1); /* c_vecs[j] */
            for (int l = 0; l < LANES; l++) {
                float v = p[j * LANES + l];
                float delta = v - chunk.m1[l];
                chunk.m1[l] += delta * c;
                chunk.m2[l] += delta * (v - chunk.m1[l]);
            }
        }
        add_lanes(&stack[0], &chunk);
        for (int64_t j = 1, mask = i + 1; j < depth && (mask & 1) == 0; j++, mask >>= 1) {
            add_lanes(&stack[j], &stack[j - 1]);
            memset(&stack[j - 1], 0, sizeof stack[0]);
        }
    }
    for (int j = 1; j < depth; j++)
        add_lanes(&stack[0], &stack[j]);

    int64_t m0 = 0;
    float m1 = 0.0f, m2 = 0.0f;
    for (int64_t i = nvec * LANES; i < n; i++) {
        float delta = x[i] - m1;
        ++m0;
        m1 += delta / (float)m0;
        m2 += delta * (x[i] - m1);
    }
    for (int l = 0; l < LANES; l++) {
        add_moments(m0, nvec, stack[0].m1[l], stack[0].m2[l], &m1, &m2);
        m0 += nvec;
    }
    *mean = m1;
    *var = m2 / (float)n;
}

static int same_shape(const attn_tensor *t, int ndim, const int64_t *shape)
{
    return t->ndim == ndim && memcmp(t->shape, shape, sizeof(int64_t) * (size_t)ndim) == 0;
}

/* "[4, 3]" for the n dims starting at shape. */
static char *dims_str(const int64_t *shape, int n, char *buf, size_t size)
{
    size_t at = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < n && at < size; d++)
        at += (size_t)snprintf(buf + at, size - at, d ? ", %lld" : "%lld", (long long)shape[d]);
    if (at < size)
        snprintf(buf + at, size - at, "]");
    return buf;
}

static int check_affine(const char *what, const attn_tensor *p, int nnorm, const int64_t *norm_shape,
                        attn_error *err)
{
    if (!p || same_shape(p, nnorm, norm_shape))
        return 0;
    char a[160], b[160];
    attn_fail(err, "layer_norm: %s has shape %s but normalized_shape is %s", what, attn_shape_str(p, a, sizeof a),
              dims_str(norm_shape, nnorm, b, sizeof b));
    return -1;
}

static void normalize_row(const float *x, float *y, int64_t n, const float *gamma, const float *beta, float eps)
{
    float mean, var;
    attn_row_moments(x, n, &mean, &var);
    float rstd = 1.0f / sqrtf(var + eps);
    float scale = rstd, bias = -rstd * mean;
    for (int64_t j = 0; j < n; j++)
        y[j] = fmaf(fmaf(x[j], scale, bias), gamma ? gamma[j] : 1.0f, beta ? beta[j] : 0.0f);
}

attn_tensor *attn_layer_norm(const attn_tensor *x, int nnorm, const attn_tensor *weight, const attn_tensor *bias,
                             double eps, attn_error *err)
{
    char a[160];
    if (nnorm < 1 || nnorm > x->ndim)
        return attn_fail(err, "layer_norm: normalized_shape must name 1 to %d trailing dims of the input %s, "
                              "got %d dims", x->ndim, attn_shape_str(x, a, sizeof a), nnorm);
    const int64_t *norm_shape = x->shape + (x->ndim - nnorm);
    if (attn_check_float("layer_norm", "the input", x, err) ||
        (weight && attn_check_float("layer_norm", "weight", weight, err)) ||
        (bias && attn_check_float("layer_norm", "bias", bias, err)))
        return NULL;
    if (check_affine("weight", weight, nnorm, norm_shape, err) || check_affine("bias", bias, nnorm, norm_shape, err))
        return NULL;
    if (!isfinite(eps) || eps < 0)
        return attn_fail(err, "layer_norm: eps must be a finite number >= 0, got %g", eps);
    int64_t n = 1;
    for (int d = 0; d < nnorm; d++)
        n *= norm_shape[d];
    attn_tensor *out = attn_empty("layer_norm", x->ndim, x->shape, ATTN_FLOAT32, err);
    if (!out || attn_numel(x) == 0)
        return out;
    attn_tensor *cx = attn_contiguous(x, err);
    attn_tensor *cw = cx && weight ? attn_contiguous(weight, err) : NULL;
    attn_tensor *cb = cx && bias ? attn_contiguous(bias, err) : NULL;
    if (!cx || (weight && !cw) || (bias && !cb)) {
        attn_free(out), attn_free(cx), attn_free(cw), attn_free(cb);
        return NULL;
    }
    const float *in = cx->storage->data + cx->offset;
    const float *gamma = cw ? cw->storage->data + cw->offset : NULL;
    const float *beta = cb ? cb->storage->data + cb->offset : NULL;
    int64_t rows = attn_numel(x) / n;
    for (int64_t r = 0; r < rows; r++) {
        if ((r & 0xFF) == 0 && attn_interrupt_requested) {
            attn_free(out), attn_free(cx), attn_free(cw), attn_free(cb);
            return attn_interrupted(err);
        }
        normalize_row(in + r * n, out->storage->data + r * n, n, gamma, beta, (float)eps);
    }
    attn_free(cx), attn_free(cw), attn_free(cb);
    return out;
}

/* ---- layer_norm's backward ---------------------------------------------------------------------- */

/* LayerNormBackwardKernelImplInternal (layer_norm_kernel.cpp, PyTorch 1.13, float, AVX2, one thread), as
 * GCC compiled it: Vectorized<float>'s * and + are plain vector arithmetic there, so a product feeding a
 * sum became one fused multiply-add. Per row, with a = rstd and the row's mean as the forward computed them
 * (RowwiseMoments, not a second mean of the row: that was attn's old, Lua-side backward, off by up to
 * 1.9e-6 in x.grad and 2.4e-7 in weight.grad):
 *   ds = Σ dy·x·γ, db = Σ dy·γ      lane-wise over 8 lanes: acc = fma(dy·x, γ, acc), acc = fma(dy, γ, acc)
 *                                   (no weight: fma(dy, x, acc) and plain sums), then the horizontal order
 *   b  = fma(db, mean, -ds) · a · a · a · (1/N)
 *   c  = fma(-b, mean, -(db · a · (1/N)))
 *   dx = fma(b, x, (a·dy)·γ) + c    (no weight: fma(b, x, a·dy) + c)
 *   dγ += fma(dy, fma(a, x, -a·mean), dγ) and dβ += dy, row after row, from 0
 * Checked against Debian's torch on 30 shapes (1 to 768 numbers a row, with and without weights): every bit
 * equal; tests/data/torch holds the cases the tests compare. */

/* map_reduce_all(map, +) over n numbers where map is p[i]·q[i] (r NULL) or p[i]·q[i]·r[i] (q NULL: p[i]),
 * with the lane accumulation fused as above; fewer than 8 numbers are added in order, unfused. */
static float fused_reduce(const float *p, const float *q, const float *r, int64_t n)
{
#define MAPPED(i) (q ? (r ? (p[i] * q[i]) * r[i] : p[i] * q[i]) : p[i])
#define ACCUMULATE(acc, i) (q ? (r ? fmaf(p[i] * q[i], r[i], acc) : fmaf(p[i], q[i], acc)) : acc + p[i])
    if (n < LANES) {
        float acc = MAPPED(0);
        for (int64_t i = 1; i < n; i++)
            acc = acc + MAPPED(i);
        return acc;
    }
    float acc[LANES], w[LANES], v[LANES];
    for (int l = 0; l < LANES; l++)
        acc[l] = MAPPED(l);
    int64_t d = LANES;
    for (; d < n - n % LANES; d += LANES)
        for (int l = 0; l < LANES; l++)
            acc[l] = ACCUMULATE(acc[l], d + l);
    for (int l = 0; l < n - d; l++)
        acc[l] = ACCUMULATE(acc[l], d + l);
#undef MAPPED
#undef ACCUMULATE
    for (int l = 0; l < LANES; l++) /* VecReduceAllSIMD: lane i with i^4, then i^2, then i^1 */
        w[l] = acc[l] + acc[l ^ 4];
    for (int l = 0; l < LANES; l++)
        v[l] = w[l] + w[l ^ 2];
    return v[0] + v[1];
}

static void backward_row(const float *x, const float *dy, float *dx, int64_t n, const float *gamma, float eps,
                         float *dgamma, float *dbeta)
{
    float mean, var;
    attn_row_moments(x, n, &mean, &var);
    float a = 1.0f / sqrtf(var + eps), scale = 1.0f / (float)n;
    if (dgamma) {
        float shift = -a * mean;
        for (int64_t j = 0; j < n; j++) {
            dgamma[j] = fmaf(dy[j], fmaf(a, x[j], shift), dgamma[j]);
            dbeta[j] = dbeta[j] + dy[j];
        }
    }
    float ds = gamma ? fused_reduce(dy, x, gamma, n) : fused_reduce(dy, x, NULL, n);
    float db = gamma ? fused_reduce(dy, gamma, NULL, n) : fused_reduce(dy, NULL, NULL, n);
    float b = fmaf(db, mean, -ds) * a * a * a * scale;
    float c = fmaf(-b, mean, -(db * a * scale));
    for (int64_t j = 0; j < n; j++)
        dx[j] = fmaf(b, x[j], gamma ? (a * dy[j]) * gamma[j] : a * dy[j]) + c;
}

int attn_layer_norm_backward(const attn_tensor *grad, const attn_tensor *x, int nnorm, const attn_tensor *weight,
                             double eps, attn_tensor **dx, attn_tensor **dweight, attn_tensor **dbias, attn_error *err)
{
    *dx = *dweight = *dbias = NULL;
    char a[160], b[160];
    if (nnorm < 1 || nnorm > x->ndim || grad->ndim != x->ndim ||
        memcmp(grad->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim) != 0)
        return attn_fail(err, "layer_norm_backward: the gradient %s does not match the input %s",
                         attn_shape_str(grad, a, sizeof a), attn_shape_str(x, b, sizeof b)), -1;
    if (attn_check_float("layer_norm_backward", "the input", x, err) ||
        attn_check_float("layer_norm_backward", "the gradient", grad, err) ||
        (weight && attn_check_float("layer_norm_backward", "weight", weight, err)) ||
        check_affine("weight", weight, nnorm, x->shape + (x->ndim - nnorm), err))
        return -1;
    int64_t n = 1;
    for (int d = x->ndim - nnorm; d < x->ndim; d++)
        n *= x->shape[d];
    attn_tensor *cx = attn_contiguous(x, err);
    attn_tensor *cg = cx ? attn_contiguous(grad, err) : NULL;
    attn_tensor *cw = cg && weight ? attn_contiguous(weight, err) : NULL;
    *dx = cg && (!weight || cw) ? attn_empty("layer_norm_backward", x->ndim, x->shape, ATTN_FLOAT32, err) : NULL;
    if (*dx && weight) {
        *dweight = attn_full("layer_norm_backward", weight->ndim, weight->shape, 0.0f, err);
        *dbias = *dweight ? attn_full("layer_norm_backward", weight->ndim, weight->shape, 0.0f, err) : NULL;
    }
    int failed = !*dx || (weight && !*dbias);
    int64_t rows = n ? attn_numel(x) / n : 0;
    for (int64_t r = 0; r < rows && !failed; r++) {
        if ((r & 0xFF) == 0 && attn_interrupt_requested) {
            attn_interrupted(err);
            failed = 1;
            break;
        }
        backward_row(cx->storage->data + cx->offset + r * n, cg->storage->data + cg->offset + r * n,
                     (*dx)->storage->data + r * n, n, cw ? cw->storage->data + cw->offset : NULL, (float)eps,
                     weight ? (*dweight)->storage->data : NULL, weight ? (*dbias)->storage->data : NULL);
    }
    attn_free(cx), attn_free(cg), attn_free(cw);
    if (failed) {
        attn_free(*dx), attn_free(*dweight), attn_free(*dbias);
        *dx = *dweight = *dbias = NULL;
        return -1;
    }
    return 0;
}

/* ---- embedding ------------------------------------------------------------------------------ */

attn_tensor *attn_embedding(const attn_tensor *weight, const attn_tensor *indices, int64_t first_id,
                            attn_error *err)
{
    char a[160];
    if (weight->ndim != 2)
        return attn_fail(err, "embedding: weight must be 2-D [num_embeddings, embedding_dim], got %s",
                         attn_shape_str(weight, a, sizeof a));
    if (attn_check_float("embedding", "weight", weight, err))
        return NULL;
    if (indices->dtype != ATTN_INT64)
        return attn_fail(err, "embedding: ids must be an int64 tensor, got %s (PyTorch refuses them too); "
                              "convert with :long()", attn_dtype_name(indices->dtype));
    if (indices->ndim + 1 > ATTN_MAX_DIMS)
        return attn_fail(err, "embedding: indices have %d dims; at most %d are supported", indices->ndim,
                         ATTN_MAX_DIMS - 1);
    int64_t rows = weight->shape[0], dim = weight->shape[1], count = attn_numel(indices);
    int64_t shape[ATTN_MAX_DIMS];
    memcpy(shape, indices->shape, sizeof(int64_t) * (size_t)indices->ndim);
    shape[indices->ndim] = dim;
    attn_tensor *out = attn_empty("embedding", indices->ndim + 1, shape, ATTN_FLOAT32, err);
    if (!out)
        return NULL;
    int64_t index[ATTN_MAX_DIMS] = {0};
    for (int64_t k = 0; k < count; k++) {
        if ((k & 0xFFF) == 0 && attn_interrupt_requested) {
            attn_free(out);
            return attn_interrupted(err);
        }
        int64_t id = attn_get_flat_i64(indices, k);
        /* id - first_id in unsigned arithmetic: an id near INT64_MIN must not overflow */
        uint64_t row = (uint64_t)id - (uint64_t)first_id;
        if (row >= (uint64_t)rows) {
            attn_free(out);
            if (rows == 0)
                return attn_fail(err, "embedding: index %lld is out of range: the embedding has no rows", (long long)id);
            return attn_fail(err, "embedding: index %lld is out of range for an embedding of %lld rows (ids %lld to "
                                  "%lld)", (long long)id, (long long)rows, (long long)first_id,
                             (long long)(first_id + rows - 1));
        }
        index[0] = (int64_t)row;
        for (int64_t j = 0; j < dim; j++) {
            index[1] = j;
            out->storage->data[k * dim + j] = *attn_ptr(weight, index);
        }
    }
    return out;
}
