/* storage.c — tensor storage and its allocator: every tensor's memory is taken and given back here, so
 * the byte counts (attn_live_bytes) and the "more than this machine can hold" refusal live in one place.
 * Declarations for the rest of the core are in storage.h. */
#include "storage.h"
#include "memlimit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

static attn_alloc_fn alloc_fn = default_alloc;
static void *alloc_ud = NULL;
static int64_t live_bytes = 0;
static int64_t peak_live_bytes = 0; /* the most live_bytes has been */
static int64_t new_bytes = 0;

void attn_set_allocator(attn_alloc_fn fn, void *ud)
{
    attn_storage_flush_cache(); /* its blocks came from the allocator in use so far */
    alloc_fn = fn ? fn : default_alloc;
    alloc_ud = fn ? ud : NULL;
}

int64_t attn_live_bytes(void) { return live_bytes; }

int64_t attn_take_new_bytes(void)
{
    int64_t n = new_bytes;
    new_bytes = 0;
    return n;
}

/* "1000000" below a million, "1e12" / "1.5e9" above: how a person writes a huge count. */
static void human_count(double n, char *buf, size_t size)
{
    if (n < 1e6) {
        snprintf(buf, size, "%.0f", n);
        return;
    }
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%.3g", n);
    char *e = strchr(tmp, 'e');
    if (e && e[1] == '+') {
        char *digits = e + 2;
        while (*digits == '0' && digits[1])
            digits++;
        snprintf(buf, size, "%.*se%s", (int)(e - tmp), tmp, digits);
    } else {
        snprintf(buf, size, "%s", tmp);
    }
}

/* "4 TB", "381 MB": decimal units, three significant digits. */
void attn_human_bytes(double b, char *buf, size_t size)
{
    static const char *units[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    int u = 0;
    while (b >= 1000 && u < 8) {
        b /= 1000;
        u++;
    }
    snprintf(buf, size, "%.3g %s", b, units[u]);
}

/* What a caller outside this file (safetensors.c) may still take: the tightest limit (memlimit.h). */
double attn_available_bytes(void)
{
    return attn_memory_available(NULL, 0);
}

/* Below this the allocator's own failure is enough; above it, reading the limits (a few files, ~20 us)
 * costs nothing next to filling the memory. */
#define BIG_ALLOCATION (16.0 * 1024 * 1024)

/* Huge pages. The kernel hands a new block its memory one page at a time, at its first touch; with 4 KB
 * pages a 400 MB score matrix (batch 8, 12 heads, 1024 tokens) is 100,000 page faults, and in a virtual
 * machine each can cost tens of microseconds: touching it once took 4 s here, against 0.14 s in 2 MB
 * pages. Linux gives a block 2 MB pages ("transparent huge pages", in their default madvise mode) when
 * the program asks with madvise(MADV_HUGEPAGE) and the pages are 2 MB-aligned: so a block of at least
 * HUGE_MIN bytes is allocated 2 MB longer (rounded up to whole 2 MB pages), its data starts at the
 * first 2 MB boundary in it, and the kernel is asked. The extra is address space, never touched. */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)

