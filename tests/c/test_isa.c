/* test_isa.c — every instruction set this CPU runs (isa.h) gives the portable code's bits: each operation
 * with a vector version in the tables of vector_kernels.h (softmax and log_softmax rows, exp/log/tanh,
 * sin/cos, the Adam step, tanh and softmax backward, attention.fused) is computed with ATTN_ISA_PORTABLE,
 * then again with each wider instruction set attn_isa_set accepts, and the two must agree bit for bit (a
 * nan matches any nan: ARM and x86 write different nan payloads) — all but attention.fused, which promises
 * no bits (its own tiles, the order its vector width gives) and is held to its promise: within 1e-5. The inputs take
 * lengths around every vector width and the awkward floats: ±0, subnormals, huge, ±inf, nan, and sin/cos
 * groups of 8 mixing small and large (|x| >= 125) numbers. The portable code itself is checked against
 * PyTorch by the other tests (test_softmax.c, test_layers.c, test_vunary.c, the Lua specs). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fused.h"
#include "isa.h"
#include "layers.h"
#include "learn.h"
#include "ops.h"
#include "tensor.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t next_u32(void) /* xorshift64: the test's own stream */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 32);
}

static float uniform(float lo, float hi)
{
    return lo + (hi - lo) * (float)((next_u32() >> 8) / 16777216.0);
}

/* Mostly uniform in [lo, hi]; one in 16 an awkward float. */
static float sample(float lo, float hi)
{
    static const float awkward[] = {0.0f, -0.0f, 1e-40f, -1e-40f, 3e38f, -3e38f, INFINITY, -INFINITY, NAN, 1e4f,
                                    -1e4f, 200.0f, -130.0f, 88.7f, -88.7f, 1.0f};
    uint32_t u = next_u32();
    if ((u & 15) == 0)
        return awkward[(u >> 4) % (sizeof awkward / sizeof *awkward)];
    return uniform(lo, hi);
}

static attn_tensor *tensor(int ndim, const int64_t *shape, float lo, float hi)
{
    attn_error err;
    attn_tensor *t = attn_empty("test", ndim, shape, ATTN_FLOAT32, &err);
    assert_non_null(t);
    for (int64_t i = 0; i < attn_numel(t); i++)
        t->storage->data[i] = sample(lo, hi);
    return t;
}

static int same(float a, float b)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    return (isnan(a) && isnan(b)) || ua == ub;
}

/* An operation on its inputs, written into out (numel floats): run once per instruction set. */
typedef void (*operation)(void *ctx, float *out);

/* Runs op with the portable code and with every other instruction set this CPU runs, and fails on the
 * first element that differs. (Prints nothing: tests/arm64 compares this test's output between machines.) */
static void compare_isas_within(const char *what, operation op, void *ctx, int64_t numel, float tol)
{
    attn_isa was = attn_isa_current();
    float *want = malloc(sizeof(float) * (size_t)(numel ? numel : 1));
    float *got = malloc(sizeof(float) * (size_t)(numel ? numel : 1));
    assert_non_null(want), assert_non_null(got);
    assert_int_equal(attn_isa_set(ATTN_ISA_PORTABLE), 0);
    op(ctx, want);
    for (int isa = ATTN_ISA_PORTABLE + 1; isa <= ATTN_ISA_NEON; isa++) {
        if (attn_isa_set((attn_isa)isa) != 0)
            continue;
        op(ctx, got);
        for (int64_t i = 0; i < numel; i++)
            if (!same(want[i], got[i]) && !(tol > 0 && fabsf(want[i] - got[i]) <= tol))
                fail_msg("%s, element %lld: portable %a, %s %a", what, (long long)i, (double)want[i],
                         attn_isa_name((attn_isa)isa), (double)got[i]);
    }
    attn_isa_set(was);
    free(want), free(got);
}

static void compare_isas(const char *what, operation op, void *ctx, int64_t numel)
{
    compare_isas_within(what, op, ctx, numel, 0.0f);
}

