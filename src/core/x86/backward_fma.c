/* x86/backward_fma.c — backward.c's loops compiled for FMA (backward_loops.h): fmaf one instruction
 * rather than a call to libm per element (a few % of a GPT-2 training step). */
#include "x86_kernels.h"

#include "backward_loops.h"

#define FMA __attribute__((target("fma")))

FMA void attn_tanh_backward_rows_fma(const float *gd, float *od, int64_t begin, int64_t end)
{
    attn_tanh_backward_loop(gd, od, begin, end);
}

FMA float attn_softmax_backward_sum_fma(const float *g, const float *y, int64_t n)
{
    return attn_softmax_backward_sum_loop(g, y, n);
}
