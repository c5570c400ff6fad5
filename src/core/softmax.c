/* softmax.c — softmax and log_softmax as PyTorch 1.13's CPU kernels compute them, bit for bit.
 *
 * The books print softmax results whose last digit (and "tensor(1.)" vs "tensor(1.0000)" for their
 * sums) depends on the last bit, so each path below follows one PyTorch kernel, single-threaded, AVX2:
 *   last dim, softmax      _vec_softmax_lastdim     (aten/src/ATen/native/cpu/SoftMaxKernel.cpp)
 *   last dim, log_softmax  _vec_log_softmax_lastdim (same file)
 *   other dim, softmax     _vec_softmax    (8 inner positions at a time as vector lanes, the rest scalar)
 *   other dim, log_softmax _vec_logsoftmax (likewise)
 * Vector math and reductions come from vmath.c; the scalar tails use libm's expf, as PyTorch's std::exp
 * does. PyTorch runs every kernel on a contiguous copy of the input, as attn does. */
#include "ops.h"
#include "parallel.h"
#include "vmath.h"
#include "vector_kernels.h"

#include <math.h>

/* One row of the last dim (_vec_softmax_lastdim): the max by vec::reduce_all(maximum), out = exp(x - max)
 * by vec::map, the sum by vec::reduce_all(+) over out, then out * (1 / sum). A row that is all -inf has
 * max -inf, so x - max is nan and so is the row, as in PyTorch. */
static void softmax_lastdim_row(const float *in, float *out, int64_t n)
{
    float max = vmath_reduce_max(in, n);
    for (int64_t i = 0; i < n; i++)
        out[i] = vmath_exp(in[i] - max);
    float inv = 1.0f / vmath_reduce_sum(out, n);
    for (int64_t i = 0; i < n; i++)
        out[i] = out[i] * inv;
}

/* _vec_log_softmax_lastdim: the sum of exp(x - max) by map_reduce_all, its log by vec::map (SLEEF), then
 * x - max - log(sum) in that order (PyTorch keeps it for large inputs, pytorch#11752). */
static void log_softmax_lastdim_row(const float *in, float *out, int64_t n)
{
    float max = vmath_reduce_max(in, n);
    float lse = vmath_log(vmath_sum_exp(in, n, max));
    for (int64_t i = 0; i < n; i++)
        out[i] = in[i] - max - lse;
}

/* _vec_softmax's vector step: one lane, the inner position at in/out, dim_size values stride apart.
 * Lane-wise max by vec::maximum, the sum from 0 in order, then a division (not a reciprocal). */
static void softmax_lane(const float *in, float *out, int64_t dim_size, int64_t stride)
{
    float max = in[0];
    for (int64_t d = 1; d < dim_size; d++)
        max = vmath_max(max, in[d * stride]);
    float sum = 0.0f;
    for (int64_t d = 0; d < dim_size; d++) {
        out[d * stride] = vmath_exp(in[d * stride] - max);
        sum = sum + out[d * stride];
    }
    for (int64_t d = 0; d < dim_size; d++)
        out[d * stride] = out[d * stride] / sum;
}

/* _vec_softmax's scalar tail ("exactly same logic as host_softmax" in its comment, but in float):
 * std::max, std::exp (libm expf), a float sum, a division. */
static void softmax_scalar(const float *in, float *out, int64_t dim_size, int64_t stride)
{
    float max = in[0];
    for (int64_t d = 1; d < dim_size; d++)
        max = max < in[d * stride] ? in[d * stride] : max; /* std::max(max, x) */
    float sum = 0.0f;
    for (int64_t d = 0; d < dim_size; d++) {
        out[d * stride] = expf(in[d * stride] - max);
        sum += out[d * stride];
    }
    for (int64_t d = 0; d < dim_size; d++)
        out[d * stride] = out[d * stride] / sum;
}

/* _vec_logsoftmax (log_softmax over a dim that is not last), one inner position: the max from -inf by
 * blendv(max, x, x > max) (a nan never wins), the sum of exp(x - max) from 0 in order, its log by
 * vec::map (SLEEF, also for the tail), then x - max - log(sum). The vector lanes exponentiate with
 * SLEEF, the scalar tail with std::exp (libm expf); nothing else differs. */
