/* backward.c — element-wise backward kernels whose rounding PyTorch's CPU kernels fix in a way attn's
 * ordinary ops cannot reproduce (src/lua/autograd/ops_math.lua uses them).
 *
 * tanh_backward(grad, y) = grad * (1 - y * y). PyTorch 1.13's kernel writes a * (1 - b * b) with
 * Vectorized<float>, which GCC contracts into one fused multiply-add: 1 - b * b is rounded once. fmaf
 * does the same here (scalar, so the same on every CPU); the product with grad is rounded as usual. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backward_loops.h"
#include "ops.h"
#include "tensor.h"
#include "vector_kernels.h"

/* The loops with fmaf are backward_loops.h's; the vector table (vector_kernels.h) may hold them compiled
 * where fmaf is one instruction. */
static void tanh_backward_rows(const float *gd, float *od, int64_t begin, int64_t end)
{
    void (*rows)(const float *, float *, int64_t, int64_t) = attn_vector_kernels_now()->tanh_backward_rows;
    (rows ? rows : attn_tanh_backward_loop)(gd, od, begin, end);
}

attn_tensor *attn_tanh_backward(const attn_tensor *grad, const attn_tensor *y, attn_error *err)
{
    if (grad->dtype != ATTN_FLOAT32 || y->dtype != ATTN_FLOAT32)
        return attn_fail(err, "tanh_backward: expected float32 tensors");
    if (grad->ndim != y->ndim || memcmp(grad->shape, y->shape, sizeof(int64_t) * (size_t)grad->ndim) != 0)
        return attn_fail(err, "tanh_backward: grad and y must have the same shape");
    attn_tensor *g = attn_contiguous(grad, err);
    if (!g)
        return NULL;
    attn_tensor *out = attn_clone(y, err); /* contiguous, y's values: overwritten below */
    if (!out) {
        attn_free(g);
        return NULL;
    }
    int64_t n = attn_numel(out);
    const float *gd = g->storage->data + g->offset;
    float *od = out->storage->data + out->offset;
    for (int64_t i = 0; i < n; i += ATTN_POLL_EVERY) {
        if (attn_poll(i)) {
            attn_free(g);
            attn_free(out);
            return attn_interrupted(err);
        }
        tanh_backward_rows(gd, od, i, n - i < ATTN_POLL_EVERY ? n : i + ATTN_POLL_EVERY);
    }
    attn_free(g);
    return out;
}

/* ---- softmax_backward: PyTorch 1.13's _softmax_backward_data on the CPU ---------------------------------
 * grad_input = (grad - sum(grad * y, dim)) * y, with the sum added as PyTorch's vectorised kernels add it
 * (Vectorized<float> of 8 lanes, AVX2). Along the last dim (vec_host_softmax_backward_lastdim, via
 * vec::map2_reduce_all): a row shorter than 8 is summed left to right; otherwise lane j accumulates the
 * products j, j + 8, j + 16, ... (the tail's lanes only where the tail has numbers), each product and
 * add fused (GCC contracts x * y then acc + that into one FMA), then the 8 lanes are added as
 * _mm256_permute2f128 / _mm256_shuffle_ps pair them: (l0 + l4) ... , then (s0 + s2), (s1 + s3), then
 * the two. Along another dim (_vec_softmax_backward): every inner position has its own running sum over
 * dim, started at 0, each step fused. */

static float lastdim_sum(const float *g, const float *y, int64_t n)
{
    float (*sum)(const float *, const float *, int64_t) = attn_vector_kernels_now()->softmax_backward_sum;
    return (sum ? sum : attn_softmax_backward_sum_loop)(g, y, n);
}

attn_tensor *attn_softmax_backward(const attn_tensor *grad, const attn_tensor *y, int dim, attn_error *err)
{
    if (grad->dtype != ATTN_FLOAT32 || y->dtype != ATTN_FLOAT32)
        return attn_fail(err, "softmax_backward: expected float32 tensors");
    if (grad->ndim != y->ndim || memcmp(grad->shape, y->shape, sizeof(int64_t) * (size_t)grad->ndim) != 0)
        return attn_fail(err, "softmax_backward: grad and y must have the same shape");
    if (y->ndim > 0 && (dim < 0 || dim >= y->ndim))
        return attn_fail(err, "softmax_backward: dim out of range");
    attn_tensor *g = attn_contiguous(grad, err);
    attn_tensor *yc = g ? attn_contiguous(y, err) : NULL;
    attn_tensor *out = yc ? attn_clone(y, err) : NULL;
    if (!out) {
        attn_free(g);
        attn_free(yc);
        return NULL;
    }
    int64_t outer = 1, n = y->ndim ? y->shape[dim] : 1, inner = 1;
    for (int d = 0; d < dim; d++)
        outer *= y->shape[d];
    for (int d = dim + 1; d < y->ndim; d++)
        inner *= y->shape[d];
    const float *gd = g->storage->data + g->offset, *yd = yc->storage->data + yc->offset;
    float *od = out->storage->data + out->offset;
    float *sums = NULL;
    if (inner > 1) {
        sums = malloc(sizeof(float) * (size_t)inner);
        if (!sums) {
            attn_fail(err, "softmax_backward: out of memory");
            attn_free(g);
            attn_free(yc);
            attn_free(out);
            return NULL;
        }
    }
    for (int64_t o = 0; o < outer; o++) {
        if (attn_interrupt_requested) {
            free(sums);
            attn_free(g);
            attn_free(yc);
            attn_free(out);
            return attn_interrupted(err);
        }
        const float *go = gd + o * n * inner, *yo = yd + o * n * inner;
        float *oo = od + o * n * inner;
        if (inner == 1) {
            float sum = n > 0 ? lastdim_sum(go, yo, n) : 0.0f;
            for (int64_t i = 0; i < n; i++)
                oo[i] = (go[i] - sum) * yo[i];
            continue;
        }
        for (int64_t k = 0; k < inner; k++)
            sums[k] = 0.0f;
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < inner; k++)
                sums[k] = fmaf(go[i * inner + k], yo[i * inner + k], sums[k]);
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < inner; k++)
                oo[i * inner + k] = (go[i * inner + k] - sums[k]) * yo[i * inner + k];
    }
    free(sums);
    attn_free(g);
    attn_free(yc);
    return out;
}
