/* storage.c — tensor storage and its allocator: every tensor's memory is taken and given back here, so
 * the byte counts (attn_live_bytes) and the "more than this machine can hold" refusal live in one place.
 * Declarations for the rest of the core are in storage.h. */
#include "storage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static int64_t new_bytes = 0;

void attn_set_allocator(attn_alloc_fn fn, void *ud)
{
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

static double machine_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 1e15; /* unknown: let the allocation itself decide */
    return (double)pages * (double)page;
}

/* Memory the kernel can still hand out (MemAvailable), or -1 if unknown. Linux overcommits: a huge
 * malloc succeeds and the process is killed later when the pages are touched, so big allocations are
 * checked against this first. */
double attn_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[128];
        double kb = -1;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
                break;
        fclose(f);
        if (kb >= 0)
            return kb * 1024.0;
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : -1;
}

#define BIG_ALLOCATION (256.0 * 1024 * 1024) /* below this, the allocator's own failure is enough */

/* A storage of numel elements of elem_size bytes (want: the element count as a double, which may be
 * beyond int64 for an absurd shape). */
attn_storage *attn_storage_new(const char *fn, int64_t numel, double want, size_t elem_size, attn_error *err)
{
    char count[48], bytes[48], avail_text[48];
    double nbytes = want * (double)elem_size;
    if (want > (double)INT64_MAX / 8 || nbytes > machine_bytes()) {
        human_count(want, count, sizeof count);
        attn_human_bytes(nbytes, bytes, sizeof bytes);
        return attn_fail(err, "%s: %s elements (%s) is more than this machine can hold", fn, count, bytes);
    }
    if (nbytes >= BIG_ALLOCATION) {
        double avail = attn_available_bytes();
        if (avail >= 0 && nbytes > 0.5 * avail) {
            human_count(want, count, sizeof count);
            attn_human_bytes(nbytes, bytes, sizeof bytes);
            attn_human_bytes(avail, avail_text, sizeof avail_text);
            return attn_fail(err, "%s: %s elements (%s) is more than half the memory available now (%s)", fn,
                             count, bytes, avail_text);
        }
    }
    attn_storage *s = malloc(sizeof *s);
    if (!s)
        return attn_fail(err, "%s: out of memory", fn);
    size_t size = (size_t)(numel > 0 ? numel : 1) * elem_size;
    void *block = alloc_fn(alloc_ud, NULL, 0, size);
    if (!block) {
        free(s);
        attn_human_bytes((double)size, bytes, sizeof bytes);
        return attn_fail(err, "%s: cannot allocate %s (out of memory)", fn, bytes);
    }
    s->data = elem_size == sizeof(int64_t) ? NULL : block;
    s->i64 = elem_size == sizeof(int64_t) ? block : NULL;
    s->numel = numel;
    s->refcount = 1;
    s->mapping = NULL;
    live_bytes += (int64_t)size;
    new_bytes += (int64_t)size;
    return s;
}

void attn_storage_release(attn_storage *s)
{
    if (!s || --s->refcount > 0)
        return;
    if (s->mapping) { /* the bytes belong to a mapped file (mapping.c) */
        attn_mapping_release(s->mapping);
        free(s);
        return;
    }
    size_t size = (size_t)(s->numel > 0 ? s->numel : 1) * (s->i64 ? sizeof(int64_t) : sizeof(float));
    alloc_fn(alloc_ud, s->i64 ? (void *)s->i64 : (void *)s->data, size, 0);
    live_bytes -= (int64_t)size;
    free(s);
}
