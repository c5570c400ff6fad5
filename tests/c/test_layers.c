/* test_layers.c — layers.c and activation.c against results PyTorch itself computed.
 *
 * The expected values come from tests/data/torch/layers.txt (made by scripts/gen-torch-reference.sh with
 * Debian's python3-torch 1.13: AVX2 kernels, oneDNN for gelu, one thread), never from this C code:
 *   layer_norm shape=S nnorm=K affine=1 eps=E : X | W | B -> Y   F.layer_norm(x, S[-K:], w, b, eps)
 *   layer_norm shape=S nnorm=K affine=0 eps=E : X -> Y
 *   act fn=F layout=L n=N : X -> Y      F(x) for a contiguous 1-D x, for N one-element tensors (single),
 *                                       or for the transpose of the [2, N/2] tensor X (transposed)
 * Every value must match bit for bit (a nan matches any nan), on every CPU: SLEEF's functions have their
 * FMA build's bits everywhere (sleefmath.h), and sin and cos group by 8 with or without AVX2. Run from the
 * repository root. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"
#include "refdata.h"
#include "tensor.h"

#define LAYERS_FILE REF_DIR "layers.txt"
#define MAX_REPORTED 5

static int same(float want, float got)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    return float_to_bits(want) == float_to_bits(got);
}

typedef struct {
    const char *kind; /* layer_norm, act */
    const char *fn;   /* for act: the function; NULL for any */
    int cases, cases_ok;
    int64_t elems, elems_ok;
    int reported;
} tally;

static void count(tally *t, const char *line, const float *in, const float *want, const float *got, int64_t n)
{
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        t->elems++;
        if (same(want[i], got[i])) {
            t->elems_ok++;
            continue;
        }
        if (ok && t->reported++ < MAX_REPORTED)
            print_message("# %.60s...: element %lld (input 0x%08x): torch 0x%08x (%.9g), attn 0x%08x (%.9g)\n", line,
                          (long long)i, in ? float_to_bits(in[i]) : 0, float_to_bits(want[i]), (double)want[i],
                          float_to_bits(got[i]), (double)got[i]);
        ok = 0;
    }
    t->cases++;
    t->cases_ok += ok;
}

static void finish(const tally *t, const char *what)
{
    print_message("# %s: %d of %d cases, %lld of %lld elements bit for bit\n", what, t->cases_ok, t->cases,
                  (long long)t->elems_ok, (long long)t->elems);
    assert_true(t->cases > 0);
    assert_int_equal(t->cases_ok, t->cases);
}

static attn_tensor *make(int ndim, const int64_t *shape, const float *values)
{
    attn_error err;
    attn_tensor *t = attn_empty("test", ndim, shape, ATTN_FLOAT32, &err);
    assert_non_null(t);
    memcpy(t->storage->data, values, sizeof(float) * (size_t)attn_numel(t));
    return t;
}

static float *result(attn_tensor *y, int64_t n)
{
    float *got = malloc(sizeof(float) * (size_t)(n ? n : 1));
    assert_non_null(got);
    assert_int_equal(attn_numel(y), n);
    attn_copy_out(y, got);
    return got;
}

/* ---- layer_norm ---------------------------------------------------------------------------------- */

/* The parts "X | W | B -> Y" or "X -> Y" of a line; returns the number of inputs read (1 or 3). */
static int split_values(const char *vals, float **part, int64_t *len)
{
    const char *arrow = strstr(vals, " -> ");
    if (arrow == NULL)
        fail_msg("no \" -> \" in %.80s", vals);
    int k = 0;
    for (const char *p = vals; p && p < arrow; k++) {
        part[k] = parse_f32s(p, &len[k]);
        p = strstr(p, " | ");
        p = p && p < arrow ? p + 3 : NULL;
    }
    part[k] = parse_f32s(arrow + 4, &len[k]);
    return k;
}

static void one_layer_norm(const ref_line *l, void *ctx)
{
    tally *t = ctx;
    int64_t shape[ATTN_MAX_DIMS];
    int ndim = key_list(l->keys, "shape", shape, ATTN_MAX_DIMS);
    int nnorm = (int)key_int(l->keys, "nnorm");
    float *part[4];
    int64_t len[4];
    int inputs = split_values(l->vals, part, len);
    assert_int_equal(inputs, key_int(l->keys, "affine") ? 3 : 1);
    attn_tensor *x = make(ndim, shape, part[0]);
    attn_tensor *w = inputs == 3 ? make(nnorm, shape + ndim - nnorm, part[1]) : NULL;
    attn_tensor *b = inputs == 3 ? make(nnorm, shape + ndim - nnorm, part[2]) : NULL;
    attn_error err;
    attn_tensor *y = attn_layer_norm(x, nnorm, w, b, key_double(l->keys, "eps"), &err);
    if (y == NULL)
        fail_msg("%s: %s", l->head, err.msg);
    float *got = result(y, len[0]);
    assert_int_equal(len[inputs], len[0]);
    count(t, l->head, part[0], part[inputs], got, len[0]);
    free(got);
    for (int i = 0; i <= inputs; i++)
        free(part[i]);
    attn_free(x), attn_free(w), attn_free(b), attn_free(y);
}

