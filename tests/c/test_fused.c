/* test_fused.c — attn_fused (src/core/fused.c) against attention written out plainly.
 *
 * The reference below computes, in double precision and in the most direct way, scores = q·kᵀ·scale,
 * the causal mask (key j hidden from query i when j > i, top-left aligned as torch.triu(ones(n, m), 1)),
 * a stable softmax (subtract the row max, exp, divide by the sum) and the weighted sum of v. The fused
 * path works in float32 with an online softmax over blocks; on inputs uniform in [-1, 1] the two must
 * agree within 1e-5 (absolute, every element) on each of the seeded random shapes below: n = 1, m = 1,
 * d = 1, d = 64 and 128, n ≠ m both ways, odd sizes that are not multiples of the block sizes,
 * broadcast batch dims, batch·heads above the thread count, split-heads views (x:view(b, n, h, dh)
 * :transpose(2, 3)), column-major and stride-0 views; each with the default blocks and with small odd
 * blocks on 2 or 3 threads. Then the edge cases (empty sizes, nan) and the bad inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fused.h"
#include "refdata.h"
#include "tensor.h"

#define TOLERANCE 1e-5
#define MAX_PRINTED 3

/* ---- inputs -------------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t next_u32(void) /* xorshift64*, seeded above: the same shapes and values every run */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Du) >> 32);
}

static int64_t rand_int(int64_t lo, int64_t hi) /* lo..hi inclusive */
{
    return lo + (int64_t)(next_u32() % (uint32_t)(hi - lo + 1));
}

static float rand_unit(void) /* uniform in [-1, 1] */
{
    return (float)(next_u32() / 4294967296.0 * 2.0 - 1.0);
}

enum layout { CONTIGUOUS, HEADS, COLUMN_MAJOR, ROW_BROADCAST, NLAYOUTS };

/* A [bshape..., rows, cols] tensor of random values stored as `lay` says:
 *   HEADS          memory [bshape[..-1], rows, bshape[-1], cols], the last batch dim swapped in
 *                  (the book's split heads); like CONTIGUOUS when there is no batch dim
 *   COLUMN_MAJOR   memory [bshape..., cols, rows], the last two dims transposed
 *   ROW_BROADCAST  one row expanded to all rows (row stride 0: the fused path has to copy it) */
static attn_tensor *make_input(int nb, const int64_t *bshape, int64_t rows, int64_t cols, enum layout lay)
{
    attn_error err;
    int64_t mem[ATTN_MAX_DIMS], want[ATTN_MAX_DIMS];
    for (int d = 0; d < nb; d++)
        mem[d] = want[d] = bshape[d];
    want[nb] = mem[nb] = rows;
    want[nb + 1] = mem[nb + 1] = cols;
    if (lay == HEADS && nb > 0) {
        mem[nb - 1] = rows;
        mem[nb] = bshape[nb - 1];
    } else if (lay == COLUMN_MAJOR) {
        mem[nb] = cols;
        mem[nb + 1] = rows;
    } else if (lay == ROW_BROADCAST) {
        mem[nb] = 1;
    }
    attn_tensor *t = attn_empty("test", nb + 2, mem, ATTN_FLOAT32, &err);
    assert_non_null(t);
    for (int64_t i = 0; i < attn_numel(t); i++)
        t->storage->data[i] = rand_unit();
    attn_tensor *view = NULL;
    if (lay == HEADS && nb > 0)
        view = attn_transpose(t, nb - 1, nb, &err);
    else if (lay == COLUMN_MAJOR)
        view = attn_transpose(t, nb, nb + 1, &err);
    else if (lay == ROW_BROADCAST)
        view = attn_expand(t, nb + 2, want, &err);
    if (view) {
        attn_free(t);
        t = view;
    }
    assert_non_null(t);
    return t;
}

/* All elements of t broadcast to [bshape..., rows, cols], row-major, as a plain array. */
static float *plain(const attn_tensor *t, int nb, const int64_t *bshape)
{
    attn_error err;
    int64_t shape[ATTN_MAX_DIMS];
    for (int d = 0; d < nb; d++)
        shape[d] = bshape[d];
    shape[nb] = t->shape[t->ndim - 2];
    shape[nb + 1] = t->shape[t->ndim - 1];
    attn_tensor *e = attn_expand(t, nb + 2, shape, &err);
    assert_non_null(e);
    float *out = malloc(sizeof(float) * (size_t)(attn_numel(e) > 0 ? attn_numel(e) : 1));
    assert_non_null(out);
    attn_copy_out(e, out);
    attn_free(e);
    return out;
}

