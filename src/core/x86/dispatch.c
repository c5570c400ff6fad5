/* x86/dispatch.c — the one place that asks an x86-64 CPU what it runs (isa.h). libgcc's cpu indicator sets
 * "avx2", "fma" and "avx512*" only when the operating system saves the vector registers too. */
#include "isa.h"

int attn_isa_runs(attn_isa isa)
{
    switch (isa) {
    case ATTN_ISA_PORTABLE:
        return 1;
    case ATTN_ISA_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case ATTN_ISA_AVX512:
        return attn_isa_runs(ATTN_ISA_AVX2) && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
    default:
        return 0;
    }
}

attn_isa attn_isa_widest(void)
{
    return attn_isa_runs(ATTN_ISA_AVX512) ? ATTN_ISA_AVX512
           : attn_isa_runs(ATTN_ISA_AVX2) ? ATTN_ISA_AVX2
                                           : ATTN_ISA_PORTABLE;
}
