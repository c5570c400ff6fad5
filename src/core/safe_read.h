/* safe_read.h — the one way attn opens a file it reads (safetensors.load_file, the loaders' config.json,
 * tokenizer.json and vocabularies, the lessons' sources and reference data, the Jupyter connection file,
 * and every read of a note run by --verify: src/bind/files.c gives it to Lua as files.open).
 *
 * The file is opened with O_NONBLOCK and looked at (fstat) before a byte is read: a FIFO, a socket or a
 * device is refused at once (a FIFO used to block attn for ever at open, a device to read for ever), and
 * so are the pipes that /dev/stdin and /proc/self/fd/N name. A folder opens (its reader then says it is
 * one). When reads are confined (attn_read_confine: --verify's restricted notes), the file opened, its
 * symlinks resolved through the open descriptor itself (no race with a link swapped in between), must lie
 * inside one of the folders given. */
#ifndef ATTN_SAFE_READ_H
#define ATTN_SAFE_READ_H

#include <sys/stat.h>

#include "tensor.h"

/* An open descriptor (O_RDONLY, O_CLOEXEC, blocking again) of the regular file or folder at path, or -1
 * and err set to "FN: cannot open PATH: why" ("PATH: why" when fn is NULL) and errno (ENOENT: no file at
 * all; EINVAL: not a regular file; EPERM: outside the confinement). */
int attn_read_open(const char *fn, const char *path, attn_error *err);

/* From now on this process reads only files inside the n folders (resolved now); why is the message of
 * a refusal, after the path (translated by the caller). n == 0 lifts the confinement. 0, or -1 (out of
 * memory: then every read is refused). */
int attn_read_confine(const char *const *folders, int n, const char *why);

/* What a file that is not regular is, for messages: "a folder", "a FIFO", ... (translated). */
const char *attn_file_kind(mode_t mode);

#endif
