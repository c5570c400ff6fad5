/* test_reduce.c — src/core/reduce.c (attn_reduce_sum) against sums PyTorch itself computed.
 *
 * The expected values come from tests/data/torch/sum.txt (made by scripts/gen-torch-reference.sh with
 * Debian's python3-torch 1.13, AVX2 kernels, one thread), never from this C code:
 *   input id=ID n=N : <N float32 bit patterns>                     a storage
 *   sum id=ID shape=a,b stride=s,t offset=o dim=d : <bit patterns> torch.sum of that view (d == -1)
 *                                                                  or view.sum(d), row-major
 * Every result must match bit for bit. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce.h"

#define SUM_FILE "tests/data/torch/sum.txt"
#define MAX_INPUTS 256

static float bits_to_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint32_t float_to_bits(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* Parses whitespace-separated float32 bit patterns into a new array; *n gets the count. */
static float *parse_f32s(const char *vals, int64_t *n)
{
    int64_t cap = 16, len = 0;
    float *out = malloc(sizeof(float) * (size_t)cap);
    assert_non_null(out);
    const char *p = vals;
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

/* The value of " name=" in keys, copied into buf; fails when absent. */
static const char *need_key(const char *keys, const char *name, char *buf, size_t size)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", name);
    const char *p = strstr(keys, pat);
    if (p == NULL)
        fail_msg("missing key %s in: %s", name, keys);
    p += strlen(pat);
    size_t len = strcspn(p, " ");
    if (len >= size)
        len = size - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* "a,b,c" into v (at most max entries); returns the count. */
static int key_list(const char *keys, const char *name, int64_t *v, int max)
{
    char buf[256];
    need_key(keys, name, buf, sizeof buf);
    int n = 0;
    for (char *p = buf; *p && n < max;) {
        char *end;
        v[n++] = strtoll(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static int64_t key_int(const char *keys, const char *name)
{
    char buf[64];
    return strtoll(need_key(keys, name, buf, sizeof buf), NULL, 10);
}

/* ---- the data file ----------------------------------------------------------------------------- */

typedef struct {
    char id[64];
    float *data;
    int64_t n;
} input_t;

typedef struct {
    int cases, contiguous, views, transposed_6x6, strided_slice, broadcast;
} sum_stats;

static int is_contiguous(int ndim, const int64_t *shape, const int64_t *stride)
{
    int64_t expect = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        if (shape[d] != 1 && stride[d] != expect)
            return 0;
        expect *= shape[d];
    }
    return 1;
}

/* Checks one "sum" line against the inputs read so far. */
static void check_sum_line(const char *keys, const char *vals, const char *line, const input_t *inputs,
                           int ninputs, sum_stats *st)
{
    char id[64];
    need_key(keys, "id", id, sizeof id);
    const input_t *in = NULL;
    for (int i = 0; i < ninputs; i++)
        if (strcmp(inputs[i].id, id) == 0)
            in = &inputs[i];
    if (in == NULL)
        fail_msg("%s: no input line with id=%s before it", SUM_FILE, id);

    int64_t shape[ATTN_REDUCE_MAX_DIMS], stride[ATTN_REDUCE_MAX_DIMS];
    const int ndim = key_list(keys, "shape", shape, ATTN_REDUCE_MAX_DIMS);
    assert_int_equal(key_list(keys, "stride", stride, ATTN_REDUCE_MAX_DIMS), ndim);
    const int64_t offset = key_int(keys, "offset");
    const int dim = (int)key_int(keys, "dim");

    /* the view must lie inside the storage */
    int64_t last = offset, out_n = 1;
    for (int d = 0; d < ndim; d++) {
        last += (shape[d] - 1) * stride[d];
        if (d != dim && dim != -1)
            out_n *= shape[d];
    }
    assert_true(offset >= 0 && last < in->n);

    int64_t n;
    float *want = parse_f32s(vals, &n);
    if (n != out_n)
        fail_msg("%s\n  %lld results in the file, %lld expected from shape and dim", line, (long long)n,
                 (long long)out_n);
    float *got = malloc(sizeof(float) * (size_t)out_n); /* exact size: ASan catches overruns */
    assert_non_null(got);
    attn_reduce_sum(in->data + offset, ndim, shape, stride, dim, got);
    for (int64_t i = 0; i < n; i++)
        if (float_to_bits(want[i]) != float_to_bits(got[i]))
            fail_msg("%s\n  result %lld: torch 0x%08x (%.9g), attn 0x%08x (%.9g)", line, (long long)i,
                     float_to_bits(want[i]), (double)want[i], float_to_bits(got[i]), (double)got[i]);
    free(want);
    free(got);

    st->cases++;
    if (is_contiguous(ndim, shape, stride)) {
        st->contiguous++;
    } else {
        st->views++;
        if (ndim == 2 && shape[0] == 6 && shape[1] == 6 && stride[0] == 1 && stride[1] == 6)
            st->transposed_6x6++;
        int zero = 0, gap = 0;
        for (int d = 0; d < ndim; d++) {
            zero |= shape[d] > 1 && stride[d] == 0;
            gap |= ndim == 1 && stride[d] > 1;
        }
        st->broadcast += zero;
        st->strided_slice += gap;
    }
}

/* Reads SUM_FILE and checks every case; fills st. */
static void run_sum_file(sum_stats *st)
{
    memset(st, 0, sizeof *st);
    FILE *f = fopen(SUM_FILE, "r");
    if (f == NULL)
        fail_msg("cannot open %s (run the tests from the repository root)", SUM_FILE);
    static input_t inputs[MAX_INPUTS];
    int ninputs = 0;
    char *line = NULL, *copy = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        free(copy);
        copy = strdup(line);
        char *sep = strstr(line, " : ");
        if (sep == NULL)
            fail_msg("%s: no \" : \" in line: %s", SUM_FILE, copy);
        *sep = '\0';
        if (strncmp(line, "input ", 6) == 0) {
            assert_true(ninputs < MAX_INPUTS);
            input_t *in = &inputs[ninputs++];
            need_key(line + 5, "id", in->id, sizeof in->id);
            in->data = parse_f32s(sep + 3, &in->n);
            assert_int_equal(in->n, key_int(line + 5, "n"));
        } else if (strncmp(line, "sum ", 4) == 0) {
            check_sum_line(line + 3, sep + 3, copy, inputs, ninputs, st);
        } else {
            fail_msg("%s: unknown kind in line: %s", SUM_FILE, copy);
        }
    }
    for (int i = 0; i < ninputs; i++)
        free(inputs[i].data);
    free(line);
    free(copy);
    fclose(f);
}

/* ---- tests -------------------------------------------------------------------------------------- */

/* Six softmax-like floats: torch adds them as ((((x0 + x4) + x5) + x1) + x2) + x3 (row_sum with 4
 * interleaved accumulators) and gets exactly 1; in order they would give the next float up. */
static void test_hand_checked_six(void **state)
{
    (void)state;
    static const uint32_t bits[6] = {0x3e0ddf6b, 0x3e7399c9, 0x3e6edf65, 0x3dfdef4e, 0x3ddd8e76, 0x3e21e889};
    float x[6];
    for (int i = 0; i < 6; i++)
        x[i] = bits_to_float(bits[i]);
    volatile float seq = 0.0f;
    for (int i = 0; i < 6; i++)
        seq = seq + x[i];
    assert_int_equal(float_to_bits(seq), 0x3f800001);

    const int64_t shape[1] = {6}, stride[1] = {1};
    float out[1] = {-1.0f};
    attn_reduce_sum(x, 1, shape, stride, -1, out);
    assert_int_equal(float_to_bits(out[0]), 0x3f800000);
    out[0] = -1.0f;
    attn_reduce_sum(x, 1, shape, stride, 0, out);
    assert_int_equal(float_to_bits(out[0]), 0x3f800000);
}

/* Every case of sum.txt, bit for bit; the file must contain the non-contiguous views asked for. */
static void test_sum_file_matches_torch(void **state)
{
    (void)state;
    sum_stats st;
    run_sum_file(&st);
    print_message("# %s: %d cases matched bit for bit (%d contiguous, %d views: %d transposed 6x6, "
                  "%d strided 1-D slices, %d broadcast)\n", SUM_FILE, st.cases, st.contiguous, st.views,
                  st.transposed_6x6, st.strided_slice, st.broadcast);
    assert_true(st.cases >= 1000);
    assert_true(st.transposed_6x6 >= 3);
    assert_true(st.strided_slice >= 3);
    assert_true(st.broadcast >= 3);
}

/* A scalar (ndim 0), empty tensors (zeros, like torch), and arguments that write nothing. */
static void test_edge_cases(void **state)
{
    (void)state;
    const float x[4] = {1.5f, -2.0f, 0.25f, 8.0f};
    float out[4] = {-1.0f, -1.0f, -1.0f, -1.0f};

    attn_reduce_sum(x + 2, 0, NULL, NULL, -1, out);
    assert_true(out[0] == 0.25f);

    const int64_t shape0[2] = {3, 0}, stride0[2] = {1, 1};
    out[0] = out[1] = out[2] = -1.0f;
    attn_reduce_sum(x, 2, shape0, stride0, 1, out); /* sum over an empty dim: three zeros */
    assert_true(out[0] == 0.0f && out[1] == 0.0f && out[2] == 0.0f);
    out[0] = -1.0f;
    attn_reduce_sum(x, 2, shape0, stride0, -1, out);
    assert_true(out[0] == 0.0f);

    /* -0.0 sums to +0.0: torch adds into a zero-filled output */
    const float negzero[1] = {-0.0f};
    const int64_t shape1[1] = {1}, stride1[1] = {1};
    attn_reduce_sum(negzero, 1, shape1, stride1, 0, out);
    assert_int_equal(float_to_bits(out[0]), 0x00000000);

    out[0] = -1.0f;
    const int64_t shape2[2] = {2, 2}, stride2[2] = {2, 1};
    attn_reduce_sum(x, 2, shape2, stride2, 2, out);  /* dim out of range */
    attn_reduce_sum(x, 2, shape2, stride2, -2, out); /* dim out of range */
    attn_reduce_sum(x, 0, NULL, NULL, 0, out);       /* a scalar has no dim 0 */
    attn_reduce_sum(x, ATTN_REDUCE_MAX_DIMS + 1, shape2, stride2, -1, out);
    assert_true(out[0] == -1.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_checked_six),
        cmocka_unit_test(test_sum_file_matches_torch),
        cmocka_unit_test(test_edge_cases),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