/* ---- the reference ------------------------------------------------------------------------------ */

/* out[b][i][:] = Σ_j softmax_j(scale · q[b][i]·k[b][j], j > i hidden when causal) v[b][j][:] */
static void reference(const float *q, const float *k, const float *v, int64_t batches, int64_t n, int64_t m,
                      int64_t d, int64_t dv, int causal, double scale, double *out)
{
    double *s = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1));
    assert_non_null(s);
    for (int64_t b = 0; b < batches; b++)
        for (int64_t i = 0; i < n; i++) {
            const float *qi = q + (b * n + i) * d;
            double *o = out + (b * n + i) * dv;
            int64_t visible = causal ? (i + 1 < m ? i + 1 : m) : m; /* keys 0 .. visible-1 */
            double max = -INFINITY, sum = 0;
            for (int64_t j = 0; j < visible; j++) {
                const float *kj = k + (b * m + j) * d;
                double dot = 0;
                for (int64_t c = 0; c < d; c++)
                    dot += (double)qi[c] * kj[c];
                s[j] = dot * scale;
                if (s[j] > max)
                    max = s[j];
            }
            for (int64_t j = 0; j < visible; j++) {
                s[j] = exp(s[j] - max);
                sum += s[j];
            }
            for (int64_t c = 0; c < dv; c++)
                o[c] = 0;
            for (int64_t j = 0; j < visible; j++)
                for (int64_t c = 0; c < dv; c++)
                    o[c] += s[j] / sum * v[(b * m + j) * dv + c];
        }
    free(s);
}

/* ---- one case ---------------------------------------------------------------------------------- */

typedef struct shape_case {
    int nb;
    int64_t bq[ATTN_MAX_DIMS], bk[ATTN_MAX_DIMS], bv[ATTN_MAX_DIMS]; /* batch dims (1 = broadcast) */
    int64_t n, m, d, dv;
    int causal;
    enum layout lq, lk, lv;
    int threads, block_q, block_k; /* attn_fused_config */
} shape_case;

static void describe(const shape_case *c, char *buf, size_t size)
{
    char b[64] = "";
    for (int i = 0; i < c->nb; i++)
        snprintf(b + strlen(b), sizeof b - strlen(b), "%lld/%lld/%lld,", (long long)c->bq[i], (long long)c->bk[i],
                 (long long)c->bv[i]);
    snprintf(buf, size, "batch q/k/v [%s] n=%lld m=%lld d=%lld dv=%lld causal=%d layouts %d%d%d config %d,%d,%d", b,
             (long long)c->n, (long long)c->m, (long long)c->d, (long long)c->dv, c->causal, c->lq, c->lk, c->lv,
             c->threads, c->block_q, c->block_k);
}

/* Runs one case; returns the largest |fused - reference|, fails the test past TOLERANCE. */
static double run_case(const shape_case *c, int *printed)
{
    attn_error err;
    int64_t bshape[ATTN_MAX_DIMS], batches = 1;
    for (int i = 0; i < c->nb; i++) {
        bshape[i] = c->bq[i] > 1 ? c->bq[i] : c->bk[i] > 1 ? c->bk[i] : c->bv[i];
        batches *= bshape[i];
    }
    attn_tensor *q = make_input(c->nb, c->bq, c->n, c->d, c->lq);
    attn_tensor *k = make_input(c->nb, c->bk, c->m, c->d, c->lk);
    attn_tensor *v = make_input(c->nb, c->bv, c->m, c->dv, c->lv);
    attn_fused_config(c->threads, c->block_q, c->block_k);
    attn_tensor *out = attn_fused(q, k, v, c->causal, NAN, &err);
    attn_fused_config(0, 0, 0);
    char what[256];
    describe(c, what, sizeof what);
    if (!out)
        fail_msg("%s: %s", what, err.msg);
    assert_int_equal(out->ndim, c->nb + 2);
    for (int i = 0; i < c->nb; i++)
        assert_int_equal(out->shape[i], bshape[i]);
    assert_int_equal(out->shape[c->nb], c->n);
    assert_int_equal(out->shape[c->nb + 1], c->dv);

    float *pq = plain(q, c->nb, bshape), *pk = plain(k, c->nb, bshape), *pv = plain(v, c->nb, bshape);
    float *got = plain(out, c->nb, bshape);
    int64_t total = batches * c->n * c->dv;
    double *want = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    assert_non_null(want);
    reference(pq, pk, pv, batches, c->n, c->m, c->d, c->dv, c->causal, 1.0 / sqrt((double)c->d), want);
    double worst = 0;
    for (int64_t i = 0; i < total; i++) {
        double diff = fabs((double)got[i] - want[i]);
        if (!(diff <= TOLERANCE) && (*printed)++ < MAX_PRINTED)
            print_message("# %s: element %lld is %.9g, the reference says %.9g\n", what, (long long)i, got[i], want[i]);
        if (!(diff <= worst))
            worst = diff;
    }
    free(pq);
    free(pk);
    free(pv);
    free(got);
    free(want);
    attn_free(q);
    attn_free(k);
    attn_free(v);
    attn_free(out);
    return worst;
}

