/* x86/vector_kernels.c — the tables of vector_kernels.h on x86-64: AVX2 + FMA, and AVX-512, which differs
 * only where a wider vector pays (the softmax rows' exp). The portable instruction set (a CPU without
 * AVX2, or ATTN_ISA=portable) has an empty table: every caller runs its portable code. */
#include "vector_kernels.h"

#include "isa.h"
#include "x86_kernels.h"

static const attn_vector_kernels portable = {0};

static const attn_vector_kernels avx2 = {
    .softmax_row = attn_softmax_row_avx2,
    .log_softmax_row = attn_log_softmax_row_avx2,
    .unary = attn_unary_avx2,
    .trig8 = attn_trig8_avx2,
    .adam_range = attn_adam_range_avx2,
    .tanh_backward_rows = attn_tanh_backward_rows_fma,
    .softmax_backward_sum = attn_softmax_backward_sum_fma,
    .fused_row_max = attn_fused_row_max_avx2,
    .fused_exp_row = attn_fused_exp_row_avx2,
    .fused_scale_row = attn_fused_scale_row_avx2,
    .fused_tile = attn_fused_tile_avx2,
};

static const attn_vector_kernels avx512 = {
    .softmax_row = attn_softmax_row_avx512,
    .log_softmax_row = attn_log_softmax_row_avx512,
    .unary = attn_unary_avx2,
    .trig8 = attn_trig8_avx2,
    .adam_range = attn_adam_range_avx2,
    .tanh_backward_rows = attn_tanh_backward_rows_fma,
    .softmax_backward_sum = attn_softmax_backward_sum_fma,
    .fused_row_max = attn_fused_row_max_avx512,
    .fused_exp_row = attn_fused_exp_row_avx512,
    .fused_scale_row = attn_fused_scale_row_avx2,
    .fused_tile = attn_fused_tile_avx512,
};

const attn_vector_kernels *attn_vector_kernels_now(void)
{
    switch (attn_isa_current()) {
    case ATTN_ISA_AVX512:
        return &avx512;
    case ATTN_ISA_AVX2:
        return &avx2;
    default:
        return &portable;
    }
}
