/* parallel.c — attn_parallel_for (see parallel.h).
 *
 * The threads are started for each call and joined before it returns: the loops that come here take
 * milliseconds (a softmax over 100 million scores), against ~50 µs to start a thread, and no thread is
 * left behind between calls to spin or to hold memory. The items are handed out in blocks from one
 * atomic counter, so a thread slowed down by another program on the machine takes fewer blocks. */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 64
#define BLOCKS_PER_THREAD 8 /* enough blocks to even out a slow thread, few enough to cost nothing */

typedef struct job {
    attn_range_fn fn;
    void *ctx;
    int64_t n, block;
    atomic_llong next;
    atomic_int stop;
} job;

static int threads_set; /* 0 until torch.set_num_threads */

/* The default: OPENBLAS_NUM_THREADS when it is set (attn computed with OpenBLAS's threads before it had
 * kernels of its own, and scripts and tests set it), else ATTN_NUM_THREADS, else one thread per online
 * CPU. A value that is not a positive number is passed over. */
static int env_threads(const char *name)
{
    const char *s = getenv(name);
    char *end;
    long n = s && *s ? strtol(s, &end, 10) : 0;
    return n >= 1 && *end == '\0' ? (n > MAX_THREADS ? MAX_THREADS : (int)n) : 0;
}

static int default_threads(void)
{
    static int cached; /* read once: the environment of a running program does not change its threads */
    if (!cached) {
        int t = env_threads("OPENBLAS_NUM_THREADS");
        if (!t)
            t = env_threads("ATTN_NUM_THREADS");
        if (!t) {
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            t = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
        }
        cached = t;
    }
    return cached;
}

int attn_threads(void)
{
    int t = threads_set ? threads_set : default_threads();
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
