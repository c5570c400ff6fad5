/* scatter.c — scatter and scatter_add (PyTorch's Tensor.scatter / scatter_add, out of place): a copy of t
 * with src[i][j][k] written to (or added to) out[index[i][j][k]][j][k] for dim 0, and so on. gather's
 * gradient is zeros:scatter_add(dim, index, grad) (src/lua/autograd/formulas_extra.lua). Elements are
 * visited in index's row-major order, so several adds to one place happen in increasing order along dim,
 * as PyTorch's CPU kernel (cpu_scatter_gather_base_kernel, one loop along dim per position) does them. */
#include "learn.h"

#include <string.h>

attn_tensor *attn_scatter(const char *fn, const attn_tensor *t, int dim, const attn_tensor *index,
                          const attn_tensor *src, int add, attn_error *err)
{
    char a[160], b[160];
    if (index->dtype != ATTN_INT64)
        return attn_fail(err, "%s: the index must be an int64 tensor, got %s", fn, attn_dtype_name(index->dtype));
    if (t->dtype != src->dtype)
        return attn_fail(err, "%s: src is %s but the tensor is %s", fn, attn_dtype_name(src->dtype),
                         attn_dtype_name(t->dtype));
    int nd = t->ndim == 0 ? 1 : t->ndim;
    if (dim < 0 || dim >= nd)
        return attn_fail(err, "%s: dim %d is out of range for a %d-D tensor", fn, dim + 1, t->ndim);
    if (index->ndim != t->ndim || src->ndim != t->ndim)
        return attn_fail(err, "%s: the index and src must have as many dims as the tensor (%s vs %s)", fn,
                         attn_shape_str(index, a, sizeof a), attn_shape_str(t, b, sizeof b));
    for (int d = 0; d < t->ndim; d++)
        if (index->shape[d] > src->shape[d] || (d != dim && index->shape[d] > t->shape[d]))
            return attn_fail(err, "%s: the index %s is larger than src or the tensor %s in dim %d", fn,
                             attn_shape_str(index, a, sizeof a), attn_shape_str(t, b, sizeof b), d + 1);
    attn_tensor *out = attn_clone(t, err); /* contiguous */
    if (!out)
        return NULL;
    int64_t n = attn_numel(index), size = t->ndim == 0 ? 1 : t->shape[dim];
    int64_t pos[ATTN_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i)) { /* Ctrl-C */
            attn_free(out);
            return attn_interrupted(err);
        }
        int64_t at = index->offset, from = src->offset, to = 0, stride = 1;
        for (int d = 0; d < index->ndim; d++) {
            at += pos[d] * index->stride[d];
            from += pos[d] * src->stride[d];
        }
        int64_t k = index->storage->i64[at];
        if (k < 0 || k >= size) {
            attn_free(out);
            return attn_fail(err, "%s: index %lld is out of range for dim %d of size %lld", fn, (long long)(k + 1),
                             dim + 1, (long long)size);
        }
        for (int d = t->ndim - 1; d >= 0; d--) { /* out is contiguous: row-major strides */
            to += (d == dim ? k : pos[d]) * stride;
            stride *= t->shape[d];
        }
        if (t->dtype == ATTN_INT64)
            out->storage->i64[to] = add ? out->storage->i64[to] + src->storage->i64[from] : src->storage->i64[from];
        else
            out->storage->data[to] = add ? out->storage->data[to] + src->storage->data[from] : src->storage->data[from];
        for (int d = index->ndim - 1; d >= 0; d--) {
            if (++pos[d] < index->shape[d])
                break;
            pos[d] = 0;
        }
    }
    return out;
}
