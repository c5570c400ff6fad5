/* test_rng.c — src/core/rng.c against numbers PyTorch itself printed.
 *
 * The expected values come from the files in tests/data/torch/ (made by scripts/gen-torch-reference.sh with
 * Debian's python3-torch, a build without MKL) and from the facts in src/core/NOTES.md;
 * never from this C code. Run from the repository root. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refdata.h"
#include "rng.h"

/* Normals from 16 elements up go through PyTorch's AVX2 kernel (avx_mathfun's log and sincos), which attn
 * reproduces bit for bit on every machine (boxmuller.c); fewer than 16 take the scalar float64 path. Both
 * must match bit for bit everywhere. */

/* ---- comparisons ------------------------------------------------------------------------------- */

/* torch.randn/normal of n values: bit for bit. */
static void expect_normals(const char *line, const float *want, const float *got, int64_t n)
{
    expect_bits(line, want, got, n);
}

/* Checks values printed to 4 decimals, as the books show them. */
static void expect_4dp(const char *what, const double *want, const float *got, int n)
{
    for (int i = 0; i < n; i++)
        if (!(fabs(want[i] - (double)got[i]) <= 0.5e-4 + 1e-7))
            fail_msg("%s element %d: expected %.4f, attn %.6f", what, i, want[i], (double)got[i]);
}

/* ---- facts from the reference document and the books --------------------------------------------- */

/* Must run first: nothing has seeded the generator yet. A fresh torch.Generator() starts from
 * default_rng_seed_val; rand.txt records its first torch.rand(6). */
static void check_default_rand(const ref_line *l, void *ctx)
{
    char buf[32];
    if (key_str(l->keys, "seed", buf, sizeof buf) == NULL || strcmp(buf, "default") != 0)
        return;
    assert_true(key_u64(l->keys, "initial_seed") == attn_initial_seed());
    int64_t n;
    float *want = parse_f32s(l->vals, &n);
    float got[64];
    assert_int_equal(n, key_numel(l->keys, "shape"));
    attn_rand_fill(got, n);
    expect_bits(l->line, want, got, n);
    free(want);
}

static void test_defaults_before_any_seed(void **state)
{
    (void)state;
    assert_int_equal(attn_get_bernoulli_flavor(), ATTN_BERNOULLI_MKL);
    assert_true(attn_initial_seed() == UINT64_C(67280421310721));
    assert_int_equal(for_each_case(REF_DIR "rand.txt", "rand", check_default_rand, NULL), 43);
}

static void test_first_u32_after_seed_123(void **state)
{
    (void)state;
    attn_manual_seed(123);
    assert_int_equal(attn_rng_u32(), 2991312382u);
    assert_true(attn_initial_seed() == 123);
}

static void test_book_rand_seed_123(void **state)
{
    (void)state;
    static const double want[6] = {0.2961, 0.5166, 0.2517, 0.6886, 0.0740, 0.8665};
    float got[6];
    attn_manual_seed(123);
    attn_rand_fill(got, 6);
    expect_4dp("seed 123 torch.rand(3, 2)", want, got, 6);
}

/* weight of nn.Linear(in, out): uniform_(-bound, bound) with kaiming_uniform_'s bound, computed the way
 * torch/nn/init.py does (gain = calculate_gain('leaky_relu', sqrt(5)) = sqrt(2 / (1 + sqrt(5)**2))). */
static double kaiming_bound(int64_t fan_in)
{
    double a = sqrt(5.0);
    double gain = sqrt(2.0 / (1 + a * a));
    double std = gain / sqrt((double)fan_in);
    return sqrt(3.0) * std;
}

/* Fills out with the parameters of nn.Linear(in, out, bias) in creation order; returns the count. */
static int64_t linear_init(float *out, int64_t in, int64_t outf, int bias)
{
    double bound = kaiming_bound(in);
    attn_uniform_fill(out, in * outf, -bound, bound);
    if (!bias)
        return in * outf;
    double bias_bound = 1 / sqrt((double)in);
    attn_uniform_fill(out + in * outf, outf, -bias_bound, bias_bound);
    return in * outf + outf;
}

