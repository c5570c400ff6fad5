/* test_reduce.c — src/core/reduce.c (attn_reduce_sum) against sums PyTorch itself computed.
 *
 * The expected values come from tests/data/torch/sum.txt (made by scripts/gen-torch-reference.sh with
 * Debian's python3-torch 1.13, AVX2 kernels, one thread), never from this C code:
 *   input id=ID n=N : <N float32 bit patterns>                     a storage
 *   sum id=ID shape=a,b stride=s,t offset=o dim=d : <bit patterns> torch.sum of that view (d == -1)
 *                                                                  or view.sum(d), row-major
 * Every result must match bit for bit. Run from the repository root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce.h"
#include "refdata.h"

#define SUM_FILE REF_DIR "sum.txt"
#define MAX_INPUTS 256

/* ---- the data file ----------------------------------------------------------------------------- */

typedef struct {
    char id[64];
    float *data;
    int64_t n;
} input_t;

typedef struct {
    int cases, contiguous, views, transposed_6x6, strided_slice, broadcast;
} sum_stats;

/* What run_sum_file has read so far. */
typedef struct {
    input_t inputs[MAX_INPUTS];
    int ninputs;
    sum_stats *st;
} sum_reader;

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
static void check_sum_line(const ref_line *l, const sum_reader *r)
{
    sum_stats *st = r->st;
    char id[64];
    need_key(l->keys, "id", id, sizeof id);
    const input_t *in = NULL;
    for (int i = 0; i < r->ninputs; i++)
        if (strcmp(r->inputs[i].id, id) == 0)
            in = &r->inputs[i];
    if (in == NULL)
        fail_msg("%s: no input line with id=%s before it", SUM_FILE, id);

    int64_t shape[ATTN_REDUCE_MAX_DIMS], stride[ATTN_REDUCE_MAX_DIMS];
    const int ndim = key_list(l->keys, "shape", shape, ATTN_REDUCE_MAX_DIMS);
    assert_int_equal(key_list(l->keys, "stride", stride, ATTN_REDUCE_MAX_DIMS), ndim);
    const int64_t offset = key_int(l->keys, "offset");
    const int dim = (int)key_int(l->keys, "dim");

    /* the view must lie inside the storage */
    int64_t last = offset, out_n = 1;
    for (int d = 0; d < ndim; d++) {
        last += (shape[d] - 1) * stride[d];
        if (d != dim && dim != -1)
            out_n *= shape[d];
    }
    assert_true(offset >= 0 && last < in->n);

    int64_t n;
    float *want = parse_f32s(l->vals, &n);
    if (n != out_n)
        fail_msg("%s\n  %lld results in the file, %lld expected from shape and dim", l->line, (long long)n,
                 (long long)out_n);
    float *got = malloc(sizeof(float) * (size_t)out_n); /* exact size: ASan catches overruns */
    assert_non_null(got);
    attn_reduce_sum(in->data + offset, ndim, shape, stride, dim, got);
    expect_bits(l->line, want, got, n);
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

/* One line of SUM_FILE: an input to keep, or a sum to check against the inputs kept so far. */
static void read_sum_line(const ref_line *l, void *ctx)
{
    sum_reader *r = ctx;
    if (strcmp(l->kind, "input") == 0) {
        assert_true(r->ninputs < MAX_INPUTS);
        input_t *in = &r->inputs[r->ninputs++];
        need_key(l->keys, "id", in->id, sizeof in->id);
        in->data = parse_f32s(l->vals, &in->n);
        assert_int_equal(in->n, key_int(l->keys, "n"));
    } else if (strcmp(l->kind, "sum") == 0) {
        check_sum_line(l, r);
    } else {
        fail_msg("%s: unknown kind in line: %s", SUM_FILE, l->line);
    }
}

/* Reads SUM_FILE and checks every case; fills st. */
static void run_sum_file(sum_stats *st)
{
    memset(st, 0, sizeof *st);
    static sum_reader r;
    r.ninputs = 0;
    r.st = st;
    for_each_case(SUM_FILE, NULL, read_sum_line, &r);
    for (int i = 0; i < r.ninputs; i++)
        free(r.inputs[i].data);
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
