/* test_softmax.c — softmax.c and vmath.c against results PyTorch itself computed.
 *
 * The expected values come from tests/data/torch/softmax.txt (made by scripts/gen-torch-reference.sh
 * with Debian's python3-torch 1.13, AVX2 kernels, one thread), never from this C code:
 *   softmax shape=a,b dim=d : <inputs> -> <outputs>   torch.softmax(x, d) (d 0-based), row-major
 *   log_softmax shape=a,b dim=d : <inputs> -> <outputs>
 *   exp n=N : <inputs> -> <outputs>                    torch.exp of a 1-D tensor (log, tanh, sigmoid too;
 *                                                      sigmoid_tail: torch.sigmoid's scalar tail path)
 * Every value is a float32 bit pattern and must match bit for bit (a nan matches any nan). Run from
 * the repository root. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "refdata.h"
#include "tensor.h"
#include "vmath.h"

#define SOFTMAX_FILE REF_DIR "softmax.txt"
#define MAX_CASES 1024
#define MAX_REPORTED 5 /* mismatches printed per test */

typedef struct {
    char kind[32]; /* as long as ref_line's */
    int ndim, dim;
    int64_t shape[ATTN_MAX_DIMS];
    int64_t n;
    float *in, *out;
    char *line; /* the keys, for messages */
} ref_case;

static ref_case cases[MAX_CASES];
static int ncases;

/* Bit-for-bit equality, on every CPU; any nan matches any nan (their payloads are not PyTorch's contract). */
static int same(float want, float got)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    return float_to_bits(want) == float_to_bits(got);
}

/* One line of SOFTMAX_FILE into cases[]. */
static void read_case(const ref_line *l, void *ctx)
{
    const char *arrow = strstr(l->vals, " -> ");
    if (arrow == NULL || ncases == MAX_CASES)
        fail_msg("%s: bad line (or too many): %.80s", SOFTMAX_FILE, l->line);
    ref_case *c = &cases[ncases++];
    c->line = strdup(l->head);
    assert_non_null(c->line);
    snprintf(c->kind, sizeof c->kind, "%s", l->kind);
    char buf[64];
    if (key_str(l->keys, "shape", buf, sizeof buf) != NULL) {
        c->ndim = key_list(l->keys, "shape", c->shape, ATTN_MAX_DIMS);
        c->dim = (int)key_int(l->keys, "dim");
    } else {
        c->ndim = 1;
        c->shape[0] = key_int(l->keys, "n");
        c->dim = 0;
    }
    int64_t numel = 1, nin, nout;
    for (int d = 0; d < c->ndim; d++)
        numel *= c->shape[d];
    c->in = parse_f32s(l->vals, &nin);
    c->out = parse_f32s(arrow + 4, &nout);
    if (nin != numel || nout != numel)
        fail_msg("%s: %lld inputs and %lld outputs, shape says %lld: %s", SOFTMAX_FILE, (long long)nin,
                 (long long)nout, (long long)numel, c->line);
    c->n = numel;
}

static int group_setup(void **state)
{
    (void)state;
    return for_each_case(SOFTMAX_FILE, NULL, read_case, NULL) > 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < ncases; i++) {
        free(cases[i].in);
        free(cases[i].out);
        free(cases[i].line);
    }
    return 0;
}

/* Counts of one test: cases and elements seen and matched. */
typedef struct {
    int cases, cases_ok;
    int64_t elems, elems_ok;
    int reported;
} tally;

static void count(tally *t, const ref_case *c, const float *got)
{
    int ok = 1;
    for (int64_t i = 0; i < c->n; i++) {
        t->elems++;
        if (same(c->out[i], got[i])) {
            t->elems_ok++;
            continue;
        }
        if (ok && t->reported++ < MAX_REPORTED)
            print_message("# %s: element %lld of input 0x%08x: torch 0x%08x (%.9g), attn 0x%08x (%.9g)\n",
                          c->line, (long long)i, float_to_bits(c->in[i]), float_to_bits(c->out[i]),
                          (double)c->out[i], float_to_bits(got[i]), (double)got[i]);
        ok = 0;
    }
    t->cases++;
    t->cases_ok += ok;
}

static void finish(const tally *t, const char *what)
{
    print_message("# %s: %d of %d cases, %lld of %lld elements (%.2f%%) bit for bit\n", what, t->cases_ok,
                  t->cases, (long long)t->elems_ok, (long long)t->elems,
                  t->elems ? 100.0 * (double)t->elems_ok / (double)t->elems : 0.0);
    assert_true(t->cases > 0);
    assert_int_equal(t->cases_ok, t->cases);
}