static void test_book_linear_seed_789(void **state)
{
    (void)state;
    static const double want[6] = {0.3161, 0.4568, 0.5118, -0.1683, -0.3379, -0.0918};
    float got[6];
    attn_manual_seed(789);
    assert_int_equal(linear_init(got, 3, 2, 0), 6);
    expect_4dp("seed 789 nn.Linear(3, 2, bias=False).weight", want, got, 6);
}

/* pytorch-rng.md: seed 123, nn.Dropout(0.5)(torch.ones(6, 6)) in the "mkl" flavour; ch. 3 prints
 * the same 6x6 as 2s and 0s. There is no MKL build here to ask, so these rows are the reference. */
static void test_mkl_dropout_seed_123(void **state)
{
    (void)state;
    static const char *rows[6] = {"222222", "020000", "002020", "220002", "200002", "020000"};
    float keep[36];
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_MKL);
    attn_manual_seed(123);
    attn_bernoulli_fill(keep, 36, 1.0 - 0.5);
    for (int i = 0; i < 36; i++) {
        float out = 1.0f * keep[i] * (float)(1.0 / (1.0 - 0.5)); /* what the printed tensor shows */
        float want = rows[i / 6][i % 6] == '2' ? 2.0f : 0.0f;
        if (out != want)
            fail_msg("mkl dropout seed 123 row %d col %d: expected %g, attn %g", i / 6, i % 6,
                     (double)want, (double)out);
    }
    /* one u32 seeds the whole mask, whatever its size: the next draw is the stream's second u32 */
    uint32_t after = attn_rng_u32();
    attn_manual_seed(123);
    (void)attn_rng_u32();
    assert_int_equal(after, attn_rng_u32());
}

static void test_default_dropout_rows_from_reference(void **state)
{
    (void)state;
    static const char *rows[6] = {"220220", "000202", "222202", "022002", "020202", "022220"};
    float keep[36];
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_DEFAULT);
    attn_manual_seed(123);
    attn_bernoulli_fill(keep, 36, 0.5);
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_MKL);
    for (int i = 0; i < 36; i++)
        if ((keep[i] != 0.0f) != (rows[i / 6][i % 6] == '2'))
            fail_msg("default dropout seed 123 row %d col %d", i / 6, i % 6);
}

/* ---- against PyTorch's files ------------------------------------------------------------------- */

/* A file of n draws after torch.manual_seed(seed), and how attn makes them. */
typedef struct {
    const char *size_key;                                  /* "shape" (a,b,...) or "n" */
    void (*draw)(const char *keys, float *out, int64_t n); /* called after attn_manual_seed(seed) */
    int normals;                                           /* compared as expect_normals does */
} draw_kind;

static void draw_rand(const char *keys, float *out, int64_t n)
{
    assert_true(attn_initial_seed() == key_u64(keys, "seed"));
    attn_rand_fill(out, n);
}

static void draw_uniform(const char *keys, float *out, int64_t n)
{
    attn_uniform_fill(out, n, key_double(keys, "a"), key_double(keys, "b"));
}

static void draw_randn(const char *keys, float *out, int64_t n)
{
    attn_randn_fill(out, n);
}

static void draw_normal(const char *keys, float *out, int64_t n)
{
    attn_normal_fill(out, n, key_double(keys, "mean"), key_double(keys, "std"));
}

