/* backward_loops.h — backward.c's loops with fmaf (see there), shared by the portable code and its copy
 * compiled for FMA (src/core/x86/backward_fma.c), where fmaf is one instruction rather than libm's
 * function; the result of a fused multiply-add is the same either way. */
#ifndef ATTN_BACKWARD_LOOPS_H
#define ATTN_BACKWARD_LOOPS_H

#include <math.h>
#include <stdint.h>

/* tanh_backward: od[i] = gd[i] * (1 - od[i]²), the bracket rounded once */
static inline void attn_tanh_backward_loop(const float *gd, float *od, int64_t begin, int64_t end)
{
    for (int64_t i = begin; i < end; i++)
        od[i] = gd[i] * fmaf(-od[i], od[i], 1.0f);
}

/* softmax_backward's sum(g * y) along the last dim, in vec_host_softmax_backward_lastdim's order */
static inline float attn_softmax_backward_sum_loop(const float *g, const float *y, int64_t n)
{
    if (n < 8) {
        float acc = g[0] * y[0];
        for (int64_t i = 1; i < n; i++)
            acc = acc + g[i] * y[i];
        return acc;
    }
    float lane[8];
    for (int j = 0; j < 8; j++)
        lane[j] = g[j] * y[j];
    int64_t d = 8;
    for (; d < n - (n % 8); d += 8)
        for (int j = 0; j < 8; j++)
            lane[j] = fmaf(g[d + j], y[d + j], lane[j]);
    for (int64_t j = 0; d + j < n; j++)
        lane[j] = fmaf(g[d + j], y[d + j], lane[j]);
    float s0 = lane[0] + lane[4], s1 = lane[1] + lane[5], s2 = lane[2] + lane[6], s3 = lane[3] + lane[7];
    return (s0 + s2) + (s1 + s3);
}

#endif
