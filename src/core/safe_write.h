/* safe_write.h — the one way attn writes a file (safetensors.save_file, --verify --update, --html,
 * tr:save, attention.heatmap's svg; src/bind/files.c gives it to Lua as files.write).
 *
 * A write never destroys: the bytes go to a new temporary file in the target's own folder, opened with
 * O_CREAT|O_EXCL|O_NOFOLLOW under a random name (a file or symlink planted there makes the open fail,
 * never a write through it), are fsync'ed, get the mode of the file they replace, and only then take
 * its name with rename(2), which is atomic: a reader, a crash or a second attn saving the same file at
 * the same moment sees the old file or a complete new one, never a mixture. A target that is a symlink
 * is written through: the file it points to is replaced and the link stays a link (a dangling link is
 * refused). A target that exists and is not a regular file (a folder, a FIFO, a device) is refused. */
#ifndef ATTN_SAFE_WRITE_H
#define ATTN_SAFE_WRITE_H

#include <stddef.h>

#include "tensor.h"

typedef struct attn_safe_file attn_safe_file;

/* A writer for path: the temporary file made. fn names the function the user called, for errors.
 * NULL (and err set) when path cannot be written. */
attn_safe_file *attn_safe_open(const char *fn, const char *path, attn_error *err);

/* Appends n bytes. 0, or -1 with err set (the writer stays open: abort it). */
int attn_safe_write(attn_safe_file *f, const void *data, size_t n, attn_error *err);

/* fsync, the target's mode, rename over the target: the file complete under its name. Frees f.
 * 0, or -1 with err set (the target is then as it was). */
int attn_safe_commit(attn_safe_file *f, attn_error *err);

/* Gives up: the temporary file removed, the target as it was. Frees f. NULL does nothing. */
void attn_safe_abort(attn_safe_file *f);

/* The three steps at once: path holds exactly the n bytes at data. 0, or -1 with err set. */
int attn_write_file(const char *fn, const char *path, const void *data, size_t n, attn_error *err);

/* From now on this process writes no file: every attn_safe_open fails with
 * "<fn>: cannot write <path>: <why>". For --verify's notes (src/lua/verify/sandbox.lua), each run in a
 * process of its own. why NULL allows writes again. */
void attn_safe_forbid(const char *why);

#endif
