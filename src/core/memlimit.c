/* memlimit.c — the memory this process may still take (see memlimit.h). */
#include "memlimit.h"
#include "tensor.h" /* attn_tr: the names of the limits are part of an error message */

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* One number from a file such as memory.max ("max" or absent: -1). */
static double read_number(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    double v = -1;
    if (fscanf(f, "%lf", &v) != 1)
        v = -1; /* "max" */
    fclose(f);
    return v;
}

/* The tightest of limit - usage over dir and each of its parents up to root (a parent's limit binds
 * its children too); -1 when none of them has a limit. v1 writes "no limit" as a huge number. */
static double group_room(const char *root, const char *group, const char *limit_name, const char *usage_name)
{
    char dir[4096];
    double best = -1;
    snprintf(dir, sizeof dir, "%s%s", root, group);
    size_t root_len = strlen(root);
    for (;;) {
        double limit = read_number(dir, limit_name), usage = read_number(dir, usage_name);
        if (limit >= 0 && limit < 1e18) {
            double room = limit - (usage > 0 ? usage : 0);
            if (room < 0)
                room = 0;
            if (best < 0 || room < best)
                best = room;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < root_len)
            break;
        *slash = '\0';
    }
    return best;
}

/* The room left under the cgroups listed in cgroup_file ("0::/path" for v2, "N:memory:/path" or
 * "N:...,memory,...:/path" for v1). Inside a container the listed path may not exist under the mount
 * (the group is the mount's root), so the root is tried as well. */
static double cgroup_room(const char *root, const char *cgroup_file)
{
    FILE *f = fopen(cgroup_file, "r");
    if (!f)
        return -1;
    char line[4096];
    double best = -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *controllers = c1 + 1, *path = c2 + 1;
        char base[4096];
        double room = -1;
        if (controllers[0] == '\0') { /* v2 */
            snprintf(base, sizeof base, "%s", root);
            room = group_room(base, strcmp(path, "/") ? path : "", "memory.max", "memory.current");
            if (room < 0) {
                snprintf(base, sizeof base, "%s/unified", root); /* the hybrid layout */
                room = group_room(base, strcmp(path, "/") ? path : "", "memory.max", "memory.current");
            }
        } else {
            char list[256];
            snprintf(list, sizeof list, ",%s,", controllers);
            if (!strstr(list, ",memory,"))
                continue;
            snprintf(base, sizeof base, "%s/memory", root);
            room = group_room(base, strcmp(path, "/") ? path : "", "memory.limit_in_bytes",
                              "memory.usage_in_bytes");
        }
        if (room < 0) /* the group as the container sees it: the mount's root */
            room = group_room(base, "", controllers[0] ? "memory.limit_in_bytes" : "memory.max",
                              controllers[0] ? "memory.usage_in_bytes" : "memory.current");
        if (room >= 0 && (best < 0 || room < best))
            best = room;
    }
    fclose(f);
    return best;
}

/* MemAvailable from /proc/meminfo: what the kernel can hand out without swapping; -1 if unknown. */
static double machine_available(void)
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

/* RLIMIT_AS (ulimit -v) minus the address space already mapped (/proc/self/statm's first field). */
static double address_space_room(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return -1;
    double used = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        double pages;
        if (fscanf(f, "%lf", &pages) == 1)
            used = pages * (double)sysconf(_SC_PAGESIZE);
        fclose(f);
    }
    double room = (double)rl.rlim_cur - used;
    return room > 0 ? room : 0;
}

static void take(double room, const char *name, double *best, char *which, size_t which_size)
{
    if (room >= 0 && (*best < 0 || room < *best)) {
        *best = room;
        if (which && which_size)
            snprintf(which, which_size, "%s", name);
    }
}

static double memory_cap = -1;
/* the cap's name in messages (attn_set_memory_budget), translated when a message needs it */
static const char *testing_cap_name(void)
{
    return attn_tr("the memory left under the cap set for testing");
}
static const char *(*cap_name)(void) = testing_cap_name;

/* The cap minus what this process holds now (VmRSS, /proc/self/statm's second field): a cgroup of one
 * process, whose usage grows as the process takes memory. */
static double cap_room(void)
{
    if (memory_cap < 0)
        return -1;
    double resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        double size, pages;
        if (fscanf(f, "%lf %lf", &size, &pages) == 2)
            resident = pages * (double)sysconf(_SC_PAGESIZE);
        fclose(f);
    }
    return memory_cap > resident ? memory_cap - resident : 0;
}

void attn_set_memory_cap(double bytes)
{
    memory_cap = bytes > 0 ? bytes : -1;
}

void attn_set_memory_budget(double bytes, const char *(*name)(void))
{
    attn_set_memory_cap(bytes);
    cap_name = name;
}

double attn_memory_available_at(const char *root, const char *cgroup_file, char *which, size_t which_size)
{
    double best = -1;
    if (which && which_size)
        which[0] = '\0';
    take(cap_room(), cap_name(), &best, which, which_size);
    take(machine_available(), attn_tr("the memory available now"), &best, which, which_size);
    take(cgroup_room(root, cgroup_file), attn_tr("the memory left under this process's cgroup limit"), &best, which,
         which_size);
    take(address_space_room(), attn_tr("the address space left under this process's limit (ulimit -v)"), &best, which, which_size);
    return best;
}

double attn_memory_available(char *which, size_t which_size)
{
    return attn_memory_available_at("/sys/fs/cgroup", "/proc/self/cgroup", which, which_size);
}

double attn_machine_bytes(void)
{
    static double bytes = 0;
    if (bytes == 0) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        bytes = pages > 0 && page > 0 ? (double)pages * (double)page : 1e15; /* unknown: malloc decides */
    }
    return bytes;
}
