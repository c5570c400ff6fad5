/* reduce.c — PyTorch's CPU float32 sum, bit for bit (see reduce.h).
 *
 * Two parts, each mirroring PyTorch (1.13; 2.x has the same code):
 *   1. TensorIterator (aten/src/ATen/TensorIterator.cpp): how the reduction is laid out as 2-D loops —
 *      compute_strides, reorder_dimensions, coalesce_dimensions, serial_for_each / DimCounter.
 *   2. cascade_sum (aten/src/ATen/native/cpu/SumKernel.cpp): the kernel run on each 2-D piece.
 * Vectorized<float> (8 lanes with AVX2) is emulated by arrays of 8 floats; a scalar is 1 lane. Every
 * addition is a plain float addition in PyTorch's order (no FMA: compile with -ffp-contract=off).
 * Strides are in elements here (PyTorch's are in bytes; comparisons are the same). */
#include "reduce.h"
#include "tensor.h"

#include <stddef.h>

#define VEC 8      /* Vectorized<float>::size() with AVX2 */
#define NLEVELS 4  /* multi_row_sum's num_levels */
#define NROWS 4    /* nrows of vectorized_outer_sum / scalar_outer_sum, ilp_factor of row_sum */

/* Ctrl-C: once the flag is seen, every loop below returns at once and attn_reduce_sum reports it. The
 * outer loops look every 4096 steps, multi_row_sum every level_step rows. (Not PyTorch's code.) */
static int stopped;

static int stop_now(void)
{
    if (attn_interrupt_requested)
        stopped = 1;
    return stopped;
}

/* utils::CeilLog2 (aten/src/ATen/native/cpu/utils.h): 1 for x <= 2, else findLastSet(x - 1) + 1. */
static int64_t ceil_log2(int64_t x)
{
    if (x <= 2)
        return 1;
    uint64_t y = (uint64_t)x - 1;
    int64_t bits = 0;
    while (y != 0) {
        bits++;
        y >>= 1;
    }
    return bits;
}

/* acc[k][l] += lane l of LoadPolicy::load(base, col_stride, k), k < nrows. A load of `w` lanes reads
 * w consecutive floats at base + k * col_stride (LoadPolicy<Vectorized<float>> is loadu there). */
static void add_rows(float acc[NROWS][VEC], const float *base, int64_t col_stride, int nrows, int w)
{
    for (int k = 0; k < nrows; k++)
        for (int l = 0; l < w; l++)
            acc[k][l] += base[k * col_stride + l];
}

/* multi_row_sum<scalar_t, nrows, LoadPolicy>: sums `size` rows (row i at in + i * row_stride) of
 * nrows values of w lanes at once, chunking into a 4-level cascade of 2^level_power-element groups. */
static void multi_row_sum(const float *in, int64_t row_stride, int64_t col_stride, int64_t size,
                          int nrows, int w, float ret[NROWS][VEC])
{
    int64_t level_power = ceil_log2(size) / NLEVELS;
    if (level_power < 4)
        level_power = 4;
    const int64_t level_step = (int64_t)1 << level_power;
    const int64_t level_mask = level_step - 1;
    float acc[NLEVELS][NROWS][VEC] = {{{0}}};

    int64_t i = 0;
    while (i + level_step <= size) {
        if (stop_now())
            break; /* ret gets the partial sums: they are thrown away */
        for (int64_t j = 0; j < level_step; j++, i++)
            add_rows(acc[0], in + i * row_stride, col_stride, nrows, w);
        for (int j = 1; j < NLEVELS; j++) {
            for (int k = 0; k < nrows; k++)
                for (int l = 0; l < w; l++) {
                    acc[j][k][l] += acc[j - 1][k][l];
                    acc[j - 1][k][l] = 0.0f;
                }
            const int64_t mask = level_mask << (j * level_power);
            if ((i & mask) != 0)
                break;
        }
    }
    for (; i < size && !stopped; i++)
        add_rows(acc[0], in + i * row_stride, col_stride, nrows, w);
    for (int j = 1; j < NLEVELS; j++)
        for (int k = 0; k < nrows; k++)
            for (int l = 0; l < w; l++)
                acc[0][k][l] += acc[j][k][l];
    for (int k = 0; k < nrows; k++)
        for (int l = 0; l < w; l++)
            ret[k][l] = acc[0][k][l];
}

