/* platform.c — see platform.h: Linux's calls, and what other POSIX systems (macOS) do instead. The only
 * file of src/cli that asks which system it is built for. */
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

long attn_exe_path(char *buf, size_t size)
{
    /* emscripten's node build answers /proc/self/exe with its attn.js (src/web/node_env.js) */
#if defined(__linux__) || defined(__EMSCRIPTEN__)
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return (long)n;
#elif defined(__APPLE__)
    char raw[PATH_MAX];
    uint32_t raw_size = sizeof raw;
    char *real = _NSGetExecutablePath(raw, &raw_size) == 0 ? realpath(raw, NULL) : NULL;
    if (real == NULL || strlen(real) >= size) {
        free(real);
        errno = real ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    strcpy(buf, real);
    free(real);
    return (long)strlen(buf);
#else
    (void)buf, (void)size;
    errno = ENOSYS;
    return -1;
#endif
}

int attn_memory_file(const char *name)
{
#if defined(__linux__)
    return memfd_create(name, MFD_CLOEXEC);
#else
    const char *dir = getenv("TMPDIR");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s-XXXXXX", dir && *dir ? dir : "/tmp", name);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path); /* no name left: the file goes when its last descriptor closes */
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#endif
}
