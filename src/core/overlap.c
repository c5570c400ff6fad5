/* overlap.c — PyTorch's memory-overlap checks for in-place writes (see overlap.h), as ATen's
 * MemoryOverlap.cpp makes them: has_internal_overlap and get_overlap_status. */
#include "overlap.h"

int attn_is_non_overlapping_and_dense(const attn_tensor *t)
{
    /* The dims in order of increasing stride (size-1 dims do not matter): each stride must be the
     * product of the sizes before it. */
    int order[ATTN_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 0)
            return 1; /* no elements: nothing overlaps */
        if (t->shape[d] != 1)
            order[n++] = d;
    }
    for (int i = 1; i < n; i++) /* insertion sort by stride: at most 8 dims */
        for (int j = i; j > 0 && t->stride[order[j]] < t->stride[order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    int64_t expected = 1;
    for (int i = 0; i < n; i++) {
        if (t->stride[order[i]] != expected)
            return 0;
        expected *= t->shape[order[i]]; /* fits: a product of the tensor's sizes (size.h) */
    }
    return 1;
}

/* PyTorch's has_internal_overlap: only a stride 0 over more than one element is a sure overlap. */
static int has_internal_overlap(const attn_tensor *t)
{
    if (attn_is_non_overlapping_and_dense(t))
        return 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] > 1 && t->stride[d] == 0)
            return 1;
    return 0;
}

/* PyTorch's get_overlap_status == PARTIAL: both dense, on one storage, with memory ranges that meet
 * but are not the same range read with the same strides. */
static int partial_overlap(const attn_tensor *a, const attn_tensor *b)
{
    if (a == b || a->storage != b->storage)
        return 0;
    int64_t na = attn_numel(a), nb = attn_numel(b);
    if (na == 0 || nb == 0 || !attn_is_non_overlapping_and_dense(a) || !attn_is_non_overlapping_and_dense(b))
        return 0;
    int64_t a_begin = a->offset, a_end = a->offset + na, b_begin = b->offset, b_end = b->offset + nb;
    if (a_begin == b_begin && a_end == b_end) {
        if (a->ndim != b->ndim)
            return 1;
        for (int d = 0; d < a->ndim; d++)
            if (a->stride[d] != b->stride[d])
                return 1;
        return 0;
    }
    return a_begin < b_end && b_begin < a_end;
}

int attn_check_inplace(const char *fn, const attn_tensor *dst, const attn_tensor *src, attn_error *err)
{
    if (has_internal_overlap(dst)) {
        attn_fail(err, "%s: more than one element of the written-to tensor refers to a single memory location "
                       "(it is an expanded view); clone() it first, as PyTorch asks", fn);
        return -1;
    }
    if (src && partial_overlap(dst, src)) {
        attn_fail(err, "%s: some elements of the source and of the written-to tensor refer to a single memory "
                       "location (two views of one tensor); clone() the source first, as PyTorch asks", fn);
        return -1;
    }
    return 0;
}
