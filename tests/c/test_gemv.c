/* test_gemv.c — attn's own sgemv ('N' and 'T') and sdot (src/core/gemv.c, dot.c) against libopenblas's,
 * bit for bit: OpenBLAS 0.3.21's Haswell kernels on one thread are the reference (what PyTorch computed the
 * project's reference data with), over thousands of random shapes — lengths around every unroll and block
 * boundary, increments above 1, leading dimensions above the minimum, one row or one column, zeros of both
 * signs, infinities and NaN — with attn on 1, 2 and 7 threads and every instruction set this CPU runs.
 *
 * OpenBLAS chooses its kernels when it is loaded: this program starts itself again with OPENBLAS_CORETYPE=
 * Haswell and OPENBLAS_NUM_THREADS=1 in its environment when they are not there. A CPU without AVX2 and FMA
 * cannot run those kernels: the comparisons are skipped there. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <cblas.h>

#include "gemm_n1.h"
#include "gemv.h"
#include "isa.h"

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc);
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a, const int *lda,
            const float *x, const int *incx, const float *beta, float *y, const int *incy);

#if defined(__SANITIZE_ADDRESS__)
#define SHAPES 400 /* the ASan build runs each kernel some 20 times slower */
#else
#define SHAPES 4000
#endif

static const int THREADS[] = {1, 2, 7};

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int64_t below(int64_t n)
{
    return (int64_t)(next() % (uint64_t)n);
}

/* a length near one of the kernels' boundaries (4, 8, 16, 32, the block of 4096), or any up to `most` */
static int64_t length(int64_t most)
{
    static const int64_t near[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 64, 100, 4096};
    int64_t v;
    switch (below(4)) {
    case 0:
        v = 1 + below(20);
        break;
    case 1:
        v = near[below(sizeof near / sizeof near[0])] + below(9) - 4;
        break;
    case 2:
        v = 4096 * (1 + below(2)) + below(41) - 20;
        break;
    default:
        v = 1 + below(most);
        break;
    }
    return v < 1 ? 1 : v > most ? most : v;
}

/* values of every size, so that the order of the sum shows in the last bits; now and then a special one */
static float value(int specials)
{
    if (specials && below(1000) == 0) {
        static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN};
        return special[below(5)];
    }
    if (below(20) == 0)
        return below(2) ? 0.0f : -0.0f;
    float v = (float)((double)(int64_t)(next() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    return ldexpf(v, (int)below(17) - 8);
}

static int same(float a, float b)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    return (isnan(a) && isnan(b)) || ua == ub;
}

static int haswell_here(void)
{
    const char *core = openblas_get_corename();
    return attn_isa_runs(ATTN_ISA_AVX2) && core && strcmp(core, "Haswell") == 0;
}

/* attn's on every instruction set and thread count against ref[0, len): mismatches counted */
typedef void (*run_fn)(void *ctx, float *out);

static int64_t against(const float *ref, int64_t len, run_fn run, void *ctx, const char *what)
{
    int64_t bad = 0;
    attn_isa widest = attn_isa_current();
    float *out = malloc(sizeof(float) * (size_t)(len + 1));
    assert_non_null(out);
    for (int isa = ATTN_ISA_PORTABLE; isa <= ATTN_ISA_AVX512; isa++) {
        if (attn_isa_set((attn_isa)isa) != 0)
            continue;
        for (size_t t = 0; t < sizeof THREADS / sizeof THREADS[0]; t++) {
            openblas_set_num_threads(THREADS[t]);
            for (int64_t i = 0; i <= len; i++)
                out[i] = NAN;
            run(ctx, out);
            int64_t wrong = 0;
            for (int64_t i = 0; i < len; i++)
                if (!same(out[i], ref[i])) {
                    if (wrong++ == 0 && bad < 3)
                        print_message("# %s on %s, %d threads: element %lld is %a, OpenBLAS %a\n", what,
                                      attn_isa_name((attn_isa)isa), THREADS[t], (long long)i, out[i], ref[i]);
                }
            if (!isnan(out[len]))
                wrong++; /* wrote past the end */
            bad += wrong;
        }
    }
    free(out);
    openblas_set_num_threads(1);
    attn_isa_set(widest);
    return bad;
}

