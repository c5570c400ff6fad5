/* join.c — cat and stack: joining a list of tensors along a dim. */
#include "tensor.h"
#include "size.h"

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
                      stacking ? attn_tr(" (stack needs equal shapes)") : attn_tr(" (all dims but the joined one must match)"));
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
