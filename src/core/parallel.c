/* parallel.c — attn_parallel_for (see parallel.h).
 *
 * The threads are started for each call and joined before it returns: the loops that come here take
 * milliseconds (a softmax over 100 million scores), against ~50 µs to start a thread, and no thread is
 * left behind between calls to spin or to hold memory. The items are handed out in blocks from one
 * atomic counter, so a thread slowed down by another program on the machine takes fewer blocks. */
#include "parallel.h"

#include <cblas.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define MAX_THREADS 64
#define BLOCKS_PER_THREAD 8 /* enough blocks to even out a slow thread, few enough to cost nothing */

typedef struct job {
    attn_range_fn fn;
    void *ctx;
    int64_t n, block;
    atomic_llong next;
    atomic_int stop;
} job;

/* OpenBLAS's worker threads poll for the next product for 2^OPENBLAS_THREAD_TIMEOUT cycles of the
 * time-stamp counter (default 28: ~0.1 s), yielding between polls, before they sleep. A yielding poller
 * still takes a share of a core: on two cores, attention.fused's two threads right after the projection
 * GEMMs ran 1.3-1.5x slower than on their own. OpenBLAS reads the variable when it starts its threads,
 * which it has done before main (a library constructor): so the variable is set for a moment, OpenBLAS
 * re-reads its environment (openblas_read_env; 0.3.21 reads the timeout from what that saved, later
 * versions from the environment itself) and its threads are stopped (blas_thread_shutdown_) and started
 * again (blas_thread_init), with the short wait. 2^20 cycles (~0.3 ms) keeps a worker awake across
 * back-to-back products (a batched matmul's loop of sgemm calls). The three functions are exported by
 * OpenBLAS's threaded builds, but not declared in cblas.h. */
#define OPENBLAS_IDLE_CYCLES "20"

void openblas_read_env(void);
int blas_thread_shutdown_(void);
int blas_thread_init(void);

void attn_threads_init(void)
{
    static int done;
    if (done || getenv("OPENBLAS_THREAD_TIMEOUT"))
        return;
    done = 1;
    setenv("OPENBLAS_THREAD_TIMEOUT", OPENBLAS_IDLE_CYCLES, 1);
    openblas_read_env();
    blas_thread_shutdown_();
    blas_thread_init();
    unsetenv("OPENBLAS_THREAD_TIMEOUT"); /* programs attn starts get the user's environment */
}

static int threads_set; /* 0 until torch.set_num_threads */

int attn_threads(void)
{
    int t = threads_set ? threads_set : openblas_get_num_threads();
    return t < 1 ? 1 : t > MAX_THREADS ? MAX_THREADS : t;
}

int attn_max_threads(void)
{
    return MAX_THREADS;
}

int attn_set_threads(int n)
{
    if (n < 1 || n > MAX_THREADS)
        return -1;
    threads_set = n;
    openblas_set_num_threads(n);
    return 0;
}

static void *work(void *arg)
{
    job *j = arg;
    while (!atomic_load_explicit(&j->stop, memory_order_relaxed)) {
        int64_t begin = atomic_fetch_add(&j->next, j->block);
        if (begin >= j->n)
            break;
        int64_t end = j->n - begin < j->block ? j->n : begin + j->block;
        if (j->fn(j->ctx, begin, end)) {
            atomic_store(&j->stop, 1);
            break;
        }
    }
    return NULL;
}

int attn_parallel_for(int64_t n, int64_t grain, attn_range_fn fn, void *ctx)
{
    if (n <= 0)
        return 0;
    if (grain < 1)
        grain = 1;
    int64_t chunks = (n + grain - 1) / grain;
    int nt = attn_threads();
    if (nt > chunks)
        nt = (int)chunks;
    if (nt <= 1)
        return fn(ctx, 0, n);
    job j = {.fn = fn, .ctx = ctx, .n = n};
    j.block = (n + (int64_t)nt * BLOCKS_PER_THREAD - 1) / ((int64_t)nt * BLOCKS_PER_THREAD);
    if (j.block < grain)
        j.block = grain;
    atomic_init(&j.next, 0);
    atomic_init(&j.stop, 0);
    pthread_t threads[MAX_THREADS];
    int started = 0; /* a thread that cannot start leaves its share to the others */
    while (started < nt - 1 && pthread_create(&threads[started], NULL, work, &j) == 0)
        started++;
    work(&j);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    return atomic_load(&j.stop) ? -1 : 0;
}