typedef struct {
    char trans;
    int64_t m, n, lda, incx;
    const float *a, *x;
} gemv_case;

static void run_gemv(void *ctx, float *out)
{
    const gemv_case *c = ctx;
    if (c->trans == 'N')
        attn_sgemv_n(c->m, c->n, c->a, c->lda, c->x, c->incx, out);
    else
        attn_sgemv_t(c->m, c->n, c->a, c->lda, c->x, c->incx, out);
}

static void one_gemv(char trans, int specials, int64_t *shapes_bad)
{
    gemv_case c = {.trans = trans};
    /* one short dimension in three, so that long ones stay affordable */
    c.m = length(below(3) ? 300 : 9000);
    c.n = length(c.m > 300 ? 40 : 300);
    if (below(2)) {
        int64_t t = c.m;
        c.m = c.n, c.n = t;
    }
    if (below(6) == 0)
        c.m = 1;
    else if (below(6) == 0)
        c.n = 1;
    c.lda = c.m + (below(2) ? 0 : below(5));
    if (c.n == 1 && below(2))
        c.lda = c.m;
    c.incx = below(3) ? 1 : 1 + below(4);
    int64_t xlen = trans == 'N' ? c.n : c.m, ylen = trans == 'N' ? c.m : c.n;
    float *a = malloc(sizeof(float) * (size_t)(c.lda * c.n)), *x = malloc(sizeof(float) * (size_t)(xlen * c.incx));
    float *ref = malloc(sizeof(float) * (size_t)ylen);
    assert_true(a && x && ref);
    for (int64_t i = 0; i < c.lda * c.n; i++)
        a[i] = value(specials);
    for (int64_t i = 0; i < xlen * c.incx; i++)
        x[i] = value(specials);
    for (int64_t i = 0; i < ylen; i++)
        ref[i] = NAN; /* beta 0: y is not read */
    int im = (int)c.m, in = (int)c.n, ilda = (int)c.lda, iincx = (int)c.incx, one = 1;
    float alpha = 1.0f, beta = 0.0f;
    sgemv_(&trans, &im, &in, &alpha, a, &ilda, x, &iincx, &beta, ref, &one);
    c.a = a, c.x = x;
    char what[96];
    snprintf(what, sizeof what, "sgemv '%c' m=%lld n=%lld lda=%lld incx=%lld", trans, (long long)c.m,
             (long long)c.n, (long long)c.lda, (long long)c.incx);
    if (against(ref, ylen, run_gemv, &c, what))
        (*shapes_bad)++;
    free(a);
    free(x);
    free(ref);
}

static void test_gemv(char trans)
{
    if (!haswell_here())
        skip();
    int64_t bad = 0;
    for (int s = 0; s < SHAPES; s++)
        one_gemv(trans, s % 4 == 3, &bad);
    assert_int_equal(bad, 0);
}

static void test_sgemv_n(void **state)
{
    (void)state;
    test_gemv('N');
}

static void test_sgemv_t(void **state)
{
    (void)state;
    test_gemv('T');
}

typedef struct {
    int64_t n, incx, incy;
    const float *x, *y;
} dot_case;

static void run_dot(void *ctx, float *out)
{
    const dot_case *c = ctx;
    out[0] = attn_sdot(c->n, c->x, c->incx, c->y, c->incy);
}

static void test_sdot(void **state)
{
    (void)state;
    if (!haswell_here())
        skip();
    int64_t bad = 0;
    for (int s = 0; s < SHAPES; s++) {
        dot_case c;
        c.n = length(below(4) ? 300 : 20000);
        c.incx = below(2) ? 1 : below(4);
        c.incy = below(2) ? 1 : below(4);
        int64_t lx = c.n * (c.incx ? c.incx : 1), ly = c.n * (c.incy ? c.incy : 1);
        float *x = malloc(sizeof(float) * (size_t)lx), *y = malloc(sizeof(float) * (size_t)ly);
        assert_true(x && y);
        for (int64_t i = 0; i < lx; i++)
            x[i] = value(s % 4 == 3);
        for (int64_t i = 0; i < ly; i++)
            y[i] = value(s % 4 == 3);
        float ref = cblas_sdot((int)c.n, x, (int)c.incx, y, (int)c.incy);
        c.x = x, c.y = y;
        char what[80];
        snprintf(what, sizeof what, "sdot n=%lld incx=%lld incy=%lld", (long long)c.n, (long long)c.incx,
                 (long long)c.incy);
        if (against(&ref, 1, run_dot, &c, what))
            bad++;
        free(x);
        free(y);
    }
    assert_int_equal(bad, 0);
}

