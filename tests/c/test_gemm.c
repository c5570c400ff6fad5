/* test_gemm.c — attn_sgemm (gemm.c) against libopenblas's sgemm_ under its Haswell kernels on one thread
 * (what PyTorch's reference data were made with), bit for bit: random shapes (edge tiles around the
 * kernel's 16/8/4/2/1 rows and 12/8/4/2/1 columns, the blocks P = 320 and Q = 320 of rows and of the sum,
 * all four transposes, leading dimensions larger than needed, beta 0 and 1), values spread over many
 * exponents so that another order of the sum shows, and zeros of both signs, infinities and nans. Each
 * product is computed by attn on 1, 2 and 7 threads under every instruction set this CPU runs.
 * A nan matches any nan (OpenBLAS's nan payloads are the hardware's, which attn does not promise).
 * The comparison needs a CPU that runs OpenBLAS's Haswell kernels (AVX2 and FMA); elsewhere it is skipped,
 * and only the last test runs: every instruction set's kernels against the portable ones.
 * The program runs itself again with OPENBLAS_CORETYPE=Haswell and OPENBLAS_NUM_THREADS=1 set (OpenBLAS
 * reads them when it loads). */
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

#include "gemm.h"
#include "isa.h"

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc);
void openblas_set_num_threads(int n);
int openblas_get_num_threads(void);

#if defined(__SANITIZE_ADDRESS__)
enum { SHAPES = 1500 }; /* ASan makes each product some 20 times slower */
#else
enum { SHAPES = 10000 };
#endif

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint32_t next_u32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static int64_t uniform(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next_u32() % (uint32_t)(hi - lo + 1));
}

/* a value with a random sign and an exponent over a wide range (2^-12 .. 2^12), now and then a special one */
static float value(int specials)
{
    if (specials && next_u32() % 64 == 0) {
        static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f};
        return special[next_u32() % 7];
    }
    float mant = 1.0f + (float)(next_u32() % (1u << 23)) / (float)(1u << 23);
    float v = ldexpf(mant, (int)uniform(-12, 12));
    return next_u32() & 1 ? -v : v;
}

static int same_bits(float a, float b)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    return ua == ub || (isnan(a) && isnan(b));
}

/* a size near a boundary that matters: the kernel's tiles, P/Q (320), 2P/2Q */
static int64_t edge_size(int64_t small_max)
{
    static const int64_t around[] = {320, 640, 960};
    switch (next_u32() % 8) {
    case 0:
        return around[next_u32() % 3] + uniform(-9, 9);
    case 1:
        return uniform(300, 700);
    default:
        return uniform(1, small_max);
    }
}

typedef struct {
    char ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    float beta;
    int specials;
} shape;

static shape random_shape(int big)
{
    shape s;
    s.ta = next_u32() & 1 ? 'T' : 'N';
    s.tb = next_u32() & 1 ? 'T' : 'N';
    /* most products small; now and then one dimension past the blocks, the others small */
    s.m = uniform(1, 40), s.n = uniform(1, 40), s.k = uniform(1, 40);
    if (big) {
        switch (next_u32() % 3) {
        case 0: s.m = edge_size(40); break;
        case 1: s.n = edge_size(40); break;
        default: s.k = edge_size(40); break;
        }
        if (next_u32() % 4 == 0)
            s.k = edge_size(60);
    }
    int64_t arows = s.ta == 'N' ? s.m : s.k, brows = s.tb == 'N' ? s.k : s.n;
    s.lda = arows + (next_u32() % 3 == 0 ? uniform(1, 5) : 0);
    s.ldb = brows + (next_u32() % 3 == 0 ? uniform(1, 5) : 0);
    s.ldc = s.m + (next_u32() % 3 == 0 ? uniform(1, 5) : 0);
    s.beta = next_u32() & 1 ? 1.0f : 0.0f;
    s.specials = next_u32() % 8 == 0;
    return s;
}

/* the product by libopenblas (one thread) and by attn under each instruction set and 1, 2, 7 threads;
 * the number of elements that differ from OpenBLAS's, in all */
