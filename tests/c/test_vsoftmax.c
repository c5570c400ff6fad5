/* test_vsoftmax.c — the vector softmax rows (x86/vsoftmax_avx2.c, of every instruction set this CPU runs) against the scalar emulation of the same
 * PyTorch kernel (vmath.c's reductions and SLEEF calls, which test_softmax.c checks against PyTorch's
 * own numbers): bit for bit, on row lengths around every vector width, with masked (-inf), nan, +inf and
 * huge entries, and through attn_softmax on tensors large enough to be split among threads. */
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
#include "isa.h"
#include "vector_kernels.h"

/* The reference: _vec_softmax_lastdim / _vec_log_softmax_lastdim written with vmath's scalar
 * emulation, as softmax.c computes rows when the vector code is not available. */
static void reference_row(const float *in, float *out, int64_t n, int log)
{
    float max = vmath_reduce_max(in, n);
    if (log) {
        float lse = vmath_log(vmath_sum_exp(in, n, max));
        for (int64_t i = 0; i < n; i++)
            out[i] = in[i] - max - lse;
        return;
    }
    for (int64_t i = 0; i < n; i++)
        out[i] = vmath_exp(in[i] - max);
    float inv = 1.0f / vmath_reduce_sum(out, n);
    for (int64_t i = 0; i < n; i++)
        out[i] = out[i] * inv;
}

static uint32_t bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static int same(float a, float b)
{
    return (isnan(a) && isnan(b)) || bits(a) == bits(b);
}

static uint64_t rng = 88172645463325252ull;

static float uniform(float lo, float hi) /* xorshift64: the test's own stream */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (float)((rng >> 40) / 16777216.0);
}

/* Fills a row of n: kind 0 plain, 1 causal (-inf after a random prefix), 2 a nan, 3 a +inf,
 * 4 all -inf, 5 huge magnitudes, 6 exactly equal values. */
static void fill(float *x, int64_t n, int kind)
{
    float scale = kind == 5 ? 1e30f : 8.0f;
    for (int64_t i = 0; i < n; i++)
        x[i] = kind == 6 ? 0.25f : uniform(-scale, scale);
    int64_t at = (int64_t)uniform(0.0f, (float)n);
    if (at >= n)
        at = n - 1;
    if (kind == 1)
        for (int64_t i = at + 1; i < n; i++)
            x[i] = -INFINITY;
    if (kind == 2)
        x[at] = NAN;
    if (kind == 3)
        x[at] = INFINITY;
    if (kind == 4)
        for (int64_t i = 0; i < n; i++)
            x[i] = -INFINITY;
}

static void rows_equal_the_reference(const attn_vector_kernels *k)
{
    static const int64_t lengths[] = {8,  9,  15, 16, 17,  23,  24,  25,  31,   32,   33,   40,
                                      47, 48, 49, 63, 64, 100, 127, 129, 1000, 1023, 1024, 1031};
    int mismatches = 0;
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
        int64_t n = lengths[li];
        float *x = malloc(sizeof(float) * (size_t)n), *want = malloc(sizeof(float) * (size_t)n),
              *got = malloc(sizeof(float) * (size_t)n);
        assert_non_null(x), assert_non_null(want), assert_non_null(got);
        for (int kind = 0; kind <= 6; kind++)
            for (int rep = 0; rep < 20; rep++)
                for (int log = 0; log <= 1; log++) {
                    fill(x, n, kind);
                    reference_row(x, want, n, log);
                    if (log)
                        k->log_softmax_row(x, got, n);
                    else
                        k->softmax_row(x, got, n);
                    for (int64_t i = 0; i < n; i++)
                        if (!same(want[i], got[i]) && mismatches++ < 5)
                            print_error("%s n=%lld kind=%d log=%d [%lld]: want %a got %a\n", attn_isa_name(attn_isa_current()), (long long)n, kind, log,
                                        (long long)i, want[i], got[i]);
                }
        free(x), free(want), free(got);
    }
    assert_int_equal(mismatches, 0);
}

static void test_rows_equal_the_scalar_emulation(void **state)
{
    (void)state;
    attn_isa was = attn_isa_current();
    int tables = 0;
    for (int isa = ATTN_ISA_PORTABLE; isa <= ATTN_ISA_NEON; isa++) {
        if (attn_isa_set((attn_isa)isa) != 0)
            continue;
        const attn_vector_kernels *k = attn_vector_kernels_now();
        if (k->softmax_row && k->log_softmax_row) {
            rows_equal_the_reference(k);
            tables++;
        }
    }
    attn_isa_set(was);
    if (tables == 0)
        skip(); /* no vector softmax on this machine: softmax.c's portable rows are the reference itself */
}

/* attn_softmax on [rows, n]: large enough to run on several threads; every row as the reference. */
static void test_threads_do_not_change_the_bits(void **state)
{
    (void)state;
    const int64_t rows = 600, n = 1024;
    int64_t shape[2] = {rows, n};
    attn_error err;
    attn_tensor *x = attn_empty("test", 2, shape, ATTN_FLOAT32, &err);
    assert_non_null(x);
    for (int64_t r = 0; r < rows; r++)
        fill(x->storage->data + r * n, n, (int)(r % 7));
    float *want = malloc(sizeof(float) * (size_t)n);
    assert_non_null(want);
    for (int log = 0; log <= 1; log++) {
        attn_tensor *y = attn_softmax(x, 1, log, &err);
        assert_non_null(y);
        int mismatches = 0;
        for (int64_t r = 0; r < rows; r++) {
            reference_row(x->storage->data + r * n, want, n, log);
            for (int64_t i = 0; i < n; i++)
                if (!same(want[i], y->storage->data[r * n + i]))
                    mismatches++;
        }
        assert_int_equal(mismatches, 0);
        attn_free(y);
    }
    free(want);
    attn_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_equal_the_scalar_emulation),
        cmocka_unit_test(test_threads_do_not_change_the_bits),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
