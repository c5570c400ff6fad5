/* view.c — views of a tensor: new headers (shape, strides, offset) on the same storage, no copy.
 * transpose, permute, select, narrow, unsqueeze, squeeze, expand, view and reshape. */
#include <stdlib.h>
#include <string.h>

#include "size.h"
#include "tensor.h"

/* ---- views --------------------------------------------------------------------------------- */

attn_tensor *attn_alias(const attn_tensor *t, attn_error *err)
{
    attn_tensor *v = malloc(sizeof *v);
    if (!v)
        return attn_fail(err, "out of memory");
    *v = *t;
    v->storage->refcount++;
    return v;
}

/* The last line of defence: a view with an element outside its storage is never handed out (the
 * checks of each function below should make this unreachable). */
static attn_tensor *in_bounds(const char *fn, attn_tensor *v, attn_error *err)
{
    if (v && !attn_view_in_bounds(v->offset, v->ndim, v->shape, v->stride, v->storage->numel)) {
        attn_free(v);
        return attn_fail(err, "%s: internal error: this view would reach outside its tensor's memory", fn);
    }
    return v;
}

static int check_dim(const char *fn, const attn_tensor *t, int dim, attn_error *err)
{
    if (dim < 0 || dim >= t->ndim) {
        attn_fail(err, "%s: dim %d is out of range for a %d-D tensor", fn, dim + 1, t->ndim);
        return -1;
    }
    return 0;
}

attn_tensor *attn_transpose(const attn_tensor *t, int d0, int d1, attn_error *err)
{
    if (check_dim("transpose", t, d0, err) || check_dim("transpose", t, d1, err))
        return NULL;
    attn_tensor *v = attn_alias(t, err);
    if (!v)
        return NULL;
    v->shape[d0] = t->shape[d1];
    v->shape[d1] = t->shape[d0];
    v->stride[d0] = t->stride[d1];
    v->stride[d1] = t->stride[d0];
    return v;
}

attn_tensor *attn_permute(const attn_tensor *t, const int *dims, attn_error *err)
{
    int seen[ATTN_MAX_DIMS] = {0};
    for (int d = 0; d < t->ndim; d++) {
        if (check_dim("permute", t, dims[d], err))
            return NULL;
        if (seen[dims[d]]++)
            return attn_fail(err, "permute: dim %d appears twice", dims[d] + 1);
    }
    attn_tensor *v = attn_alias(t, err);
    if (!v)
        return NULL;
    for (int d = 0; d < t->ndim; d++) {
        v->shape[d] = t->shape[dims[d]];
        v->stride[d] = t->stride[dims[d]];
    }
    return v;
}

attn_tensor *attn_select(const attn_tensor *t, int dim, int64_t index, attn_error *err)
{
    if (check_dim("select", t, dim, err))
        return NULL;
    if (index < 0 || index >= t->shape[dim])
        return attn_fail(err, "select: index %lld is out of range for dim %d of size %lld",
                         (long long)index + 1, dim + 1, (long long)t->shape[dim]);
    attn_tensor *v = attn_alias(t, err);
    if (!v)
        return NULL;
    v->offset += index * t->stride[dim];
    for (int d = dim; d < t->ndim - 1; d++) {
        v->shape[d] = t->shape[d + 1];
        v->stride[d] = t->stride[d + 1];
    }
    v->ndim--;
    return in_bounds("select", v, err);
}

attn_tensor *attn_narrow(const attn_tensor *t, int dim, int64_t start, int64_t length, attn_error *err)
{
    if (check_dim("narrow", t, dim, err))
        return NULL;
    /* length > size - start, not start + length > size: the sum can overflow */
    if (start < 0 || length < 0 || start > t->shape[dim] || length > t->shape[dim] - start)
        return attn_fail(err, "narrow: %lld elements from element %lld are out of range for dim %d of size %lld",
                         (long long)length, (long long)start + 1, dim + 1, (long long)t->shape[dim]);
    attn_tensor *v = attn_alias(t, err);
    if (!v)
        return NULL;
    v->offset += start * t->stride[dim];
    v->shape[dim] = length;
    return in_bounds("narrow", v, err);
}

attn_tensor *attn_unsqueeze(const attn_tensor *t, int dim, attn_error *err)
{
    if (dim < 0 || dim > t->ndim)
        return attn_fail(err, "unsqueeze: dim %d is out of range for a %d-D tensor (1 to %d)",
                         dim + 1, t->ndim, t->ndim + 1);
    if (t->ndim == ATTN_MAX_DIMS)
        return attn_fail(err, "unsqueeze: attn supports at most %d dimensions", ATTN_MAX_DIMS);
    attn_tensor *v = attn_alias(t, err);
    if (!v)
        return NULL;
    for (int d = t->ndim; d > dim; d--) {
        v->shape[d] = t->shape[d - 1];
        v->stride[d] = t->stride[d - 1];
    }
    v->shape[dim] = 1;
    /* any stride will do for a size-1 dim; this one keeps a contiguous tensor contiguous, and cannot
     * overflow: a size-0 dim counts as 1, and shape * stride of a dim is at most one step past its memory */
    int64_t next = 1;
    if (dim < t->ndim && attn_size_mul(t->shape[dim] > 0 ? t->shape[dim] : 1, t->stride[dim], &next))
        next = t->stride[dim];
    v->stride[dim] = next;
    v->ndim++;
    return in_bounds("unsqueeze", v, err);
}

