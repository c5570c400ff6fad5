/* cache_size.c — attn_l2_cache_bytes (cache_size.h). glibc answers _SC_LEVEL2_CACHE_SIZE from cpuid on
 * x86 (0 or -1 where it does not know, as on many ARM machines); Linux also says it in /sys. Other
 * systems (macOS, a browser) get the fallback. */
#include "cache_size.h"

#include <stdio.h>
#include <unistd.h>

#define FALLBACK_BYTES (512 * 1024)

static int64_t from_sysconf(void)
{
#ifdef _SC_LEVEL2_CACHE_SIZE
    long b = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return b > 0 ? b : 0;
#else
    return 0;
#endif
}

/* /sys/devices/system/cpu/cpu0/cache/indexN: the entry whose level is 2 and type not Instruction,
 * its size as "1024K" */
static int64_t from_sys(void)
{
    for (int i = 0; i < 8; i++) {
        char path[96], type[32] = "";
        int level = 0;
        long size = 0;
        char unit = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        int ok = fscanf(f, "%d", &level) == 1;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (ok && level == 2 && (f = fopen(path, "r"))) {
            ok = fscanf(f, "%31s", type) == 1;
            fclose(f);
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
            if (ok && type[0] != 'I' && (f = fopen(path, "r"))) {
                int n = fscanf(f, "%ld%c", &size, &unit);
                fclose(f);
                if (n >= 1 && size > 0)
                    return (int64_t)size * (unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1);
            }
        }
    }
    return 0;
}

int64_t attn_l2_cache_bytes(void)
{
    static int64_t bytes; /* a benign race: every thread computes the same value */
    if (!bytes) {
        int64_t b = from_sysconf();
        if (!b)
            b = from_sys();
        bytes = b ? b : FALLBACK_BYTES;
    }
    return bytes;
}