/* ---- one-column sgemm (gemm_n1.c): sgemm_(ta, tb, m, 1, k, ...) ---- */

typedef struct {
    char ta;
    int64_t m, k, lda, incb;
    const float *a, *b, *c0;
    float beta;
} n1_case;

static void run_n1(void *ctx, float *out)
{
    const n1_case *c = ctx;
    memcpy(out, c->c0, sizeof(float) * (size_t)c->m);
    attn_sgemm_n1(c->ta, c->m, c->k, c->a, c->lda, c->b, c->incb, c->beta, out);
}

static void test_sgemm_one_column(void **state)
{
    (void)state;
    if (!haswell_here())
        skip();
    int64_t bad = 0;
    for (int s = 0; s < SHAPES / 4; s++) { /* longer sums than the others' */
        n1_case c;
        static const int64_t near_q[] = {320, 640, 960, 1280};
        c.ta = below(2) ? 'N' : 'T';
        c.k = below(2) ? length(below(4) ? 700 : 3500) : near_q[below(4)] + below(33) - 16;
        c.m = length(c.k > 700 ? 40 : 300);
        char tb = below(2) ? 'N' : 'T';
        int64_t ldb = tb == 'N' ? c.k + below(3) : 1 + below(3);
        c.incb = tb == 'N' ? 1 : ldb;
        int64_t rows_a = c.ta == 'N' ? c.m : c.k, cols_a = c.ta == 'N' ? c.k : c.m;
        c.lda = rows_a + (below(2) ? 0 : below(5));
        static const float betas[] = {0.0f, 1.0f, 0.5f};
        c.beta = betas[below(3)];
        float *a = malloc(sizeof(float) * (size_t)(c.lda * cols_a)), *b = malloc(sizeof(float) * (size_t)(c.k * ldb));
        float *c0 = malloc(sizeof(float) * (size_t)c.m), *ref = malloc(sizeof(float) * (size_t)c.m);
        assert_true(a && b && c0 && ref);
        for (int64_t i = 0; i < c.lda * cols_a; i++)
            a[i] = value(s % 4 == 3);
        for (int64_t i = 0; i < c.k * ldb; i++)
            b[i] = value(s % 4 == 3);
        for (int64_t i = 0; i < c.m; i++)
            c0[i] = c.beta == 0.0f ? NAN : value(0);
        memcpy(ref, c0, sizeof(float) * (size_t)c.m);
        int im = (int)c.m, one = 1, ik = (int)c.k, ilda = (int)c.lda, ildb = (int)ldb;
        float alpha = 1.0f;
        sgemm_(&c.ta, &tb, &im, &one, &ik, &alpha, a, &ilda, b, &ildb, &c.beta, ref, &im);
        c.a = a, c.b = b, c.c0 = c0;
        char what[112];
        snprintf(what, sizeof what, "sgemm %c%c m=%lld n=1 k=%lld lda=%lld ldb=%lld beta=%g", c.ta, tb, (long long)c.m,
                 (long long)c.k, (long long)c.lda, (long long)ldb, (double)c.beta);
        if (against(ref, c.m, run_n1, &c, what))
            bad++;
        free(a);
        free(b);
        free(c0);
        free(ref);
    }
    assert_int_equal(bad, 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *core = getenv("OPENBLAS_CORETYPE"), *threads = getenv("OPENBLAS_NUM_THREADS");
    if (!core || strcmp(core, "Haswell") != 0 || !threads || strcmp(threads, "1") != 0) {
        setenv("OPENBLAS_CORETYPE", "Haswell", 1);
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        execv("/proc/self/exe", argv);
        perror("test_gemv: cannot start itself again with OPENBLAS_CORETYPE=Haswell");
        return 1;
    }
    attn_gemv_thread_work = 64; /* every product shared by every thread, however small */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sgemv_n),
        cmocka_unit_test(test_sgemv_t),
        cmocka_unit_test(test_sdot),
        cmocka_unit_test(test_sgemm_one_column),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
