/* vector_kernels.h — the vector versions of attn's element-wise and row kernels, one table per
 * instruction set (isa.h).
 *
 * Every entry computes exactly what the portable C code of the file named beside it computes: the same
 * operations on each element in the same order (the 8 lanes of PyTorch's AVX2 kernels emulated on plain
 * arrays there, fmaf where the vector code fuses), so a table changes the time, never a bit. A NULL entry
 * means this instruction set has no faster version: the caller runs its portable code.
 *
 * The tables live with the code of the machine's kind: src/core/x86/vector_kernels.c (AVX2, AVX-512),
 * src/core/generic/vector_kernels.c (every other machine). */
#ifndef ATTN_VECTOR_KERNELS_H
#define ATTN_VECTOR_KERNELS_H

#include <stdint.h>

#include "adam_loop.h"
#include "ops.h"

typedef struct attn_vector_kernels {
    /* softmax.c: one row of softmax / log_softmax over the last dim, n >= 8 (x86/vsoftmax_avx2.c) */
    void (*softmax_row)(const float *in, float *out, int64_t n);
    void (*log_softmax_row)(const float *in, float *out, int64_t n);
    /* vunary.c: p[i] = exp, log or tanh of p[i] for i in [0, n) (op ATTN_EXP, ATTN_LOG or ATTN_TANH) */
    void (*unary)(attn_unop op, float *p, int64_t n);
    /* activation.c: sin (cosine 0) or cos of one group of 8 floats, as one vector of SLEEF's */
    void (*trig8)(int cosine, const float *in, float *out);
    /* adam_step.c: one Adam step on the elements [begin, end) */
    void (*adam_range)(const attn_adam_job *j, int64_t begin, int64_t end);
    /* backward.c: tanh_backward's rows [begin, end), and softmax_backward's sum along the last dim */
    void (*tanh_backward_rows)(const float *grad, float *y_out, int64_t begin, int64_t end);
    float (*softmax_backward_sum)(const float *g, const float *y, int64_t n);
    /* fused_task.c: the online softmax's loops over a row of scores */
    float (*fused_row_max)(const float *s, int64_t n);
    float (*fused_exp_row)(float *s, int64_t n, float max);
    void (*fused_scale_row)(float *o, int64_t n, float a);
    /* fused_tile.c: attention.fused's tile product (fused_tile.h's attn_fused_tile_fn) */
    void (*fused_tile)(int64_t rows, int64_t cols, int64_t k, const float *a, int64_t lda, const float *b,
                       int64_t ldb, int64_t bpanel, float *c, int64_t ldc, int accumulate);
} attn_vector_kernels;

/* The table of attn_isa_current() (never NULL). */
const attn_vector_kernels *attn_vector_kernels_now(void);

#endif