/* One line of a draw_kind's file (ctx); seed=default lines belong to test_defaults_before_any_seed. */
static void check_draws(const ref_line *l, void *ctx)
{
    const draw_kind *k = ctx;
    char buf[32];
    if (strcmp(need_key(l->keys, "seed", buf, sizeof buf), "default") == 0)
        return;
    int64_t n;
    float *want = parse_f32s(l->vals, &n);
    assert_int_equal(n, key_numel(l->keys, k->size_key));
    float *got = calloc((size_t)n, sizeof(float));
    attn_manual_seed(key_u64(l->keys, "seed"));
    k->draw(l->keys, got, n);
    if (k->normals)
        expect_normals(l->line, want, got, n);
    else
        expect_bits(l->line, want, got, n);
    free(want);
    free(got);
}

static void test_rand_matches_torch(void **state)
{
    (void)state;
    draw_kind k = {"shape", draw_rand, 0};
    assert_int_equal(for_each_case(REF_DIR "rand.txt", "rand", check_draws, &k), 43);
}

static void test_uniform_matches_torch(void **state)
{
    (void)state;
    draw_kind k = {"n", draw_uniform, 0};
    assert_int_equal(for_each_case(REF_DIR "uniform.txt", "uniform", check_draws, &k), 84);
}

static void test_randn_matches_torch(void **state)
{
    (void)state;
    draw_kind k = {"n", draw_randn, 1};
    assert_int_equal(for_each_case(REF_DIR "randn.txt", "randn", check_draws, &k), 56);
}

static void test_normal_matches_torch(void **state)
{
    (void)state;
    draw_kind k = {"n", draw_normal, 1};
    assert_int_equal(for_each_case(REF_DIR "normal.txt", "normal", check_draws, &k), 28);
}

static void check_randint(const ref_line *l, void *ctx)
{
    int64_t n = key_int(l->keys, "n");
    int64_t *want = calloc((size_t)n, sizeof(int64_t));
    int64_t *got = calloc((size_t)n, sizeof(int64_t));
    const char *p = l->vals;
    for (int64_t i = 0; i < n; i++) {
        char *end;
        want[i] = strtoll(p, &end, 10);
        assert_true(end != p);
        p = end;
    }
    attn_error err = {{0}};
    attn_manual_seed(key_u64(l->keys, "seed"));
    assert_int_equal(attn_randint_fill(got, n, key_int(l->keys, "low"), key_int(l->keys, "high"), &err), 0);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: element %lld: expected %lld, got %lld", l->line, (long long)i, (long long)want[i],
                     (long long)got[i]);
    free(want);
    free(got);
}

static void test_randint_matches_torch(void **state)
{
    (void)state;
    assert_int_equal(for_each_case(REF_DIR "randint.txt", "randint", check_randint, NULL), 28);
}

/* ops=kind:n[:args],... after one seed; every element bit for bit. */
static void check_sequence(const ref_line *l, void *ctx)
{
    int64_t n;
    float *want = parse_f32s(l->vals, &n);
    float *got = calloc((size_t)n, sizeof(float));
    char ops[256];
    need_key(l->keys, "ops", ops, sizeof ops);
    attn_manual_seed(key_u64(l->keys, "seed"));
    int64_t at = 0;
    for (char *op = strtok(ops, ","); op != NULL; op = strtok(NULL, ",")) {
        char kind[16];
        double args[3] = {0, 0, 0};
        int nargs = 0;
        char *colon = strchr(op, ':');
        assert_non_null(colon);
        snprintf(kind, sizeof kind, "%.*s", (int)(colon - op), op);
        for (char *p = colon; p != NULL && *p == ':' && nargs < 3; p = strchr(p + 1, ':'))
            args[nargs++] = strtod(p + 1, NULL);
        int64_t k = (int64_t)args[0];
        assert_true(at + k <= n);
        attn_error err = {{0}};
        if (strcmp(kind, "randn") == 0) {
            attn_randn_fill(got + at, k);
        } else if (strcmp(kind, "normal") == 0) {
            attn_normal_fill(got + at, k, args[1], args[2]);
        } else if (strcmp(kind, "rand") == 0) {
            attn_rand_fill(got + at, k);
        } else if (strcmp(kind, "uniform") == 0) {
            attn_uniform_fill(got + at, k, args[1], args[2]);
        } else if (strcmp(kind, "randint") == 0) { /* compared as floats: small ints are exact there */
            int64_t ints[64];
            assert_true(k <= 64);
            assert_int_equal(attn_randint_fill(ints, k, (int64_t)args[1], (int64_t)args[2], &err), 0);
            for (int64_t i = 0; i < k; i++)
                got[at + i] = (float)ints[i];
        } else {
            fail_msg("unknown op %s in %s", kind, l->line);
        }
        at += k;
    }
    assert_int_equal(at, n);
    for (int64_t i = 0; i < n; i++)
        expect_bits(l->line, want + i, got + i, 1);
    free(want);
    free(got);
}

