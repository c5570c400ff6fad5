/* test_vunary.c — exp, log and tanh 8 at a time (vunary.c) against vmath's scalar functions, which
 * test_softmax.c and the Lua specs check against PyTorch's own numbers: bit for bit on 2^24 bit patterns
 * spread over all floats (every sign, exponent, nan and infinity among them), on lengths around the
 * vector width, and through attn_unary on a tensor large enough to be split among threads. The claim
 * itself (lane for lane on all 2^32 floats) was checked once by hand; this keeps it from breaking. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "ops.h"
#include "tensor.h"
#include "vmath.h"
#include "vunary.h"

static int same(float a, float b)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    return (isnan(a) && isnan(b)) || ua == ub;
}

static float scalar(attn_unop op, float x)
{
    return op == ATTN_EXP ? vmath_exp(x) : op == ATTN_LOG ? vmath_log(x) : vmath_tanh(x);
}

static const attn_unop FUNCTIONS[] = {ATTN_EXP, ATTN_LOG, ATTN_TANH};

/* 2^24 floats: the bit patterns k * 256 + 37, so every exponent and sign is met with many mantissas */
static void test_spread_over_all_floats(void **state)
{
    (void)state;
    const int64_t n = (int64_t)1 << 24;
    float *in = malloc(sizeof(float) * (size_t)n), *p = malloc(sizeof(float) * (size_t)n);
    assert_non_null(in);
    assert_non_null(p);
    for (int64_t k = 0; k < n; k++) {
        uint32_t u = (uint32_t)k * 256u + 37u;
        memcpy(&in[k], &u, sizeof u);
    }
    for (int i = 0; i < 3; i++) {
        attn_unop f = FUNCTIONS[i];
        memcpy(p, in, sizeof(float) * (size_t)n);
        int done = vunary_apply(f, p, n);
        if (done == 0)
            skip(); /* no AVX2 and FMA here: attn runs the scalar functions themselves */
        assert_int_equal(done, 1);
        int64_t mismatches = 0;
        for (int64_t k = 0; k < n; k++)
            if (!same(p[k], scalar(f, in[k])))
                mismatches++;
        assert_int_equal(mismatches, 0);
    }
    free(in);
    free(p);
}

/* lengths 0 to 40: the vector loop and the scalar tail meet at every offset */
static void test_lengths_around_the_vector_width(void **state)
{
    (void)state;
    float in[40], p[40];
    for (int i = 0; i < 40; i++)
        in[i] = (float)(i - 20) * 0.37f;
    for (int fi = 0; fi < 3; fi++)
        for (int n = 0; n <= 40; n++) {
            memcpy(p, in, sizeof in);
            if (vunary_apply(FUNCTIONS[fi], p, n) == 0)
                skip();
            for (int i = 0; i < 40; i++)
                assert_true(same(p[i], i < n ? scalar(FUNCTIONS[fi], in[i]) : in[i]));
        }
}

/* attn_unary(tanh) on 3 x 10^6 floats: split among threads, the same bits as one float at a time */
static void test_threads_do_not_change_the_bits(void **state)
{
    (void)state;
    int64_t shape[1] = {3000000};
    attn_error err;
    attn_tensor *x = attn_empty("test", 1, shape, ATTN_FLOAT32, &err);
    assert_non_null(x);
    for (int64_t i = 0; i < shape[0]; i++)
        x->storage->data[i] = (float)(i % 2001 - 1000) / 97.0f;
    attn_tensor *y = attn_unary(ATTN_TANH, x, &err);
    assert_non_null(y);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < shape[0]; i++)
        if (!same(y->storage->data[i], vmath_tanh(x->storage->data[i])))
            mismatches++;
    assert_int_equal(mismatches, 0);
    attn_free(y);
    attn_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spread_over_all_floats),
        cmocka_unit_test(test_lengths_around_the_vector_width),
        cmocka_unit_test(test_threads_do_not_change_the_bits),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
