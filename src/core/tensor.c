/* tensor.c — storage and its allocator, creation, lifetime, inspection and copies of attn tensors
 * (see tensor.h). Views are in view.c. */
#include "tensor.h"
#include "size.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t attn_interrupt_requested = 0;

void *attn_fail(attn_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return NULL;
}

void *attn_interrupted(attn_error *err)
{
    return attn_fail(err, "interrupted");
}

/* ---- memory -------------------------------------------------------------------------------- */

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

static attn_alloc_fn alloc_fn = default_alloc;
static void *alloc_ud = NULL;
static int64_t live_bytes = 0;
static int64_t new_bytes = 0;

void attn_set_allocator(attn_alloc_fn fn, void *ud)
{
    alloc_fn = fn ? fn : default_alloc;
    alloc_ud = fn ? ud : NULL;
}

int64_t attn_live_bytes(void) { return live_bytes; }

int64_t attn_take_new_bytes(void)
{
    int64_t n = new_bytes;
    new_bytes = 0;
    return n;
}

/* "1000000" below a million, "1e12" / "1.5e9" above: how a person writes a huge count. */
static void human_count(double n, char *buf, size_t size)
{
    if (n < 1e6) {
        snprintf(buf, size, "%.0f", n);
        return;
    }
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%.3g", n);
    char *e = strchr(tmp, 'e');
    if (e && e[1] == '+') {
        char *digits = e + 2;
        while (*digits == '0' && digits[1])
            digits++;
        snprintf(buf, size, "%.*se%s", (int)(e - tmp), tmp, digits);
    } else {
        snprintf(buf, size, "%s", tmp);
    }
}

/* "4 TB", "381 MB": decimal units, three significant digits. */
static void human_bytes(double b, char *buf, size_t size)
{
    static const char *units[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    int u = 0;
    while (b >= 1000 && u < 8) {
        b /= 1000;
        u++;
    }
    snprintf(buf, size, "%.3g %s", b, units[u]);
}

static double machine_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 1e15; /* unknown: let the allocation itself decide */
    return (double)pages * (double)page;
}

/* Memory the kernel can still hand out (MemAvailable), or -1 if unknown. Linux overcommits: a huge
 * malloc succeeds and the process is killed later when the pages are touched, so big allocations are
 * checked against this first. */
static double available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[128];
        double kb = -1;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
                break;
        fclose(f);
        if (kb >= 0)
            return kb * 1024.0;
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : -1;
}

#define BIG_ALLOCATION (256.0 * 1024 * 1024) /* below this, the allocator's own failure is enough */

/* A storage of numel elements of elem_size bytes (want: the element count as a double, which may be
 * beyond int64 for an absurd shape). */
static attn_storage *storage_new(const char *fn, int64_t numel, double want, size_t elem_size, attn_error *err)
{
    char count[48], bytes[48], avail_text[48];
    double nbytes = want * (double)elem_size;
    if (want > (double)INT64_MAX / 8 || nbytes > machine_bytes()) {
        human_count(want, count, sizeof count);
        human_bytes(nbytes, bytes, sizeof bytes);
        return attn_fail(err, "%s: %s elements (%s) is more than this machine can hold", fn, count, bytes);
    }
    if (nbytes >= BIG_ALLOCATION) {
        double avail = available_bytes();
        if (avail >= 0 && nbytes > 0.5 * avail) {
            human_count(want, count, sizeof count);
            human_bytes(nbytes, bytes, sizeof bytes);
            human_bytes(avail, avail_text, sizeof avail_text);
            return attn_fail(err, "%s: %s elements (%s) is more than half the memory available now (%s)", fn,
                             count, bytes, avail_text);
        }
    }
    attn_storage *s = malloc(sizeof *s);
    if (!s)
        return attn_fail(err, "%s: out of memory", fn);
    size_t size = (size_t)(numel > 0 ? numel : 1) * elem_size;
    void *block = alloc_fn(alloc_ud, NULL, 0, size);
    if (!block) {
        free(s);
        human_bytes((double)size, bytes, sizeof bytes);
        return attn_fail(err, "%s: cannot allocate %s (out of memory)", fn, bytes);
    }
    s->data = elem_size == sizeof(int64_t) ? NULL : block;
    s->i64 = elem_size == sizeof(int64_t) ? block : NULL;
    s->numel = numel;
    s->refcount = 1;
    live_bytes += (int64_t)size;
    new_bytes += (int64_t)size;
    return s;
}

