/* safetensors_save.c — writing a safetensors file (see safetensors.h): the header built and printed by
 * cJSON, padded with spaces so the data starts at a multiple of 8 bytes (every tensor then stays
 * aligned when the file is mapped again), then each tensor's bytes, row-major and little-endian. */
#include "safetensors.h"
#include "safe_read.h"
#include "safe_write.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *file_dtype(attn_dtype d)
{
    return d == ATTN_INT64 ? "I64" : d == ATTN_BOOL ? "BOOL" : "F32";
}

static size_t file_size(attn_dtype d)
{
    return d == ATTN_INT64 ? 8 : d == ATTN_BOOL ? 1 : 4;
}

static cJSON *build_header(int n, const char *const *names, attn_tensor *const *ts, int meta_count,
                           const char *const *keys, const char *const *values)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    if (meta_count > 0) {
        cJSON *meta = cJSON_AddObjectToObject(root, "__metadata__");
        for (int i = 0; meta && i < meta_count; i++)
            if (!cJSON_AddStringToObject(meta, keys[i], values[i]))
                meta = NULL;
        if (!meta)
            goto fail;
    }
    double at = 0;
    for (int i = 0; i < n; i++) {
        const attn_tensor *t = ts[i];
        cJSON *e = cJSON_AddObjectToObject(root, names[i]);
        cJSON *shape = e ? cJSON_AddArrayToObject(e, "shape") : NULL;
        if (!shape || !cJSON_AddStringToObject(e, "dtype", file_dtype(t->dtype)))
            goto fail;
        for (int d = 0; d < t->ndim; d++)
            if (!cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)t->shape[d])))
                goto fail;
        double bytes = (double)attn_numel(t) * (double)file_size(t->dtype);
        double offsets[2] = {at, at + bytes};
        cJSON *o = cJSON_CreateDoubleArray(offsets, 2);
        if (!o || !cJSON_AddItemToObject(e, "data_offsets", o))
            goto fail;
        at += bytes;
    }
    return root;
fail:
    cJSON_Delete(root);
    return NULL;
}

/* Writes t's elements in row-major order, in the file's dtype, a block at a time. */
static int write_tensor(attn_safe_file *out, const attn_tensor *t, attn_error *err)
{
    attn_tensor *c = attn_contiguous(t, err);
    if (!c)
        return -1;
    int64_t n = attn_numel(c);
    int rc = 0;
    if (c->dtype == ATTN_BOOL) {
        unsigned char buf[4096];
        for (int64_t i = 0; i < n && rc == 0; i += (int64_t)sizeof buf) {
            size_t k = (size_t)(n - i < (int64_t)sizeof buf ? n - i : (int64_t)sizeof buf);
            for (size_t j = 0; j < k; j++)
                buf[j] = c->storage->data[c->offset + i + (int64_t)j] != 0.0f;
            rc = attn_safe_write(out, buf, k, err);
        }
    } else if (n > 0) {
        const void *p = c->dtype == ATTN_INT64 ? (const void *)(c->storage->i64 + c->offset)
                                               : (const void *)(c->storage->data + c->offset);
        rc = attn_safe_write(out, p, file_size(c->dtype) * (size_t)n, err);
    }
    attn_free(c);
    return rc;
}

/* The 8-byte length and the header padded with spaces to a multiple of 8, in one block (malloc'ed). */
static unsigned char *header_bytes(const char *json, size_t *size)
{
    size_t len = strlen(json);
    size_t padded = (len + 7) / 8 * 8;
    unsigned char *b = malloc(8 + padded);
    if (!b)
        return NULL;
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    memcpy(b + 8, json, len);
    memset(b + 8 + len, ' ', padded - len);
    *size = 8 + padded;
    return b;
}

/* A save replaces only a safetensors file (or an empty one): torch.save("model.pth") in a folder that
 * holds the student's PyTorch checkpoint of that name, or save_file over a note, would destroy a file
 * attn never wrote. The test is safetensors' own start: 8 bytes of header length, then "{". A path
 * that cannot be read is left to the writer, which says why. 0, or -1 with err set. */
static int refuse_foreign_file(const char *fn, const char *path, attn_error *err)
{
    attn_error ignored;
    int fd = attn_read_open(NULL, path, &ignored);
    if (fd < 0)
        return 0;
    unsigned char head[9];
    ssize_t got = 0, r;
    while (got < 9 && (r = read(fd, head + got, (size_t)(9 - got))) > 0)
        got += r;
    close(fd);
    if (got == 0)
        return 0;
    uint64_t len = 0;
    for (int i = 7; got == 9 && i >= 0; i--)
        len = len << 8 | head[i];
    if (got == 9 && head[8] == '{' && len >= 2)
        return 0;
    return attn_fail(err, "%s: %s exists and is not a safetensors file: attn does not write over it "
                          "(remove it, or save under another name)", fn, path), -1;
}

int attn_st_save(const char *fn, const char *path, int n, const char *const *names, attn_tensor *const *ts,
                 int meta_count, const char *const *keys, const char *const *values, attn_error *err)
{
    for (int i = 0; i < n; i++)
        if (!attn_utf8_valid(names[i], strlen(names[i])) || names[i][0] == '\0')
            return attn_fail(err, "%s: tensor names must be non-empty UTF-8 strings", fn), -1;
    if (refuse_foreign_file(fn, path, err))
        return -1;
    cJSON *root = build_header(n, names, ts, meta_count, keys, values);
    char *json = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    size_t head_size = 0;
    unsigned char *head = json ? header_bytes(json, &head_size) : NULL;
    free(json);
    if (!head)
        return attn_fail(err, "%s: out of memory", fn), -1;
    /* the whole file goes to a new file beside path, renamed over it when complete (safe_write.h) */
    attn_safe_file *out = attn_safe_open(fn, path, err);
    int rc = out ? attn_safe_write(out, head, head_size, err) : -1;
    free(head);
    for (int i = 0; rc == 0 && i < n; i++)
        rc = write_tensor(out, ts[i], err);
    if (rc == 0)
        return attn_safe_commit(out, err);
    attn_safe_abort(out);
    return -1;
}