/* row_sum<scalar_t, LoadPolicy>: the row as a (-1, 4) array summed by multi_row_sum, the leftover
 * elements added to partial 0, then partials 1..3 added to partial 0 in order. */
static void row_sum(const float *in, int64_t stride, int64_t size, int w, float ret[VEC])
{
    float partial[NROWS][VEC];
    const int64_t size_ilp = size / NROWS;
    multi_row_sum(in, stride * NROWS, stride, size_ilp, NROWS, w, partial);
    for (int64_t i = size_ilp * NROWS; i < size; i++)
        for (int l = 0; l < w; l++)
            partial[0][l] += in[i * stride + l];
    for (int k = 1; k < NROWS; k++)
        for (int l = 0; l < w; l++)
            partial[0][l] += partial[k][l];
    for (int l = 0; l < w; l++)
        ret[l] = partial[0][l];
}

/* vectorized_inner_sum: each of size1 rows (at in + j * outer_stride) is contiguous over the reduced
 * dim. Vector row_sum over the first size0 / 8 * 8 elements; the scalar tail is summed first, then
 * the 8 lanes of the vector accumulator are added to it in lane order. */
static void vectorized_inner_sum(const float *in, int64_t outer_stride, float *out, int64_t out_stride,
                                 int64_t size0, int64_t size1)
{
    const int64_t vec_size = size0 / VEC;
    for (int64_t j = 0; j < size1; j++) {
        if ((j & 4095) == 0 && stop_now())
            return;
        const float *row_in = in + j * outer_stride;
        float vec_acc[VEC];
        row_sum(row_in, VEC, vec_size, VEC, vec_acc);
        float final_acc = 0.0f;
        for (int64_t k = vec_size * VEC; k < size0; k++)
            final_acc += row_in[k];
        for (int l = 0; l < VEC; l++)
            final_acc += vec_acc[l];
        out[j * out_stride] += final_acc; /* CastStoreAccumulate */
    }
}

/* vectorized_outer_sum: the kept dim (size1) is contiguous. Blocks of 4 vectors (32 outputs) through
 * multi_row_sum, then single vectors through row_sum, then the rest one scalar row_sum each. */
static void vectorized_outer_sum(const float *in, int64_t inner_stride, float *out, int64_t out_stride,
                                 int64_t size0, int64_t size1)
{
    int64_t j = 0;
    for (; j + NROWS * VEC <= size1; j += NROWS * VEC) {
        if (stop_now())
            return;
        float sums[NROWS][VEC];
        multi_row_sum(in + j, inner_stride, VEC, size0, NROWS, VEC, sums);
        for (int i = 0; i < NROWS; i++)
            for (int l = 0; l < VEC; l++)
                out[(j + i * VEC + l) * out_stride] += sums[i][l];
    }
    for (; j + VEC <= size1; j += VEC) {
        float sums[VEC];
        row_sum(in + j, inner_stride, size0, VEC, sums);
        for (int l = 0; l < VEC; l++)
            out[(j + l) * out_stride] += sums[l];
    }
    for (; j < size1; j++) {
        float ans[VEC];
        row_sum(in + j, inner_stride, size0, 1, ans);
        out[j * out_stride] += ans[0];
    }
}

/* scalar_inner_sum: one scalar row_sum per output. */
static void scalar_inner_sum(const float *in, const int64_t in_strides[2], float *out, int64_t out_stride,
                             int64_t size0, int64_t size1)
{
    for (int64_t j = 0; j < size1; j++) {
        if ((j & 4095) == 0 && stop_now())
            return;
        float ans[VEC];
        row_sum(in + j * in_strides[1], in_strides[0], size0, 1, ans);
        out[j * out_stride] += ans[0];
    }
}

