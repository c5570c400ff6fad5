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
#include "learn.h"
#include "parallel.h"

#include <math.h>

typedef struct adam_job {
    float *p, *m, *v;
    const float *g;
    attn_adam_scalars s;
} adam_job;

#define AVX2 __attribute__((target("avx2,fma"), optimize("no-math-errno")))

/* The loop body, once for every CPU and once compiled for AVX2 + FMA, where fmaf is one instruction
 * (the result of a fused multiply-add is the same however it is computed). */
#define ADAM_LOOP                                                                                     \
    for (int64_t i = begin; i < end; i++) {                                                           \
        float g = j->g[i], p = j->p[i], m = j->m[i], v = j->v[i];                                     \
        if (s.decoupled)                                                                              \
            p = p * s.decay;                                                                          \
        m = m * s.beta1;                                                                              \
        m = FMA(g, s.one_minus_beta1, m);                                                             \
        v = v * s.beta2;                                                                              \
        v = FMA(s.one_minus_beta2 * g, g, v);                                                         \
        float denom = SQRT(v) / s.bias_correction2_sqrt;                                              \
        denom = denom + s.eps;                                                                        \
        p = p + s.neg_step_size * m / denom;                                                          \
        j->p[i] = p, j->m[i] = m, j->v[i] = v;                                                        \
    }

static int adam_range(void *ctx, int64_t begin, int64_t end)
{
    const adam_job *j = ctx;
    const attn_adam_scalars s = j->s;
#define FMA fmaf
#define SQRT sqrtf
    ADAM_LOOP
#undef FMA
#undef SQRT
    return 0;
}

AVX2 static int adam_range_avx2(void *ctx, int64_t begin, int64_t end)
{
    const adam_job *j = ctx;
    const attn_adam_scalars s = j->s;
#define FMA __builtin_fmaf
#define SQRT __builtin_sqrtf
    ADAM_LOOP
#undef FMA
#undef SQRT
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
    adam_job j = {param->storage->data + param->offset, exp_avg->storage->data + exp_avg->offset,
                  exp_avg_sq->storage->data + exp_avg_sq->offset, grad->storage->data + grad->offset, *s};
    static int avx2 = -1;
    if (avx2 < 0)
        avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    attn_parallel_for(attn_numel(param), 1 << 16, avx2 ? adam_range_avx2 : adam_range, &j);
    return 0;
}
