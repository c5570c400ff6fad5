/* size.h — checked arithmetic on sizes, strides and offsets: the one place where the core decides
 * whether a shape can exist.
 *
 * A user can type any 64-bit size (torch.zeros(8):view(0x5555555555555558, 3)); multiplied as plain
 * int64 such sizes wrap around, and a view whose element count wrapped reads outside its memory. So every
 * function that makes a shape (creation, view, reshape, expand, cat, ...) asks attn_shape_fits first, and
 * every tensor then keeps this invariant: the product of its non-zero sizes fits in int64. Any product of
 * some of its sizes (a numel, a row length, a contiguous stride) then fits too, even for an empty tensor
 * such as [0, 2^40, 2^40], so the loops elsewhere can multiply sizes without checking. */
#ifndef ATTN_SIZE_H
#define ATTN_SIZE_H

#include <stdint.h>

/* *out = a * b or a + b; 0 on success, -1 when the exact result does not fit in int64. */
int attn_size_mul(int64_t a, int64_t b, int64_t *out);
int attn_size_add(int64_t a, int64_t b, int64_t *out);

/* 1 when every size is >= 0 and the product of the non-zero sizes fits in int64 (the invariant above). */
int attn_shape_fits(int ndim, const int64_t *shape);

/* The element count of a shape that fits (0 when any size is 0). */
int64_t attn_shape_numel(int ndim, const int64_t *shape);

/* 1 when every element of a view (offset, shape, strides >= 0) lies at an index in [0, storage_numel). */
int attn_view_in_bounds(int64_t offset, int ndim, const int64_t *shape, const int64_t *stride,
                        int64_t storage_numel);

#endif
