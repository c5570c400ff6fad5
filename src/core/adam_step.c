/* adam_step.c — one Adam / AdamW update of one parameter in a single pass over its elements, with the
 * roundings of the separate operations PyTorch 1.13's _single_tensor_adam(w) runs (src/lua/optim/adam.lua
 * lists them):
 *
 *   param.mul_(1 - lr * weight_decay)                      (AdamW only)  p * wd
 *   exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)        m * b1, then fma(g, 1 - b1, m)  (pointwise.c)
 *   exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
 *                                                          v * b2, then fma((1 - b2) * g, g, v)
 *   denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
 *                                                          sqrt(v) / bc2, then + eps
 *   param.addcdiv_(exp_avg, denom, value=-step_size)       p + (-step_size * m) / denom
 *
 * Each element's operations are the same IEEE float32 operations in the same order as the separate
 * tensor operations (each scalar cast to float as they cast it), so the results are their bits; what
 * changes is that the moments and the parameter are read and written once, and that the temporaries
 * (exp_avg_sq.sqrt(), its quotient, the out-of-place results the in-place forms copied back) are never
 * made: on GPT-2 small they were ~10 passes over 650 MB and 1.3 GB of garbage per step. Elements are
 * independent, so they are split among threads (parallel.h). */
#include "adam_loop.h"
#include "learn.h"
#include "parallel.h"
#include "vector_kernels.h"

#include <math.h>

/* The portable loop; the vector table (vector_kernels.h) may hold the same loop compiled where fmaf is one
 * instruction. */
static void adam_portable(const attn_adam_job *j, int64_t begin, int64_t end)
{
    ATTN_ADAM_LOOP(fmaf, sqrtf)
}

static int adam_range(void *ctx, int64_t begin, int64_t end)
{
    const attn_adam_job *j = ctx;
    void (*range)(const attn_adam_job *, int64_t, int64_t) = attn_vector_kernels_now()->adam_range;
    (range ? range : adam_portable)(j, begin, end);
    return 0;
}

static int is_plain(const attn_tensor *t, const attn_tensor *like)
{
    if (t->dtype != ATTN_FLOAT32 || !attn_is_contiguous(t) || t->ndim != like->ndim)
        return 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] != like->shape[d])
            return 0;
    return 1;
}

int attn_adam_step(attn_tensor *param, const attn_tensor *grad, attn_tensor *exp_avg, attn_tensor *exp_avg_sq,
                   const attn_adam_scalars *s)
{
    if (!is_plain(param, param) || !is_plain(exp_avg, param) || !is_plain(exp_avg_sq, param) ||
        !is_plain(grad, param))
        return -1; /* not an error: the caller runs the separate operations */
    attn_adam_job j = {param->storage->data + param->offset, exp_avg->storage->data + exp_avg->offset,
                       exp_avg_sq->storage->data + exp_avg_sq->offset, grad->storage->data + grad->offset, *s};
    attn_parallel_for(attn_numel(param), 1 << 16, adam_range, &j);
    return 0;
}