static int64_t pick(const int64_t *choices, int n)
{
    return choices[rand_int(0, n - 1)];
}

/* Case i of the random set: sizes from lists that hold the edge values, batch dims that sometimes
 * broadcast, a layout per input, and one of three block configurations. */
static void random_case(int i, shape_case *c)
{
    static const int64_t sizes[] = {1, 1, 2, 3, 5, 7, 8, 9, 16, 17, 31, 33, 64, 100, 127, 129, 200};
    static const int64_t dims[] = {1, 2, 3, 4, 7, 8, 16, 31, 64, 64, 128};
    memset(c, 0, sizeof *c);
    c->nb = (int)rand_int(0, 3);
    for (int b = 0; b < c->nb; b++) {
        int64_t size = rand_int(1, 4);
        int broadcast = (int)rand_int(0, 5); /* 0: k and v broadcast, 1: q broadcasts, else all equal */
        c->bq[b] = broadcast == 1 ? 1 : size;
        c->bk[b] = c->bv[b] = broadcast == 0 ? 1 : size;
    }
    c->n = pick(sizes, 17);
    c->m = pick(sizes, 17);
    c->d = pick(dims, 11);
    c->dv = pick(dims, 11);
    c->causal = (int)rand_int(0, 1);
    c->lq = (enum layout)rand_int(0, NLAYOUTS - 1);
    c->lk = (enum layout)rand_int(0, NLAYOUTS - 1);
    c->lv = (enum layout)rand_int(0, NLAYOUTS - 1);
    if (i % 3 == 1)
        c->threads = 3, c->block_q = 16, c->block_k = 24;
    else if (i % 3 == 2)
        c->threads = 2, c->block_q = 7, c->block_k = 5;
}

static void test_random_shapes(void **state)
{
    int printed = 0, count = 0;
    double worst = 0;
    for (int i = 0; i < 60; i++, count++) {
        shape_case c;
        random_case(i, &c);
        double w = run_case(&c, &printed);
        if (!(w <= worst))
            worst = w;
    }
    print_message("# %d random shapes: largest |fused - reference| = %.3g (tolerance %g)\n", count, worst, TOLERANCE);
    assert_true(worst <= TOLERANCE);
}

/* The shapes the issue names, each causal and not, with the default and the small blocks. */
static void test_named_shapes(void **state)
{
    static const struct { int64_t b, h, n, m, d, dv; } named[] = {
        {1, 1, 1, 1, 1, 1},       /* n = m = d = 1 */
        {2, 3, 1, 9, 5, 4},       /* one query */
        {2, 3, 9, 1, 5, 4},       /* one key: causal leaves every row its key 0 */
        {1, 2, 37, 53, 64, 64},   /* n < m */
        {1, 2, 53, 37, 128, 128}, /* n > m */
        {2, 12, 40, 40, 64, 64},  /* 24 batch·heads, more than the threads */
        {1, 1, 300, 300, 64, 32}, /* several default blocks (128), odd end */
        {1, 1, 129, 257, 1, 3},   /* d = 1 */
    };
    int printed = 0;
    double worst = 0;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        for (int variant = 0; variant < 4; variant++) {
            shape_case c;
            memset(&c, 0, sizeof c);
            c.nb = 2;
            c.bq[0] = c.bk[0] = c.bv[0] = named[i].b;
            c.bq[1] = c.bk[1] = c.bv[1] = named[i].h;
            c.n = named[i].n, c.m = named[i].m, c.d = named[i].d, c.dv = named[i].dv;
            c.causal = variant & 1;
            c.lq = c.lk = c.lv = HEADS;
            if (variant & 2)
                c.threads = 3, c.block_q = 16, c.block_k = 24;
            double w = run_case(&c, &printed);
            if (!(w <= worst))
                worst = w;
        }
    print_message("# named shapes: largest |fused - reference| = %.3g (tolerance %g)\n", worst, TOLERANCE);
    assert_true(worst <= TOLERANCE);
}