static void test_sequences_match_torch(void **state)
{
    (void)state;
    assert_int_equal(for_each_case(REF_DIR "sequence.txt", "sequence", check_sequence, NULL), 6);
}

/* Reads the layer "INxOUT{b|n}" at *p of a layers= list and moves *p past it and its comma; 0 at the end. */
static int next_layer(const char **p, int64_t *in, int64_t *outf, int *bias)
{
    if (**p == '\0')
        return 0;
    char *end;
    *in = strtoll(*p, &end, 10);
    *outf = strtoll(end + 1, &end, 10);
    *bias = *end == 'b';
    *p = end[1] == ',' ? end + 2 : end + 1;
    return 1;
}

/* layers=INxOUT{b|n},... created one after another; values are every parameter in creation order
 * (or only its first `head` and last `tail`). */
static void check_linear(const ref_line *l, void *ctx)
{
    int64_t n;
    float *want = parse_f32s(l->vals, &n);
    char layers[256], buf[16];
    need_key(l->keys, "layers", layers, sizeof layers);
    int64_t total = 0, in, outf;
    int bias;
    for (const char *p = layers; next_layer(&p, &in, &outf, &bias);)
        total += in * outf + (bias ? outf : 0);
    float *got = calloc((size_t)total, sizeof(float));
    attn_manual_seed(key_u64(l->keys, "seed"));
    int64_t at = 0;
    for (const char *p = layers; next_layer(&p, &in, &outf, &bias);)
        at += linear_init(got + at, in, outf, bias);
    assert_int_equal(at, total);
    if (key_str(l->keys, "head", buf, sizeof buf) != NULL) {
        int64_t head = key_int(l->keys, "head"), tail = key_int(l->keys, "tail");
        assert_int_equal(n, head + tail);
        expect_bits(l->line, want, got, head);
        expect_bits(l->line, want + head, got + total - tail, tail);
    } else {
        assert_int_equal(n, total);
        expect_bits(l->line, want, got, n);
    }
    free(want);
    free(got);
}

static void test_linear_init_matches_torch(void **state)
{
    (void)state;
    assert_int_equal(for_each_case(REF_DIR "linear.txt", "linear", check_linear, NULL), 10);
}

static void check_kaiming(const ref_line *l, void *ctx)
{
    int64_t in = key_int(l->keys, "in");
    char padded[512];
    snprintf(padded, sizeof padded, " %s", l->vals); /* the values here are key=value too */
    double bound = kaiming_bound(in), bias_bound = 1 / sqrt((double)in);
    if (bound != key_double(padded, "bound") || bias_bound != key_double(padded, "bias_bound"))
        fail_msg("%s\n  attn bound %a, bias bound %a", l->line, bound, bias_bound);
    char buf[32];
    assert_int_equal(float_to_bits((float)bound),
                     (uint32_t)strtoul(need_key(padded, "bound_f32", buf, sizeof buf), NULL, 16));
    assert_int_equal(float_to_bits((float)bias_bound),
                     (uint32_t)strtoul(need_key(padded, "bias_bound_f32", buf, sizeof buf), NULL, 16));
    /* the brief's shortcut sqrt(2 / (1 + 5)) gives the same double */
    assert_true(sqrt(3.0) * (sqrt(2.0 / (1 + 5)) / sqrt((double)in)) == bound);
}