static int64_t compare(const shape *s, int64_t *products)
{
    int64_t acols = s->ta == 'N' ? s->k : s->m, bcols = s->tb == 'N' ? s->n : s->k;
    size_t na = (size_t)(s->lda * acols), nb = (size_t)(s->ldb * bcols), nc = (size_t)(s->ldc * s->n);
    float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *c0 = malloc(nc * sizeof *c0),
          *ref = malloc(nc * sizeof *ref), *got = malloc(nc * sizeof *got);
    assert_true(a && b && c0 && ref && got);
    for (size_t i = 0; i < na; i++)
        a[i] = value(s->specials);
    for (size_t i = 0; i < nb; i++)
        b[i] = value(s->specials);
    for (size_t i = 0; i < nc; i++) /* beta 0: C is never read (a nan would show) */
        c0[i] = s->beta == 0.0f ? NAN : value(s->specials);
    memcpy(ref, c0, nc * sizeof *ref);
    int m = (int)s->m, n = (int)s->n, k = (int)s->k, lda = (int)s->lda, ldb = (int)s->ldb, ldc = (int)s->ldc;
    float one = 1.0f;
    openblas_set_num_threads(1);
    sgemm_(&s->ta, &s->tb, &m, &n, &k, &one, a, &lda, b, &ldb, &s->beta, ref, &ldc);
    int64_t wrong = 0;
    static const attn_isa isas[] = {ATTN_ISA_PORTABLE, ATTN_ISA_AVX2, ATTN_ISA_AVX512, ATTN_ISA_NEON};
    static const int threads[] = {1, 2, 7};
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        if (attn_isa_set(isas[i]))
            continue;
        for (size_t t = 0; t < 3; t++) {
            openblas_set_num_threads(threads[t]); /* attn_threads() follows OpenBLAS's number */
            assert_int_equal(openblas_get_num_threads(), threads[t]);
            memcpy(got, c0, nc * sizeof *got);
            assert_int_equal(attn_sgemm(s->ta, s->tb, s->m, s->n, s->k, a, s->lda, b, s->ldb, s->beta, got, s->ldc),
                             0);
            (*products)++;
            for (int64_t j = 0; j < s->n; j++)
                for (int64_t r = 0; r < s->m; r++)
                    if (!same_bits(got[r + j * s->ldc], ref[r + j * s->ldc])) {
                        if (wrong++ < 5)
                            fprintf(stderr, "# %c%c m=%ld n=%ld k=%ld lda=%ld ldb=%ld ldc=%ld beta=%g %s %d threads: "
                                            "C[%ld,%ld] = %a, OpenBLAS %a\n",
                                    s->ta, s->tb, (long)s->m, (long)s->n, (long)s->k, (long)s->lda, (long)s->ldb,
                                    (long)s->ldc, s->beta, attn_isa_name(isas[i]), threads[t], (long)r, (long)j,
                                    got[r + j * s->ldc], ref[r + j * s->ldc]);
                    }
            /* the padding between columns of C is left as it was */
            for (int64_t j = 0; j < s->n; j++)
                for (int64_t r = s->m; r < s->ldc; r++)
                    if (!same_bits(got[r + j * s->ldc], c0[r + j * s->ldc]))
                        wrong++;
        }
    }
    free(a), free(b), free(c0), free(ref), free(got);
    return wrong;
}

static int reference_runs(void)
{
    const char *core = getenv("OPENBLAS_CORETYPE"), *nt = getenv("OPENBLAS_NUM_THREADS");
    return core && strcmp(core, "Haswell") == 0 && nt && strcmp(nt, "1") == 0;
}

static void check_shapes(int count, int big)
{
    if (!reference_runs())
        skip();
    int64_t wrong = 0, products = 0;
    for (int i = 0; i < count; i++) {
        shape s = random_shape(big);
        wrong += compare(&s, &products);
    }
    fprintf(stderr, "# %ld products by attn, %ld elements differ\n", (long)products, (long)wrong);
    assert_int_equal(wrong, 0);
}

static void test_small_shapes(void **state)
{
    (void)state;
    check_shapes(SHAPES * 9 / 10, 0);
}

static void test_shapes_past_the_blocks(void **state)
{
    (void)state;
    check_shapes(SHAPES / 10, 1);
}

/* every m and n from 1 to 40 and k around the 8-step unrolling, both transposes of A */
static void test_every_edge_tile(void **state)
{
    (void)state;
    if (!reference_runs())
        skip();
    int64_t wrong = 0, products = 0;
    for (int64_t m = 1; m <= 40; m++)
        for (int64_t n = 1; n <= 40; n++) {
            shape s = {.ta = (m + n) & 1 ? 'T' : 'N', .tb = n & 2 ? 'T' : 'N', .m = m, .n = n,
                       .k = 1 + (m * 7 + n) % 19, .beta = (float)(n & 1)};
            s.lda = s.ta == 'N' ? s.m : s.k;
            s.ldb = s.tb == 'N' ? s.k : s.n;
            s.ldc = s.m;
            wrong += compare(&s, &products);
        }
    fprintf(stderr, "# %ld products by attn, %ld elements differ\n", (long)products, (long)wrong);
    assert_int_equal(wrong, 0);
}

/* products large enough to be cut into many jobs for 2 and 7 threads (rows and columns both past the
 * blocks, k past 2Q) */
