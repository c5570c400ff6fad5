/* vunary.h — exp, log and tanh over a contiguous array of floats on all of attn's threads, in SLEEF's
 * 8-wide functions (the ones PyTorch's Vectorized<float> calls, Sleef_expf8_u10 and the like) where this
 * machine has them (vector_kernels.h), else vmath's scalar ones.
 *
 * Only faster, never different: each lane of the 8-wide function gives the bits of SLEEF's scalar FMA
 * build, which vmath_exp/log/tanh call (checked on all 2^32 floats), and an element-wise operation
 * gives the same result whichever thread computes it. */
#ifndef ATTN_VUNARY_H
#define ATTN_VUNARY_H

#include "ops.h"

/* p[i] = op(p[i]) for i in [0, n), for op ATTN_EXP, ATTN_LOG or ATTN_TANH. Returns 1 when done, 0 when
 * op is another one (the caller computes it), -1 when interrupted (Ctrl-C: p partly computed). */
int vunary_apply(attn_unop op, float *p, int64_t n);

#endif