static void copy_result(attn_tensor *r, float *out)
{
    assert_non_null(r);
    assert_int_equal(attn_copy_out(r, out), 0);
    attn_free(r);
}

/* ---- the operations ---------------------------------------------------------------------------------- */

typedef struct {
    attn_tensor *a, *b, *c;
    int dim, flag;
    attn_unop unop;
    attn_activation act;
} inputs;

static void run_softmax(void *ctx, float *out)
{
    const inputs *in = ctx;
    attn_error err;
    copy_result(attn_softmax(in->a, in->dim, in->flag, &err), out);
}

static void run_unary(void *ctx, float *out)
{
    const inputs *in = ctx;
    attn_error err;
    copy_result(attn_unary(in->unop, in->a, &err), out);
}

static void run_activation(void *ctx, float *out)
{
    const inputs *in = ctx;
    attn_error err;
    copy_result(attn_activate(in->act, in->a, &err), out);
}

static void run_tanh_backward(void *ctx, float *out)
{
    const inputs *in = ctx;
    attn_error err;
    copy_result(attn_tanh_backward(in->a, in->b, &err), out);
}

static void run_softmax_backward(void *ctx, float *out)
{
    const inputs *in = ctx;
    attn_error err;
    copy_result(attn_softmax_backward(in->a, in->b, in->dim, &err), out);
}

static void run_fused(void *ctx, float *out)
{
    const inputs *in = ctx;
    attn_error err;
    copy_result(attn_fused(in->a, in->b, in->c, in->flag, NAN, &err), out);
}

/* Two Adam steps on copies of the inputs; out holds the parameter, then exp_avg, then exp_avg_sq. */
static void run_adam(void *ctx, float *out)
{
    const inputs *in = ctx;
    int64_t n = attn_numel(in->a);
    attn_error err;
    attn_tensor *p = attn_clone(in->a, &err), *m = attn_clone(in->b, &err), *v = attn_clone(in->c, &err);
    assert_non_null(p), assert_non_null(m), assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v->storage->data[i] = fabsf(v->storage->data[i]); /* a second moment is never negative */
    attn_adam_scalars s = {1, 1.0f - 1e-3f * 0.01f, 0.9f, 0.1f, 0.999f, 0.001f, 0.0316f, 1e-8f, -1e-2f};
    for (int step = 0; step < 2; step++)
        assert_int_equal(attn_adam_step(p, in->b, m, v, &s), 0);
    assert_int_equal(attn_copy_out(p, out), 0);
    assert_int_equal(attn_copy_out(m, out + n), 0);
    assert_int_equal(attn_copy_out(v, out + 2 * n), 0);
    attn_free(p), attn_free(m), attn_free(v);
}

/* ---- the tests: lengths around every vector width --------------------------------------------------- */

static const int64_t LENGTHS[] = {1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 33, 40, 63, 64, 65, 129, 1000, 1031};
#define NLENGTHS (sizeof LENGTHS / sizeof *LENGTHS)

static void test_softmax_rows(void **state)
{
    (void)state;
    for (size_t li = 0; li < NLENGTHS; li++)
        for (int log = 0; log <= 1; log++)
            for (int dim = 0; dim <= 1; dim++) {
                int64_t shape[2] = {5, LENGTHS[li]};
                inputs in = {.a = tensor(2, shape, -20.0f, 20.0f), .dim = dim, .flag = log};
                char what[80];
                snprintf(what, sizeof what, "%s over dim %d of [5, %lld]", log ? "log_softmax" : "softmax", dim,
                         (long long)shape[1]);
                compare_isas(what, run_softmax, &in, 5 * shape[1]);
                attn_free(in.a);
            }
}

