/* advindex.c — indexing with lists of indices (PyTorch's advanced indexing, probas[0, [0, 1, 2], targets[0]]):
 * some dims of v are indexed by int64 tensors of 0-based indices, broadcast together to one shape S.
 * As in PyTorch (and NumPy): when the indexed dims are next to each other S takes their place in the
 * result, otherwise S comes first and the other dims follow in order. The result is a copy, not a view. */
#include "learn.h"
#include "ops.h"

#include <string.h>

attn_tensor *attn_index_lists(const char *fn, const attn_tensor *v, int n, const int *dims,
                              attn_tensor *const *idx, attn_error *err)
{
    attn_tensor s = *idx[0]; /* only its shape is read: the broadcast shape of the index tensors */
    for (int k = 1; k < n; k++) {
        int nd;
        int64_t sh[ATTN_MAX_DIMS];
        if (attn_broadcast_shape(fn, &s, idx[k], &nd, sh, err))
            return NULL;
        s.ndim = nd;
        memcpy(s.shape, sh, sizeof(int64_t) * (size_t)nd);
    }
    int adjacent = 1;
    for (int k = 1; k < n; k++)
        adjacent = adjacent && dims[k] == dims[k - 1] + 1;
    int indexed[ATTN_MAX_DIMS] = {0}, rest[ATTN_MAX_DIMS], nrest = 0;
    for (int k = 0; k < n; k++)
        indexed[dims[k]] = 1;
    for (int d = 0; d < v->ndim; d++)
        if (!indexed[d])
            rest[nrest++] = d;
    int first = adjacent ? dims[0] : 0; /* where S goes among the result's dims */
    int before = adjacent ? dims[0] : 0; /* how many of the rest come before it */
    int ndim = s.ndim + nrest;
    if (ndim > ATTN_MAX_DIMS)
        return attn_fail(err, "%s: the result would have %d dims (at most %d)", fn, ndim, ATTN_MAX_DIMS);
    int64_t shape[ATTN_MAX_DIMS];
    for (int i = 0; i < before; i++)
        shape[i] = v->shape[rest[i]];
    for (int i = 0; i < s.ndim; i++)
        shape[first + i] = s.shape[i];
    for (int i = before; i < nrest; i++)
        shape[s.ndim + i] = v->shape[rest[i]];
    attn_tensor *out = attn_empty(fn, ndim, shape, v->dtype, err);
    if (!out)
        return NULL;
    int64_t total = attn_numel(out), pos[ATTN_MAX_DIMS] = {0};
    for (int64_t i = 0; i < total; i++) {
        if (attn_poll(i)) {
            attn_free(out);
            return attn_interrupted(err);
        }
        int64_t src = v->offset;
        for (int r = 0; r < nrest; r++) /* the dims not indexed: their own position */
            src += pos[r < before ? r : s.ndim + r] * v->stride[rest[r]];
        for (int k = 0; k < n; k++) { /* the indexed ones: the index tensor's value at S's position */
            const attn_tensor *t = idx[k];
            int64_t at = t->offset;
            for (int j = 0; j < t->ndim; j++) {
                int sd = s.ndim - t->ndim + j;
                at += (t->shape[j] == 1 ? 0 : pos[first + sd]) * t->stride[j];
            }
            int64_t x = t->storage->i64[at], size = v->shape[dims[k]];
            if (x < -size || x >= size) {
                attn_free(out);
                return attn_fail(err, "%s: index %lld is out of range for dim %d of size %lld", fn,
                                 (long long)(x >= 0 ? x + 1 : x), dims[k] + 1, (long long)size);
            }
            src += (x < 0 ? x + size : x) * v->stride[dims[k]];
        }
        if (v->dtype == ATTN_INT64)
            out->storage->i64[i] = v->storage->i64[src];
        else
            out->storage->data[i] = v->storage->data[src];
        for (int d = ndim - 1; d >= 0; d--) {
            if (++pos[d] < shape[d])
                break;
            pos[d] = 0;
        }
    }
    return out;
}
