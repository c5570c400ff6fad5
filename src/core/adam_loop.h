/* adam_loop.h — the loop of one Adam / AdamW step (adam_step.c explains its operations), shared by the
 * portable code and its copy compiled for AVX2 + FMA (src/core/x86/adam_avx2.c), where fmaf is one
 * instruction: the result of a fused multiply-add is the same however it is computed. */
#ifndef ATTN_ADAM_LOOP_H
#define ATTN_ADAM_LOOP_H

#include <stdint.h>

#include "learn.h"

typedef struct attn_adam_job {
    float *p, *m, *v;
    const float *g;
    attn_adam_scalars s;
} attn_adam_job;

/* The body, with FMA and SQRT the caller's fused multiply-add and square root. */
#define ATTN_ADAM_LOOP(FMA, SQRT)                                                                     \
    const attn_adam_scalars s = j->s;                                                                 \
    for (int64_t i = begin; i < end; i++) {                                                           \
        float g = j->g[i], p = j->p[i], m = j->m[i], v = j->v[i];                                     \
        if (s.decoupled)                                                                             \
            p = p * s.decay;                                                                         \
        m = m * s.beta1;                                                                             \
        m = FMA(g, s.one_minus_beta1, m);                                                            \
        v = v * s.beta2;                                                                             \
        v = FMA(s.one_minus_beta2 * g, g, v);                                                        \
        float denom = SQRT(v) / s.bias_correction2_sqrt;                                             \
        denom = denom + s.eps;                                                                       \
        p = p + s.neg_step_size * m / denom;                                                         \
        j->p[i] = p, j->m[i] = m, j->v[i] = v;                                                        \
    }

#endif