static void *huge_pages(void *block, size_t size, int fresh)
{
    uintptr_t start = ((uintptr_t)block + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
#ifdef MADV_HUGEPAGE
    if (fresh) /* advice: it may fail, and a block from the cache has had it */
        madvise((void *)start, (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);
#else
    (void)size, (void)fresh;
#endif
    return (void *)start;
}

/* Freed big blocks, kept for the next tensors of their size. Attention's stages free and allocate the
 * same few large tensors on every forward (at batch 8, 12 heads, 1024 tokens: the scores, the scaled
 * scores and the weights, 400 MB each), and a block the kernel hands out anew must be cleared page by
 * page first: in this kind of virtual machine that took longer than the whole pass the tensor was made
 * for. So up to CACHE_SLOTS blocks of at least CACHE_MIN bytes, together at most an eighth of the
 * machine's memory, are kept when freed and given to the next request that fits (up to a quarter
 * larger). attn_storage_flush_cache gives them all back; so does a request that could not be served
 * otherwise. Smaller blocks are glibc's business (init.c keeps its freed memory too).
 * The kept blocks and the live tensors together stay within the most the live tensors have ever taken
 * (peak_live_bytes): a block is kept only if it fits under that, and a new block is made only after the
 * oldest kept ones have made room. So keeping never raises the process's peak memory: a training step
 * that frees its 100 MB logits and gradients at different moments would otherwise hold ~1 GB of kept
 * blocks on top of its peak. */
#define CACHE_MIN ((size_t)32 << 20)
#define CACHE_SLOTS 8

static struct cached {
    void *block;
    size_t size;
} cache[CACHE_SLOTS];
static size_t cache_bytes;

void attn_storage_flush_cache(void)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].block) {
            alloc_fn(alloc_ud, cache[i].block, cache[i].size, 0);
            cache[i].block = NULL;
        }
    cache_bytes = 0;
}

/* The smallest kept block of size bytes or a little more (*size becomes its size), or NULL. */
static void *cache_take(size_t *size)
{
    int best = -1;
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].block && cache[i].size >= *size && cache[i].size - *size <= *size / 4 &&
            (best < 0 || cache[i].size < cache[best].size))
            best = i;
    if (best < 0)
        return NULL;
    void *block = cache[best].block;
    *size = cache[best].size;
    cache[best].block = NULL;
    cache_bytes -= *size;
    return block;
}

/* Gives the oldest kept block back. */
static unsigned long cache_age[CACHE_SLOTS];

static void cache_drop_oldest(void)
{
    int oldest = -1;
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].block && (oldest < 0 || cache_age[i] < cache_age[oldest]))
            oldest = i;
    if (oldest < 0)
        return;
    alloc_fn(alloc_ud, cache[oldest].block, cache[oldest].size, 0);
    cache_bytes -= cache[oldest].size;
    cache[oldest].block = NULL;
}

/* Keeps a freed block when it is big and there is room (the oldest kept ones make room); 0 if not. */
static int cache_put(void *block, size_t size)
{
    double limit = attn_machine_bytes() / 8;
    if (size < CACHE_MIN || (double)size > limit || live_bytes + (int64_t)(cache_bytes + size) > peak_live_bytes)
        return 0;
    static unsigned long clock;
    unsigned long *age = cache_age;
    for (;;) {
        int free_slot = -1, oldest = -1;
        for (int i = 0; i < CACHE_SLOTS; i++) {
            if (!cache[i].block && free_slot < 0)
                free_slot = i;
            if (cache[i].block && (oldest < 0 || age[i] < age[oldest]))
                oldest = i;
        }
        if (free_slot >= 0 && (double)(cache_bytes + size) <= limit) {
            cache[free_slot].block = block;
            cache[free_slot].size = size;
            age[free_slot] = ++clock;
            cache_bytes += size;
            return 1;
        }
        alloc_fn(alloc_ud, cache[oldest].block, cache[oldest].size, 0);
        cache_bytes -= cache[oldest].size;
        cache[oldest].block = NULL;
    }
}

/* Refuses, before anything is allocated, a size (want elements of elem_size bytes) that this machine
 * cannot hold or that would take more than half the memory the limits leave. 0 when it may be tried. */
