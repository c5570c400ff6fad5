/* overlap.h — the checks PyTorch makes before an in-place write, so attn refuses what PyTorch refuses.
 *
 * An expanded view (stride 0) has several elements in one memory cell: writing different values into
 * them keeps only the last (torch.zeros(1):expand(3):add_(torch.tensor{1, 2, 3}) gave [3, 3, 3]). A
 * source that shares part, not all, of the destination's memory (x[{{1, 3}}]:copy_(x[{{2, 4}}]),
 * y:add_(y.T)) reads values the same write has already changed in PyTorch's kernels. PyTorch raises an
 * error for both; a source that is exactly the destination (x:add_(x)) is fine. */
#ifndef ATTN_OVERLAP_H
#define ATTN_OVERLAP_H

#include "tensor.h"

/* 1 when the elements of t fill a block of memory exactly once, in some order of its dims. */
int attn_is_non_overlapping_and_dense(const attn_tensor *t);

/* Before writing into dst in place, reading src (NULL: no tensor source): 0 when PyTorch allows it,
 * -1 with err naming fn when some elements of dst share a memory cell (an expanded view), or when src
 * shares part but not all of dst's memory. Where PyTorch cannot tell cheaply (strided views that are
 * not dense) it allows the write, and so does attn. */
int attn_check_inplace(const char *fn, const attn_tensor *dst, const attn_tensor *src, attn_error *err);

#endif