/* Each task is computed whole by one thread, so the thread count does not change a bit. */
static void test_threads_do_not_change_bits(void **state)
{
    attn_error err;
    int64_t b[2] = {2, 5};
    attn_tensor *q = make_input(2, b, 70, 16, HEADS), *k = make_input(2, b, 90, 16, HEADS);
    attn_tensor *v = make_input(2, b, 90, 8, HEADS);
    attn_fused_config(1, 16, 16);
    attn_tensor *one = attn_fused(q, k, v, 1, NAN, &err);
    attn_fused_config(3, 16, 16);
    attn_tensor *three = attn_fused(q, k, v, 1, NAN, &err);
    attn_fused_config(0, 0, 0);
    assert_non_null(one);
    assert_non_null(three);
    for (int64_t i = 0; i < attn_numel(one); i++)
        assert_true(float_to_bits(attn_get_flat(one, i)) == float_to_bits(attn_get_flat(three, i)));
    attn_free(q), attn_free(k), attn_free(v), attn_free(one), attn_free(three);
}

/* [b, h, n, d] in, [b, h, n, dv] out, stored as [b, n, h, dv]: merging the heads copies nothing. */
static void test_result_layout(void **state)
{
    attn_error err;
    int64_t b[2] = {2, 3};
    attn_tensor *q = make_input(2, b, 4, 5, HEADS), *k = make_input(2, b, 6, 5, CONTIGUOUS);
    attn_tensor *v = make_input(2, b, 6, 7, COLUMN_MAJOR);
    attn_tensor *out = attn_fused(q, k, v, 0, NAN, &err);
    assert_non_null(out);
    attn_tensor *merged = attn_transpose(out, 1, 2, &err);
    assert_true(attn_is_contiguous(merged));
    attn_free(q), attn_free(k), attn_free(v), attn_free(out), attn_free(merged);
}

/* ---- edge cases and bad input ------------------------------------------------------------------- */

static attn_tensor *filled(int ndim, const int64_t *shape, float value)
{
    attn_error err;
    attn_tensor *t = attn_full("test", ndim, shape, value, &err);
    assert_non_null(t);
    return t;
}

static void test_edge_cases(void **state)
{
    attn_error err;
    /* no keys: the weighted sum of nothing is 0, as the staged matmul [n, 0]·[0, dv] gives */
    int64_t s23[2] = {2, 3}, s03[2] = {0, 3}, s04[2] = {0, 4}, s30[2] = {3, 0}, s20[2] = {2, 0};
    attn_tensor *q = filled(2, s23, 0.5f), *k = filled(2, s03, 1), *v = filled(2, s04, 1);
    attn_tensor *out = attn_fused(q, k, v, 1, NAN, &err);
    assert_non_null(out);
    assert_int_equal(out->shape[0], 2);
    assert_int_equal(out->shape[1], 4);
    for (int64_t i = 0; i < 8; i++)
        assert_true(attn_get_flat(out, i) == 0.0f);
    attn_free(q), attn_free(k), attn_free(v), attn_free(out);

    /* no queries, or dv = 0: an empty result of the right shape */
    q = filled(2, s03, 1), k = filled(2, s23, 1), v = filled(2, s20, 1);
    out = attn_fused(q, k, v, 0, NAN, &err);
    assert_non_null(out);
    assert_int_equal(out->shape[0], 0);
    assert_int_equal(out->shape[1], 0);
    attn_free(q), attn_free(k), attn_free(v), attn_free(out);

    /* d = 0: every score is 0 · 1/sqrt(0) = nan, as the staged scores / sqrt(0) */
    q = filled(2, s30, 1), k = filled(2, s20, 1), v = filled(2, s23, 1);
    out = attn_fused(q, k, v, 0, NAN, &err);
    assert_non_null(out);
    assert_true(isnan(attn_get_flat(out, 0)));
    attn_free(out);
    /* ... and with an explicit scale, uniform weights: the mean of v */
    out = attn_fused(q, k, v, 0, 1.0, &err);
    assert_non_null(out);
    assert_true(attn_get_flat(out, 0) == 1.0f);
    attn_free(q), attn_free(k), attn_free(v), attn_free(out);

    /* a nan in one query row makes that row nan (softmax of a row with a nan), the others stay finite */
    int64_t b1[1] = {1};
    q = make_input(1, b1, 5, 4, CONTIGUOUS), k = make_input(1, b1, 6, 4, CONTIGUOUS);
    v = make_input(1, b1, 6, 3, CONTIGUOUS);
    q->storage->data[2 * 4 + 1] = NAN;
    out = attn_fused(q, k, v, 0, NAN, &err);
    assert_non_null(out);
    for (int64_t i = 0; i < 5 * 3; i++)
        assert_true(i / 3 == 2 ? isnan(attn_get_flat(out, i)) : isfinite(attn_get_flat(out, i)));
    attn_free(out);
    /* a scale of 0: uniform weights over the visible keys */
    out = attn_fused(q, k, v, 1, 0.0, &err);
    assert_non_null(out);
    for (int64_t c = 0; c < 3; c++) /* row 0 sees key 0 only */
        assert_true(attn_get_flat(out, c) == v->storage->data[c]);
    attn_free(q), attn_free(k), attn_free(v), attn_free(out);
}

