/* reduce.h — PyTorch's CPU float32 sum, bit for bit.
 *
 * torch.sum does not add in order: it runs the cascade sum of aten/src/ATen/native/cpu/SumKernel.cpp
 * (interleaved accumulators, 8-lane AVX2 vectors, a 4-level cascade) over the dimension order that
 * TensorIterator chooses. reduce.c reproduces that, so results match torch (1.13 / 2.x, AVX2 kernels,
 * one thread) in the last bit. Plain C11; nothing here prints, aborts or allocates. Compile with
 * -ffp-contract=off. */
#ifndef ATTN_REDUCE_H
#define ATTN_REDUCE_H

#include <stdint.h>

/* Most dimensions attn_reduce_sum accepts (tensor.h's ATTN_MAX_DIMS is smaller). */
#define ATTN_REDUCE_MAX_DIMS 16

/* Sum over the dim `dim` (0-based) of a tensor given by data/shape/strides (float32, any strides,
 * in elements), writing one float per output position in row-major order of the remaining dims —
 * exactly PyTorch's single-thread CPU sum, bit for bit. dim == -1 means over all elements (one
 * output). data points at the tensor's first element (storage + offset). ndim is 0 (a scalar, only
 * with dim == -1) .. ATTN_REDUCE_MAX_DIMS; strides must be >= 0. A reduced dim of size 0 gives zeros.
 * Out-of-range ndim or dim: nothing is written. Returns 0, or -1 when a Ctrl-C stopped it (tensor.h's
 * attn_interrupt_requested; out is then incomplete). */
int attn_reduce_sum(const float *data, int ndim, const int64_t *shape, const int64_t *stride, int dim,
                    float *out);

#endif