static void test_kaiming_bounds_match_torch(void **state)
{
    (void)state;
    assert_int_equal(for_each_case(REF_DIR "kaiming.txt", "kaiming", check_kaiming, NULL), 4);
}

static void check_dropout(const ref_line *l, void *ctx)
{
    int64_t n = key_numel(l->keys, "shape");
    assert_int_equal((int64_t)strlen(l->vals), n);
    float *keep = calloc((size_t)n, sizeof(float));
    attn_manual_seed(key_u64(l->keys, "seed"));
    attn_bernoulli_fill(keep, n, 1.0 - key_double(l->keys, "p")); /* native_dropout: bernoulli_(1 - p) */
    for (int64_t i = 0; i < n; i++) {
        if (keep[i] != 0.0f && keep[i] != 1.0f)
            fail_msg("%s\n  element %lld is %g, not 0 or 1", l->line, (long long)i, (double)keep[i]);
        if ((keep[i] == 1.0f) != (l->vals[i] == '1'))
            fail_msg("%s\n  element %lld: torch %s, attn %s", l->line, (long long)i,
                     l->vals[i] == '1' ? "kept" : "dropped", keep[i] == 1.0f ? "kept" : "dropped");
    }
    free(keep);
}

static void test_default_dropout_matches_torch(void **state)
{
    (void)state;
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_DEFAULT);
    int count = for_each_case(REF_DIR "dropout.txt", "dropout", check_dropout, NULL);
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_MKL);
    assert_int_equal(count, 36);
}

/* ---- state and errors -------------------------------------------------------------------------- */

/* Draws a bit of everything after the state was taken; rewinding must give all of it again. */
static void draw_mix(float *out)
{
    attn_error err = {{0}};
    attn_randn_fill(out, 1); /* the cached r*sin left by the randn(3) before the state was taken */
    attn_randn_fill(out + 1, 3);
    attn_rand_fill(out + 4, 5);
    attn_randn_fill(out + 9, 20);
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_DEFAULT);
    attn_bernoulli_fill(out + 29, 10, 0.5);
    attn_set_bernoulli_flavor(ATTN_BERNOULLI_MKL);
    attn_bernoulli_fill(out + 39, 10, 0.5);
    int64_t ints[5];
    assert_int_equal(attn_randint_fill(ints, 5, 0, 1000, &err), 0);
    for (int i = 0; i < 5; i++)
        out[49 + i] = (float)ints[i];
    /* 54 values; the rest of the 700 walks the engine past a twist of its 624 words */
    attn_rand_fill(out + 54, 646);
}

static void test_state_save_restore_rewinds(void **state)
{
    (void)state;
    float warm[3], first[700], again[700];
    size_t size = attn_rng_state_size();
    unsigned char *saved = malloc(size);
    attn_error err = {{0}};

    attn_manual_seed(42);
    attn_randn_fill(warm, 3); /* two Box-Muller pairs: one r*sin stays cached */
    attn_rng_get_state(saved);
    draw_mix(first);

    attn_manual_seed(9); /* different seed, cache cleared */
    assert_int_equal(attn_rng_set_state(saved, size, &err), 0);
    assert_true(attn_initial_seed() == 42);
    draw_mix(again);
    assert_memory_equal(first, again, sizeof first);

    /* and the cached normal really is part of it: without it the first value differs */
    attn_manual_seed(42);
    attn_randn_fill(warm, 3);
    float cached, fresh;
    attn_randn_fill(&cached, 1);
    attn_manual_seed(42);
    attn_randn_fill(warm, 2);
    attn_randn_fill(&fresh, 1);
    assert_true(float_to_bits(cached) == float_to_bits(first[0]));
    assert_true(float_to_bits(fresh) != float_to_bits(first[0]));
    free(saved);
}

