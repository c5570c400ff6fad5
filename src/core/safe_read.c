/* safe_read.c — the one way attn opens a file it reads (safe_read.h says why each step). Before it, each
 * reader opened with fopen or io.open: a FIFO named as config.json, model.safetensors, a shard, a
 * tokenizer.json or the kernel's connection file blocked attn for ever, and a note run by --verify could
 * read its piped standard input through /dev/stdin, whose path cannot be resolved. */
#include "safe_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char **roots;     /* attn_read_confine's folders, resolved; NULL: reads are not confined */
static int nroots;
static int confine_failed; /* out of memory while confining: refuse every read rather than none */
static char confine_why[256];

const char *attn_file_kind(mode_t m)
{
    /* part of an error message: translated (attn_tr) like the message's format */
    return S_ISDIR(m) ? attn_tr("a folder") : S_ISFIFO(m) ? attn_tr("a FIFO") : S_ISCHR(m) ? attn_tr("a character device")
         : S_ISBLK(m) ? attn_tr("a block device") : S_ISSOCK(m) ? attn_tr("a socket") : attn_tr("not a regular file");
}

int attn_read_confine(const char *const *folders, int n, const char *why)
{
    for (int i = 0; i < nroots; i++)
        free(roots[i]);
    free(roots);
    roots = NULL;
    nroots = 0;
    confine_failed = 0;
    if (n <= 0)
        return 0;
    snprintf(confine_why, sizeof confine_why, "%s", why ? why : "");
    roots = calloc((size_t)n, sizeof *roots);
    if (!roots) {
        confine_failed = 1;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char *r = realpath(folders[i], NULL); /* a folder that does not exist holds nothing to read */
        if (r)
            roots[nroots++] = r;
        else if (i == 0 && (roots[nroots++] = strdup(folders[0])) == NULL)
            confine_failed = 1;
    }
    return confine_failed ? -1 : 0;
}

/* Whether real (a resolved path) lies inside one of the roots. */
static int inside_roots(const char *real)
{
    for (int i = 0; i < nroots; i++) {
        size_t k = strlen(roots[i]);
        if (strcmp(roots[i], "/") == 0 || (strncmp(real, roots[i], k) == 0 && (real[k] == '\0' || real[k] == '/')))
            return 1;
    }
    return 0;
}

/* The resolved path of the file open at fd (the one read, whatever link was swapped since), or of path
 * where /proc is not mounted. malloc'ed, or NULL. */
static char *opened_path(int fd, const char *path)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    char *r = realpath(proc, NULL);
    return r ? r : realpath(path, NULL);
}

/* err's message: "PATH: why", after "FN: cannot open " when fn is given */
static void fail_open(attn_error *err, const char *fn, const char *path, const char *why)
{
    if (fn)
        attn_fail(err, "%s: cannot open %s: %s", fn, path, why);
    else
        attn_fail(err, "%s: %s", path, why);
}

int attn_read_open(const char *fn, const char *path, attn_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        fail_open(err, fn, path, strerror(e));
        errno = e; /* ENOENT: no file at all (files.open tells its readers) */
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        fail_open(err, fn, path, strerror(e));
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        char why[128];
        snprintf(why, sizeof why, attn_tr("it is %s, and attn reads only regular files"), attn_file_kind(st.st_mode));
        fail_open(err, fn, path, why);
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if (roots || confine_failed) {
        char *real = opened_path(fd, path);
        int ok = !confine_failed && real && inside_roots(real);
        free(real);
        if (!ok) {
            fail_open(err, fn, path, confine_why);
            close(fd);
            errno = EPERM;
            return -1;
        }
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}