/* scalar_outer_sum: groups of 4 outputs through multi_row_sum, the rest one row_sum each. */
static void scalar_outer_sum(const float *in, const int64_t in_strides[2], float *out, int64_t out_stride,
                             int64_t size0, int64_t size1)
{
    int64_t j = 0;
    for (; j + (NROWS - 1) < size1; j += NROWS) {
        if ((j & 4095) == 0 && stop_now())
            return;
        float sums[NROWS][VEC];
        multi_row_sum(in + j * in_strides[1], in_strides[0], in_strides[1], size0, NROWS, 1, sums);
        for (int k = 0; k < NROWS; k++)
            out[(j + k) * out_stride] += sums[k][0];
    }
    for (; j < size1; j++) {
        float ans[VEC];
        row_sum(in + j * in_strides[1], in_strides[0], size0, 1, ans);
        out[j * out_stride] += ans[0];
    }
}

/* The loop body of cascade_sum: one 2-D piece, strides as TensorIterator gives them
 * (s[0] out dim 0, s[1] in dim 0, s[2] out dim 1, s[3] in dim 1). */
static void cascade_sum_loop(float *out, const float *in, const int64_t s[4], int64_t size0, int64_t size1)
{
    int64_t in_strides[2] = {s[1], s[3]};
    int64_t out_strides[2] = {s[0], s[2]};
    /* Move reduction to be the 1st dim */
    if (out_strides[0] != 0 && out_strides[1] == 0) {
        int64_t t = in_strides[0]; in_strides[0] = in_strides[1]; in_strides[1] = t;
        t = out_strides[0]; out_strides[0] = out_strides[1]; out_strides[1] = t;
        t = size0; size0 = size1; size1 = t;
    }
    /* Not a true reduction (only size-1 dims reduced): out += in elementwise (UNARY_OUTER_LOOP of
     * basic_loop, with the original strides; no swap happened on this path) */
    if (out_strides[0] != 0 && out_strides[1] != 0) {
        for (int64_t j = 0; j < size1 && !stop_now(); j++)
            for (int64_t i = 0; i < size0; i++)
                out[j * s[2] + i * s[0]] += in[j * s[3] + i * s[1]];
        return;
    }
    const int64_t out_stride = out_strides[1];
    if (in_strides[0] == 1 && size0 >= VEC)
        vectorized_inner_sum(in, in_strides[1], out, out_stride, size0, size1);
    else if (in_strides[1] == 1 && size1 >= VEC)
        vectorized_outer_sum(in, in_strides[0], out, out_stride, size0, size1);
    else if (in_strides[0] < in_strides[1])
        scalar_inner_sum(in, in_strides, out, out_stride, size0, size1);
    else
        scalar_outer_sum(in, in_strides, out, out_stride, size0, size1);
}

typedef struct {
    int64_t size, out_stride, in_stride; /* operand 0 is the output, operand 1 the input */
} dim_info;

/* reorder_dimensions' should_swap: 1 if a should come after b, -1 before, 0 ambiguous. Reduced dims
 * (output stride 0) go first; then ascending strides, output first; equal strides: smaller size first. */
static int should_swap(const dim_info *a, const dim_info *b)
{
    for (int arg = 0; arg < 2; arg++) {
        const int64_t s0 = arg == 0 ? a->out_stride : a->in_stride;
        const int64_t s1 = arg == 0 ? b->out_stride : b->in_stride;
        if (arg == 0 && (s0 == 0) != (s1 == 0))
            return s1 == 0 ? 1 : -1;
        if (s0 == 0 || s1 == 0)
            continue;
        if (s0 < s1)
            return -1;
        if (s0 > s1)
            return 1;
        if (a->size > b->size)
            return 1;
    }
    return 0;
}

/* The result: contiguous over the kept dims (what sum allocates); review_reduce_result gives the
 * reduced dims stride 0. numel 0 -> result.zero_(); otherwise output().fill_(0) too. Returns the
 * input's numel. */
static int64_t zero_result(int ndim, const int64_t *shape, int dim, int64_t *out_stride, float *out)
{
    int64_t contig = 1, out_numel = 1, numel = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        numel *= shape[d];
        if (dim == -1 || d == dim) {
            out_stride[d] = 0;
        } else {
            out_stride[d] = contig;
            contig *= shape[d] > 1 ? shape[d] : 1;
            out_numel *= shape[d];
        }
    }
    for (int64_t i = 0; i < out_numel; i++)
        out[i] = 0.0f;
    return numel;
}

