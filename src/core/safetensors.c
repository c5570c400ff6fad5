/* safetensors.c — loading a safetensors file (see safetensors.h for the format). The JSON header is
 * parsed by cJSON; everything the format requires beyond JSON is checked here, before any tensor is
 * made: names unique and UTF-8, known dtypes, shapes whose byte size is the span of their offsets,
 * offsets inside the data, no two tensors sharing a byte and no byte left unused (the format's own
 * rule: it keeps a weights file from doubling as another kind of file). */
#include "safetensors.h"
#include "safe_read.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The reference implementation refuses headers over 100 MB: no real header comes near it, and a
 * corrupted length must not make us parse gigabytes. */
#define MAX_HEADER (100u * 1000 * 1000)

typedef struct st_dtype {
    const char *name;
    size_t size;      /* bytes per element in the file */
    attn_dtype dtype; /* what attn makes of it */
} st_dtype;

static const st_dtype DTYPES[] = {
    {"F32", 4, ATTN_FLOAT32}, {"F16", 2, ATTN_FLOAT32}, {"BF16", 2, ATTN_FLOAT32}, {"F64", 8, ATTN_FLOAT32},
    {"I64", 8, ATTN_INT64},   {"I32", 4, ATTN_INT64},   {"I16", 2, ATTN_INT64},    {"I8", 1, ATTN_INT64},
    {"U8", 1, ATTN_INT64},    {"BOOL", 1, ATTN_BOOL},   {NULL, 0, 0}};