static void storage_release(attn_storage *s)
{
    if (!s || --s->refcount > 0)
        return;
    size_t size = (size_t)(s->numel > 0 ? s->numel : 1) * (s->i64 ? sizeof(int64_t) : sizeof(float));
    alloc_fn(alloc_ud, s->i64 ? (void *)s->i64 : (void *)s->data, size, 0);
    live_bytes -= (int64_t)size;
    free(s);
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
        if (want > 0) { /* storage_new words it: "1e30 elements (...) is more than this machine can hold" */
            storage_new(fn, 0, want, attn_dtype_size(dtype), err);
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
    t->storage = storage_new(fn, numel, want, attn_dtype_size(dtype), err);
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
    storage_release(t->storage);
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

/* Calls visit(at, ctx) with the storage offset of every element, in row-major order. -1 when
 * interrupted. */
static int for_each_offset(const attn_tensor *t, void (*visit)(int64_t at, void *ctx), void *ctx)
{
    int64_t n = attn_numel(t);
    if (n == 0)
        return 0;
    int64_t index[ATTN_MAX_DIMS] = {0};
    int64_t at = t->offset;
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return -1;
        visit(at, ctx);
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++index[d] < t->shape[d]) {
                at += t->stride[d];
                break;
            }
            at -= (t->shape[d] - 1) * t->stride[d];
            index[d] = 0;
        }
    }
    return 0;
}

/* memcpy of n elements of `size` bytes in pieces of 16 MB, checking for Ctrl-C between them. */
static int copy_pieces(void *to, const void *from, int64_t n, size_t size)
{
    const int64_t piece = ((int64_t)1 << 24) / (int64_t)size;
    for (int64_t i = 0; i < n; i += piece) {
        if (attn_interrupt_requested)
            return -1;
        memcpy((char *)to + i * (int64_t)size, (const char *)from + i * (int64_t)size,
               (size_t)(n - i < piece ? n - i : piece) * size);
    }
    return 0;
}

/* Gathering elements in row-major order, one visitor per pair of storage types. */
struct copy_out_ctx {
    const attn_storage *s;
    float *out;
    int64_t *out_i64;
};

static void copy_out_visit(int64_t at, void *ctx)
{
    struct copy_out_ctx *c = ctx;
    *c->out++ = c->s->data[at];
}

static void copy_out_i64_as_float_visit(int64_t at, void *ctx)
{
    struct copy_out_ctx *c = ctx;
    *c->out++ = (float)c->s->i64[at];
}

static void copy_out_i64_visit(int64_t at, void *ctx)
{
    struct copy_out_ctx *c = ctx;
    *c->out_i64++ = c->s->i64[at];
}

static void copy_out_float_as_i64_visit(int64_t at, void *ctx)
{
    struct copy_out_ctx *c = ctx;
    *c->out_i64++ = attn_f64_to_i64(c->s->data[at]);
}

int attn_copy_out(const attn_tensor *t, float *out)
{
    struct copy_out_ctx c = {t->storage, out, NULL};
    if (t->dtype == ATTN_INT64)
        return for_each_offset(t, copy_out_i64_as_float_visit, &c);
    if (attn_is_contiguous(t))
        return copy_pieces(out, t->storage->data + t->offset, attn_numel(t), sizeof(float));
    return for_each_offset(t, copy_out_visit, &c);
}

int attn_copy_out_i64(const attn_tensor *t, int64_t *out)
{
    struct copy_out_ctx c = {t->storage, NULL, out};
    if (t->dtype != ATTN_INT64)
        return for_each_offset(t, copy_out_float_as_i64_visit, &c);
    if (attn_is_contiguous(t))
        return copy_pieces(out, t->storage->i64 + t->offset, attn_numel(t), sizeof(int64_t));
    return for_each_offset(t, copy_out_i64_visit, &c);
}