static void test_products_cut_among_threads(void **state)
{
    (void)state;
    if (!reference_runs())
        skip();
    int64_t wrong = 0, products = 0;
    static const int64_t sizes[][3] = {{700, 300, 70}, {333, 650, 29}, {97, 1100, 650}, {1000, 13, 300}};
    for (int i = 0; i < 4; i++) {
        shape s = {.ta = i & 1 ? 'T' : 'N', .tb = i & 2 ? 'T' : 'N', .m = sizes[i][0], .n = sizes[i][1],
                   .k = sizes[i][2], .beta = (float)(i & 1), .specials = 1};
        s.lda = (s.ta == 'N' ? s.m : s.k) + 3;
        s.ldb = (s.tb == 'N' ? s.k : s.n) + 1;
        s.ldc = s.m + 2;
        wrong += compare(&s, &products);
    }
    fprintf(stderr, "# %ld products by attn, %ld elements differ\n", (long)products, (long)wrong);
    assert_int_equal(wrong, 0);
}

/* more columns than OpenBLAS's R block (104512 here: its 128 MB buffer less a P x Q block of A) */
static void test_columns_past_the_r_block(void **state)
{
    (void)state;
    if (!reference_runs())
        skip();
    int64_t wrong = 0, products = 0;
    static const int64_t ms[] = {1, 24, 16, 40};
    for (int i = 0; i < 8; i++) {
        shape s = {.ta = i & 1 ? 'T' : 'N', .tb = i & 2 ? 'T' : 'N', .m = ms[i % 4], .n = 104512 + uniform(-13, 30),
                   .k = uniform(9, 40), .beta = (float)(i & 1)};
        s.lda = s.ta == 'N' ? s.m : s.k;
        s.ldb = s.tb == 'N' ? s.k : s.n;
        s.ldc = s.m;
        wrong += compare(&s, &products);
    }
    fprintf(stderr, "# %ld products by attn, %ld elements differ\n", (long)products, (long)wrong);
    assert_int_equal(wrong, 0);
}

/* Every instruction set this CPU runs against the portable kernels (the ones checked against OpenBLAS
 * above), on 1, 2 and 7 threads: this part runs on every machine, aarch64's NEON included. */
static void test_every_isa_agrees_with_portable(void **state)
{
    (void)state;
    int64_t wrong = 0, products = 0;
    for (int i = 0; i < SHAPES / 10; i++) {
        shape s = random_shape(i % 10 == 0);
        int64_t acols = s.ta == 'N' ? s.k : s.m, bcols = s.tb == 'N' ? s.n : s.k;
        size_t na = (size_t)(s.lda * acols), nb = (size_t)(s.ldb * bcols), nc = (size_t)(s.ldc * s.n);
        float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *c0 = malloc(nc * sizeof *c0),
              *ref = malloc(nc * sizeof *ref), *got = malloc(nc * sizeof *got);
        assert_true(a && b && c0 && ref && got);
        for (size_t j = 0; j < na; j++)
            a[j] = value(s.specials);
        for (size_t j = 0; j < nb; j++)
            b[j] = value(s.specials);
        for (size_t j = 0; j < nc; j++)
            c0[j] = value(s.specials);
        memcpy(ref, c0, nc * sizeof *ref);
        openblas_set_num_threads(1);
        assert_int_equal(attn_isa_set(ATTN_ISA_PORTABLE), 0);
        assert_int_equal(attn_sgemm(s.ta, s.tb, s.m, s.n, s.k, a, s.lda, b, s.ldb, s.beta, ref, s.ldc), 0);
        static const attn_isa isas[] = {ATTN_ISA_AVX2, ATTN_ISA_AVX512, ATTN_ISA_NEON};
        static const int threads[] = {1, 2, 7};
        for (size_t v = 0; v < sizeof isas / sizeof isas[0]; v++) {
            if (attn_isa_set(isas[v]))
                continue;
            for (size_t t = 0; t < 3; t++) {
                openblas_set_num_threads(threads[t]);
                memcpy(got, c0, nc * sizeof *got);
                assert_int_equal(attn_sgemm(s.ta, s.tb, s.m, s.n, s.k, a, s.lda, b, s.ldb, s.beta, got, s.ldc), 0);
                products++;
                for (size_t j = 0; j < nc; j++)
                    wrong += !same_bits(got[j], ref[j]);
            }
        }
        free(a), free(b), free(c0), free(ref), free(got);
    }
    fprintf(stderr, "# %ld products by attn's vector kernels, %ld elements differ from the portable ones\n",
            (long)products, (long)wrong);
    assert_int_equal(wrong, 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    /* OpenBLAS's Haswell kernels on one thread: set before it loads, so run again with them */
    if (!reference_runs() && attn_isa_runs(ATTN_ISA_AVX2)) {
        setenv("OPENBLAS_CORETYPE", "Haswell", 1);
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        execv("/proc/self/exe", argv);
    }
    if (!reference_runs())
        fprintf(stderr, "# this CPU does not run OpenBLAS's Haswell kernels (AVX2, FMA): the comparisons are "
                        "skipped\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_edge_tile),
        cmocka_unit_test(test_small_shapes),
        cmocka_unit_test(test_shapes_past_the_blocks),
        cmocka_unit_test(test_products_cut_among_threads),
        cmocka_unit_test(test_columns_past_the_r_block),
        cmocka_unit_test(test_every_isa_agrees_with_portable),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