static void test_exp_log_tanh(void **state)
{
    (void)state;
    static const attn_unop ops[] = {ATTN_EXP, ATTN_LOG, ATTN_TANH, ATTN_SIGMOID};
    for (size_t li = 0; li < NLENGTHS; li++)
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++) {
            int64_t n = LENGTHS[li] * 37; /* several threads' chunks for the longest */
            inputs in = {.a = tensor(1, &n, ops[oi] == ATTN_LOG ? 0.0f : -30.0f, 30.0f), .unop = ops[oi]};
            compare_isas("exp/log/tanh/sigmoid", run_unary, &in, n);
            attn_free(in.a);
        }
}

static void test_sin_cos_erf_gelu(void **state)
{
    (void)state;
    static const attn_activation acts[] = {ATTN_ACT_SIN, ATTN_ACT_COS, ATTN_ACT_ERF, ATTN_ACT_GELU,
                                           ATTN_ACT_GELU_TANH, ATTN_ACT_SILU};
    for (size_t li = 0; li < NLENGTHS; li++)
        for (size_t ai = 0; ai < sizeof acts / sizeof *acts; ai++) {
            int64_t n = LENGTHS[li];
            inputs in = {.a = tensor(1, &n, -100.0f, 100.0f), .act = acts[ai]}; /* some groups mix |x| >= 125 */
            compare_isas("sin/cos/erf/gelu/silu", run_activation, &in, n);
            attn_free(in.a);
        }
}

static void test_backward(void **state)
{
    (void)state;
    for (size_t li = 0; li < NLENGTHS; li++) {
        int64_t shape[2] = {3, LENGTHS[li]};
        inputs in = {.a = tensor(2, shape, -2.0f, 2.0f), .b = tensor(2, shape, -1.0f, 1.0f)};
        compare_isas("tanh_backward", run_tanh_backward, &in, 3 * shape[1]);
        for (in.dim = 0; in.dim <= 1; in.dim++)
            compare_isas("softmax_backward", run_softmax_backward, &in, 3 * shape[1]);
        attn_free(in.a), attn_free(in.b);
    }
}

static void test_adam_step(void **state)
{
    (void)state;
    for (size_t li = 0; li < NLENGTHS; li++) {
        int64_t n = LENGTHS[li] * 101;
        inputs in = {.a = tensor(1, &n, -1.0f, 1.0f), .b = tensor(1, &n, -1e-2f, 1e-2f),
                     .c = tensor(1, &n, 0.0f, 1e-4f)};
        compare_isas("adam step", run_adam, &in, 3 * n);
        attn_free(in.a), attn_free(in.b), attn_free(in.c);
    }
}

static void test_fused_attention(void **state)
{
    (void)state;
    static const int64_t sizes[][3] = {{1, 1, 4}, {5, 7, 8}, {17, 33, 16}, {64, 64, 8}, {100, 129, 24}};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int causal = 0; causal <= 1; causal++) {
            int64_t qs[3] = {2, sizes[si][0], sizes[si][2]}, ks[3] = {2, sizes[si][1], sizes[si][2]};
            inputs in = {.flag = causal};
            /* scores within a few units, so the exp of every block matters (no awkward floats here: a nan
             * or inf score spreads to the whole row) */
            in.a = tensor(3, qs, -1.0f, 1.0f), in.b = tensor(3, ks, -1.0f, 1.0f), in.c = tensor(3, ks, -1.0f, 1.0f);
            for (attn_tensor *t = in.a; t; t = t == in.a ? in.b : t == in.b ? in.c : NULL)
                for (int64_t i = 0; i < attn_numel(t); i++)
                    t->storage->data[i] = uniform(-2.0f, 2.0f);
            compare_isas_within("attention.fused", run_fused, &in, qs[0] * qs[1] * qs[2], 1e-5f);
            attn_free(in.a), attn_free(in.b), attn_free(in.c);
        }
}

int main(void)
{
    cmocka_set_message_output(CM_OUTPUT_TAP);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_softmax_rows),     cmocka_unit_test(test_exp_log_tanh),
        cmocka_unit_test(test_sin_cos_erf_gelu), cmocka_unit_test(test_backward),
        cmocka_unit_test(test_adam_step),        cmocka_unit_test(test_fused_attention),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
