/* ops.c — element-wise arithmetic with broadcasting, reductions, and the attention stages
 * (tril/triu masks, masked_fill). matmul lives in matmul.c, softmax in softmax.c. */
#include "ops.h"
#include "reduce.h"
#include "vmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- broadcasting -------------------------------------------------------------------------- */

int attn_broadcast_shape(const char *fn, const attn_tensor *a, const attn_tensor *b, int *ndim, int64_t *shape,
                         attn_error *err)
{
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int d = 0; d < n; d++) {
        int da = d - (n - a->ndim), db = d - (n - b->ndim);
        int64_t sa = da >= 0 ? a->shape[da] : 1, sb = db >= 0 ? b->shape[db] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            char as[160], bs[160];
            attn_fail(err, "%s: shapes %s and %s cannot be broadcast (dim %d: %lld vs %lld)", fn,
                      attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs), d + 1, (long long)sa,
                      (long long)sb);
            return -1;
        }
        shape[d] = sa == 1 ? sb : sa;
    }
    *ndim = n;
    return 0;
}

/* Walks the row-major index space of `shape` for up to three operands given as strides, calling
 * row(offsets, inner_len, inner_strides) once per innermost row: the loops below stay flat. */
typedef struct nd_walk {
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    int nops;
    int64_t offset[3];
    int64_t stride[3][ATTN_MAX_DIMS];
} nd_walk;

static void walk_add(nd_walk *w, const attn_tensor *t)
{
    int k = w->nops++;
    w->offset[k] = t->offset;
    int lead = w->ndim - t->ndim;
    for (int d = 0; d < w->ndim; d++) {
        int src = d - lead;
        w->stride[k][d] = (src >= 0 && t->shape[src] != 1) ? t->stride[src] : 0;
    }
}

/* Advances the walk by one innermost row; returns 0 when the walk is complete. */
static int walk_next_row(nd_walk *w, int64_t *index)
{
    for (int d = w->ndim - 2; d >= 0; d--) {
        for (int k = 0; k < w->nops; k++)
            w->offset[k] += w->stride[k][d];
        if (++index[d] < w->shape[d])
            return 1;
        for (int k = 0; k < w->nops; k++)
            w->offset[k] -= w->shape[d] * w->stride[k][d];
        index[d] = 0;
    }
    return 0;
}

static int is_comparison(attn_binop op)
{
    return op >= ATTN_EQ;
}

static float apply_binary(attn_binop op, float x, float y)
{
    switch (op) {
    case ATTN_ADD: return x + y;
    case ATTN_SUB: return x - y;
    case ATTN_MUL: return x * y;
    case ATTN_DIV: return x / y;
    case ATTN_POW: return powf(x, y);
    case ATTN_MAXIMUM: return (isnan(x) || x > y) ? x : y;
    case ATTN_MINIMUM: return (isnan(x) || x < y) ? x : y;
    case ATTN_EQ: return x == y;
    case ATTN_NE: return x != y;
    case ATTN_LT: return x < y;
    case ATTN_LE: return x <= y;
    case ATTN_GT: return x > y;
    case ATTN_GE: return x >= y;
    case ATTN_LOGICAL_AND: return x != 0 && y != 0;
    case ATTN_LOGICAL_OR: return x != 0 || y != 0;
    }
    return 0;
}

static attn_tensor *interrupted(attn_tensor *partial, attn_error *err)
{
    attn_free(partial);
    return attn_fail(err, "interrupted");
}

attn_tensor *attn_binary(const char *fn, attn_binop op, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    if (attn_broadcast_shape(fn, a, b, &ndim, shape, err))
        return NULL;
    attn_dtype dtype = (is_comparison(op) || (a->dtype == ATTN_BOOL && b->dtype == ATTN_BOOL &&
                                              (op == ATTN_MAXIMUM || op == ATTN_MINIMUM)))
                           ? ATTN_BOOL
                           : ATTN_FLOAT32;
    attn_tensor *out = attn_empty(fn, ndim, shape, dtype, err);
    if (!out || attn_numel(out) == 0)
        return out;
    nd_walk w = {.ndim = ndim > 0 ? ndim : 1};
    if (ndim == 0)
        w.shape[0] = 1;
    else
        memcpy(w.shape, shape, sizeof(int64_t) * (size_t)ndim);
    walk_add(&w, a);
    walk_add(&w, b);
    const float *A = a->storage->data, *B = b->storage->data;
    float *O = out->storage->data;
    int64_t inner = w.shape[w.ndim - 1], sa = w.stride[0][w.ndim - 1], sb = w.stride[1][w.ndim - 1];
    int64_t index[ATTN_MAX_DIMS] = {0}, at = 0;
    do {
        if (attn_interrupt_requested)
            return interrupted(out, err);
        const float *pa = A + w.offset[0], *pb = B + w.offset[1];
        for (int64_t j = 0; j < inner; j++)
            O[at++] = apply_binary(op, pa[j * sa], pb[j * sb]);
    } while (walk_next_row(&w, index));
    return out;
}

