/* tensor.c — creation, lifetime and inspection of attn tensors (see tensor.h). Storage is in storage.c,
 * copies and fills in copy.c, cat/stack in join.c, views in view.c. */
#include "storage.h"
#include "size.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile sig_atomic_t attn_interrupt_requested = 0;

static attn_translator translator; /* NULL: messages stay English */

void attn_set_translator(attn_translator f)
{
    translator = f;
}

const char *attn_tr(const char *msgid)
{
    const char *s = translator ? translator(msgid) : NULL;
    return s ? s : msgid;
}

void *attn_fail(attn_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, attn_tr(fmt), ap);
        va_end(ap);
    }
    return NULL;
}

/* "interrupted" is a signal, not a sentence: the bindings, the REPL and --verify recognise Ctrl-C by
 * these exact words (lt_raise, errors.is_interrupt), so it is never translated here. */
void *attn_interrupted(attn_error *err)
{
    if (err) snprintf(err->msg, sizeof err->msg, "%s", "interrupted");
    return NULL;
}

/* ---- creation and lifetime ----------------------------------------------------------------- */

/* Row-major strides. A size-0 dim counts as 1, so every stride fits (size.h's invariant); an empty
 * tensor's strides are never used to reach an element. */
static void set_contiguous_strides(attn_tensor *t)
{
    int64_t stride = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        t->stride[d] = stride;
        stride *= t->shape[d] > 0 ? t->shape[d] : 1;
    }
}

attn_tensor *attn_empty(const char *fn, int ndim, const int64_t *shape, attn_dtype dtype, attn_error *err)
{
    if (ndim < 0 || ndim > ATTN_MAX_DIMS)
        return attn_fail(err, "%s: %d dimensions requested, attn supports at most %d", fn, ndim, ATTN_MAX_DIMS);
    double want = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0)
            return attn_fail(err, "%s: size %d must be non-negative, got %lld", fn, d + 1, (long long)shape[d]);
        want *= (double)shape[d];
    }
    if (!attn_shape_fits(ndim, shape)) {
        if (want > 0) { /* attn_storage_new words it: "1e30 elements (...) is more than this machine can hold" */
            attn_storage_new(fn, 0, want, attn_dtype_size(dtype), err);
            return NULL;
        }
        char text[160];
        attn_tensor tmp = {.ndim = ndim};
        memcpy(tmp.shape, shape, sizeof(int64_t) * (size_t)ndim);
        return attn_fail(err, "%s: the shape %s is too large: the product of its sizes does not fit in a 64-bit "
                              "integer", fn, attn_shape_str(&tmp, text, sizeof text));
    }
    int64_t numel = attn_shape_numel(ndim, shape);
    attn_tensor *t = calloc(1, sizeof *t);
    if (!t)
        return attn_fail(err, "%s: out of memory", fn);
    t->storage = attn_storage_new(fn, numel, want, attn_dtype_size(dtype), err);
    if (!t->storage) {
        free(t);
        return NULL;
    }
    t->ndim = ndim;
    for (int d = 0; d < ndim; d++)
        t->shape[d] = shape[d];
    set_contiguous_strides(t);
    t->dtype = dtype;
    return t;
}

attn_tensor *attn_full(const char *fn, int ndim, const int64_t *shape, float value, attn_error *err)
{
    attn_tensor *t = attn_empty(fn, ndim, shape, ATTN_FLOAT32, err);
    if (t && attn_fill_(t, value, err)) {
        attn_free(t);
        return NULL;
    }
    return t;
}

attn_tensor *attn_scalar(float value, attn_error *err)
{
    return attn_full("tensor", 0, NULL, value, err);
}

attn_tensor *attn_arange(double start, double end, double step, attn_error *err)
{
    if (step == 0 || isnan(step))
        return attn_fail(err, "arange: step must be nonzero, got %g", step);
    if (!isfinite(start) || !isfinite(end))
        return attn_fail(err, "arange: start and end must be finite, got %g and %g", start, end);
    if ((step > 0 && end < start) || (step < 0 && end > start))
        return attn_fail(err, "arange: upper bound and larger bound inconsistent with step sign "
                              "(start %g, end %g, step %g)", start, end, step);
    double count = ceil((end - start) / step);
    int64_t n = (int64_t)(count > 9e18 ? 9e18 : count);
    attn_tensor *t = attn_empty("arange", 1, &n, ATTN_FLOAT32, err);
    if (!t)
        return NULL;
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i)) {
            attn_free(t);
            return attn_interrupted(err);
        }
        t->storage->data[i] = (float)(start + (double)i * step);
    }
    return t;
}

attn_tensor *attn_eye(int64_t n, int64_t m, attn_error *err)
{
    int64_t shape[2] = {n, m};
    attn_tensor *t = attn_full("eye", 2, shape, 0.0f, err);
    if (!t)
        return NULL;
    for (int64_t i = 0; i < n && i < m; i++)
        t->storage->data[i * m + i] = 1.0f;
    return t;
}

void attn_free(attn_tensor *t)
{
    if (!t)
        return;
    attn_storage_release(t->storage);
    free(t);
}

/* ---- inspection ---------------------------------------------------------------------------- */

int64_t attn_numel(const attn_tensor *t)
{
    return attn_shape_numel(t->ndim, t->shape);
}

int attn_is_contiguous(const attn_tensor *t)
{
    int64_t expected = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] != 1 && t->stride[d] != expected)
            return 0;
        expected *= t->shape[d];
    }
    return 1;
}

int64_t attn_offset_of(const attn_tensor *t, const int64_t *index)
{
    int64_t at = t->offset;
    for (int d = 0; d < t->ndim; d++)
        at += index[d] * t->stride[d];
    return at;
}

float *attn_ptr(const attn_tensor *t, const int64_t *index)
{
    return t->storage->data + attn_offset_of(t, index);
}

int64_t attn_flat_offset(const attn_tensor *t, int64_t i)
{
    int64_t at = t->offset;
    for (int d = t->ndim - 1; d >= 0; d--) {
        at += (i % t->shape[d]) * t->stride[d];
        i /= t->shape[d];
    }
    return at;
}

float attn_get_flat(const attn_tensor *t, int64_t i)
{
    int64_t at = attn_flat_offset(t, i);
    return t->dtype == ATTN_INT64 ? (float)t->storage->i64[at] : t->storage->data[at];
}

double attn_get_flat_f64(const attn_tensor *t, int64_t i)
{
    int64_t at = attn_flat_offset(t, i);
    return t->dtype == ATTN_INT64 ? (double)t->storage->i64[at] : (double)t->storage->data[at];
}

int64_t attn_get_flat_i64(const attn_tensor *t, int64_t i)
{
    int64_t at = attn_flat_offset(t, i);
    return t->dtype == ATTN_INT64 ? t->storage->i64[at] : attn_f64_to_i64(t->storage->data[at]);
}

char *attn_shape_str(const attn_tensor *t, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < t->ndim && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, d ? ", %lld" : "%lld", (long long)t->shape[d]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}
