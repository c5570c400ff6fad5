/* safe_write.c — the one way attn writes a file: a new temporary file beside the target, fsync, the
 * target's mode, rename (safe_write.h says why each step). Before this, each writer wrote a fixed name
 * (path.tmp, path.attn-update) or wrote over the target in place: a symlink planted at the fixed name
 * had its target overwritten, a symlinked file became a plain one, a 0600 file became 0644, a FIFO or
 * a device was replaced, and two saves at once corrupted each other. */
#include "safe_write.h"
#include "safe_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct attn_safe_file {
    int fd;
    char *fn;     /* the function the user called, for errors */
    char *path;   /* the name the user gave, for errors */
    char *target; /* the file replaced: path, or the file a symlink at path points to */
    char *tmp;    /* the temporary file beside it */
    mode_t mode;  /* the mode the new file gets */
};

static const char *forbidden; /* attn_safe_forbid's reason, or NULL */

void attn_safe_forbid(const char *why)
{
    forbidden = why;
}

/* The file a write to path replaces, into *target (malloc'ed), and the mode the new file gets. A
 * symlink is followed to its file (realpath); a file that does not exist yet gets 0666 less the umask,
 * as fopen would give it. -1 (err set) for a dangling symlink or an existing file that is not regular. */
static int find_target(const char *fn, const char *path, char **target, mode_t *mode, attn_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return attn_fail(err, "%s: cannot write %s: %s", fn, path, strerror(errno)), -1;
        mode_t mask = umask(0);
        umask(mask);
        *mode = 0666 & ~mask;
        *target = strdup(path);
        return *target ? 0 : (attn_fail(err, "%s: out of memory", fn), -1);
    }
    if (S_ISLNK(st.st_mode)) {
        *target = realpath(path, NULL);
        if (!*target)
            return attn_fail(err, "%s: cannot write %s: it is a symlink to a file that does not exist (%s)", fn,
                             path, strerror(errno)), -1;
        if (stat(*target, &st) != 0) {
            attn_fail(err, "%s: cannot write %s: %s", fn, path, strerror(errno));
            free(*target);
            *target = NULL;
            return -1;
        }
    } else {
        *target = strdup(path);
        if (!*target)
            return attn_fail(err, "%s: out of memory", fn), -1;
    }
    if (!S_ISREG(st.st_mode)) {
        attn_fail(err, "%s: will not write %s: it is %s, and attn writes only regular files", fn, path,
                  attn_file_kind(st.st_mode));
        free(*target);
        *target = NULL;
        return -1;
    }
    *mode = st.st_mode & 07777;
    return 0;
}

/* A new file beside target, named ".NAME.attn-XXXXXXXXXXXX" with random letters, opened with O_EXCL and
 * O_NOFOLLOW (what mkstemp does, plus O_NOFOLLOW and O_CLOEXEC, which mkstemp cannot be asked for).
 * The fd, or -1 with errno set. */
static int open_temporary(const char *target, char **tmp)
{
    const char *slash = strrchr(target, '/');
    size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = slash ? slash + 1 : target;
    size_t size = dir_len + strlen(base) + 32;
    *tmp = malloc(size);
    if (!*tmp) {
        errno = ENOMEM;
        return -1;
    }
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char r[12];
        if (getentropy(r, sizeof r) != 0) { /* Linux, macOS and the BSDs alike; never fails for 12 bytes, a fallback all the same */
            for (size_t i = 0; i < sizeof r; i++)
                r[i] = (unsigned char)(rand() ^ (int)getpid() ^ attempt);
        }
        char rnd[sizeof r + 1];
        for (size_t i = 0; i < sizeof r; i++)
            rnd[i] = letters[r[i] % (sizeof letters - 1)];
        rnd[sizeof r] = '\0';
        snprintf(*tmp, size, "%.*s.%s.attn-%s", (int)dir_len, target, base, rnd);
        int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

attn_safe_file *attn_safe_open(const char *fn, const char *path, attn_error *err)
{
    if (forbidden)
        return attn_fail(err, "%s: cannot write %s: %s", fn, path, forbidden);
    if (path[0] == '\0')
        return attn_fail(err, "%s: the file name is empty", fn);
    attn_safe_file *f = calloc(1, sizeof *f);
    if (!f)
        return attn_fail(err, "%s: out of memory", fn);
    f->fd = -1;
    f->fn = strdup(fn);
    f->path = strdup(path);
    if (!f->fn || !f->path) {
        attn_safe_abort(f);
        return attn_fail(err, "%s: out of memory", fn);
    }
    if (find_target(fn, path, &f->target, &f->mode, err) != 0) {
        attn_safe_abort(f);
        return NULL;
    }
    f->fd = open_temporary(f->target, &f->tmp);
    if (f->fd < 0) {
        attn_fail(err, "%s: cannot write %s: %s", fn, path, strerror(errno));
        free(f->tmp); /* not made: nothing to remove */
        f->tmp = NULL;
        attn_safe_abort(f);
        return NULL;
    }
    return f;
}

int attn_safe_write(attn_safe_file *f, const void *data, size_t n, attn_error *err)
{
    const char *p = data;
    while (n > 0) {
        ssize_t k = write(f->fd, p, n > (size_t)INT_MAX ? (size_t)INT_MAX : n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return attn_fail(err, "%s: cannot write %s: %s", f->fn, f->path, k < 0 ? strerror(errno) : "no space"), -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The folder's entry made durable too (the rename itself), as far as the file system allows. */
static void sync_folder(const char *target)
{
    const char *slash = strrchr(target, '/');
    char dir[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == target)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - target), target);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd); /* some file systems refuse a folder's fsync: the data is already safe */
        close(fd);
    }
}

int attn_safe_commit(attn_safe_file *f, attn_error *err)
{
    const char *step = NULL;
    if (fchmod(f->fd, f->mode) != 0)
        step = "fchmod";
    else if (fsync(f->fd) != 0)
        step = "fsync";
    if (!step) {
        int fd = f->fd;
        f->fd = -1;
        if (close(fd) != 0)
            step = "close";
        else if (rename(f->tmp, f->target) != 0)
            step = "rename";
    }
    if (step) {
        attn_fail(err, "%s: cannot write %s: %s", f->fn, f->path, strerror(errno));
        attn_safe_abort(f);
        return -1;
    }
    sync_folder(f->target);
    free(f->tmp);
    f->tmp = NULL; /* renamed: nothing to remove */
    attn_safe_abort(f);
    return 0;
}

void attn_safe_abort(attn_safe_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    if (f->tmp)
        unlink(f->tmp);
    free(f->tmp);
    free(f->target);
    free(f->path);
    free(f->fn);
    free(f);
}

int attn_write_file(const char *fn, const char *path, const void *data, size_t n, attn_error *err)
{
    attn_safe_file *f = attn_safe_open(fn, path, err);
    if (!f)
        return -1;
    if (attn_safe_write(f, data, n, err) != 0) {
        attn_safe_abort(f);
        return -1;
    }
    return attn_safe_commit(f, err);
}