static void log_softmax_column(const float *in, float *out, int64_t dim_size, int64_t stride, int vector)
{
    float max = -INFINITY;
    for (int64_t d = 0; d < dim_size; d++)
        max = in[d * stride] > max ? in[d * stride] : max;
    float sum = 0.0f;
    for (int64_t d = 0; d < dim_size; d++)
        sum += vector ? vmath_exp(in[d * stride] - max) : expf(in[d * stride] - max);
    float lse = vmath_log(sum);
    for (int64_t d = 0; d < dim_size; d++)
        out[d * stride] = in[d * stride] - max - lse;
}

/* One outer index of a dim that is not last: inner positions [0, inner - inner % 8) go 8 at a time
 * through the vector code and the rest through the scalar tail. (Single-threaded, _vec_softmax's
 * parallel_for hands the whole range to one task, and _vec_logsoftmax's chunks of inner positions are
 * multiples of 8, so only the inner size decides.) */
static void softmax_block(const float *in, float *out, int64_t dim_size, int64_t inner, int log)
{
    int64_t vec_end = inner - inner % 8;
    for (int64_t i = 0; i < inner; i++) {
        if (log)
            log_softmax_column(in + i, out + i, dim_size, inner, i < vec_end);
        else if (i < vec_end)
            softmax_lane(in + i, out + i, dim_size, inner);
        else
            softmax_scalar(in + i, out + i, dim_size, inner);
    }
}

/* The rows [begin, end) of the outer dims: each computed by one thread, the same way whatever the
 * number of threads (PyTorch splits its softmax over these rows too). */
typedef struct softmax_job {
    const float *in;
    float *out;
    int64_t dim_size, inner;
    int log, last;
} softmax_job;

static int softmax_rows(void *ctx, int64_t begin, int64_t end)
{
    const softmax_job *j = ctx;
    int64_t size = j->dim_size * j->inner;
    /* a row of 8 or more in vector instructions where this machine has them: the same bits */
    const attn_vector_kernels *k = attn_vector_kernels_now();
    int vector = j->last && j->dim_size >= 8 && k->softmax_row && k->log_softmax_row;
    for (int64_t r = begin; r < end; r++) {
        if (attn_interrupt_requested) /* once a row: an exp per element is far more work */
            return -1;
        const float *ib = j->in + r * size;
        float *ob = j->out + r * size;
        if (!j->last)
            softmax_block(ib, ob, j->dim_size, j->inner, j->log);
        else if (vector && j->log)
            k->log_softmax_row(ib, ob, j->dim_size);
        else if (vector)
            k->softmax_row(ib, ob, j->dim_size);
        else if (j->log)
            log_softmax_lastdim_row(ib, ob, j->dim_size);
        else
            softmax_lastdim_row(ib, ob, j->dim_size);
    }
    return 0;
}

attn_tensor *attn_softmax(const attn_tensor *t, int dim, int log, attn_error *err)
{
    const char *fn = log ? "log_softmax" : "softmax";
    int ndim = t->ndim == 0 ? 1 : t->ndim; /* a 0-d tensor is one element, as PyTorch's input.view(1) */
    if (dim < 0 || dim >= ndim)
        return attn_fail(err, "%s: dim %d is out of range for a %d-D tensor", fn, dim + 1, t->ndim);
    if (attn_check_float(fn, "the input", t, err))
        return NULL;
    attn_tensor *c = attn_contiguous(t, err);
    attn_tensor *out = c ? attn_empty(fn, t->ndim, t->shape, ATTN_FLOAT32, err) : NULL;
    if (!out) {
        attn_free(c);
        return NULL;
    }
    int64_t dim_size = t->ndim == 0 ? 1 : t->shape[dim], outer = 1, inner = 1;
    for (int d = 0; d < dim; d++)
        outer *= t->shape[d];
    for (int d = dim + 1; d < t->ndim; d++)
        inner *= t->shape[d];
    if (attn_numel(t) == 0)
        outer = 0;
    softmax_job job = {c->storage->data + c->offset, out->storage->data, dim_size, inner, log,
                       dim == ndim - 1}; /* PyTorch picks the kernel by the dim, even when inner is 1 */
    /* PyTorch's grain: internal::GRAIN_SIZE / (16 * dim_size * sizeof(float)) rows, at least 1 */
    int64_t row = dim_size * inner > 0 ? dim_size * inner : 1;
    int64_t grain = 32768 / (16 * (int64_t)sizeof(float) * row);
    if (attn_parallel_for(outer, grain, softmax_rows, &job)) {
        attn_free(c);
        attn_free(out);
        return attn_interrupted(err);
    }
    attn_free(c);
    return out;
}
