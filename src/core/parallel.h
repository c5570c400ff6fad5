/* parallel.h — split a loop over independent items (rows of a softmax, blocks of an element-wise
 * operation) among threads, as PyTorch's at::parallel_for does.
 *
 * Each item is computed by exactly one thread with the same code as without threads, so the results do
 * not depend on the number of threads (PyTorch's softmax splits over rows for the same reason). */
#ifndef ATTN_PARALLEL_H
#define ATTN_PARALLEL_H

#include <stdint.h>

/* fn(ctx, begin, end) computes items [begin, end) and returns 0, or -1 to stop (Ctrl-C): the other
 * threads stop at their next call. */
typedef int (*attn_range_fn)(void *ctx, int64_t begin, int64_t end);

/* Runs fn over [0, n) in contiguous chunks of at least `grain` items on up to attn_threads() threads
 * (this one included), fewer when there is less work; -1 when any call returned -1. */
int attn_parallel_for(int64_t n, int64_t grain, attn_range_fn fn, void *ctx);

/* The number of threads attn computes with: what attn_set_threads set, else OPENBLAS_NUM_THREADS, else
 * ATTN_NUM_THREADS, else one per online CPU (parallel.c says why in this order). Every kernel gives the
 * same bits on any number of threads: the number changes only the time. */
int attn_threads(void);

/* torch.set_num_threads: n threads from now on; -1, changing nothing, unless 1 <= n <= attn_max_threads(). */
int attn_set_threads(int n);
int attn_max_threads(void);

#endif