/* ---- copies -------------------------------------------------------------------------------- */

attn_tensor *attn_clone(const attn_tensor *t, attn_error *err)
{
    attn_tensor *c = attn_empty("clone", t->ndim, t->shape, t->dtype, err);
    if (c && (t->dtype == ATTN_INT64 ? attn_copy_out_i64(t, c->storage->i64) : attn_copy_out(t, c->storage->data))) {
        attn_free(c);
        return attn_interrupted(err);
    }
    return c;
}

attn_tensor *attn_contiguous(const attn_tensor *t, attn_error *err)
{
    return attn_is_contiguous(t) ? attn_alias(t, err) : attn_clone(t, err);
}

attn_tensor *attn_to_dtype(const attn_tensor *t, attn_dtype dtype, attn_error *err)
{
    if (t->dtype == dtype)
        return attn_alias(t, err);
    attn_tensor *c = attn_empty("to", t->ndim, t->shape, dtype, err);
    if (!c)
        return NULL;
    int64_t n = attn_numel(c);
    int stopped = dtype == ATTN_INT64 ? attn_copy_out_i64(t, c->storage->i64) : attn_copy_out(t, c->storage->data);
    for (int64_t i = 0; i < n && !stopped && dtype == ATTN_BOOL; i++) {
        if (attn_poll(i))
            stopped = 1;
        else
            c->storage->data[i] = c->storage->data[i] != 0.0f ? 1.0f : 0.0f;
    }
    if (stopped) {
        attn_free(c);
        return attn_interrupted(err);
    }
    return c;
}

int attn_copy_(attn_tensor *dst, const attn_tensor *src, attn_error *err)
{
    attn_tensor *b = attn_expand(src, dst->ndim, dst->shape, err);
    if (!b) {
        char a[160], c[160];
        attn_fail(err, "copy: cannot assign a %s tensor to a %s slot", attn_shape_str(src, a, sizeof a),
                  attn_shape_str(dst, c, sizeof c));
        return -1;
    }
    /* Copy through a buffer in dst's dtype: src and dst may overlap (t[1] = t[2] on the same storage). */
    attn_tensor *tmp = attn_to_dtype(b, dst->dtype, err);
    attn_tensor *c = tmp ? attn_contiguous(tmp, err) : NULL;
    attn_free(tmp);
    attn_free(b);
    if (!c) {
        attn_fail(err, "copy: out of memory");
        return -1;
    }
    int64_t n = attn_numel(dst), index[ATTN_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i)) { /* dst is left partly written, as a PyTorch copy_ stopped by Ctrl-C would be */
            attn_free(c);
            attn_interrupted(err);
            return -1;
        }
        int64_t at = attn_offset_of(dst, index);
        if (dst->dtype == ATTN_INT64)
            dst->storage->i64[at] = c->storage->i64[c->offset + i];
        else
            dst->storage->data[at] = c->storage->data[c->offset + i];
        for (int d = dst->ndim - 1; d >= 0; d--) {
            if (++index[d] < dst->shape[d])
                break;
            index[d] = 0;
        }
    }
    attn_free(c);
    return 0;
}

struct fill_ctx {
    attn_storage *s;
    float value;
    int64_t value_i64;
};

static void fill_visit(int64_t at, void *ctx)
{
    struct fill_ctx *c = ctx;
    c->s->data[at] = c->value;
}

static void fill_i64_visit(int64_t at, void *ctx)
{
    struct fill_ctx *c = ctx;
    c->s->i64[at] = c->value_i64;
}

/* Fills t with value, given both as a float (for float32 and bool tensors) and as an int64. -1 when
 * interrupted (err set). */
static int fill_both(attn_tensor *t, float value, int64_t value_i64, attn_error *err)
{
    struct fill_ctx c = {t->storage, t->dtype == ATTN_BOOL ? (float)(value != 0.0f) : value, value_i64};
    if (for_each_offset(t, t->dtype == ATTN_INT64 ? fill_i64_visit : fill_visit, &c)) {
        attn_interrupted(err);
        return -1;
    }
    return 0;
}

int attn_fill_(attn_tensor *t, float value, attn_error *err)
{
    return fill_both(t, value, attn_f64_to_i64(value), err);
}