static void test_layer_norm(void **state)
{
    (void)state;
    tally t = {.kind = "layer_norm"};
    for_each_case(LAYERS_FILE, "layer_norm", one_layer_norm, &t);
    finish(&t, "layer_norm");
}

/* A transposed input: the same numbers, the result computed in memory order. */
static void test_layer_norm_of_a_view(void **state)
{
    (void)state;
    float v[12] = {1, 5, -2, 0.5f, 3, 3, 7, -1, 0, 2, 2, 8};
    int64_t shape[2] = {3, 4}, tshape[2] = {4, 3};
    attn_tensor *x = make(2, shape, v);
    attn_error err;
    attn_tensor *xt = attn_transpose(x, 0, 1, &err);
    attn_tensor *c = attn_contiguous(xt, &err);
    attn_tensor *y1 = attn_layer_norm(xt, 1, NULL, NULL, 1e-5, &err);
    attn_tensor *y2 = attn_layer_norm(c, 1, NULL, NULL, 1e-5, &err);
    assert_non_null(y1);
    assert_non_null(y2);
    assert_int_equal(y1->ndim, 2);
    assert_memory_equal(y1->shape, tshape, sizeof tshape);
    float a[12], b[12];
    attn_copy_out(y1, a);
    attn_copy_out(y2, b);
    assert_memory_equal(a, b, sizeof a);
    attn_free(x), attn_free(xt), attn_free(c), attn_free(y1), attn_free(y2);
}

static void test_layer_norm_errors(void **state)
{
    (void)state;
    float v[6] = {1, 2, 3, 4, 5, 6};
    int64_t shape[2] = {2, 3}, wshape[1] = {4};
    attn_tensor *x = make(2, shape, v), *w = make(1, wshape, v);
    attn_error err;
    assert_null(attn_layer_norm(x, 1, w, NULL, 1e-5, &err));
    assert_string_equal(err.msg, "layer_norm: weight has shape [4] but normalized_shape is [3]");
    assert_null(attn_layer_norm(x, 3, NULL, NULL, 1e-5, &err));
    assert_non_null(strstr(err.msg, "layer_norm: normalized_shape must name 1 to 2 trailing dims"));
    assert_null(attn_layer_norm(x, 1, NULL, NULL, -1.0, &err));
    assert_string_equal(err.msg, "layer_norm: eps must be a finite number >= 0, got -1");
    attn_free(x), attn_free(w);
}

/* ---- activations ----------------------------------------------------------------------------------- */

static attn_activation activation_named(const char *name)
{
    static const struct {
        const char *name;
        attn_activation f;
    } table[] = {{"gelu", ATTN_ACT_GELU}, {"gelu_tanh", ATTN_ACT_GELU_TANH}, {"silu", ATTN_ACT_SILU},
                 {"erf", ATTN_ACT_ERF},   {"sin", ATTN_ACT_SIN},             {"cos", ATTN_ACT_COS}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0)
            return table[i].f;
    fail_msg("unknown activation %s", name);
    return ATTN_ACT_GELU;
}

static void one_activation(const ref_line *l, void *ctx)
{
    tally *t = ctx;
    char fn[32], layout[32];
    need_key(l->keys, "fn", fn, sizeof fn);
    if (t->fn && strcmp(fn, t->fn) != 0)
        return;
    need_key(l->keys, "layout", layout, sizeof layout);
    attn_activation f = activation_named(fn);
    float *part[2];
    int64_t len[2];
    assert_int_equal(split_values(l->vals, part, len), 1);
    int64_t n = len[0];
    assert_int_equal(len[1], n);
    float *got = malloc(sizeof(float) * (size_t)n);
    assert_non_null(got);
    attn_error err;
    if (strcmp(layout, "single") == 0) {
        int64_t one = 1;
        for (int64_t i = 0; i < n; i++) {
            attn_tensor *x = make(1, &one, part[0] + i), *y = attn_activate(f, x, &err);
            assert_non_null(y);
            got[i] = y->storage->data[0];
            attn_free(x), attn_free(y);
        }
    } else {
        int transposed = strcmp(layout, "transposed") == 0;
        int64_t shape[2] = {transposed ? 2 : n, n / 2};
        attn_tensor *x = make(transposed ? 2 : 1, shape, part[0]);
        attn_tensor *v = transposed ? attn_transpose(x, 0, 1, &err) : x;
        attn_tensor *y = attn_activate(f, v, &err);
        if (y == NULL)
            fail_msg("%s: %s", l->head, err.msg);
        attn_copy_out(y, got);
        if (v != x)
            attn_free(v);
        attn_free(x), attn_free(y);
    }
    /* the transposed input's numbers in the result's order, for messages */
    count(t, l->head, strcmp(layout, "transposed") == 0 ? NULL : part[0], part[1], got, n);
    free(got);
    free(part[0]), free(part[1]);
}

