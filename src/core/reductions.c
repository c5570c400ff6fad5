/* reductions.c — sum, mean, max/min (with their indices): over all elements or along one dim.
 *
 * float32 sums go through attn_reduce_sum (reduce.c), which adds in exactly PyTorch's order: the book's
 * "Sum: tensor(1.0000)" vs "Sum: tensor(1.)" depends on the last bit. int64 and bool tensors sum to int64
 * (exactly, wrapping on overflow; the order does not matter then), as torch.sum does. Indices are int64
 * and 0-based here; the bindings add 1. */
#include "ops.h"
#include "reduce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The reduced shape: dim removed (or kept as 1). */
static int reduced_shape(const attn_tensor *t, int dim, int keepdim, int64_t *shape)
{
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (d != dim)
            shape[n++] = t->shape[d];
        else if (keepdim)
            shape[n++] = 1;
    }
    return n;
}

/* Moves dim to the end of a contiguous copy so every reduction is over contiguous runs. */
static attn_tensor *dim_last_contiguous(const attn_tensor *t, int dim, attn_error *err)
{
    attn_tensor *moved = attn_dim_last(t, dim, err);
    attn_tensor *c = moved ? attn_contiguous(moved, err) : NULL;
    attn_free(moved);
    return c;
}

/* The int64 sum of an int64 or bool tensor into out (one value per row of the reduced dim). */
static attn_tensor *sum_i64(const attn_tensor *t, int dim, attn_tensor *out, attn_error *err)
{
    attn_tensor *c = dim < 0 ? attn_contiguous(t, err) : dim_last_contiguous(t, dim, err);
    if (!c) {
        attn_free(out);
        return NULL;
    }
    int64_t rows = attn_numel(out), len = rows > 0 ? attn_numel(t) / rows : 0, done = 0;
    for (int64_t r = 0; r < rows; r++) {
        uint64_t acc = 0;
        for (int64_t i = 0; i < len; i++) {
            if (attn_poll(done++)) {
                attn_free(c);
                attn_free(out);
                return attn_interrupted(err);
            }
            acc += t->dtype == ATTN_INT64 ? (uint64_t)c->storage->i64[c->offset + r * len + i]
                                          : (uint64_t)(c->storage->data[c->offset + r * len + i] != 0.0f);
        }
        out->storage->i64[r] = (int64_t)acc;
    }
    attn_free(c);
    return out;
}

/* mean is sum / n, as PyTorch's CPU mean is. */
static attn_tensor *reduce_sum(const char *fn, const attn_tensor *t, int dim, int keepdim, int mean,
                               attn_error *err)
{
    if (dim >= t->ndim || (dim >= 0 && t->ndim == 0))
        return attn_fail(err, "%s: dim %d is out of range for a %d-D tensor", fn, dim + 1, t->ndim);
    if (mean && t->dtype != ATTN_FLOAT32)
        return attn_fail(err, "mean: expected a floating-point tensor, got %s (PyTorch cannot infer the mean's "
                              "dtype either); convert it with :float()", attn_dtype_name(t->dtype));
    int64_t shape[ATTN_MAX_DIMS];
    int ndim = dim < 0 ? 0 : reduced_shape(t, dim, keepdim, shape);
    attn_dtype dtype = t->dtype == ATTN_FLOAT32 ? ATTN_FLOAT32 : ATTN_INT64;
    attn_tensor *out = attn_empty(fn, ndim, shape, dtype, err);
    if (!out)
        return NULL;
    if (dtype == ATTN_INT64)
        return sum_i64(t, dim, out, err);
    if (attn_reduce_sum(t->storage->data + t->offset, t->ndim, t->shape, t->stride, dim, out->storage->data)) {
        attn_free(out);
        return attn_interrupted(err);
    }
    if (mean) {
        float len = (float)(dim < 0 ? attn_numel(t) : t->shape[dim]);
        int64_t n = attn_numel(out);
        for (int64_t r = 0; r < n; r++)
            out->storage->data[r] /= len;
    }
    return out;
}

attn_tensor *attn_sum(const attn_tensor *t, int dim, int keepdim, attn_error *err)
{
    return reduce_sum("sum", t, dim, keepdim, 0, err);
}

attn_tensor *attn_mean(const attn_tensor *t, int dim, int keepdim, attn_error *err)
{
    return reduce_sum("mean", t, dim, keepdim, 1, err);
}

/* The position of the first maximum (minimum) of p[0..len); a NaN wins, as in PyTorch. -1 when
 * interrupted (a row can be all of a 2^40-element tensor). */
static int64_t best_f32(const float *p, int64_t len, int want_min)
{
    int64_t best = 0;
    for (int64_t i = 1; i < len && !isnan(p[best]); i++) {
        if (attn_poll(i))
            return -1;
        if (isnan(p[i]) || (want_min ? p[i] < p[best] : p[i] > p[best]))
            best = i;
    }
    return best;
}

static int64_t best_i64(const int64_t *p, int64_t len, int want_min)
{
    int64_t best = 0;
    for (int64_t i = 1; i < len; i++) {
        if (attn_poll(i))
            return -1;
        if (want_min ? p[i] < p[best] : p[i] > p[best])
            best = i;
    }
    return best;
}

attn_tensor *attn_max(const char *fn, const attn_tensor *t, int dim, int keepdim, int want_min,
                      attn_tensor **indices, attn_error *err)
{
    if (indices)
        *indices = NULL;
    if (dim >= t->ndim || (dim >= 0 && t->ndim == 0))
        return attn_fail(err, "%s: dim %d is out of range for a %d-D tensor", fn, dim + 1, t->ndim);
    int64_t len = dim < 0 ? attn_numel(t) : t->shape[dim];
    if (len == 0)
        return attn_fail(err, "%s: cannot reduce an empty dimension (there is no %s of nothing)", fn,
                         want_min ? attn_tr("minimum") : attn_tr("maximum"));
    attn_tensor *c = dim < 0 ? attn_contiguous(t, err) : dim_last_contiguous(t, dim, err);
    if (!c)
        return NULL;
    int64_t shape[ATTN_MAX_DIMS];
    int ndim = dim < 0 ? 0 : reduced_shape(t, dim, keepdim, shape);
    attn_tensor *out = attn_empty(fn, ndim, shape, t->dtype, err);
    attn_tensor *idx = out && indices && dim >= 0 ? attn_empty(fn, ndim, shape, ATTN_INT64, err) : NULL;
    if (!out || (indices && dim >= 0 && !idx)) {
        attn_free(c);
        attn_free(out);
        return NULL;
    }
    int64_t rows = attn_numel(out);
    for (int64_t r = 0; r < rows; r++) {
        int64_t best = attn_interrupt_requested ? -1 /* short rows are not polled inside */
                       : t->dtype == ATTN_INT64 ? best_i64(c->storage->i64 + c->offset + r * len, len, want_min)
                                                : best_f32(c->storage->data + c->offset + r * len, len, want_min);
        if (best < 0) {
            attn_free(c);
            attn_free(out);
            attn_free(idx);
            return attn_interrupted(err);
        }
        if (t->dtype == ATTN_INT64)
            out->storage->i64[r] = c->storage->i64[c->offset + r * len + best];
        else
            out->storage->data[r] = c->storage->data[c->offset + r * len + best];
        if (idx)
            idx->storage->i64[r] = best;
    }
    attn_free(c);
    if (indices)
        *indices = idx;
    return out;
}

