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

/* Once, before any BLAS call: OpenBLAS's idle worker threads, which by default keep polling for work for
 * ~2^28 processor cycles (0.1 s) after each product, go to sleep after ~2^OPENBLAS_IDLE_CYCLES instead,
 * so that they do not take the cores from attn's own threads (attention.fused, softmax) that run right
 * after a product. An OPENBLAS_THREAD_TIMEOUT in the environment is left to decide. */
void attn_threads_init(void);

/* The number of threads attn computes with: what attn_set_threads set, else as many as OpenBLAS uses
 * (OPENBLAS_NUM_THREADS, else the cores). Every kernel gives the same bits on any number of threads:
 * the number changes only the time. */
int attn_threads(void);

/* torch.set_num_threads: n threads from now on (OpenBLAS's too, for the products it still computes);
 * -1, changing nothing, unless 1 <= n <= attn_max_threads(). */
int attn_set_threads(int n);
int attn_max_threads(void);

#endif
