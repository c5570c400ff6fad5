/* refdata.h — reading the PyTorch reference files in tests/data/torch/, shared by the C tests.
 *
 * Every line of those files is "<kind> key=value ... : values" (made by scripts/gen-torch-reference.sh);
 * float32 values are written as their bit patterns in hex, float64 keys with Python's float.hex(). A test
 * walks a file with for_each_case, reads keys with key_* and values with parse_f32s, and compares with
 * expect_bits. Failures go through cmocka's fail_msg, so these run inside a test or a group setup.
 *
 * The functions are `static inline` only so that a test which leaves one unused gets no warning; each
 * test is one translation unit (tests/c/test_X.c plus the core objects). Run from the repository root. */
#ifndef ATTN_TESTS_REFDATA_H
#define ATTN_TESTS_REFDATA_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_DIR "tests/data/torch/"
#define REF_MAX_LIST 16 /* most entries key_numel reads from a list such as shape=2,6,3 */

/* ---- float32 and its bit pattern --------------------------------------------------------------- */

static inline float bits_to_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline uint32_t float_to_bits(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* Parses the whitespace-separated float32 bit patterns at the start of text, up to the end or the first
 * word that is not one (softmax.txt's "->"), into a new array; *n gets the count. */
static inline float *parse_f32s(const char *text, int64_t *n)
{
    int64_t cap = 16, len = 0;
    float *out = malloc(sizeof(float) * (size_t)cap);
    assert_non_null(out);
    const char *p = text;
    for (;;) {
        char *end;
        unsigned long v = strtoul(p, &end, 16);
        if (end == p)
            break;
        if (len == cap) {
            out = realloc(out, sizeof(float) * (size_t)(cap *= 2));
            assert_non_null(out);
        }
        out[len++] = bits_to_float((uint32_t)v);
        p = end;
    }
    *n = len;
    return out;
}

/* ---- keys: " name=value" in the text before " : " ----------------------------------------------- */

/* The value of " name=" in keys, copied into buf (cut to size - 1 characters); NULL when absent. */
static inline const char *key_str(const char *keys, const char *name, char *buf, size_t size)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", name);
    const char *p = strstr(keys, pat);
    if (p == NULL)
        return NULL;
    p += strlen(pat);
    size_t len = strcspn(p, " ");
    if (len >= size)
        len = size - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* key_str, failing when the key is absent. */
static inline const char *need_key(const char *keys, const char *name, char *buf, size_t size)
{
    if (key_str(keys, name, buf, size) == NULL)
        fail_msg("missing key %s in: %s", name, keys);
    return buf;
}

static inline int64_t key_int(const char *keys, const char *name)
{
    char buf[64];
    return strtoll(need_key(keys, name, buf, sizeof buf), NULL, 10);
}

static inline uint64_t key_u64(const char *keys, const char *name)
{
    char buf[64];
    return strtoull(need_key(keys, name, buf, sizeof buf), NULL, 10);
}

/* float64 keys are written with Python's float.hex(), which strtod reads exactly. */
static inline double key_double(const char *keys, const char *name)
{
    char buf[64];
    return strtod(need_key(keys, name, buf, sizeof buf), NULL);
}

/* The integers of "a,b,c" into v (empty for a 0-d shape: "shape= "); fails on more than max of them or
 * on something that is not one. Returns the count. */
static inline int key_list(const char *keys, const char *name, int64_t *v, int max)
{
    char buf[256];
    need_key(keys, name, buf, sizeof buf);
    int n = 0;
    for (const char *p = buf; *p;) {
        char *end;
        if (n == max)
            fail_msg("too many values for %s in: %s", name, keys);
        v[n++] = strtoll(p, &end, 10);
        if (end == p)
            fail_msg("not a list of integers for %s in: %s", name, keys);
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* Product of "a,b,c" (1 for an empty list, as for a 0-d tensor). */
static inline int64_t key_numel(const char *keys, const char *name)
{
    int64_t v[REF_MAX_LIST], numel = 1;
    int n = key_list(keys, name, v, REF_MAX_LIST);
    for (int i = 0; i < n; i++)
        numel *= v[i];
    return numel;
}

/* ---- walking a file ---------------------------------------------------------------------------- */

/* One line "<kind> key=value ... : values", cut in its parts. */
typedef struct {
    char kind[32];
    const char *head; /* "<kind> key=value ...", the part before " : " */
    const char *keys; /* head past the kind: " key=value ...", as key_str wants it */
    const char *vals; /* the part after " : " */
    const char *line; /* the whole line, for messages */
} ref_line;

typedef void (*ref_line_fn)(const ref_line *l, void *ctx);

/* Calls fn(line, ctx) for every line of the file at path whose kind is `kind` (every line when kind is
 * NULL), skipping blank lines and # comments; returns how many. */
static inline int for_each_case(const char *path, const char *kind, ref_line_fn fn, void *ctx)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        fail_msg("cannot open %s (run the tests from the repository root)", path);
    char *line = NULL, *copy = NULL;
    size_t cap = 0;
    int count = 0;
    ref_line l;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        size_t kind_len = strcspn(line, " ");
        if (kind != NULL && (kind_len != strlen(kind) || strncmp(line, kind, kind_len) != 0))
            continue;
        free(copy);
        copy = strdup(line); /* for messages: the split below cuts line in two */
        assert_non_null(copy);
        char *sep = strstr(line, " : ");
        if (sep == NULL)
            fail_msg("%s: no \" : \" in line: %s", path, copy);
        if (kind_len >= sizeof l.kind)
            fail_msg("%s: kind too long in line: %s", path, copy);
        *sep = '\0';
        memcpy(l.kind, line, kind_len);
        l.kind[kind_len] = '\0';
        l.head = line;
        l.keys = line + kind_len;
        l.vals = sep + 3;
        l.line = copy;
        fn(&l, ctx);
        count++;
    }
    free(line);
    free(copy);
    fclose(f);
    return count;
}

/* ---- comparing --------------------------------------------------------------------------------- */

/* want and got must be the same float32s bit for bit; line names the case in the message. */
static inline void expect_bits(const char *line, const float *want, const float *got, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (float_to_bits(want[i]) != float_to_bits(got[i]))
            fail_msg("%s\n  element %lld: torch 0x%08x (%.9g), attn 0x%08x (%.9g)", line, (long long)i,
                     float_to_bits(want[i]), (double)want[i], float_to_bits(got[i]), (double)got[i]);
}

#endif
