/* vsoftmax.h — one row of softmax / log_softmax over the last dim, in vector instructions, with PyTorch
 * 1.13's AVX2 kernels' bits (_vec_softmax_lastdim, _vec_log_softmax_lastdim).
 *
 * softmax.c's scalar code emulates those kernels one float at a time; these compute the same
 * operations, in the same order, 8 (AVX2) or 16 (AVX-512) floats per instruction, with SLEEF's vector
 * functions, which give the bits of the scalar SLEEF build softmax.c calls (checked on all 2^32 floats
 * for expf: Sleef_expf8_u10avx2 and Sleef_expf16_u10avx512f equal Sleef_expf1_u10purecfma). Sums and
 * maxima keep PyTorch's 8 lane accumulators whatever the vector width. */
#ifndef ATTN_VSOFTMAX_H
#define ATTN_VSOFTMAX_H

#include <stdint.h>

/* 1 when this CPU runs the functions below (x86-64 with AVX2 and FMA); 0 elsewhere, where softmax.c
 * keeps its scalar code. */
int vsoftmax_available(void);

/* out[0..n) = softmax(in[0..n)), n >= 8 (shorter rows are softmax.c's scalar reduction order). */
void vsoftmax_row(const float *in, float *out, int64_t n);
/* out[0..n) = log_softmax(in[0..n)), n >= 8. */
void vsoftmax_log_row(const float *in, float *out, int64_t n);

#endif