/* compute_strides, then reorder_dimensions: perm starts as n-1, ..., 0 (fastest first), then an
 * insertion sort that tolerates ambiguous comparisons (ndim == 1 keeps its order). */
static void reorder_dimensions(int ndim, const int64_t *shape, const int64_t *stride, const int64_t *out_stride,
                               dim_info *dims)
{
    for (int i = 0; i < ndim; i++) {
        const int d = ndim - 1 - i;
        dims[i].size = shape[d];
        dims[i].out_stride = out_stride[d];
        dims[i].in_stride = stride[d];
    }
    for (int i = 1; i < ndim; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            const int cmp = should_swap(&dims[d0], &dims[d1]);
            if (cmp > 0) {
                dim_info t = dims[d0]; dims[d0] = dims[d1]; dims[d1] = t;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
}

/* coalesce_dimensions: merge neighbours when either has size 1 or, for both operands,
 * shape[prev] * stride[prev] == stride[next]. Returns the number of dims left. */
static int coalesce_dimensions(int ndim, dim_info *dims)
{
    if (ndim <= 1)
        return ndim;
    int prev = 0;
    for (int d = 1; d < ndim; d++) {
        const dim_info *p = &dims[prev], *q = &dims[d];
        const int can = p->size == 1 || q->size == 1 ||
                        (p->size * p->out_stride == q->out_stride && p->size * p->in_stride == q->in_stride);
        if (can) {
            if (dims[prev].size == 1) {
                dims[prev].out_stride = q->out_stride;
                dims[prev].in_stride = q->in_stride;
            }
            dims[prev].size *= q->size;
        } else {
            prev++;
            if (prev != d)
                dims[prev] = dims[d];
        }
    }
    return prev + 1;
}

/* serial_for_each over the whole range (parallel_reduce with one thread): one 2-D loop call per
 * position of dims 2.. (DimCounter: dim 2 fastest); the output accumulates across calls. Missing
 * dims 0/1 get size 1 and stride 0 (get_strides pads to 2-D). -1 when interrupted. */
static int for_each_2d(const float *data, const dim_info *dims, int nd, float *out)
{
    int64_t s[4] = {0, 0, 0, 0};
    int64_t size0 = 1, size1 = 1;
    if (nd >= 1) {
        s[0] = dims[0].out_stride; s[1] = dims[0].in_stride; size0 = dims[0].size;
    }
    if (nd >= 2) {
        s[2] = dims[1].out_stride; s[3] = dims[1].in_stride; size1 = dims[1].size;
    }
    int64_t idx[ATTN_REDUCE_MAX_DIMS] = {0};
    for (;;) {
        int64_t in_off = 0, out_off = 0;
        for (int d = 2; d < nd; d++) {
            in_off += idx[d] * dims[d].in_stride;
            out_off += idx[d] * dims[d].out_stride;
        }
        cascade_sum_loop(out + out_off, data + in_off, s, size0, size1);
        if (stop_now())
            return -1;
        int d = 2;
        while (d < nd && ++idx[d] == dims[d].size)
            idx[d++] = 0;
        if (d >= nd)
            break;
    }
    return 0;
}

int attn_reduce_sum(const float *data, int ndim, const int64_t *shape, const int64_t *stride, int dim,
                    float *out)
{
    stopped = 0;
    if (ndim < 0 || ndim > ATTN_REDUCE_MAX_DIMS || dim < -1 || dim >= ndim || (ndim == 0 && dim != -1))
        return 0;
    int64_t out_stride[ATTN_REDUCE_MAX_DIMS];
    if (zero_result(ndim, shape, dim, out_stride, out) == 0)
        return 0;
    dim_info dims[ATTN_REDUCE_MAX_DIMS];
    reorder_dimensions(ndim, shape, stride, out_stride, dims);
    int nd = coalesce_dimensions(ndim, dims);
    return for_each_2d(data, dims, nd, out);
}