attn_tensor *attn_binary_scalar(const char *fn, attn_binop op, const attn_tensor *a, double s, int scalar_first,
                                attn_error *err)
{
    /* PyTorch casts a Python number to the tensor's dtype (float32) before the operation. */
    attn_tensor *st = attn_scalar((float)s, err);
    if (!st)
        return NULL;
    attn_tensor *out = scalar_first ? attn_binary(fn, op, st, a, err) : attn_binary(fn, op, a, st, err);
    attn_free(st);
    return out;
}

attn_tensor *attn_where(const attn_tensor *cond, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    int n1, n2;
    int64_t s1[ATTN_MAX_DIMS], s2[ATTN_MAX_DIMS];
    if (attn_broadcast_shape("where", a, b, &n1, s1, err))
        return NULL;
    attn_tensor ab = {.ndim = n1};
    memcpy(ab.shape, s1, sizeof s1);
    if (attn_broadcast_shape("where", cond, &ab, &n2, s2, err))
        return NULL;
    attn_tensor *out = attn_empty("where", n2, s2, ATTN_FLOAT32, err);
    if (!out)
        return NULL;
    attn_tensor *ec = attn_expand(cond, n2, s2, err), *ea = attn_expand(a, n2, s2, err),
                *eb = attn_expand(b, n2, s2, err);
    if (ec && ea && eb) {
        int64_t n = attn_numel(out);
        for (int64_t i = 0; i < n; i++)
            out->storage->data[i] = attn_get_flat(ec, i) != 0 ? attn_get_flat(ea, i) : attn_get_flat(eb, i);
    } else {
        attn_free(out);
        out = NULL;
    }
    attn_free(ec);
    attn_free(ea);
    attn_free(eb);
    return out;
}

/* ---- unary --------------------------------------------------------------------------------- */

static float apply_unary(attn_unop op, float x)
{
    switch (op) {
    case ATTN_NEG: return -x;
    case ATTN_EXP: return vmath_exp(x);
    case ATTN_LOG: return vmath_log(x);
    case ATTN_SQRT: return sqrtf(x);
    case ATTN_TANH: return vmath_tanh(x);
    case ATTN_ABS: return fabsf(x);
    case ATTN_SIGMOID: return vmath_sigmoid(x);
    case ATTN_RELU: return x > 0 ? x : (isnan(x) ? x : 0.0f);
    case ATTN_LOGICAL_NOT: return x == 0;
    }
    return 0;
}

/* Applies f to every element of a into a new contiguous tensor of the given dtype. */
static attn_tensor *map_unary(const attn_tensor *a, attn_dtype dtype, attn_unop op, double exponent, int use_pow,
                              attn_error *err);

attn_tensor *attn_unary(attn_unop op, const attn_tensor *a, attn_error *err)
{
    return map_unary(a, op == ATTN_LOGICAL_NOT ? ATTN_BOOL : ATTN_FLOAT32, op, 0, 0, err);
}

/* PyTorch's pow(tensor, scalar) special-cases these exponents (pow_tensor_scalar_optimized_kernel). */
static float pow_scalar(float x, double e)
{
    if (e == 2)
        return x * x;
    if (e == 0.5)
        return sqrtf(x);
    if (e == 3)
        return x * x * x;
    if (e == -0.5)
        return 1.0f / sqrtf(x);
    if (e == -1)
        return 1.0f / x;
    if (e == -2)
        return 1.0f / (x * x);
    return powf(x, (float)e);
}

attn_tensor *attn_pow_scalar(const attn_tensor *a, double exponent, attn_error *err)
{
    return map_unary(a, ATTN_FLOAT32, ATTN_NEG, exponent, 1, err);
}

static attn_tensor *map_unary(const attn_tensor *a, attn_dtype dtype, attn_unop op, double exponent, int use_pow,
                              attn_error *err)
{
    attn_tensor *out = attn_empty("unary", a->ndim, a->shape, dtype, err);
    if (!out)
        return NULL;
    int64_t n = attn_numel(a);
    float *O = out->storage->data;
    attn_copy_out(a, O);
    /* torch.sigmoid runs its scalar lambda on the last numel % 16 elements of a contiguous tensor */
    int64_t tail = (op == ATTN_SIGMOID && !use_pow && attn_is_contiguous(a)) ? n - n % 16 : n;
    for (int64_t i = 0; i < n; i++) {
        if ((i & 0xFFFF) == 0 && attn_interrupt_requested)
            return interrupted(out, err);
        if (use_pow)
            O[i] = pow_scalar(O[i], exponent);
        else
            O[i] = i >= tail ? vmath_sigmoid_tail(O[i]) : apply_unary(op, O[i]);
    }
    return out;
}

/* ---- reductions ---------------------------------------------------------------------------- */

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
    attn_tensor *moved = attn_alias(t, err);
    if (!moved)
        return NULL;
    for (int d = dim; d < t->ndim - 1; d++) {
        moved->shape[d] = t->shape[d + 1];
        moved->stride[d] = t->stride[d + 1];
    }
    moved->shape[t->ndim - 1] = t->shape[dim];
    moved->stride[t->ndim - 1] = t->stride[dim];
    attn_tensor *c = attn_contiguous(moved, err);
    attn_free(moved);
    return c;
}