/* ---- softmax through attn_softmax ---------------------------------------------------------------- */

static attn_tensor *make_tensor(const ref_case *c)
{
    attn_error err;
    attn_tensor *t = attn_empty("test", c->ndim, c->shape, ATTN_FLOAT32, &err);
    assert_non_null(t);
    memcpy(t->storage->data, c->in, sizeof(float) * (size_t)c->n);
    return t;
}

/* Every softmax (log: log_softmax) case over the last dim, or over the other dims. */
static void run_softmax(int log, int other_dims, const char *what)
{
    tally t = {0};
    for (int i = 0; i < ncases; i++) {
        const ref_case *c = &cases[i];
        if (strcmp(c->kind, log ? "log_softmax" : "softmax") != 0)
            continue;
        int last = c->ndim == 0 || c->dim == c->ndim - 1;
        if (last == other_dims)
            continue;
        attn_error err;
        attn_tensor *x = make_tensor(c);
        attn_tensor *y = attn_softmax(x, c->dim, log, &err);
        if (y == NULL)
            fail_msg("%s: attn_softmax failed: %s", c->line, err.msg);
        assert_int_equal(y->ndim, c->ndim);
        float *got = malloc(sizeof(float) * (size_t)c->n);
        assert_non_null(got);
        attn_copy_out(y, got);
        count(&t, c, got);
        free(got);
        attn_free(y);
        attn_free(x);
    }
    finish(&t, what);
}

static void test_softmax_lastdim(void **state)
{
    (void)state;
    run_softmax(0, 0, "softmax, last dim");
}

static void test_softmax_other_dims(void **state)
{
    (void)state;
    run_softmax(0, 1, "softmax, other dims");
}

static void test_log_softmax_lastdim(void **state)
{
    (void)state;
    run_softmax(1, 0, "log_softmax, last dim");
}

static void test_log_softmax_other_dims(void **state)
{
    (void)state;
    run_softmax(1, 1, "log_softmax, other dims");
}

/* A transposed (non-contiguous) view gives what its contiguous copy gives, as PyTorch's
 * input.contiguous() does; the result is a new contiguous tensor of the view's shape. */
static void test_softmax_of_a_view(void **state)
{
    (void)state;
    for (int i = 0; i < ncases; i++) {
        const ref_case *c = &cases[i];
        if (strcmp(c->kind, "softmax") != 0 || c->ndim != 3 || c->shape[2] != 6 || c->dim != 1)
            continue;
        attn_error err;
        attn_tensor *x = make_tensor(c);
        attn_tensor *moved = attn_transpose(x, 1, 2, &err);
        attn_tensor *mc = moved ? attn_contiguous(moved, &err) : NULL;
        attn_tensor *a = attn_softmax(moved, 2, 0, &err), *b = mc ? attn_softmax(mc, 2, 0, &err) : NULL;
        assert_non_null(a);
        assert_non_null(b);
        assert_true(attn_is_contiguous(a));
        for (int64_t k = 0; k < c->n; k++)
            assert_int_equal(float_to_bits(attn_get_flat(a, k)), float_to_bits(attn_get_flat(b, k)));
        attn_free(a);
        attn_free(b);
        attn_free(mc);
        attn_free(moved);
        attn_free(x);
        return;
    }
    fail_msg("no 3-D softmax case of last size 6 in %s", SOFTMAX_FILE);
}

/* Errors and edge shapes: a dim out of range fails with a message; an empty tensor gives an empty one. */
static void test_softmax_edges(void **state)
{
    (void)state;
    attn_error err;
    const int64_t shape[2] = {3, 0};
    attn_tensor *e = attn_empty("test", 2, shape, ATTN_FLOAT32, &err);
    assert_non_null(e);
    attn_tensor *r = attn_softmax(e, 1, 0, &err);
    assert_non_null(r);
    assert_int_equal(attn_numel(r), 0);
    attn_free(r);
    r = attn_softmax(e, 0, 1, &err);
    assert_non_null(r);
    attn_free(r);
    err.msg[0] = '\0';
    assert_null(attn_softmax(e, 2, 0, &err));
    assert_non_null(strstr(err.msg, "softmax: dim 3 is out of range"));
    attn_free(e);
}

/* ---- element-wise ------------------------------------------------------------------------------- */

typedef float (*unary_fn)(float);

