/* bincount.c — torch.bincount(input, weights, minlength), as PyTorch's _bincount_cpu computes it
 * (aten/src/ATen/native/SummaryOps.cpp): out[v] counts the values v of input (0-based here; the binding
 * takes attn's 1-based bins), or sums their weights, in input's order, one float32 addition at a time
 * (PyTorch's float32 accumulator). The result has max(input) + 1 bins, or minlength if that is more. */
#include "learn.h"

#include <stdint.h>
#include <string.h>

attn_tensor *attn_bincount(const char *fn, const attn_tensor *input, const attn_tensor *weights, int64_t minlength,
                           attn_error *err)
{
    if (input->dtype != ATTN_INT64)
        return attn_fail(err, "%s: input must be an int64 tensor, got %s", fn, attn_dtype_name(input->dtype));
    if (input->ndim != 1)
        return attn_fail(err, "%s: bincount only supports 1-d non-negative integral inputs (input has %d dims)", fn,
                         input->ndim);
    if (minlength < 0)
        return attn_fail(err, "%s: minlength should be >= 0", fn);
    int64_t n = input->shape[0];
    if (weights && (weights->ndim != 1 || weights->shape[0] != n))
        return attn_fail(err, "%s: weights should be 1-d and have the same length as input", fn);
    if (weights && weights->dtype != ATTN_FLOAT32)
        return attn_fail(err, "%s: weights must be float32 (PyTorch gives float64 for %s weights, a dtype attn does not have)",
                         fn, attn_dtype_name(weights->dtype));
    const int64_t *in = input->storage->i64 + input->offset;
    int64_t bins = minlength;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = in[i * input->stride[0]];
        if (v < 0)
            return attn_fail(err, "%s: bincount only supports 1-d non-negative integral inputs (input[%lld] is %lld)", fn,
                             (long long)(i + 1), (long long)v);
        if (v >= bins)
            bins = v == INT64_MAX ? v : v + 1; /* attn_empty refuses a size this large */
    }
    /* PyTorch: an empty input gives int64 zeros, weights or not */
    attn_tensor *out = attn_empty(fn, 1, &bins, weights && n > 0 ? ATTN_FLOAT32 : ATTN_INT64, err);
    if (!out)
        return NULL;
    if (out->dtype == ATTN_INT64) {
        memset(out->storage->i64, 0, (size_t)bins * sizeof(int64_t));
        for (int64_t i = 0; i < n; i++)
            out->storage->i64[in[i * input->stride[0]]] += 1;
        return out;
    }
    float *o = out->storage->data;
    memset(o, 0, (size_t)bins * sizeof(float));
    const float *w = weights->storage->data + weights->offset;
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i)) {
            attn_free(out);
            return attn_interrupted(err);
        }
        o[in[i * input->stride[0]]] += w[i * weights->stride[0]];
    }
    return out;
}
