/* test_attention.c — the attention stages of core/attention.c on small cases worked out by hand.
 *
 * Every expected value below was computed on paper (2x2 products, tanh(1), e/(1+e), ...), never by
 * this code; where a result is not exactly representable the tolerance is stated (1e-6, a few float32
 * ulps of numbers near 1). The dropout case compares with the book's printed dropout of ones(6, 6)
 * (ch. 3 In [43], torch.manual_seed(123), PyTorch's MKL Bernoulli flavour). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "attention.h"
#include "ops.h"
#include "rng.h"
#include "tensor.h"

#define TOL 1e-6f

/* ---- helpers ------------------------------------------------------------------------------- */

/* A contiguous float32 tensor of the given shape holding data (row-major). */
static attn_tensor *make(int ndim, const int64_t *shape, const float *data)
{
    attn_error err = {{0}};
    attn_tensor *t = attn_empty("test", ndim, shape, ATTN_FLOAT32, &err);
    if (!t)
        fail_msg("attn_empty: %s", err.msg);
    memcpy(t->storage->data, data, sizeof(float) * (size_t)attn_numel(t));
    return t;
}

#define T1(n, ...) make(1, (int64_t[]){n}, (float[]){__VA_ARGS__})
#define T2(a, b, ...) make(2, (int64_t[]){a, b}, (float[]){__VA_ARGS__})
#define T3(a, b, c, ...) make(3, (int64_t[]){a, b, c}, (float[]){__VA_ARGS__})

static attn_tensor *ok(attn_tensor *t, const attn_error *err)
{
    if (!t)
        fail_msg("unexpected error: %s", err->msg);
    return t;
}

/* Checks t's shape and its elements (row-major) within tol (0: exact; nan matches nan), frees t. */
static void expect(attn_tensor *t, int ndim, const int64_t *shape, const float *want, float tol)
{
    assert_int_equal(t->ndim, ndim);
    for (int d = 0; d < ndim; d++)
        assert_int_equal(t->shape[d], shape[d]);
    for (int64_t i = 0; i < attn_numel(t); i++) {
        float got = attn_get_flat(t, i);
        if (isnan(want[i]) ? !isnan(got) : !(fabsf(got - want[i]) <= tol || got == want[i]))
            fail_msg("element %lld: got %.9g, want %.9g", (long long)i, (double)got, (double)want[i]);
    }
    attn_free(t);
}

/* expect(t, S(2, 2), V(1, 2, 3, 4), tol): a shape and the values, as compound literals */
#define S(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}
#define V(...) (float[]){__VA_ARGS__}

/* Checks that t is NULL and err names the function and contains part. */
static void expect_error(attn_tensor *t, const attn_error *err, const char *fn, const char *part)
{
    if (t)
        fail_msg("expected an error containing \"%s\", got a result", part);
    if (strncmp(err->msg, fn, strlen(fn)) != 0 || !strstr(err->msg, part))
        fail_msg("error \"%s\" should start with \"%s\" and contain \"%s\"", err->msg, fn, part);
}

/* ---- scores, scale ------------------------------------------------------------------------- */

static void test_scores_2x2(void **state)
{
    (void)state;
    attn_error err;
    attn_tensor *q = T2(2, 2, 1, 2, 3, 4), *k = T2(2, 2, 5, 6, 7, 8);
    /* [1 2; 3 4]·[5 6; 7 8]ᵀ = [1*5+2*6, 1*7+2*8; 3*5+4*6, 3*7+4*8] */
    expect(ok(attn_scores(q, k, &err), &err), S(2, 2), V(17, 23, 39, 53), 0);
    /* one query against three keys: [n=1, d=2] x [m=3, d=2] -> [1, 3] */
    attn_tensor *q1 = T2(1, 2, 1, -1), *k3 = T2(3, 2, 1, 0, 0, 1, 2, 2);
    expect(ok(attn_scores(q1, k3, &err), &err), S(1, 3), V(1, -1, 0), 0);
    attn_free(q);
    attn_free(k);
    attn_free(q1);
    attn_free(k3);
}

