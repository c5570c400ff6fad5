/* vunary.c — see vunary.h. Compiled for any x86-64: the AVX2 code carries gcc's target attribute and
 * runs only after the CPU has been asked, as in vsoftmax.c. */
#include "vunary.h"
#include "parallel.h"
#include "tensor.h"
#include "vmath.h"

#if defined(__x86_64__) && defined(__GNUC__)

#include <immintrin.h>

/* SLEEF's vector functions; sleef.h declares them only when this file is compiled for AVX2. */
__m256 Sleef_expf8_u10avx2(__m256 x);
__m256 Sleef_logf8_u10avx2(__m256 x);
__m256 Sleef_tanhf8_u10avx2(__m256 x);

#define AVX2 __attribute__((target("avx2,fma")))

typedef struct {
    attn_unop op;
    float *p;
} job;

AVX2 static __m256 apply8(attn_unop op, __m256 x)
{
    return op == ATTN_EXP ? Sleef_expf8_u10avx2(x) : op == ATTN_LOG ? Sleef_logf8_u10avx2(x) : Sleef_tanhf8_u10avx2(x);
}

static float apply1(attn_unop op, float x)
{
    return op == ATTN_EXP ? vmath_exp(x) : op == ATTN_LOG ? vmath_log(x) : vmath_tanh(x);
}

/* One thread's range, 8 floats at a time; the last few (fewer than 8) through the scalar function,
 * which gives a lane's bits. Ctrl-C is seen every ATTN_POLL_EVERY floats. */
AVX2 static int run_range(void *ctx, int64_t begin, int64_t end)
{
    const job *j = ctx;
    int64_t i = begin;
    for (; i + 8 <= end; i += 8) {
        if (((i - begin) & (ATTN_POLL_EVERY - 1)) == 0 && attn_interrupt_requested)
            return -1;
        _mm256_storeu_ps(j->p + i, apply8(j->op, _mm256_loadu_ps(j->p + i)));
    }
    for (; i < end; i++)
        j->p[i] = apply1(j->op, j->p[i]);
    return 0;
}

int vunary_apply(attn_unop op, float *p, int64_t n)
{
    if ((op != ATTN_EXP && op != ATTN_LOG && op != ATTN_TANH) ||
        !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
        return 0;
    job j = {op, p};
    /* chunks of at least 32768 floats per thread, at::parallel_for's grain for element-wise kernels */
    return attn_parallel_for(n, 32768, run_range, &j) ? -1 : 1;
}

#else

int vunary_apply(attn_unop op, float *p, int64_t n)
{
    (void)op, (void)p, (void)n;
    return 0;
}

#endif