static void expect_error(const attn_tensor *q, const attn_tensor *k, const attn_tensor *v, const char *want)
{
    attn_error err = {{0}};
    attn_tensor *out = attn_fused(q, k, v, 0, NAN, &err);
    if (out)
        fail_msg("expected the error \"%s\", got a result", want);
    if (!strstr(err.msg, want) || strncmp(err.msg, "attention.fused: ", 17) != 0)
        fail_msg("expected an error starting \"attention.fused: \" and containing \"%s\", got \"%s\"", want, err.msg);
}

static void test_bad_input(void **state)
{
    attn_error err;
    int64_t s3[1] = {3}, s253[3] = {2, 5, 3}, s264[3] = {2, 6, 4}, s263[3] = {2, 6, 3}, s273[3] = {2, 7, 3};
    int64_t s363[3] = {3, 6, 3}, s53[2] = {5, 3};
    attn_tensor *vec = filled(1, s3, 1), *q = filled(3, s253, 1), *k4 = filled(3, s264, 1);
    attn_tensor *k = filled(3, s263, 1), *v7 = filled(3, s273, 1), *k3 = filled(3, s363, 1);
    attn_tensor *mask = attn_empty("test", 2, s53, ATTN_BOOL, &err);
    assert_non_null(mask);
    expect_error(vec, k, k, "q must be [..., n, d] with at least 2 dims, got [3]");
    expect_error(q, vec, k, "k must be [..., m, d] with at least 2 dims, got [3]");
    expect_error(q, k, vec, "v must be [..., m, dv] with at least 2 dims, got [3]");
    expect_error(q, k4, k4, "q [2, 5, 3] and k [2, 6, 4] must have the same last dim d (3 ≠ 4)");
    expect_error(q, k, v7, "k [2, 6, 3] and v [2, 7, 3] must have the same number of keys m, their dim -2 (6 ≠ 7)");
    expect_error(q, k3, k3, "the leading (batch) dims of q [2, 5, 3], k [3, 6, 3] and v [3, 6, 3] cannot be broadcast");
    expect_error(mask, k, k, "q must be a float tensor, got a bool tensor [5, 3]");

    /* huge sizes fail on allocation, cleanly: a [2^20, 2^20, 8] view of one number needs 32 TB out */
    int64_t one[3] = {1, 1, 1}, huge[3] = {1 << 20, 1 << 20, 8};
    attn_tensor *x = filled(3, one, 1), *big = attn_expand(x, 3, huge, &err);
    assert_non_null(big);
    attn_tensor *out = attn_fused(big, big, big, 1, NAN, &err);
    assert_null(out);
    assert_true(strncmp(err.msg, "attention.fused: ", 17) == 0);
    attn_free(vec), attn_free(q), attn_free(k4), attn_free(k), attn_free(v7), attn_free(k3), attn_free(mask);
    attn_free(x), attn_free(big);
}

/* Ctrl-C: the workers stop at their next block and the call fails with "interrupted". */
static void test_interrupt(void **state)
{
    attn_error err;
    int64_t b[1] = {16};
    attn_tensor *q = make_input(1, b, 200, 32, CONTIGUOUS);
    attn_interrupt_requested = 1;
    attn_fused_config(2, 16, 16);
    attn_tensor *out = attn_fused(q, q, q, 1, NAN, &err);
    attn_fused_config(0, 0, 0);
    attn_interrupt_requested = 0;
    assert_null(out);
    assert_string_equal(err.msg, "interrupted");
    attn_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_shapes),
        cmocka_unit_test(test_named_shapes),
        cmocka_unit_test(test_threads_do_not_change_bits),
        cmocka_unit_test(test_result_layout),
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_interrupt),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
