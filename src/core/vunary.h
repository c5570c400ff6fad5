/* vunary.h — exp, log and tanh over a contiguous array of floats in SLEEF's 8-wide AVX2 functions, the
 * ones PyTorch's Vectorized<float> calls (Sleef_expf8_u10 and the like), on all of attn's threads.
 *
 * Only faster, never different: each lane of the 8-wide function gives the bits of SLEEF's scalar FMA
 * build, which vmath_exp/log/tanh call (checked on all 2^32 floats), and an element-wise operation
 * gives the same result whichever thread computes it. */
#ifndef ATTN_VUNARY_H
#define ATTN_VUNARY_H

#include "ops.h"

/* p[i] = op(p[i]) for i in [0, n), for op ATTN_EXP, ATTN_LOG or ATTN_TANH. Returns 1 when done, 0 when
 * op is another one or this CPU lacks AVX2 and FMA (the caller then runs vmath's scalar functions), -1
 * when interrupted (Ctrl-C: p partly computed). */
int vunary_apply(attn_unop op, float *p, int64_t n);

#endif
