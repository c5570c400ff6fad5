/* vmath.h — exp, log, tanh, sigmoid and vector reductions as PyTorch 1.13's AVX2 CPU kernels compute them.
 *
 * PyTorch's float kernels run on Vectorized<float> (8 lanes): exp/log/tanh are SLEEF's u10 functions
 * (Sleef_expf8_u10, ...), sums and maxima accumulate lane-wise and finish with a fixed horizontal
 * order. The last bit of a softmax depends on both, so attn reproduces them here in plain C: the math
 * with the bits of SLEEF's scalar FMA build (sleefmath.h), the reductions as arrays of 8 lanes. */
#ifndef ATTN_VMATH_H
#define ATTN_VMATH_H

#include <stdint.h>

/* Element-wise, float in, float out, bit for bit PyTorch's vector path. */
float vmath_exp(float x);
float vmath_log(float x);
float vmath_tanh(float x);
float vmath_sigmoid(float x); /* 1 / ((0 - x).exp() + 1), sigmoid_kernel's vector lambda */
/* torch.sigmoid computes the last numel % 16 elements of a contiguous tensor with its scalar lambda,
 * 1 / (1 + std::exp(-x)) with libm's expf; it differs from the vector one for ~0.3% of inputs. */
float vmath_sigmoid_tail(float x);


/* vec::maximum on one lane: _mm256_max_ps(a, b) (b when either is nan or both are zero), then nan
 * if either was nan (the all-ones pattern, a negative quiet nan). */
float vmath_max(float a, float b);

/* vec::reduce_all over n >= 1 floats (functional_base.h): lane-wise accumulation of 8-float blocks,
 * a partial last block merged only into its lanes, then the AVX2 horizontal order
 * ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)); fewer than 8 floats are added in order. */
float vmath_reduce_sum(const float *p, int64_t n);
float vmath_reduce_max(const float *p, int64_t n);

/* vec::map_reduce_all(exp(x - max), +): the sum of vmath_exp(p[i] - max) in reduce_all's order. */
float vmath_sum_exp(const float *p, int64_t n, float max);

#endif