static int check_fits(const char *fn, double want, size_t elem_size, attn_error *err)
{
    char count[48], bytes[48], avail_text[48];
    double nbytes = want * (double)elem_size;
    if (want > (double)INT64_MAX / 8 || nbytes > attn_machine_bytes()) {
        human_count(want, count, sizeof count);
        attn_human_bytes(nbytes, bytes, sizeof bytes);
        return attn_fail(err, "%s: %s elements (%s) is more than this machine can hold", fn, count, bytes), -1;
    }
    if (nbytes >= BIG_ALLOCATION) {
        /* Linux overcommits: a huge malloc succeeds and the process is killed later, when the pages are
         * touched, so big allocations are checked against every limit first (memlimit.h). */
        char which[96];
        double avail = attn_memory_available(which, sizeof which);
        if (avail >= 0 && nbytes > 0.5 * avail && cache_bytes > 0) { /* the kept blocks count as used */
            attn_storage_flush_cache();
            avail = attn_memory_available(which, sizeof which);
        }
        if (avail >= 0 && nbytes > 0.5 * avail) {
            human_count(want, count, sizeof count);
            attn_human_bytes(nbytes, bytes, sizeof bytes);
            attn_human_bytes(avail, avail_text, sizeof avail_text);
            return attn_fail(err, "%s: %s elements (%s) is more than half %s (%s)", fn, count, bytes, which,
                             avail_text), -1;
        }
    }
    return 0;
}

/* The block for size bytes of data (*block_size bytes in all): a kept one when huge, if the cache has
 * one (*fresh 0), else a new one; when that fails, the kept blocks are given back and it is tried again. */
static void *alloc_block(const char *fn, size_t size, size_t *block_size, int huge, int *fresh, attn_error *err)
{
    void *block = huge ? cache_take(block_size) : NULL;
    *fresh = block == NULL;
    if (*fresh) {
        while (cache_bytes > 0 && live_bytes + (int64_t)(cache_bytes + *block_size) > peak_live_bytes)
            cache_drop_oldest();
        block = alloc_fn(alloc_ud, NULL, 0, *block_size);
    }
    if (!block && cache_bytes > 0) { /* a memory limit, or the machine's: give the kept blocks back */
        attn_storage_flush_cache();
        block = alloc_fn(alloc_ud, NULL, 0, *block_size);
    }
    if (!block) {
        char bytes[48];
        attn_human_bytes((double)size, bytes, sizeof bytes);
        return attn_fail(err, "%s: cannot allocate %s (out of memory)", fn, bytes);
    }
    return block;
}

/* A storage of numel elements of elem_size bytes (want: the element count as a double, which may be
 * beyond int64 for an absurd shape). */
attn_storage *attn_storage_new(const char *fn, int64_t numel, double want, size_t elem_size, attn_error *err)
{
    if (check_fits(fn, want, elem_size, err))
        return NULL;
    attn_storage *s = malloc(sizeof *s);
    if (!s)
        return attn_fail(err, "%s: out of memory", fn);
    size_t size = (size_t)(numel > 0 ? numel : 1) * elem_size;
    int huge = size >= HUGE_MIN, fresh;
    size_t block_size = huge ? ((size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1)) + HUGE_PAGE : size;
    void *block = alloc_block(fn, size, &block_size, huge, &fresh, err);
    if (!block) {
        free(s);
        return NULL;
    }
    void *data = huge ? huge_pages(block, size, fresh) : block;
    s->data = elem_size == sizeof(int64_t) ? NULL : data;
    s->i64 = elem_size == sizeof(int64_t) ? data : NULL;
    s->numel = numel;
    s->refcount = 1;
    s->version = 0;
    s->block = block;
    s->block_size = block_size;
    live_bytes += (int64_t)size;
    if (live_bytes > peak_live_bytes)
        peak_live_bytes = live_bytes;
    new_bytes += (int64_t)size;
    return s;
}

void attn_storage_release(attn_storage *s)
{
    if (!s || --s->refcount > 0)
        return;
    size_t size = (size_t)(s->numel > 0 ? s->numel : 1) * (s->i64 ? sizeof(int64_t) : sizeof(float));
    void *data = s->i64 ? (void *)s->i64 : (void *)s->data;
    live_bytes -= (int64_t)size; /* first: cache_put weighs the live tensors without this one */
    if (!s->block || !cache_put(s->block, s->block_size))
        alloc_fn(alloc_ud, s->block ? s->block : data, s->block ? s->block_size : size, 0);
    free(s);
}
