/* x86_kernels.h — the vector kernels of x86-64 (AVX2 + FMA, AVX-512), which x86/vector_kernels.c puts in
 * the tables of vector_kernels.h. Each carries gcc's target attribute, so that attn still runs on any
 * x86-64: none may be called unless attn_isa_current() says the CPU runs its instruction set. */
#ifndef ATTN_X86_KERNELS_H
#define ATTN_X86_KERNELS_H

#include <stdint.h>

#include "adam_loop.h"
#include "ops.h"

/* vsoftmax_avx2.c */
void attn_softmax_row_avx2(const float *in, float *out, int64_t n);
void attn_log_softmax_row_avx2(const float *in, float *out, int64_t n);
void attn_softmax_row_avx512(const float *in, float *out, int64_t n);
void attn_log_softmax_row_avx512(const float *in, float *out, int64_t n);
/* vunary_avx2.c */
void attn_unary_avx2(attn_unop op, float *p, int64_t n);
/* trig_avx2.c */
void attn_trig8_avx2(int cosine, const float *in, float *out);
/* adam_avx2.c */
void attn_adam_range_avx2(const attn_adam_job *j, int64_t begin, int64_t end);
/* backward_fma.c */
void attn_tanh_backward_rows_fma(const float *gd, float *od, int64_t begin, int64_t end);
float attn_softmax_backward_sum_fma(const float *g, const float *y, int64_t n);
/* fused_avx2.c */
float attn_fused_row_max_avx2(const float *s, int64_t n);
float attn_fused_exp_row_avx2(float *s, int64_t n, float max);
void attn_fused_scale_row_avx2(float *o, int64_t n, float a);
/* fused_avx512.c */
float attn_fused_row_max_avx512(const float *s, int64_t n);
float attn_fused_exp_row_avx512(float *s, int64_t n, float max);
/* fused_tile_avx2.c, fused_tile_avx512.c (fused_tile.h) */
void attn_fused_tile_avx2(int64_t rows, int64_t cols, int64_t k, const float *a, int64_t lda, const float *b,
                          int64_t ldb, int64_t bpanel, float *c, int64_t ldc, int accumulate);
void attn_fused_tile_avx512(int64_t rows, int64_t cols, int64_t k, const float *a, int64_t lda, const float *b,
                            int64_t ldb, int64_t bpanel, float *c, int64_t ldc, int accumulate);

#endif
