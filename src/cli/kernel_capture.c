/* kernel_capture.c — what the user's code writes to stdout and stderr becomes the cell's "stream"
 * output. Descriptors 1 and 2 are pointed at memory files (memfd, platform.h), so everything is caught however it
 * was written: print, io.write, the tracer, the help system, a C library, a child process. Writing to
 * a file never blocks (a pipe would, once full, with nobody reading until the cell ends); after each
 * piece of work the kernel takes what was written and empties the file. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "platform.h"

static int log_fd = -1;

int attn_capture_open(void) {
    const char *names[2] = {"attn-stdout", "attn-stderr"};
    fflush(stdout);
    fflush(stderr);
    log_fd = dup(2);
    if (log_fd < 0) return -1;
    for (int i = 0; i < 2; i++) {
        int fd = attn_memory_file(names[i]);
        if (fd < 0 || dup2(fd, i + 1) < 0) return -1;
        close(fd);
    }
    return 0;
}

char *attn_capture_take(int fd, size_t *len) {
    struct stat st;
    char *text;
    size_t got = 0;
    fflush(fd == 1 ? stdout : stderr);
    *len = 0;
    if (fstat(fd, &st) != 0 || (text = malloc((size_t)st.st_size + 1)) == NULL) return NULL;
    while (got < (size_t)st.st_size) {
        ssize_t n = pread(fd, text + got, (size_t)st.st_size - got, (off_t)got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    text[got] = '\0';
    *len = got;
    /* empty the file; the descriptor's offset (shared with stdout's) goes back to its start */
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) < 0) attn_capture_log("cannot empty the capture of fd %d", fd);
    return text;
}

void attn_capture_log(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    if (write(log_fd >= 0 ? log_fd : 2, "attn kernel: ", 13) < 0 || write(log_fd >= 0 ? log_fd : 2, line, (size_t)n) < 0)
        return; /* nowhere left to say it */
}
