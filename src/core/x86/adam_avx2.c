/* x86/adam_avx2.c — adam_step.c's loop compiled for AVX2 + FMA, where fmaf is one instruction (the result
 * of a fused multiply-add is the same however it is computed). */
#include "x86_kernels.h"

#define AVX2 __attribute__((target("avx2,fma"), optimize("no-math-errno")))

AVX2 void attn_adam_range_avx2(const attn_adam_job *j, int64_t begin, int64_t end)
{
    ATTN_ADAM_LOOP(__builtin_fmaf, __builtin_sqrtf)
}