int attn_fill_number_(const char *fn, attn_tensor *t, attn_number v, attn_error *err)
{
    if (v.dtype == ATTN_FLOAT32) {
        if (t->dtype == ATTN_INT64 && !(v.f >= -0x1p63 && v.f < 0x1p63)) {
            attn_fail(err, "%s: value %g cannot be converted to int64 (the tensor's dtype)", fn, v.f);
            return -1;
        }
        return fill_both(t, (float)v.f, attn_f64_to_i64(v.f), err);
    }
    return fill_both(t, (float)v.i, v.i, err);
}

/* Checks that the n tensors can be joined along dim (cat) and gives the result's shape. */
static int join_shape(const char *fn, attn_tensor *const *ts, int n, int dim, int stacking, int *ndim,
                      int64_t *shape, attn_error *err)
{
    char a[160], b[160];
    if (n < 1) {
        attn_fail(err, "%s: expected a non-empty list of tensors", fn);
        return -1;
    }
    const attn_tensor *first = ts[0];
    int rank = first->ndim + stacking;
    if (rank > ATTN_MAX_DIMS) {
        attn_fail(err, "%s: attn supports at most %d dimensions", fn, ATTN_MAX_DIMS);
        return -1;
    }
    if (dim < 0 || dim >= rank || (!stacking && first->ndim == 0)) {
        attn_fail(err, "%s: dim %d is out of range for %d-D results", fn, dim + 1, rank);
        return -1;
    }
    for (int i = 1; i < n; i++) {
        const attn_tensor *t = ts[i];
        int same = t->ndim == first->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = t->shape[d] == first->shape[d] || (!stacking && d == dim);
        if (!same) {
            attn_fail(err, "%s: tensor %d has shape %s but tensor 1 has shape %s%s", fn, i + 1,
                      attn_shape_str(t, a, sizeof a), attn_shape_str(first, b, sizeof b),
                      stacking ? " (stack needs equal shapes)" : " (all dims but the joined one must match)");
            return -1;
        }
    }
    *ndim = rank;
    for (int d = 0, s = 0; d < rank; d++) {
        if (stacking && d == dim)
            shape[d] = n;
        else
            shape[d] = first->shape[s++];
    }
    int overflow = 0;
    if (!stacking) {
        shape[dim] = 0;
        for (int i = 0; i < n && !overflow; i++)
            overflow = attn_size_add(shape[dim], ts[i]->shape[dim], &shape[dim]);
    }
    if (overflow || !attn_shape_fits(rank, shape)) {
        attn_fail(err, "%s: the joined tensor would be too large: the product of its sizes does not fit in a "
                       "64-bit integer", fn);
        return -1;
    }
    return 0;
}

static attn_tensor *join(const char *fn, attn_tensor *const *ts, int n, int dim, int stacking, attn_error *err)
{
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    if (join_shape(fn, ts, n, dim, stacking, &ndim, shape, err))
        return NULL;
    attn_dtype dtype = ts[0]->dtype;
    for (int i = 1; i < n; i++)
        dtype = attn_promote(dtype, ts[i]->dtype);
    attn_tensor *out = attn_empty(fn, ndim, shape, dtype, err);
    if (!out)
        return NULL;
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        int64_t len = stacking ? 1 : ts[i]->shape[dim];
        attn_tensor *slot = attn_narrow(out, dim, at, len, err);
        attn_tensor *src = slot && stacking ? attn_unsqueeze(ts[i], dim, err) : (slot ? attn_alias(ts[i], err) : NULL);
        int bad = !slot || !src || attn_copy_(slot, src, err);
        attn_free(slot);
        attn_free(src);
        if (bad) {
            attn_free(out);
            return NULL;
        }
        at += len;
    }
    return out;
}

attn_tensor *attn_stack(const char *fn, attn_tensor *const *ts, int n, int dim, attn_error *err)
{
    return join(fn, ts, n, dim, 1, err);
}

attn_tensor *attn_cat(const char *fn, attn_tensor *const *ts, int n, int dim, attn_error *err)
{
    return join(fn, ts, n, dim, 0, err);
}