/* Every case of kind through fn; with through_ops, also through attn_unary(op, ...). */
static void run_unary(const char *kind, unary_fn fn, int through_ops_too, attn_unop op)
{
    tally direct = {0}, through_ops = {0};
    for (int i = 0; i < ncases; i++) {
        const ref_case *c = &cases[i];
        if (strcmp(c->kind, kind) != 0)
            continue;
        float *got = malloc(sizeof(float) * (size_t)c->n);
        assert_non_null(got);
        for (int64_t k = 0; k < c->n; k++)
            got[k] = fn(c->in[k]);
        count(&direct, c, got);
        if (!through_ops_too) {
            free(got);
            continue;
        }
        /* the same through attn_unary (ops.c's apply_unary) */
        attn_error err;
        attn_tensor *x = make_tensor(c);
        attn_tensor *y = attn_unary(op, x, &err);
        assert_non_null(y);
        attn_copy_out(y, got);
        count(&through_ops, c, got);
        attn_free(y);
        attn_free(x);
        free(got);
    }
    char what[64];
    snprintf(what, sizeof what, "vmath_%s", kind);
    finish(&direct, what);
    if (through_ops_too) {
        snprintf(what, sizeof what, "attn_unary(%s)", kind);
        finish(&through_ops, what);
    }
}

static void test_exp(void **state)
{
    (void)state;
    run_unary("exp", vmath_exp, 1, ATTN_EXP);
}

static void test_log(void **state)
{
    (void)state;
    run_unary("log", vmath_log, 1, ATTN_LOG);
}

static void test_tanh(void **state)
{
    (void)state;
    run_unary("tanh", vmath_tanh, 1, ATTN_TANH);
}

static void test_sigmoid(void **state)
{
    (void)state;
    run_unary("sigmoid", vmath_sigmoid, 1, ATTN_SIGMOID);
}

/* The scalar tail of torch.sigmoid (values that torch computed in tensors of 15, all tail). The data
 * joins those tensors into one case, so only vmath_sigmoid_tail is checked here; attn_unary uses it for
 * the last numel % 16 elements, which the "sigmoid" case (340 = 21 * 16 + 4 values) covers. */
static void test_sigmoid_tail(void **state)
{
    (void)state;
    run_unary("sigmoid_tail", vmath_sigmoid_tail, 0, ATTN_SIGMOID);
}

/* ---- the reductions on hand-made cases ------------------------------------------------------------ */

/* Lanes of 1, 2^-24, ...: the AVX2 order ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)) keeps tiny lanes that
 * an in-order sum would drop, and a partial block adds into its lanes only. */
static void test_reduction_order(void **state)
{
    (void)state;
    const float u = 0x1p-24f; /* half an ulp of 1 */
    float x[9] = {1.0f, u, 0, u, 0, u, 0, u, 0};
    /* in order: 1 + u rounds to 1 four times; lane-wise: (1 + 0) + (0 + 0) + ((u+0) + (u+0))... = 1 + 4u */
    assert_int_equal(float_to_bits(vmath_reduce_sum(x, 8)), float_to_bits(1.0f + 4 * u));
    x[8] = u; /* the tail lands in lane 0: 1 + u -> 1, then + 4u */
    assert_int_equal(float_to_bits(vmath_reduce_sum(x, 9)), float_to_bits(1.0f + 4 * u));
    /* fewer than 8: in order */
    assert_int_equal(float_to_bits(vmath_reduce_sum(x, 7)), float_to_bits(1.0f));
    /* max: nan anywhere wins; -inf rows stay -inf */
    float m[10] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
                   -INFINITY, -INFINITY};
    assert_true(isinf(vmath_reduce_max(m, 10)) && vmath_reduce_max(m, 10) < 0);
    m[9] = NAN;
    assert_true(isnan(vmath_reduce_max(m, 10)));
    m[9] = 3.0f;
    assert_true(vmath_reduce_max(m, 10) == 3.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_softmax_lastdim),
        cmocka_unit_test(test_softmax_other_dims),
        cmocka_unit_test(test_log_softmax_lastdim),
        cmocka_unit_test(test_log_softmax_other_dims),
        cmocka_unit_test(test_softmax_of_a_view),
        cmocka_unit_test(test_softmax_edges),
        cmocka_unit_test(test_exp),
        cmocka_unit_test(test_log),
        cmocka_unit_test(test_tanh),
        cmocka_unit_test(test_sigmoid),
        cmocka_unit_test(test_sigmoid_tail),
        cmocka_unit_test(test_reduction_order),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