static void test_set_state_rejects_bad_buffers(void **state)
{
    (void)state;
    size_t size = attn_rng_state_size();
    unsigned char *good = malloc(size), *bad = malloc(size);
    attn_error err = {{0}};

    attn_manual_seed(5);
    attn_rng_get_state(good);

    assert_int_equal(attn_rng_set_state(good, size - 1, &err), -1);
    assert_non_null(strstr(err.msg, "bytes"));
    err.msg[0] = '\0';
    assert_int_equal(attn_rng_set_state(NULL, size, &err), -1);
    assert_true(err.msg[0] != '\0');

    memset(bad, 0, size);
    err.msg[0] = '\0';
    assert_int_equal(attn_rng_set_state(bad, size, &err), -1);
    assert_non_null(strstr(err.msg, "not a state"));

    memcpy(bad, good, size);
    bad[16] = 0xff; /* the word index, far past 624 */
    bad[17] = 0xff;
    err.msg[0] = '\0';
    assert_int_equal(attn_rng_set_state(bad, size, &err), -1);
    assert_true(err.msg[0] != '\0');

    /* a failed set_state leaves the generator alone: still seed 5's stream */
    attn_manual_seed(5);
    uint32_t want = attn_rng_u32();
    attn_manual_seed(5);
    assert_int_equal(attn_rng_set_state(bad, size, &err), -1);
    assert_int_equal(attn_rng_u32(), want);
    assert_int_equal(attn_rng_set_state(bad, size, NULL), -1); /* NULL err is allowed */
    free(good);
    free(bad);
}

static void test_randint_rejects_empty_range(void **state)
{
    (void)state;
    int64_t out[2];
    attn_error err = {{0}};
    assert_int_equal(attn_randint_fill(out, 2, 5, 5, &err), -1);
    assert_non_null(strstr(err.msg, "randint"));
    assert_non_null(strstr(err.msg, "5"));
    err.msg[0] = '\0';
    assert_int_equal(attn_randint_fill(out, 2, 10, -3, &err), -1);
    assert_true(err.msg[0] != '\0');
}

static void test_seed_uses_low_32_bits(void **state)
{
    (void)state;
    attn_manual_seed(UINT64_C(1) << 40 | 5);
    uint32_t a = attn_rng_u32();
    assert_true(attn_initial_seed() == (UINT64_C(1) << 40 | 5));
    attn_manual_seed(5);
    assert_int_equal(a, attn_rng_u32());
    attn_manual_seed(0);
    uint64_t hi = attn_rng_u32(), lo = attn_rng_u32();
    attn_manual_seed(0);
    assert_true(attn_rng_u64() == (hi << 32 | lo));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_before_any_seed), /* first: nothing seeded yet */
        cmocka_unit_test(test_first_u32_after_seed_123),
        cmocka_unit_test(test_book_rand_seed_123),
        cmocka_unit_test(test_book_linear_seed_789),
        cmocka_unit_test(test_mkl_dropout_seed_123),
        cmocka_unit_test(test_default_dropout_rows_from_reference),
        cmocka_unit_test(test_rand_matches_torch),
        cmocka_unit_test(test_uniform_matches_torch),
        cmocka_unit_test(test_randn_matches_torch),
        cmocka_unit_test(test_normal_matches_torch),
        cmocka_unit_test(test_randint_matches_torch),
        cmocka_unit_test(test_sequences_match_torch),
        cmocka_unit_test(test_linear_init_matches_torch),
        cmocka_unit_test(test_kaiming_bounds_match_torch),
        cmocka_unit_test(test_default_dropout_matches_torch),
        cmocka_unit_test(test_state_save_restore_rewinds),
        cmocka_unit_test(test_set_state_rejects_bad_buffers),
        cmocka_unit_test(test_randint_rejects_empty_range),
        cmocka_unit_test(test_seed_uses_low_32_bits),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
