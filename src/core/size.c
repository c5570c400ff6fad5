/* size.c — checked arithmetic on sizes, strides and offsets (see size.h). */
#include "size.h"

int attn_size_mul(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}

int attn_size_add(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out) ? -1 : 0;
}

int attn_shape_fits(int ndim, const int64_t *shape)
{
    int64_t product = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0)
            return 0;
        if (shape[d] > 0 && attn_size_mul(product, shape[d], &product))
            return 0;
    }
    return 1;
}

int64_t attn_shape_numel(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        if (shape[d] == 0)
            return 0;
    for (int d = 0; d < ndim; d++)
        n *= shape[d]; /* fits: attn_shape_fits holds for every tensor */
    return n;
}

int attn_view_in_bounds(int64_t offset, int ndim, const int64_t *shape, const int64_t *stride,
                        int64_t storage_numel)
{
    int64_t last = offset; /* the index of the element farthest from the start */
    if (offset < 0)
        return 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 0)
            return 1; /* no elements at all */
    }
    for (int d = 0; d < ndim; d++) {
        int64_t span;
        if (stride[d] < 0 || attn_size_mul(shape[d] - 1, stride[d], &span) || attn_size_add(last, span, &last))
            return 0;
    }
    return last < storage_numel;
}