static void test_scores_batched_and_broadcast(void **state)
{
    (void)state;
    attn_error err;
    /* two batches: identity keys give q back, doubled keys give 2q */
    attn_tensor *q = T3(2, 1, 2, 1, 2, 3, 4), *k = T3(2, 2, 2, 1, 0, 0, 1, 2, 0, 0, 2);
    expect(ok(attn_scores(q, k, &err), &err), S(2, 1, 2), V(1, 2, 6, 8), 0);
    /* k without a batch dim broadcasts over q's batch */
    attn_tensor *k2 = T2(2, 2, 1, 1, 1, -1);
    expect(ok(attn_scores(q, k2, &err), &err), S(2, 1, 2), V(3, -1, 7, -1), 0);
    attn_free(q);
    attn_free(k);
    attn_free(k2);
}

static void test_scores_errors(void **state)
{
    (void)state;
    attn_error err;
    attn_tensor *q = T2(2, 3, 0, 0, 0, 0, 0, 0), *k = T2(2, 2, 0, 0, 0, 0);
    expect_error(attn_scores(q, k, &err), &err, "attention.scores", "q [2, 3] and k [2, 2]");
    assert_non_null(strstr(err.msg, "3 ≠ 2"));
    attn_tensor *kb = T3(3, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    attn_tensor *qb = T3(2, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect_error(attn_scores(qb, kb, &err), &err, "attention.scores", "batch");
    attn_free(q);
    attn_free(k);
    attn_free(qb);
    attn_free(kb);
}

static void test_scale(void **state)
{
    (void)state;
    attn_error err;
    attn_tensor *s = T2(1, 3, 2, 4, -6);
    expect(ok(attn_scale(s, 4, &err), &err), S(1, 3), V(1, 2, -3), 0); /* / sqrt(4) */
    expect(ok(attn_scale(s, 1, &err), &err), S(1, 3), V(2, 4, -6), 0);
    expect_error(attn_scale(s, 0, &err), &err, "attention.scale", "positive");
    expect_error(attn_scale(s, -4, &err), &err, "attention.scale", "positive");
    expect_error(attn_scale(s, NAN, &err), &err, "attention.scale", "positive");
    attn_free(s);
}

/* ---- masks --------------------------------------------------------------------------------- */

static void test_causal_mask(void **state)
{
    (void)state;
    attn_error err;
    attn_tensor *m = ok(attn_causal_mask(3, 3, &err), &err);
    assert_int_equal(m->dtype, ATTN_BOOL);
    expect(m, S(3, 3), V(0, 1, 1, 0, 0, 1, 0, 0, 0), 0);
    expect(ok(attn_causal_mask(2, 3, &err), &err), S(2, 3), V(0, 1, 1, 0, 0, 1), 0);
    expect(ok(attn_causal_mask(3, 1, &err), &err), S(3, 1), V(0, 0, 0), 0);
    expect_error(attn_causal_mask(-1, 2, &err), &err, "attention.causal_mask", "non-negative");
}

static void test_valid_len_mask_1d(void **state)
{
    (void)state;
    attn_error err;
    /* d2l's toy: valid lengths [2, 3] over 4 key positions; hidden = position beyond the length */
    attn_tensor *lens = T1(2, 2, 3);
    attn_tensor *m = ok(attn_valid_len_mask(4, lens, &err), &err);
    assert_int_equal(m->dtype, ATTN_BOOL);
    expect(m, S(2, 1, 4), V(0, 0, 1, 1, 0, 0, 0, 1), 0);
    attn_tensor *edge = T1(2, 0, 4); /* 0 hides everything, n hides nothing */
    expect(ok(attn_valid_len_mask(4, edge, &err), &err), S(2, 1, 4), V(1, 1, 1, 1, 0, 0, 0, 0), 0);
    attn_free(lens);
    attn_free(edge);
}

static void test_valid_len_mask_2d(void **state)
{
    (void)state;
    attn_error err;
    /* per query: batch 1 rows see 1 and 3 keys, batch 2 rows see 2 and 2 */
    attn_tensor *lens = T2(2, 2, 1, 3, 2, 2);
    expect(ok(attn_valid_len_mask(3, lens, &err), &err), S(2, 2, 3), V(0, 1, 1, 0, 0, 0,
           0, 0, 1, 0, 0, 1), 0);
    attn_free(lens);
}

static void test_valid_len_mask_errors(void **state)
{
    (void)state;
    attn_error err;
    attn_tensor *too_long = T1(2, 2, 5), *negative = T1(1, -1), *fraction = T1(1, 1.5f);
    attn_tensor *cube = T3(1, 1, 1, 1);
    expect_error(attn_valid_len_mask(4, too_long, &err), &err, "attention.valid_len_mask", "valid length 5");
    assert_non_null(strstr(err.msg, "sequence length 4"));
    expect_error(attn_valid_len_mask(4, negative, &err), &err, "attention.valid_len_mask", "valid length -1");
    expect_error(attn_valid_len_mask(4, fraction, &err), &err, "attention.valid_len_mask", "whole number");
    expect_error(attn_valid_len_mask(4, cube, &err), &err, "attention.valid_len_mask", "[1, 1, 1]");
    attn_free(too_long);
    attn_free(negative);
    attn_free(fraction);
    attn_free(cube);
}

static void test_mask(void **state)
{
    (void)state;
    attn_error err;
    attn_tensor *s = T2(2, 2, 1, 2, 3, 4), *causal = ok(attn_causal_mask(2, 2, &err), &err);
    expect(ok(attn_mask(s, causal, -INFINITY, &err), &err), S(2, 2), V(1, -INFINITY, 3, 4), 0);
    expect(ok(attn_mask(s, causal, -1e9f, &err), &err), S(2, 2), V(1, -1e9f, 3, 4), 0);
    /* a [2, 2] mask broadcasts over a batch of scores [2, 2, 2] */
    attn_tensor *sb = T3(2, 2, 2, 1, 2, 3, 4, 5, 6, 7, 8);
    expect(ok(attn_mask(sb, causal, 0, &err), &err), S(2, 2, 2), V(1, 0, 3, 4, 5, 0, 7, 8), 0);
    /* a d2l valid-length mask [b, 1, m] over scores [b, n, m] */
    attn_tensor *lens = T1(2, 1, 2), *vl = ok(attn_valid_len_mask(2, lens, &err), &err);
    expect(ok(attn_mask(sb, vl, -1e6f, &err), &err), S(2, 2, 2), V(1, -1e6f, 3, -1e6f, 5, 6, 7, 8), 0);
    attn_free(s);
    attn_free(causal);
    attn_free(sb);
    attn_free(lens);
    attn_free(vl);
}

static void test_mask_errors(void **state)
{
    (void)state;
    attn_error err;
    attn_tensor *s = T2(2, 2, 1, 2, 3, 4), *wrong = ok(attn_causal_mask(3, 3, &err), &err);
    expect_error(attn_mask(s, wrong, -INFINITY, &err), &err, "attention.mask", "mask [3, 3]");
    assert_non_null(strstr(err.msg, "scores [2, 2]"));
    attn_tensor *f = T2(2, 2, 0, 1, 0, 0); /* float, not bool */
    expect_error(attn_mask(s, f, -INFINITY, &err), &err, "attention.mask", "bool");
    attn_free(s);
    attn_free(wrong);
    attn_free(f);
}

/* ---- softmax over masked scores (attn_softmax, dim = last) --------------------------------- */

static void test_softmax_rows(void **state)
{
    (void)state;
    attn_error err;
    /* [0, 0] -> halves; [0, ln 3] -> 1/4, 3/4; [1, -inf] -> 1, 0; [3, 4] -> 1/(1+e), e/(1+e) */
    attn_tensor *s = T2(4, 2, 0, 0, 0, logf(3), 1, -INFINITY, 3, 4);
    expect(ok(attn_softmax(s, 1, 0, &err), &err), S(4, 2), V(0.5f, 0.5f, 0.25f, 0.75f, 1, 0,
           0.268941421f, 0.731058579f), TOL);
    attn_free(s);
}

static void test_softmax_nan_and_all_masked(void **state)
{
    (void)state;
    attn_error err;
    /* row 1: a NaN score makes the whole row NaN (as PyTorch); row 2: all -inf gives NaN (as PyTorch);
     * row 3: all filled with -1e9 instead gives a uniform row; row 4 is untouched by the others */
    attn_tensor *s = T2(4, 3, 1, NAN, 2, -INFINITY, -INFINITY, -INFINITY, -1e9f, -1e9f, -1e9f, 0, 0, 0);
    float third = 1.0f / 3.0f;
    expect(ok(attn_softmax(s, 1, 0, &err), &err), S(4, 3), V(NAN, NAN, NAN, NAN, NAN, NAN, third, third,
           third, third, third, third), TOL);
    attn_free(s);
}

/* ---- weighted sum, dropout ----------------------------------------------------------------- */

static void test_weighted_sum(void **state)
{
    (void)state;
    attn_error err;
    attn_tensor *w = T2(2, 2, 0.5f, 0.5f, 1, 0), *v = T2(2, 2, 2, 4, 6, 8);
    expect(ok(attn_weighted_sum(w, v, &err), &err), S(2, 2), V(4, 6, 2, 4), 0);
    attn_tensor *v3 = T2(3, 2, 0, 0, 0, 0, 0, 0);
    expect_error(attn_weighted_sum(w, v3, &err), &err, "attention.weighted_sum", "over 2 keys");
    assert_non_null(strstr(err.msg, "[3, 2] have 3 rows"));
    attn_free(w);
    attn_free(v);
    attn_free(v3);
}

static void test_dropout_book(void **state)
{
    (void)state;
    attn_error err;
    int64_t shape[2] = {6, 6};
    attn_tensor *ones = ok(attn_full("test", 2, shape, 1, &err), &err);
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_MKL);
    attn_manual_seed(123);
    /* ch. 3 In [43]: torch.manual_seed(123); nn.Dropout(0.5)(torch.ones(6, 6)) */
    expect(ok(attn_dropout("attention.dropout", ones, 0.5, &err), &err), S(6, 6), V(2, 2, 2, 2, 2, 2,
           0, 2, 0, 0, 0, 0,
           0, 0, 2, 0, 2, 0,
           2, 2, 0, 0, 0, 2,
           2, 0, 0, 0, 0, 2,
           0, 2, 0, 0, 0, 0), 0);
    /* p = 0 is the input itself and draws nothing; p = 1 is all zeros */
    attn_tensor *same = ok(attn_dropout("attention.dropout", ones, 0, &err), &err);
    assert_ptr_equal(same->storage, ones->storage);
    attn_free(same);
    expect(ok(attn_dropout("attention.dropout", ones, 1, &err), &err), S(6, 6), V(0, 0, 0, 0, 0, 0, 0, 0, 0,
           0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0);
    expect_error(attn_dropout("attention.dropout", ones, 1.5, &err), &err, "attention.dropout", "between 0 and 1");
    attn_free(ones);
}

/* ---- heads --------------------------------------------------------------------------------- */

static void test_split_heads(void **state)
{
    (void)state;
    attn_error err;
    /* x [1, 2, 4] = [[0 1 2 3], [4 5 6 7]] into 2 heads of 2: head 1 is columns 0-1, head 2 columns 2-3 */
    attn_tensor *x = T3(1, 2, 4, 0, 1, 2, 3, 4, 5, 6, 7);
    attn_tensor *h = ok(attn_split_heads(x, 2, &err), &err);
    assert_ptr_equal(h->storage, x->storage); /* a view, as the book's view + transpose */
    /* the book's  x.view(1, 2, 2, 2).transpose(1, 2)  built by hand: same shape, strides, offset */
    int64_t vshape[4] = {1, 2, 2, 2};
    attn_tensor *v = ok(attn_view("test", x, 4, vshape, &err), &err);
    attn_tensor *book = ok(attn_transpose(v, 1, 2, &err), &err);
    assert_memory_equal(h->shape, book->shape, sizeof(int64_t) * 4);
    assert_memory_equal(h->stride, book->stride, sizeof(int64_t) * 4);
    assert_int_equal(h->offset, book->offset);
    attn_free(v);
    attn_free(book);
    attn_tensor *merged = ok(attn_merge_heads(h, &err), &err);
    expect(h, S(1, 2, 2, 2), V(0, 1, 4, 5, 2, 3, 6, 7), 0);
    expect(merged, S(1, 2, 4), V(0, 1, 2, 3, 4, 5, 6, 7), 0); /* the round trip gives x back */
    attn_free(x);
}

static void test_merge_heads(void **state)
{
    (void)state;
    attn_error err;
    /* [h=2, n=2, dh=1]: head 1 = [a; b], head 2 = [c; d] -> rows [a c], [b d] */
    attn_tensor *x = T3(2, 2, 1, 1, 2, 3, 4);
    attn_tensor *m = ok(attn_merge_heads(x, &err), &err);
    assert_true(attn_is_contiguous(m));
    expect(m, S(2, 2), V(1, 3, 2, 4), 0);
    attn_free(x);
}

static void test_heads_errors(void **state)
{
    (void)state;
    attn_error err;
    attn_tensor *x = T3(1, 2, 3, 0, 1, 2, 3, 4, 5), *v = T1(3, 0, 1, 2);
    expect_error(attn_split_heads(x, 2, &err), &err, "attention.split_heads", "d = 3");
    assert_non_null(strstr(err.msg, "not divisible by 2 heads"));
    expect_error(attn_split_heads(x, 0, &err), &err, "attention.split_heads", "at least 1");
    expect_error(attn_split_heads(v, 1, &err), &err, "attention.split_heads", "[3]");
    expect_error(attn_merge_heads(v, &err), &err, "attention.merge_heads", "at least 3-D");
    attn_free(x);
    attn_free(v);
}

/* ---- general, additive --------------------------------------------------------------------- */

static void test_general(void **state)
{
    (void)state;
    attn_error err;
    /* s·W = [1 0]·[1 2; 3 4] = [1 2]; then ·hᵀ with h = [1 1; 0 1]: [1+2, 0+2] */
    attn_tensor *s = T2(1, 2, 1, 0), *W = T2(2, 2, 1, 2, 3, 4), *h = T2(2, 2, 1, 1, 0, 1);
    expect(ok(attn_general(s, W, h, &err), &err), S(1, 2), V(3, 2), 0);
    attn_tensor *W3 = T2(3, 2, 0, 0, 0, 0, 0, 0);
    expect_error(attn_general(s, W3, h, &err), &err, "attention.general", "W [3, 2]");
    attn_free(s);
    attn_free(W);
    attn_free(h);
    attn_free(W3);
}

static void test_additive(void **state)
{
    (void)state;
    attn_error err;
    /* u = 2 hidden units: W_q copies q into unit 1, W_k copies k into unit 2, v = [1, -1]:
     * score(i, j) = tanh(q_i) - tanh(k_j). q = [1], keys [0], [1] -> [tanh 1, 0] */
    attn_tensor *q = T3(1, 1, 1, 1), *k = T3(1, 2, 1, 0, 1);
    attn_tensor *Wq = T2(2, 1, 1, 0), *Wk = T2(2, 1, 0, 1), *v = T1(2, 1, -1);
    expect(ok(attn_additive(q, k, Wq, Wk, v, &err), &err), S(1, 1, 2), V(0.761594156f, 0), TOL);
    attn_tensor *v_row = T2(1, 2, 1, -1); /* nn.Linear(u, 1).weight layout */
    expect(ok(attn_additive(q, k, Wq, Wk, v_row, &err), &err), S(1, 1, 2), V(0.761594156f, 0), TOL);
    attn_tensor *v3 = T1(3, 1, 1, 1);
    expect_error(attn_additive(q, k, Wq, Wk, v3, &err), &err, "attention.additive", "v [3]");
    expect_error(attn_additive(q, k, Wk, Wq, Wq, &err), &err, "attention.additive", "[2, 1]");
    attn_free(q);
    attn_free(k);
    attn_free(Wq);
    attn_free(Wk);
    attn_free(v);
    attn_free(v_row);
    attn_free(v3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores_2x2),
        cmocka_unit_test(test_scores_batched_and_broadcast),
        cmocka_unit_test(test_scores_errors),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_causal_mask),
        cmocka_unit_test(test_valid_len_mask_1d),
        cmocka_unit_test(test_valid_len_mask_2d),
        cmocka_unit_test(test_valid_len_mask_errors),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_mask_errors),
        cmocka_unit_test(test_softmax_rows),
        cmocka_unit_test(test_softmax_nan_and_all_masked),
        cmocka_unit_test(test_weighted_sum),
        cmocka_unit_test(test_dropout_book),
        cmocka_unit_test(test_split_heads),
        cmocka_unit_test(test_merge_heads),
        cmocka_unit_test(test_heads_errors),
        cmocka_unit_test(test_general),
        cmocka_unit_test(test_additive),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
