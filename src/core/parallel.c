/* parallel.c — attn_parallel_for (see parallel.h).
 *
 * A pool of worker threads, started on the first call that needs them and kept: starting a thread costs
 * ~50 µs (more on a busy machine), as much as a whole 3072×768 gemv, so starting them per call made
 * threaded small products slower than one thread. Between calls the workers sleep on a condition
 * variable (no spinning: on a shared machine a spinning thread takes a core from someone). A call wakes
 * them and works itself at once; the items are handed out in blocks from one atomic counter, so a thread
 * that wakes late or is slowed down by another program takes fewer blocks. The pool serves one call at a
 * time: a call made meanwhile (from another thread, or from inside a worker) runs on its own thread,
 * which gives the same results. The workers are stopped and joined when the program exits or attn.so is
 * unloaded (a destructor), and a child of fork() starts a pool of its own if it needs one. */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* ---- the pool ---------------------------------------------------------------------------------- */

static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER; /* held by the one call using the pool */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER; /* guards everything below */
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;        /* a new job, or quitting */
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;    /* running reached 0 */
static pthread_t workers[MAX_THREADS];
static unsigned long seen[MAX_THREADS]; /* the last generation each worker looked at */
static int nworkers, helpers, running, quitting, atfork_done;
static unsigned long generation; /* one more for every job posted */
static job *current;
static _Thread_local int in_worker;

static void *worker_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    in_worker = 1;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        while (!quitting && generation == seen[id])
            pthread_cond_wait(&wake, &pool_lock);
        if (quitting)
            break;
        seen[id] = generation;
        if (id >= helpers) /* this job wants fewer threads */
            continue;
        job *j = current;
        pthread_mutex_unlock(&pool_lock);
        work(j);
        pthread_mutex_lock(&pool_lock);
        if (--running == 0)
            pthread_cond_signal(&finished);
    }
    pthread_mutex_unlock(&pool_lock);
    return NULL;
}

/* fork() copies only the calling thread: the child has no workers, and the locks may have been held by
 * threads that are not there. It starts afresh. */
static void pool_after_fork_child(void)
{
    pthread_mutex_t fresh_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t fresh_cond = PTHREAD_COND_INITIALIZER;
    call_lock = fresh_lock;
    pool_lock = fresh_lock;
    wake = fresh_cond;
    finished = fresh_cond;
    nworkers = helpers = running = quitting = 0;
    current = NULL;
}

/* At exit, or when attn.so is unloaded: no thread may be left asleep in code that goes away. */
__attribute__((destructor)) static void pool_stop(void)
{
    pthread_mutex_lock(&pool_lock);
    quitting = 1;
    pthread_cond_broadcast(&wake);
    int n = nworkers;
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < n; i++)
        pthread_join(workers[i], NULL);
    pthread_mutex_lock(&pool_lock);
    nworkers = 0;
    quitting = 0;
    pthread_mutex_unlock(&pool_lock);
}

/* Runs j on this thread and up to `want` workers (pool_lock held by the caller, released on return). */
static void pool_run(job *j, int want)
{
    if (!atfork_done) {
        pthread_atfork(NULL, NULL, pool_after_fork_child);
        atfork_done = 1;
    }
    while (nworkers < want) { /* a worker that cannot start leaves its share to the others */
        seen[nworkers] = generation;
        if (pthread_create(&workers[nworkers], NULL, worker_main, (void *)(intptr_t)nworkers) != 0)
            break;
        nworkers++;
    }
    helpers = want < nworkers ? want : nworkers;
    running = helpers;
    current = j;
    generation++;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&pool_lock);
    work(j);
    pthread_mutex_lock(&pool_lock);
    while (running > 0)
        pthread_cond_wait(&finished, &pool_lock);
    current = NULL;
    pthread_mutex_unlock(&pool_lock);
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
    if (nt <= 1 || in_worker || pthread_mutex_trylock(&call_lock) != 0)
        return fn(ctx, 0, n);
    job j = {.fn = fn, .ctx = ctx, .n = n};
    j.block = (n + (int64_t)nt * BLOCKS_PER_THREAD - 1) / ((int64_t)nt * BLOCKS_PER_THREAD);
    if (j.block < grain)
        j.block = grain;
    atomic_init(&j.next, 0);
    atomic_init(&j.stop, 0);
    pthread_mutex_lock(&pool_lock);
    pool_run(&j, nt - 1);
    pthread_mutex_unlock(&call_lock);
    return atomic_load(&j.stop) ? -1 : 0;
}