attn_tensor *attn_squeeze(const attn_tensor *t, int dim, attn_error *err)
{
    if (dim >= 0 && check_dim("squeeze", t, dim, err))
        return NULL;
    attn_tensor *v = attn_alias(t, err);
    if (!v)
        return NULL;
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        int drop = t->shape[d] == 1 && (dim < 0 || dim == d);
        if (!drop) {
            v->shape[n] = t->shape[d];
            v->stride[n] = t->stride[d];
            n++;
        }
    }
    v->ndim = n;
    return v;
}

attn_tensor *attn_expand(const attn_tensor *t, int ndim, const int64_t *shape, attn_error *err)
{
    char have[160];
    if (ndim < t->ndim || ndim > ATTN_MAX_DIMS)
        return attn_fail(err, "expand: cannot expand %s to %d dimensions",
                         attn_shape_str(t, have, sizeof have), ndim);
    attn_tensor *v = attn_alias(t, err);
    if (!v)
        return NULL;
    int lead = ndim - t->ndim;
    for (int d = ndim - 1; d >= 0; d--) {
        int src = d - lead;
        int64_t size = shape[d];
        if (src >= 0 && (t->shape[src] == size || size == -1)) { /* -1 keeps the size, as in PyTorch */
            size = t->shape[src];
            v->shape[d] = size;
            v->stride[d] = t->stride[src];
        } else if (size >= 0 && (src < 0 || t->shape[src] == 1)) { /* broadcast: stride 0 */
            v->shape[d] = size;
            v->stride[d] = 0;
        } else {
            goto bad;
        }
    }
    v->ndim = ndim;
    if (!attn_shape_fits(ndim, v->shape)) {
        attn_free(v);
        attn_tensor want = {.ndim = ndim};
        memcpy(want.shape, shape, sizeof(int64_t) * (size_t)ndim);
        char to[160];
        return attn_fail(err, "expand: cannot expand %s to %s: the product of the sizes does not fit in a 64-bit "
                              "integer", attn_shape_str(t, have, sizeof have), attn_shape_str(&want, to, sizeof to));
    }
    return in_bounds("expand", v, err);
bad:
    attn_free(v);
    attn_tensor want = {.ndim = ndim};
    memcpy(want.shape, shape, sizeof(int64_t) * (size_t)ndim);
    char to[160];
    return attn_fail(err, "expand: cannot expand %s to %s (only size-1 dims can grow; -1 keeps a size)",
                     attn_shape_str(t, have, sizeof have), attn_shape_str(&want, to, sizeof to));
}

/* Resolves one -1 entry in shape against numel; fails when the sizes cannot match. */
static int infer_shape(const char *fn, const attn_tensor *t, int ndim, const int64_t *shape, int64_t *out,
                       attn_error *err)
{
    char have[160];
    int64_t numel = attn_numel(t), known = 1; /* the product of the given sizes (their non-zero ones) */
    int infer = -1, zero = 0;
    if (ndim > ATTN_MAX_DIMS) {
        attn_fail(err, "%s: %d dimensions requested, attn supports at most %d", fn, ndim, ATTN_MAX_DIMS);
        return -1;
    }
    for (int d = 0; d < ndim; d++) {
        out[d] = shape[d];
        if (shape[d] == -1) {
            if (infer >= 0) {
                attn_fail(err, "%s: only one dimension can be -1", fn);
                return -1;
            }
            infer = d;
        } else if (shape[d] < 0) {
            attn_fail(err, "%s: size %d must be non-negative, got %lld", fn, d + 1, (long long)shape[d]);
            return -1;
        } else if (shape[d] == 0) {
            zero = 1;
        } else if (known >= 0 && attn_size_mul(known, shape[d], &known)) {
            known = -1; /* more than int64 counts: told apart below */
        }
    }
    if (known < 0) {
        char want[160];
        attn_tensor tmp = {.ndim = ndim};
        memcpy(tmp.shape, shape, sizeof(int64_t) * (size_t)ndim);
        attn_fail(err, "%s: the shape %s is too large: the product of its sizes does not fit in a 64-bit integer",
                  fn, attn_shape_str(&tmp, want, sizeof want));
        return -1;
    }
    if (zero)
        known = 0;
    if (infer >= 0) {
        if (known == 0 || numel % known != 0) {
            attn_fail(err, "%s: shape with -1 cannot fit %lld elements of %s", fn, (long long)numel,
                      attn_shape_str(t, have, sizeof have));
            return -1;
        }
        out[infer] = numel / known;
        known *= out[infer];
    }
    if (known != numel) {
        char want[160];
        attn_tensor tmp = {0};
        tmp.ndim = ndim;
        memcpy(tmp.shape, out, sizeof(int64_t) * (size_t)ndim);
        attn_fail(err, "%s: shape %s is invalid for input of size %lld (shape %s)", fn,
                  attn_shape_str(&tmp, want, sizeof want), (long long)numel, attn_shape_str(t, have, sizeof have));
        return -1;
    }
    return 0;
}

