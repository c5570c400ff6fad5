/* test_interrupt.c — Ctrl-C stops every loop of the core that may run long: with the flag
 * attn_interrupt_requested raised (as the SIGINT handler raises it), each operation below must stop at
 * its first poll and fail with the message "interrupted", leaving nothing allocated (ASan's leak check
 * sees the rest). The terminal test tests/robust/test_ctrl_c.sh sends a real Ctrl-C. No numbers are
 * compared here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "attention.h"
#include "format.h"
#include "layers.h"
#include "ops.h"
#include "rng.h"

static attn_tensor *filled(int ndim, const int64_t *shape, float v)
{
    attn_error err;
    attn_tensor *t = attn_full("test", ndim, shape, v, &err);
    assert_non_null(t);
    return t;
}

/* Calls op with the flag raised and checks that it failed with "interrupted". */
#define STOPS(what, call)                                                                                   \
    do {                                                                                                    \
        attn_error err = {{0}};                                                                             \
        attn_interrupt_requested = 1;                                                                       \
        attn_tensor *r = (call);                                                                            \
        attn_interrupt_requested = 0;                                                                       \
        if (r)                                                                                              \
            fail_msg("%s was not interrupted", what);                                                       \
        assert_string_equal(err.msg, "interrupted");                                                        \
    } while (0)

static void test_ops_stop(void **state)
{
    (void)state;
    int64_t s2[2] = {64, 64}, one = 1, big[1] = {INT64_C(1) << 40};
    attn_tensor *x = filled(2, s2, 0.5f), *o = filled(1, &one, 1.0f);
    attn_tensor *huge = attn_expand(o, 1, big, NULL); /* the robustness examples' torch.ones(1):expand(2^40) */
    attn_tensor *xt = attn_transpose(x, 0, 1, NULL);
    attn_tensor *mask = attn_causal_mask(64, 64, NULL);
    assert_non_null(huge);
    STOPS("sum of 2^40 elements", attn_sum(huge, -1, 0, &err));
    STOPS("sum over a dim", attn_sum(x, 1, 0, &err));
    STOPS("mean", attn_mean(huge, -1, 0, &err));
    STOPS("max", attn_max("max", x, 1, 0, 0, NULL, &err));
    STOPS("add", attn_binary("add", ATTN_ADD, x, xt, &err));
    STOPS("add a scalar", attn_binary_scalar("add", ATTN_ADD, x, attn_float(1.0), 0, &err));
    STOPS("exp", attn_unary(ATTN_EXP, x, &err));
    STOPS("pow", attn_pow_scalar(xt, attn_float(2.0), &err));
    STOPS("where", attn_where(mask, x, xt, &err));
    STOPS("tril", attn_tril("tril", x, 0, 0, &err));
    STOPS("masked_fill", attn_masked_fill(x, mask, attn_float(0.0), &err));
    STOPS("softmax", attn_softmax(x, 1, 0, &err));
    STOPS("log_softmax", attn_softmax(x, 0, 1, &err));
    STOPS("matmul", attn_matmul("matmul", x, xt, &err));
    STOPS("clone of a transposed view", attn_clone(xt, &err));
    STOPS("clone", attn_clone(x, &err));
    STOPS("bool", attn_to_dtype(x, ATTN_BOOL, &err));
    STOPS("arange", attn_arange(0, 1e6, 1, &err));
    STOPS("full", attn_full("full", 2, s2, 1.0f, &err));
    attn_tensor *pair[2] = {x, xt};
    STOPS("stack", attn_stack("stack", pair, 2, 0, &err));
    STOPS("dropout", attn_dropout("dropout", x, 0.5, &err));
    STOPS("causal_mask", attn_causal_mask(100, 100, &err));
    STOPS("valid_len_mask", attn_valid_len_mask(10, o, &err));
    attn_tensor *ids = attn_arange_i64(1, 2, 1, NULL);
    STOPS("embedding", attn_embedding(x, ids, 1, &err));
    attn_free(ids);
    STOPS("layer_norm", attn_layer_norm(x, 1, NULL, NULL, 1e-5, &err));
    STOPS("gelu", attn_activate(ATTN_ACT_GELU, x, &err));
    STOPS("gelu of a transposed view", attn_activate(ATTN_ACT_GELU, xt, &err));
    attn_free(huge), attn_free(x), attn_free(o), attn_free(xt), attn_free(mask);
}

static void test_in_place_and_random_stop(void **state)
{
    (void)state;
    int64_t s2[2] = {64, 64};
    attn_tensor *x = filled(2, s2, 0.5f), *y = filled(2, s2, 2.0f);
    attn_tensor *mask = attn_causal_mask(64, 64, NULL);
    attn_error err;
    attn_interrupt_requested = 1;
    assert_int_equal(attn_fill_(x, 3.0f, &err), -1);
    assert_int_equal(attn_copy_(x, y, &err), -1);
    assert_int_equal(attn_masked_fill_(x, mask, attn_float(1.0), &err), -1);
    float buf[4096];
    assert_int_equal(attn_rand_fill(buf, 4096), -1);
    assert_int_equal(attn_randn_fill(buf, 4096), -1);
    assert_int_equal(attn_bernoulli_fill(buf, 4096, 0.5), -1);
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_DEFAULT);
    assert_int_equal(attn_bernoulli_fill(buf, 4096, 0.5), -1);
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_MKL);
    int64_t ibuf[4096];
    assert_int_equal(attn_randint_fill(ibuf, 4096, 0, 10, &err), -1);
    assert_string_equal(err.msg, "interrupted");
    assert_null(attn_format(x, &err));
    assert_string_equal(err.msg, "interrupted");
    attn_interrupt_requested = 0;
    char *s = attn_format(x, &err); /* and everything works again once the flag is down */
    assert_non_null(s);
    free(s);
    attn_free(x), attn_free(y), attn_free(mask);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_stop),
        cmocka_unit_test(test_in_place_and_random_stop),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