int attn_utf8_valid(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (len == 0 || i + len > n)
            return 0;
        unsigned cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        /* overlong forms, surrogates and code points past U+10FFFF are not UTF-8 */
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

/* What one header entry says, checked. */
typedef struct st_info {
    const char *name;
    const st_dtype *dt;
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    uint64_t begin, end;
} st_info;

/* A JSON number that is a whole number in [0, 2^53]. */
static int whole(const cJSON *n, uint64_t *out)
{
    if (!cJSON_IsNumber(n))
        return 0;
    double v = n->valuedouble;
    if (!(v >= 0 && v <= 9007199254740992.0) || v != floor(v))
        return 0;
    *out = (uint64_t)v;
    return 1;
}

/* The entry's shape, into info (at most ATTN_MAX_DIMS sizes, each a whole number); *bytes is the size
 * of its data that the shape and dtype say. */
static int read_shape(const char *fn, const char *path, const char *name, const cJSON *shape, st_info *info,
                      double *bytes, attn_error *err)
{
    int ndim = cJSON_GetArraySize(shape);
    if (ndim > ATTN_MAX_DIMS)
        return attn_fail(err, "%s: %s: tensor \"%s\" has %d dims, attn supports at most %d", fn, path, name, ndim,
                         ATTN_MAX_DIMS), -1;
    info->ndim = ndim;
    *bytes = (double)info->dt->size;
    int d = 0;
    for (const cJSON *s = shape->child; s; s = s->next, d++) {
        uint64_t v;
        if (!whole(s, &v))
            return attn_fail(err, "%s: %s: tensor \"%s\": shape sizes must be whole numbers >= 0", fn, path,
                             name), -1;
        info->shape[d] = (int64_t)v;
        *bytes *= (double)v;
    }
    return 0;
}

/* The entry's data_offsets, into info: [begin, end] inside the data, spanning the bytes its shape takes. */
static int read_offsets(const char *fn, const char *path, const char *name, const cJSON *offsets,
                        uint64_t data_len, double bytes, st_info *info, attn_error *err)
{
    if (cJSON_GetArraySize(offsets) != 2 || !whole(offsets->child, &info->begin) ||
        !whole(offsets->child->next, &info->end) || info->begin > info->end)
        return attn_fail(err, "%s: %s: tensor \"%s\": data_offsets must be [begin, end] with 0 <= begin <= end", fn,
                         path, name), -1;
    if (info->end > data_len)
        return attn_fail(err, "%s: %s: tensor \"%s\": data_offsets [%llu, %llu] are past the end of the data "
                              "(%llu bytes): the file is truncated or its header is wrong", fn, path, name,
                         (unsigned long long)info->begin, (unsigned long long)info->end,
                         (unsigned long long)data_len), -1;
    if (bytes != (double)(info->end - info->begin)) {
        char text[160];
        attn_tensor tmp = {.ndim = info->ndim};
        memcpy(tmp.shape, info->shape, sizeof(int64_t) * (size_t)info->ndim);
        return attn_fail(err, "%s: %s: tensor \"%s\": shape %s of %s takes %.0f bytes, but its data_offsets "
                              "[%llu, %llu] span %llu", fn, path, name, attn_shape_str(&tmp, text, sizeof text),
                         info->dt->name, bytes, (unsigned long long)info->begin, (unsigned long long)info->end,
                         (unsigned long long)(info->end - info->begin)), -1;
    }
    return 0;
}

/* One tensor's header entry {dtype, shape, data_offsets}, checked into info. */
static int check_entry(const char *fn, const char *path, const cJSON *item, uint64_t data_len, st_info *info,
                       attn_error *err)
{
    const char *name = item->string;
    info->name = name;
    if (!cJSON_IsObject(item))
        return attn_fail(err, "%s: %s: the header entry of \"%s\" is not an object {dtype, shape, data_offsets}",
                         fn, path, name), -1;
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(item, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(item, "shape");
    const cJSON *offsets = cJSON_GetObjectItemCaseSensitive(item, "data_offsets");
    if (!cJSON_IsString(dtype) || !cJSON_IsArray(shape) || !cJSON_IsArray(offsets))
        return attn_fail(err, "%s: %s: the header entry of \"%s\" needs a string dtype, a list shape and a list "
                              "data_offsets", fn, path, name), -1;
    info->dt = NULL;
    for (const st_dtype *d = DTYPES; d->name; d++)
        if (strcmp(d->name, dtype->valuestring) == 0)
            info->dt = d;
    if (!info->dt)
        return attn_fail(err, "%s: %s: tensor \"%s\" has dtype \"%.40s\", which attn does not read (it reads F32, "
                              "F16, BF16, F64, I64, I32, I16, I8, U8 and BOOL)", fn, path, name,
                         dtype->valuestring), -1;
    double bytes;
    if (read_shape(fn, path, name, shape, info, &bytes, err))
        return -1;
    return read_offsets(fn, path, name, offsets, data_len, bytes, info, err);
}

static int by_begin(const void *a, const void *b)
{
    const st_info *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

void attn_st_free(attn_st_file *f)
{
    if (!f)
        return;
    for (int i = 0; i < f->count; i++) {
        free(f->entries[i].name);
        attn_free(f->entries[i].tensor);
    }
    for (int i = 0; i < f->meta_count; i++) {
        free(f->meta_keys[i]);
        free(f->meta_values[i]);
    }
    free(f->entries);
    free(f->meta_keys);
    free(f->meta_values);
    free(f);
}

static int read_metadata(const char *fn, const char *path, const cJSON *meta, attn_st_file *f, attn_error *err)
{
    if (!cJSON_IsObject(meta))
        return attn_fail(err, "%s: %s: \"__metadata__\" must be an object of strings", fn, path), -1;
    int n = cJSON_GetArraySize(meta);
    f->meta_keys = calloc((size_t)n + 1, sizeof(char *));
    f->meta_values = calloc((size_t)n + 1, sizeof(char *));
    if (!f->meta_keys || !f->meta_values)
        return attn_fail(err, "%s: out of memory", fn), -1;
    for (const cJSON *m = meta->child; m; m = m->next) {
        if (!cJSON_IsString(m))
            return attn_fail(err, "%s: %s: \"__metadata__\" must be an object of strings (\"%s\" is not a string)",
                             fn, path, m->string), -1;
        f->meta_keys[f->meta_count] = strdup(m->string);
        f->meta_values[f->meta_count] = strdup(m->valuestring);
        if (!f->meta_keys[f->meta_count++] || !f->meta_values[f->meta_count - 1])
            return attn_fail(err, "%s: out of memory", fn), -1;
    }
    return 0;
}

/* The header's entries, each checked (names UTF-8 and unique, __metadata__ read apart) into infos;
 * *count is how many tensors there are, *float_bytes what they will take in memory. */
static int read_entries(const char *fn, const char *path, const cJSON *root, uint64_t data_len, attn_st_file *f,
                        st_info *infos, int *count, double *float_bytes, attn_error *err)
{
    for (const cJSON *item = root->child; item; item = item->next) {
        const char *name = item->string;
        if (!attn_utf8_valid(name, strlen(name)))
            return attn_fail(err, "%s: %s: a tensor name is not valid UTF-8", fn, path), -1;
        for (const cJSON *prev = root->child; prev != item; prev = prev->next)
            if (strcmp(prev->string, name) == 0)
                return attn_fail(err, "%s: %s: the name \"%s\" appears twice in the header", fn, path, name), -1;
        if (strcmp(name, "__metadata__") == 0) {
            if (read_metadata(fn, path, item, f, err))
                return -1;
            continue;
        }
        st_info *in = &infos[*count];
        if (check_entry(fn, path, item, data_len, in, err))
            return -1;
        *float_bytes += (double)(in->end - in->begin) / (double)in->dt->size * 4;
        (*count)++;
    }
    return 0;
}

/* The format's rule that every byte of the data belongs to exactly one tensor: infos sorted by
 * offset, no overlap, no hole, nothing left at the end. */
static int check_coverage(const char *fn, const char *path, st_info *infos, int count, uint64_t data_len,
                          attn_error *err)
{
    qsort(infos, (size_t)count, sizeof *infos, by_begin);
    uint64_t at = 0;
    for (int i = 0; i < count; i++) {
        if (infos[i].begin < at)
            return attn_fail(err, "%s: %s: tensors \"%s\" and \"%s\" overlap (both use byte %llu of the data)", fn,
                             path, infos[i - 1].name, infos[i].name, (unsigned long long)infos[i].begin), -1;
        if (infos[i].begin > at)
            return attn_fail(err, "%s: %s: bytes %llu to %llu of the data belong to no tensor (the format allows "
                                  "no holes)", fn, path, (unsigned long long)at,
                             (unsigned long long)infos[i].begin), -1;
        at = infos[i].end;
    }
    if (at != data_len)
        return attn_fail(err, "%s: %s: the last %llu bytes of the data belong to no tensor (the format allows no "
                              "holes)", fn, path, (unsigned long long)(data_len - at)), -1;
    return 0;
}

/* A model that cannot fit is refused before a single tensor is made. */
static int check_fits(const char *fn, const char *path, double float_bytes, attn_error *err)
{
    double avail = attn_available_bytes();
    if (avail >= 0 && float_bytes > avail) {
        char need[48], have[48];
        attn_human_bytes(float_bytes, need, sizeof need);
        attn_human_bytes(avail, have, sizeof have);
        return attn_fail(err, "%s: %s: its tensors take %s, more than the memory available now (%s)", fn, path,
                         need, have), -1;
    }
    return 0;
}

/* n bytes from byte `at` of the file into buf. A short read means the file was cut since its size was
 * taken: an error, never a tensor with bytes missing. */
static int read_bytes(const char *fn, const char *path, int fd, void *buf, size_t n, uint64_t at, attn_error *err)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = pread(fd, p, n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n, (off_t)at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return attn_fail(err, "%s: cannot read %s: %s", fn, path, strerror(errno)), -1;
        if (k == 0)
            return attn_fail(err, "%s: %s: the file ended before the data its header describes (was it cut "
                                  "while attn read it?)", fn, path), -1;
        p += k;
        n -= (size_t)k;
        at += (uint64_t)k;
    }
    return 0;
}

/* One tensor, its bytes read from the file into memory of its own: F32 and I64 straight into the
 * tensor, the other dtypes into a buffer and converted (safetensors_dtypes.c).
 *
 * Why a copy and not a mapping (which attn used before): a tensor that points into a mapped file dies
 * with SIGBUS when another program truncates the file, and changes when one rewrites the file's bytes in
 * place (even a MAP_PRIVATE mapping shows them, for every page not yet copied). A SIGBUS handler cannot
 * fix the first (the fault can come in BLAS or in any of attn's threads, with nothing to jump back to),
 * and nothing fixes the second short of copying. So attn reads: GPT-2 small's 498 MB take ~0.2 s from
 * the page cache instead of ~4 ms (scripts/bench-safetensors-load.sh), and its weights are resident
 * from the start instead of as they are used: the same memory once they have all been used. */
static attn_tensor *read_tensor(const char *fn, const char *path, int fd, const st_info *in, uint64_t at,
                                attn_error *err)
{
    attn_tensor *t = attn_empty(fn, in->ndim, in->shape, in->dt->dtype, err);
    size_t bytes = (size_t)(in->end - in->begin);
    if (!t || bytes == 0)
        return t;
    int direct = strcmp(in->dt->name, "F32") == 0 || strcmp(in->dt->name, "I64") == 0;
    /* A narrower dtype (BF16, I32, ...) is read into the end of the tensor's own memory and widened in
     * place: no second buffer, whose freed pages stayed resident in the heap. F64 needs a buffer. */
    size_t wide = in->dt->dtype == ATTN_INT64 ? sizeof(int64_t) : sizeof(float);
    unsigned char *mem = in->dt->dtype == ATTN_INT64 ? (unsigned char *)t->storage->i64
                                                     : (unsigned char *)t->storage->data;
    int own = !direct && in->dt->size > wide;
    void *buf = direct ? (void *)mem : own ? malloc(bytes) : (void *)(mem + (size_t)attn_numel(t) * wide - bytes);
    if (!buf) {
        attn_free(t);
        return attn_fail(err, "%s: out of memory", fn);
    }
    int rc = read_bytes(fn, path, fd, buf, bytes, at, err);
    if (rc == 0 && !direct)
        attn_st_convert(in->dt->name, in->dt->size, buf, t);
    if (own)
        free(buf);
    if (rc != 0) {
        attn_free(t);
        return NULL;
    }
    return t;
}

/* The tensors, in f->entries, each read from the file (data_at: the byte where the data starts). */
static int make_tensors(const char *fn, const char *path, int fd, const st_info *infos, int count, size_t data_at,
                        attn_st_file *f, attn_error *err)
{
    for (int i = 0; i < count; i++) {
        const st_info *in = &infos[i];
        attn_tensor *t = read_tensor(fn, path, fd, in, (uint64_t)data_at + in->begin, err);
        f->entries[i].name = strdup(in->name);
        f->entries[i].tensor = t;
        f->count = i + 1;
        if (!t || !f->entries[i].name) {
            if (t)
                attn_fail(err, "%s: out of memory", fn);
            return -1;
        }
        if (attn_interrupt_requested) { /* Ctrl-C between two tensors of a big file */
            attn_interrupted(err);
            return -1;
        }
    }
    return 0;
}

/* Checks the parsed header against the data (data_len bytes from byte data_at of the file), and only
 * then reads the tensors: a malformed file, or one too large for the memory available, is refused
 * before anything is allocated. */
static int read_header(const char *fn, const char *path, const cJSON *root, int fd, size_t data_at,
                       uint64_t data_len, attn_st_file *f, attn_error *err)
{
    if (!cJSON_IsObject(root))
        return attn_fail(err, "%s: %s: the header is not a JSON object", fn, path), -1;
    int n = cJSON_GetArraySize(root);
    st_info *infos = calloc((size_t)n + 1, sizeof *infos);
    f->entries = calloc((size_t)n + 1, sizeof *f->entries);
    if (!infos || !f->entries) {
        free(infos);
        return attn_fail(err, "%s: out of memory", fn), -1;
    }
    int count = 0, rc = -1;
    double float_bytes = 0;
    if (read_entries(fn, path, root, data_len, f, infos, &count, &float_bytes, err) == 0 &&
        check_coverage(fn, path, infos, count, data_len, err) == 0 && check_fits(fn, path, float_bytes, err) == 0)
        rc = make_tensors(fn, path, fd, infos, count, data_at, f, err);
    free(infos);
    return rc;
}

/* The header's length n, from the file's first 8 bytes: inside the file and within the format's limit. */
static int header_length(const char *fn, const char *path, int fd, uint64_t size, uint64_t *n, attn_error *err)
{
    unsigned char len8[8];
    if (pread(fd, len8, 8, 0) != 8)
        return attn_fail(err, "%s: cannot read %s: %s", fn, path, strerror(errno)), -1;
    *n = 0;
    for (int i = 7; i >= 0; i--)
        *n = (*n << 8) | len8[i];
    if (*n > size - 8)
        return attn_fail(err, "%s: %s: the header length (%llu bytes) is past the end of the file (%llu bytes): not "
                              "a safetensors file, or a truncated one", fn, path, (unsigned long long)*n,
                         (unsigned long long)size), -1;
    if (*n > MAX_HEADER)
        return attn_fail(err, "%s: %s: the header length (%llu bytes) is over the format's limit of 100 MB", fn,
                         path, (unsigned long long)*n), -1;
    return 0;
}

/* The header's n bytes (from byte 8) parsed as one JSON object, with nothing after it but the spaces
 * the format pads it with. NULL on failure. */
static cJSON *parse_header(const char *fn, const char *path, int fd, uint64_t n, attn_error *err)
{
    char *text = malloc((size_t)n + 1);
    cJSON *root = NULL;
    if (text == NULL) {
        attn_fail(err, "%s: out of memory", fn);
    } else if (pread(fd, text, (size_t)n, 8) != (ssize_t)n) {
        attn_fail(err, "%s: cannot read the header of %s: %s", fn, path, strerror(errno));
    } else if (n < 2 || text[0] != '{') {
        attn_fail(err, "%s: %s: the header does not start with '{': not a safetensors file", fn, path);
    } else {
        const char *end = NULL;
        root = cJSON_ParseWithLengthOpts(text, (size_t)n, &end, 0);
        /* the format pads the header with spaces to align the data */
        while (root && end < text + n && *end == ' ')
            end++;
        if (!root || end != text + n) {
            const char *at = root ? end : cJSON_GetErrorPtr();
            long pos = at ? (long)(at - text) : 0;
            attn_fail(err, "%s: %s: the header is not valid JSON (at byte %ld of %llu)", fn, path, pos,
                      (unsigned long long)n);
            cJSON_Delete(root);
            root = NULL;
        }
    }
    free(text);
    return root;
}

attn_st_file *attn_st_load(const char *fn, const char *path, attn_error *err)
{
    int fd = attn_read_open(fn, path, err); /* a FIFO refused before it blocks; a note's reads confined */
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return attn_fail(err, "%s: %s is not a regular file", fn, path);
    }
    uint64_t size = (uint64_t)st.st_size, n;
    attn_st_file *f = NULL;
    cJSON *root = NULL;
    if (size < 8) {
        attn_fail(err, "%s: %s: %llu bytes is too short for a safetensors file (it starts with an 8-byte header "
                       "length)", fn, path, (unsigned long long)size);
    } else if (header_length(fn, path, fd, size, &n, err) == 0 && (root = parse_header(fn, path, fd, n, err))) {
        if ((f = calloc(1, sizeof *f)) == NULL) {
            attn_fail(err, "%s: out of memory", fn);
        } else if (read_header(fn, path, root, fd, 8 + (size_t)n, size - 8 - n, f, err)) {
            attn_st_free(f);
            f = NULL;
        }
        cJSON_Delete(root);
    }
    close(fd);
    return f;
}
