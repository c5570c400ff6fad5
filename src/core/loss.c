/* loss.c — nll_loss, cross_entropy and mse_loss as PyTorch 1.13 computes them on the CPU, and gather.
 *
 * cross_entropy(input, target) is, in PyTorch (aten/src/ATen/native/LossNLL.cpp, cross_entropy_loss with
 * class ids and no label smoothing), nll_loss(log_softmax(input, class_dim), target): the log_softmax is
 * softmax.c's (PyTorch's kernels, bit for bit), the nll_loss below. Chapter 5's loss over GPT-2's 50,257
 * classes for 2 × 256 tokens is one log_softmax over [512, 50257] (on every thread) and 512 reads. */
#include "learn.h"
#include "ops.h"

#include <math.h>
#include <string.h>

/* ATen's utils::CeilLog2: ceil(log2(x)), and 1 for x <= 2. */
static int64_t ceil_log2(int64_t x)
{
    if (x <= 2)
        return 1;
    int64_t bits = 0;
    for (uint64_t v = (uint64_t)x - 1; v; v >>= 1)
        bits++;
    return bits;
}

/* The reduced forward of nll_loss_out_frame and nll_loss2d_forward_out_frame: -input[i, target_i, e] summed
 * over the numiter = batch × map positions by PyTorch's cascade sum (8 levels of partial sums, a level
 * carried up whenever the position's low bits are zero), then divided by the number not ignored for mean. */
static attn_tensor *nll_reduced(const char *fn, const float *in, const int64_t *tg, int64_t batch, int64_t classes,
                                int64_t map, int64_t ignore_index, attn_reduction reduction, attn_error *err)
{
    enum { LEVELS = 8 };
    int64_t numiter = batch * map;
    int64_t power = ceil_log2(numiter) / LEVELS > 4 ? ceil_log2(numiter) / LEVELS : 4;
    int64_t mask = ((int64_t)1 << power) - 1, ignored = 0;
    float partial[LEVELS] = {0};
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t e = 0; e < map; e++) {
            int64_t idx = b * map + e, t = tg[idx];
            if (t == ignore_index) {
                ignored++;
                continue;
            }
            if (t < 0 || t >= classes)
                return attn_fail(err, "%s: target %lld is out of bounds (ids go from 1 to %lld)", fn,
                                 (long long)(t + 1), (long long)classes);
            partial[0] -= in[b * classes * map + t * map + e];
            for (int j = 0; j + 1 < LEVELS; j++) {
                if ((idx & (mask << (j * power))) != 0)
                    break;
                partial[j + 1] += partial[j];
                partial[j] = 0;
            }
        }
    }
    float total = 0.0f;
    for (int j = 0; j < LEVELS; j++) /* std::accumulate, from 0 in order */
        total += partial[j];
    if (reduction == ATTN_REDUCE_MEAN)
        total /= (float)(numiter - ignored);
    return attn_scalar(total, err);
}

/* Splits input into (batch, classes, map): [C] is (1, C, 1), [N, C] (N, C, 1), [N, C, d...] (N, C, Πd). */
static int nll_shapes(const char *fn, const attn_tensor *input, const attn_tensor *target, int64_t *batch,
                      int64_t *classes, int64_t *map, attn_error *err)
{
    char a[160], b[160];
    if (input->ndim < 1) {
        attn_fail(err, "%s: the input must have at least 1 dim (the classes), got a 0-D tensor", fn);
        return -1;
    }
    if (target->dtype != ATTN_INT64) {
        attn_fail(err, "%s: the target must hold class ids (int64), got %s", fn, attn_dtype_name(target->dtype));
        return -1;
    }
    int ok = input->ndim == 1 ? target->ndim == 0 : target->ndim == input->ndim - 1 && target->shape[0] == input->shape[0];
    for (int d = 2; ok && d < input->ndim; d++)
        ok = target->shape[d - 1] == input->shape[d];
    if (!ok) {
        attn_fail(err, "%s: the target's shape %s does not fit the input's %s (expected the input's shape "
                       "without its class dim)", fn, attn_shape_str(target, a, sizeof a), attn_shape_str(input, b, sizeof b));
        return -1;
    }
    *batch = input->ndim == 1 ? 1 : input->shape[0];
    *classes = input->ndim == 1 ? input->shape[0] : input->shape[1];
    *map = 1;
    for (int d = 2; d < input->ndim; d++)
        *map *= input->shape[d];
    return 0;
}