/* Sums go through attn_reduce_sum (reduce.c), which adds in exactly PyTorch's order: the book's
 * "Sum: tensor(1.0000)" vs "Sum: tensor(1.)" depends on the last bit. mean is sum / n, as PyTorch's
 * CPU mean is. */
static attn_tensor *reduce_sum(const char *fn, const attn_tensor *t, int dim, int keepdim, int mean,
                               attn_error *err)
{
    if (dim >= t->ndim || (dim >= 0 && t->ndim == 0))
        return attn_fail(err, "%s: dim %d is out of range for a %d-D tensor", fn, dim + 1, t->ndim);
    int64_t shape[ATTN_MAX_DIMS];
    int ndim = dim < 0 ? 0 : reduced_shape(t, dim, keepdim, shape);
    attn_tensor *out = attn_empty(fn, ndim, shape, ATTN_FLOAT32, err);
    if (!out)
        return NULL;
    attn_reduce_sum(t->storage->data + t->offset, t->ndim, t->shape, t->stride, dim, out->storage->data);
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
                         want_min ? "minimum" : "maximum");
    attn_tensor *c = dim < 0 ? attn_contiguous(t, err) : dim_last_contiguous(t, dim, err);
    if (!c)
        return NULL;
    int64_t shape[ATTN_MAX_DIMS];
    int ndim = dim < 0 ? 0 : reduced_shape(t, dim, keepdim, shape);
    attn_tensor *out = attn_empty(fn, ndim, shape, t->dtype, err);
    attn_tensor *idx = out && indices && dim >= 0 ? attn_empty(fn, ndim, shape, ATTN_FLOAT32, err) : NULL;
    if (!out || (indices && dim >= 0 && !idx)) {
        attn_free(c);
        attn_free(out);
        return NULL;
    }
    int64_t rows = attn_numel(out);
    for (int64_t r = 0; r < rows; r++) {
        const float *p = c->storage->data + c->offset + r * len;
        int64_t best = 0;
        for (int64_t i = 1; i < len && !isnan(p[best]); i++)
            if (isnan(p[i]) || (want_min ? p[i] < p[best] : p[i] > p[best]))
                best = i;
        out->storage->data[r] = p[best];
        if (idx)
            idx->storage->data[r] = (float)best;
    }
    attn_free(c);
    if (indices)
        *indices = idx;
    return out;
}

/* ---- attention stages ---------------------------------------------------------------------- */

attn_tensor *attn_tril(const char *fn, const attn_tensor *t, int64_t diagonal, int upper, attn_error *err)
{
    if (t->ndim < 2)
        return attn_fail(err, "%s: expected a tensor with at least 2 dimensions (a matrix), got %d-D", fn, t->ndim);
    attn_tensor *out = attn_clone(t, err);
    if (!out)
        return NULL;
    int64_t rows = t->shape[t->ndim - 2], cols = t->shape[t->ndim - 1];
    int64_t mats = (rows > 0 && cols > 0) ? attn_numel(t) / (rows * cols) : 0;
    for (int64_t m = 0; m < mats; m++) {
        float *p = out->storage->data + m * rows * cols;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                /* tril keeps j - i <= diagonal; triu keeps j - i >= diagonal */
                int keep = upper ? (j - i >= diagonal) : (j - i <= diagonal);
                if (!keep)
                    p[i * cols + j] = 0.0f;
            }
    }
    return out;
}

int attn_masked_fill_(attn_tensor *t, const attn_tensor *mask, float value, attn_error *err)
{
    char ts[160], ms[160];
    if (mask->dtype != ATTN_BOOL) {
        attn_fail(err, "masked_fill: the mask must be a bool tensor (true = fill), got a float tensor; "
                       "use mask:bool() or a comparison such as mask:eq(0)");
        return -1;
    }
    attn_tensor *m = attn_expand(mask, t->ndim, t->shape, err);
    if (!m) {
        attn_fail(err, "masked_fill: mask of shape %s does not broadcast to the tensor's shape %s",
                  attn_shape_str(mask, ms, sizeof ms), attn_shape_str(t, ts, sizeof ts));
        return -1;
    }
    if (t->dtype == ATTN_BOOL)
        value = value != 0.0f;
    int64_t n = attn_numel(t), index[ATTN_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        if (*attn_ptr(m, index) != 0.0f)
            *attn_ptr(t, index) = value;
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++index[d] < t->shape[d])
                break;
            index[d] = 0;
        }
    }
    attn_free(m);
    return 0;
}

attn_tensor *attn_masked_fill(const attn_tensor *t, const attn_tensor *mask, float value, attn_error *err)
{
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    if (attn_broadcast_shape("masked_fill", t, mask, &ndim, shape, err))
        return NULL;
    attn_tensor *e = attn_expand(t, ndim, shape, err);
    attn_tensor *out = e ? attn_clone(e, err) : NULL;
    attn_free(e);
    if (out && attn_masked_fill_(out, mask, value, err)) {
        attn_free(out);
        return NULL;
    }
    return out;
}
