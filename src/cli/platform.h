/* platform.h — the command line's few calls that differ between Linux and other POSIX systems (macOS),
 * each given its POSIX fallback in platform.c, so that the rest of src/cli is plain POSIX. */
#ifndef ATTN_PLATFORM_H
#define ATTN_PLATFORM_H

#include <stddef.h>

/* The absolute path of the running attn into buf (NUL-terminated); its length, or -1 (errno set) when
 * this system cannot tell. Linux: /proc/self/exe; macOS: _NSGetExecutablePath. */
long attn_exe_path(char *buf, size_t size);

/* A new file that lives in memory only, readable and writable, closed on exec, with no name in any folder;
 * its descriptor, or -1. Linux: memfd_create; elsewhere a temporary file unlinked at once. */
int attn_memory_file(const char *name);

#endif