/* Strides for viewing t with a new shape without copying, following PyTorch's computeStride:
 * each run of old dims that is contiguous in memory can be split or merged freely. */
static int view_strides(const attn_tensor *t, int ndim, const int64_t *shape, int64_t *stride)
{
    int64_t numel = attn_numel(t);
    if (numel == 0 || t->ndim == 0) {
        int64_t s = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            stride[d] = s;
            s *= shape[d] > 0 ? shape[d] : 1; /* fits: the shape passed infer_shape */
        }
        return 0;
    }
    int view_d = ndim - 1;
    int64_t chunk_base_stride = t->stride[t->ndim - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        tensor_numel *= t->shape[d];
        if (d == 0 || (t->shape[d - 1] != 1 && t->stride[d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
                stride[view_d] = view_numel * chunk_base_stride;
                view_numel *= shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel)
                return -1;
            if (d > 0) {
                chunk_base_stride = t->stride[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1 ? 0 : -1;
}

attn_tensor *attn_view(const char *fn, const attn_tensor *t, int ndim, const int64_t *shape, attn_error *err)
{
    int64_t out[ATTN_MAX_DIMS], stride[ATTN_MAX_DIMS];
    char have[160];
    if (infer_shape(fn, t, ndim, shape, out, err))
        return NULL;
    if (view_strides(t, ndim, out, stride))
        return attn_fail(err, "%s: the strides of this %s tensor do not allow a view (it was transposed or "
                              "sliced); call :contiguous() first, or use :reshape()",
                         fn, attn_shape_str(t, have, sizeof have));
    attn_tensor *v = attn_alias(t, err);
    if (!v)
        return NULL;
    v->ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        v->shape[d] = out[d];
        v->stride[d] = stride[d];
    }
    return in_bounds(fn, v, err);
}

attn_tensor *attn_reshape(const char *fn, const attn_tensor *t, int ndim, const int64_t *shape, attn_error *err)
{
    int64_t out[ATTN_MAX_DIMS], stride[ATTN_MAX_DIMS];
    if (infer_shape(fn, t, ndim, shape, out, err))
        return NULL;
    if (view_strides(t, ndim, out, stride) == 0)
        return attn_view(fn, t, ndim, out, err);
    attn_tensor *c = attn_clone(t, err);
    if (!c)
        return NULL;
    attn_tensor *v = attn_view(fn, c, ndim, out, err);
    attn_free(c);
    return v;
}


/* ---- memory order ---------------------------------------------------------------------------- */

/* TensorIterator::reorder_dimensions for one tensor, as PyTorch orders the loops of an operation that
 * writes t: an insertion sort of the dims from the fastest-moving (smallest stride) up; a stride of 0 is
 * ambiguous (it decides nothing), and of two equal strides the smaller size goes first. Fills fast[] with
 * t's dims, fastest first. */
static void iteration_order(const attn_tensor *t, int *fast)
{
    for (int i = 0; i < t->ndim; i++)
        fast[i] = t->ndim - 1 - i;
    for (int i = 1; i < t->ndim; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int64_t s0 = t->stride[fast[d0]], s1 = t->stride[fast[d1]];
            int cmp = 0;
            if (s0 != 0 && s1 != 0)
                cmp = s0 < s1 ? -1 : s0 > s1 ? 1 : t->shape[fast[d0]] > t->shape[fast[d1]] ? 1 : 0;
            if (cmp > 0) {
                int tmp = fast[d0];
                fast[d0] = fast[d1];
                fast[d1] = tmp;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
}

attn_tensor *attn_memory_order(const attn_tensor *t, attn_error *err)
{
    int fast[ATTN_MAX_DIMS], dims[ATTN_MAX_DIMS];
    iteration_order(t, fast);
    for (int d = 0; d < t->ndim; d++)
        dims[d] = fast[t->ndim - 1 - d]; /* slowest first: row-major order of the view walks memory */
    return attn_permute(t, dims, err);
}

attn_tensor *attn_dim_last(const attn_tensor *t, int dim, attn_error *err)
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
    return moved;
}