static void run_activation(const char *fn)
{
    tally t = {.kind = "act", .fn = fn};
    for_each_case(LAYERS_FILE, "act", one_activation, &t);
    finish(&t, fn);
}

static void test_gelu(void **state) { (void)state; run_activation("gelu"); }
static void test_gelu_tanh(void **state) { (void)state; run_activation("gelu_tanh"); }
static void test_silu(void **state) { (void)state; run_activation("silu"); }
static void test_erf(void **state) { (void)state; run_activation("erf"); }
static void test_sin(void **state) { (void)state; run_activation("sin"); }
static void test_cos(void **state) { (void)state; run_activation("cos"); }

/* attn_row_moments on hand-made rows whose answers are exact in float. */
static void test_row_moments(void **state)
{
    (void)state;
    float mean, var;
    float four[4] = {1, 2, 3, 4};
    attn_row_moments(four, 4, &mean, &var);
    assert_true(mean == 2.5f && var == 1.25f);
    float same_value[37];
    for (int i = 0; i < 37; i++)
        same_value[i] = 0.75f;
    attn_row_moments(same_value, 37, &mean, &var);
    assert_true(mean == 0.75f && var == 0.0f);
}

/* ---- embedding --------------------------------------------------------------------------------------- */

/* An int64 tensor of the given shape holding v. */
static attn_tensor *make_ids(int ndim, const int64_t *shape, const int64_t *v)
{
    attn_error err;
    attn_tensor *t = attn_empty("test", ndim, shape, ATTN_INT64, &err);
    assert_non_null(t);
    memcpy(t->storage->i64, v, sizeof(int64_t) * (size_t)attn_numel(t));
    return t;
}

static void test_embedding(void **state)
{
    (void)state;
    float w[6] = {1, 2, 3, 4, 5, 6}; /* 3 rows of 2 */
    int64_t wshape[2] = {3, 2}, ishape[2] = {2, 2};
    int64_t ids[4] = {3, 1, 2, 3};
    attn_tensor *weight = make(2, wshape, w), *indices = make_ids(2, ishape, ids);
    attn_error err;
    attn_tensor *y = attn_embedding(weight, indices, 1, &err);
    assert_non_null(y);
    assert_int_equal(y->ndim, 3);
    float got[8], want[8] = {5, 6, 1, 2, 3, 4, 5, 6};
    attn_copy_out(y, got);
    assert_memory_equal(got, want, sizeof got);
    attn_free(y);
    ids[2] = 4;
    attn_free(indices);
    indices = make_ids(2, ishape, ids);
    assert_null(attn_embedding(weight, indices, 1, &err));
    assert_string_equal(err.msg, "embedding: index 4 is out of range for an embedding of 3 rows (ids 1 to 3)");
    ids[2] = INT64_MIN; /* id - first_id must not overflow */
    attn_free(indices);
    indices = make_ids(2, ishape, ids);
    assert_null(attn_embedding(weight, indices, 1, &err));
    assert_non_null(strstr(err.msg, "index -9223372036854775808 is out of range for an embedding of 3 rows"));
    float fids[4] = {3, 1, 2, 3}; /* float ids are refused, as PyTorch refuses them */
    attn_free(indices);
    indices = make(2, ishape, fids);
    assert_null(attn_embedding(weight, indices, 1, &err));
    assert_string_equal(err.msg, "embedding: ids must be an int64 tensor, got torch.float32 (PyTorch refuses them "
                                 "too); convert with :long()");
    attn_free(weight), attn_free(indices);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layer_norm),     cmocka_unit_test(test_layer_norm_of_a_view),
        cmocka_unit_test(test_layer_norm_errors), cmocka_unit_test(test_row_moments),
        cmocka_unit_test(test_gelu),           cmocka_unit_test(test_gelu_tanh),
        cmocka_unit_test(test_silu),           cmocka_unit_test(test_erf),
        cmocka_unit_test(test_sin),            cmocka_unit_test(test_cos),
        cmocka_unit_test(test_embedding),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
