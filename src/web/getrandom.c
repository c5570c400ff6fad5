/* getrandom.c — getrandom(2) for the WebAssembly builds: emscripten 3.1.6's libc declares it but does not
 * have it; getentropy (the browser's or node's crypto.getRandomValues) gives the same bytes' quality.
 * Used by src/core/safe_write.c for its temporary names. */
#include <errno.h>
#include <sys/random.h>
#include <unistd.h>

ssize_t getrandom(void *buf, size_t len, unsigned flags) {
    (void)flags;
    if (len > 256) len = 256; /* getentropy's limit; callers read the count */
    if (getentropy(buf, len) != 0) return -1;
    return (ssize_t)len;
}
