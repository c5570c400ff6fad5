/* vunary.c — see vunary.h. The vector table (vector_kernels.h) holds SLEEF's 8-wide functions where this
 * machine runs them; each lane gives the bits of SLEEF's scalar FMA build, which vmath_exp/log/tanh call
 * (checked on all 2^32 floats), so the portable loop below gives the same result. */
#include "vunary.h"
#include "parallel.h"
#include "tensor.h"
#include "vector_kernels.h"
#include "vmath.h"

typedef struct {
    attn_unop op;
    float *p;
} job;

static void unary_portable(attn_unop op, float *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = op == ATTN_EXP ? vmath_exp(p[i]) : op == ATTN_LOG ? vmath_log(p[i]) : vmath_tanh(p[i]);
}

/* One thread's range, in pieces of ATTN_POLL_EVERY floats, between which Ctrl-C is seen. */
static int run_range(void *ctx, int64_t begin, int64_t end)
{
    const job *j = ctx;
    void (*unary)(attn_unop, float *, int64_t) = attn_vector_kernels_now()->unary;
    if (!unary)
        unary = unary_portable;
    for (int64_t i = begin; i < end; i += ATTN_POLL_EVERY) {
        if (attn_interrupt_requested)
            return -1;
        unary(j->op, j->p + i, end - i < ATTN_POLL_EVERY ? end - i : ATTN_POLL_EVERY);
    }
    return 0;
}

int vunary_apply(attn_unop op, float *p, int64_t n)
{
    if (op != ATTN_EXP && op != ATTN_LOG && op != ATTN_TANH)
        return 0;
    job j = {op, p};
    /* chunks of at least 32768 floats per thread, at::parallel_for's grain for element-wise kernels */
    return attn_parallel_for(n, 32768, run_range, &j) ? -1 : 1;
}
