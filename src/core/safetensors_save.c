/* safetensors_save.c — writing a safetensors file (see safetensors.h): the header built and printed by
 * cJSON, padded with spaces so the data starts at a multiple of 8 bytes (every tensor then stays
 * aligned when the file is mapped again), then each tensor's bytes, row-major and little-endian. */
#include "safetensors.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static int write_tensor(FILE *out, const attn_tensor *t, attn_error *err)
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
            rc = fwrite(buf, 1, k, out) == k ? 0 : -1;
        }
    } else if (n > 0) {
        const void *p = c->dtype == ATTN_INT64 ? (const void *)(c->storage->i64 + c->offset)
                                               : (const void *)(c->storage->data + c->offset);
        rc = fwrite(p, file_size(c->dtype), (size_t)n, out) == (size_t)n ? 0 : -1;
    }
    attn_free(c);
    return rc;
}

int attn_st_save(const char *fn, const char *path, int n, const char *const *names, attn_tensor *const *ts,
                 int meta_count, const char *const *keys, const char *const *values, attn_error *err)
{
    for (int i = 0; i < n; i++)
        if (!attn_utf8_valid(names[i], strlen(names[i])) || names[i][0] == '\0')
            return attn_fail(err, "%s: tensor names must be non-empty UTF-8 strings", fn), -1;
    cJSON *root = build_header(n, names, ts, meta_count, keys, values);
    char *json = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!json)
        return attn_fail(err, "%s: out of memory", fn), -1;
    size_t len = strlen(json);
    size_t padded = (len + 7) / 8 * 8;
    size_t tmp_len = strlen(path) + 5;
    char *tmp = malloc(tmp_len);
    if (!tmp) {
        free(json);
        return attn_fail(err, "%s: out of memory", fn), -1;
    }
    snprintf(tmp, tmp_len, "%s.tmp", path);
    FILE *out = fopen(tmp, "wb");
    if (!out) {
        attn_fail(err, "%s: cannot write %s: %s", fn, path, strerror(errno));
        free(json);
        free(tmp);
        return -1;
    }
    unsigned char head[8];
    for (int i = 0; i < 8; i++)
        head[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    int rc = fwrite(head, 1, 8, out) == 8 && fwrite(json, 1, len, out) == len ? 0 : -1;
    for (size_t i = len; rc == 0 && i < padded; i++)
        rc = fputc(' ', out) == EOF ? -1 : 0;
    free(json);
    attn_error werr = {{0}};
    for (int i = 0; rc == 0 && i < n; i++)
        rc = write_tensor(out, ts[i], &werr);
    int saved_errno = errno;
    if (fclose(out) != 0 && rc == 0) {
        rc = -1;
        saved_errno = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        saved_errno = errno;
    }
    if (rc != 0) {
        remove(tmp);
        if (werr.msg[0])
            attn_fail(err, "%s: %s", fn, werr.msg);
        else
            attn_fail(err, "%s: cannot write %s: %s", fn, path, strerror(saved_errno));
    }
    free(tmp);
    return rc;
}