attn_tensor *attn_nll_loss(const char *fn, const attn_tensor *input, const attn_tensor *target, int64_t ignore_index,
                           attn_reduction reduction, attn_error *err)
{
    int64_t batch, classes, map;
    if (attn_check_float(fn, "the input", input, err) || nll_shapes(fn, input, target, &batch, &classes, &map, err))
        return NULL;
    attn_tensor *ci = attn_contiguous(input, err);
    attn_tensor *ct = ci ? attn_contiguous(target, err) : NULL;
    attn_tensor *out = NULL;
    if (!ct)
        goto done;
    const float *in = ci->storage->data + ci->offset;
    const int64_t *tg = ct->storage->i64 + ct->offset;
    if (reduction != ATTN_REDUCE_NONE || input->ndim == 1) {
        if (attn_numel(input) == 0 || batch * map == 0) /* nothing to add: 0, and 0/0 for the mean */
            out = attn_scalar(reduction == ATTN_REDUCE_MEAN ? NAN : 0.0f, err);
        else
            out = nll_reduced(fn, in, tg, batch, classes, map, ignore_index, reduction, err);
        goto done;
    }
    out = attn_empty(fn, target->ndim, target->shape, ATTN_FLOAT32, err); /* [N] or [N, d...] */
    if (!out)
        goto done;
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t e = 0; e < map; e++) {
            int64_t t = tg[b * map + e];
            float *o = out->storage->data + b * map + e;
            if (t == ignore_index) {
                *o = 0.0f;
                continue;
            }
            if (t < 0 || t >= classes) {
                attn_free(out);
                out = attn_fail(err, "%s: target %lld is out of bounds (ids go from 1 to %lld)", fn,
                                (long long)(t + 1), (long long)classes);
                goto done;
            }
            *o = -in[b * classes * map + t * map + e];
        }
    }
done:
    attn_free(ci);
    attn_free(ct);
    return out;
}

attn_tensor *attn_cross_entropy(const char *fn, const attn_tensor *input, const attn_tensor *target,
                                int64_t ignore_index, attn_reduction reduction, attn_error *err)
{
    int64_t batch, classes, map;
    if (attn_check_float(fn, "the input", input, err) || nll_shapes(fn, input, target, &batch, &classes, &map, err))
        return NULL;
    attn_tensor *logp = attn_softmax(input, input->ndim == 1 ? 0 : 1, 1, err);
    if (!logp)
        return NULL;
    attn_tensor *out = attn_nll_loss(fn, logp, target, ignore_index, reduction, err);
    attn_free(logp);
    return out;
}

attn_tensor *attn_mse_loss(const char *fn, const attn_tensor *input, const attn_tensor *target,
                           attn_reduction reduction, attn_error *err)
{
    /* PyTorch's mse_loss: at::pow(input - target, 2) (its kernel squares as x * x), then sum or mean. */
    attn_tensor *d = attn_binary(fn, ATTN_SUB, input, target, err);
    attn_tensor *sq = d ? attn_binary(fn, ATTN_MUL, d, d, err) : NULL;
    attn_free(d);
    if (!sq || reduction == ATTN_REDUCE_NONE)
        return sq;
    attn_tensor *r = reduction == ATTN_REDUCE_MEAN ? attn_mean(sq, -1, 0, err) : attn_sum(sq, -1, 0, err);
    attn_free(sq);
    return r;
}

attn_tensor *attn_gather(const char *fn, const attn_tensor *t, int dim, const attn_tensor *index, attn_error *err)
{
    char a[160], b[160];
    int nd = t->ndim == 0 ? 1 : t->ndim;
    if (index->dtype != ATTN_INT64)
        return attn_fail(err, "%s: the index must be an int64 tensor, got %s", fn, attn_dtype_name(index->dtype));
    if (dim < 0 || dim >= nd)
        return attn_fail(err, "%s: dim %d is out of range for a %d-D tensor", fn, dim + 1, t->ndim);
    if (index->ndim != t->ndim)
        return attn_fail(err, "%s: the index must have as many dims as the input (%s vs %s)", fn,
                         attn_shape_str(index, a, sizeof a), attn_shape_str(t, b, sizeof b));
    for (int d = 0; d < t->ndim; d++)
        if (d != dim && index->shape[d] > t->shape[d])
            return attn_fail(err, "%s: the index %s is larger than the input %s in dim %d", fn,
                             attn_shape_str(index, a, sizeof a), attn_shape_str(t, b, sizeof b), d + 1);
    attn_tensor *out = attn_empty(fn, index->ndim, index->shape, t->dtype, err);
    if (!out)
        return NULL;
    int64_t n = attn_numel(index), size = t->ndim == 0 ? 1 : t->shape[dim];
    int64_t pos[ATTN_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i)) { /* Ctrl-C */
            attn_free(out);
            return attn_interrupted(err);
        }
        int64_t at = index->offset, src = t->offset;
        for (int d = 0; d < index->ndim; d++)
            at += pos[d] * index->stride[d];
        int64_t k = index->storage->i64[at];
        if (k < 0 || k >= size) {
            attn_free(out);
            return attn_fail(err, "%s: index %lld is out of range for dim %d of size %lld", fn, (long long)(k + 1),
                             dim + 1, (long long)size);
        }
        for (int d = 0; d < t->ndim; d++)
            src += (d == dim ? k : pos[d]) * t->stride[d];
        if (t->dtype == ATTN_INT64)
            out->storage->i64[i] = t->storage->i64[src];
        else
            out->storage->data[i] = t->storage->data[src];
        for (int d = index->ndim - 1; d >= 0; d--) { /* the next position, row-major */
            if (++pos[d] < index->shape[d])
                break;
            pos[d] = 0;
        }
    }
    return out;
}
