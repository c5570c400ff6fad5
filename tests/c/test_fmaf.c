/* test_fmaf.c — attn_fmaf_exact (src/core/fmaf_exact.c), the fused multiply-add the portable kernels use
 * on WebAssembly, and its two-lane form attn_fmaf_x2 (src/core/wasm/fmaf_x2.h: the WebAssembly SIMD
 * kernels', and its fast form; each triple in both lanes, beside another triple), against the hardware's: x86's vfmadd231ss (its result is the exactly rounded one), or the
 * C library's fmaf on a CPU without FMA (glibc's is exact). Triples of every kind: random bit patterns (NaN,
 * infinities, subnormals among them), sums that cancel, sums aimed at the halfway point between two floats
 * (where rounding twice goes wrong), subnormal results, overflow, and every triple of special values.
 * make test runs 10^6 triples; scripts/check-fmaf.sh builds this file with TRIPLES=100000000. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fmaf_exact.h"
#include "isa.h"
#include "wasm/fmaf_x2.h"

#ifndef TRIPLES
#define TRIPLES 1000000
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("fma"))) static float hardware_fma(float a, float b, float c)
{
    return _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(a), _mm_set_ss(b), _mm_set_ss(c)));
}
#endif

/* the reference: the instruction where the CPU has it, else the C library's */
static float reference(float a, float b, float c)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (attn_isa_runs(ATTN_ISA_AVX2))
        return hardware_fma(a, b, c);
#endif
    return fmaf(a, b, c);
}

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* a float of random significand and sign, its exponent in [lo, hi] */
static float random_float(int lo, int hi)
{
    uint64_t r = next();
    float m = from_bits(0x3f800000u | (uint32_t)(r & 0x7fffff)); /* [1, 2) */
    float f = ldexpf(m, lo + (int)((r >> 23) % (uint64_t)(hi - lo + 1)));
    return (r >> 40) & 1 ? -f : f;
}

/* c such that a*b + c lies at, or a hair from, the halfway point between the two floats around a*b */
static float aimed_at_halfway(float a, float b)
{
    double p = (double)a * (double)b;
    float f = (float)p;
    if (!isfinite(f) || f == 0.0f)
        return random_float(-149, 127);
    float g = nextafterf(f, (double)f < p ? INFINITY : -INFINITY);
    double half = ((double)f + (double)g) / 2.0; /* exact: the two floats are neighbours */
    float c = (float)(half - p);
    switch (next() % 4) {
    case 0:
        return c;
    case 1:
        return nextafterf(c, INFINITY);
    case 2:
        return nextafterf(c, -INFINITY);
    default:
        return c + (float)ldexp((double)random_float(0, 0), ilogb(p) - 60 - (int)(next() % 40));
    }
}

static void make_triple(uint64_t i, float *a, float *b, float *c)
{
    switch (i % 8) {
    case 0: /* any bit patterns */
        *a = from_bits((uint32_t)next()), *b = from_bits((uint32_t)next()), *c = from_bits((uint32_t)next());
        break;
    case 1: /* ordinary sizes */
        *a = random_float(-20, 20), *b = random_float(-20, 20), *c = random_float(-40, 40);
        break;
    case 2: /* cancellation: c near -a*b */
        *a = random_float(-30, 30), *b = random_float(-30, 30);
        *c = -(float)((double)*a * (double)*b);
        if (next() & 1)
            *c = nextafterf(*c, (next() & 1) ? INFINITY : -INFINITY);
        break;
    case 3:
    case 4: /* halfway cases */
        *a = random_float(-60, 60), *b = random_float(-60, 60);
        *c = aimed_at_halfway(*a, *b);
        break;
    case 5: /* subnormal results, and halfway ones among them */
        *a = random_float(-90, -60), *b = random_float(-90, -60);
        *c = (next() & 1) ? aimed_at_halfway(*a, *b) : random_float(-149, -120);
        break;
    case 6: /* overflow and the largest floats */
        *a = random_float(60, 127), *b = random_float(0, 70);
        *c = (next() & 1) ? random_float(120, 127) : aimed_at_halfway(*a, *b);
        break;
    default: /* a subnormal operand */
        *a = from_bits((uint32_t)(next() & 0x807fffffu)), *b = random_float(-10, 40), *c = random_float(-149, -100);
        break;
    }
}

static int same(float x, float y)
{
    return (isnan(x) && isnan(y)) || bits(x) == bits(y);
}

/* attn_fmaf_x2 with (a, b, c) in lane `lane` and (a2, b2, c2) in the other: lane `lane`'s result */
static float x2_lane(int lane, float a, float b, float c, float a2, float b2, float c2)
{
    attn_f64x2 va = {a, a2}, vb = {b, b2}, vc = {c, c2};
    if (lane) {
        va = (attn_f64x2){a2, a}, vb = (attn_f64x2){b2, b}, vc = (attn_f64x2){c2, c};
    }
    attn_f64x2 r = attn_fmaf_x2(va, vb, vc), f = attn_fmaf_x2_fast(va, vb, vc);
    if (memcmp(&r, &f, sizeof r) != 0) /* the fast form's bits differ: a float no fma gives here */
        return isnan(r[lane]) ? 1.0f : NAN;
    return (float)r[lane];
}

static void test_random_and_aimed_triples(void **state)
{
    (void)state;
    uint64_t wrong = 0, naive_wrong = 0;
    float pa = 1.0f, pb = 1.0f, pc = 0.0f; /* the previous triple: the other lane's */
    for (uint64_t i = 0; i < TRIPLES; i++) {
        float a, b, c;
        make_triple(i, &a, &b, &c);
        float want = reference(a, b, c);
        if (!same(attn_fmaf_exact(a, b, c), want)) {
            if (wrong++ < 5)
                print_message("# fmaf(%a, %a, %a): attn %a, hardware %a\n", a, b, c, attn_fmaf_exact(a, b, c), want);
        }
        if (!same(attn_fmaf(a, b, c), want))
            wrong++;
        for (int lane = 0; lane < 2; lane++)
            if (!same(x2_lane(lane, a, b, c, pa, pb, pc), want)) {
                if (wrong++ < 5)
                    print_message("# fmaf(%a, %a, %a): attn_fmaf_x2's lane %d %a, hardware %a\n", a, b, c, lane,
                                  x2_lane(lane, a, b, c, pa, pb, pc), want);
            }
        pa = a, pb = b, pc = c;
        if (!same((float)((double)a * (double)b + (double)c), want))
            naive_wrong++;
    }
    print_message("# %llu triples; rounding the double sum to float (twice) is wrong in %llu\n",
                  (unsigned long long)TRIPLES, (unsigned long long)naive_wrong);
    assert_int_equal(wrong, 0);
    assert_true(naive_wrong > 0); /* the triples do reach the cases that need the fix */
}

static void test_special_values(void **state)
{
    (void)state;
    const float v[] = {0.0f,      -0.0f,     INFINITY,  -INFINITY, NAN,         1.0f,         -1.0f, 1.5f,
                       FLT_MAX,   -FLT_MAX,  FLT_MIN,   -FLT_MIN,  FLT_TRUE_MIN, -FLT_TRUE_MIN, 0x1p-75f, 0x1p64f,
                       0x1.000002p0f, -0x1.fffffep-1f};
    const int n = sizeof v / sizeof v[0];
    int wrong = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                if (!same(attn_fmaf_exact(v[i], v[j], v[k]), reference(v[i], v[j], v[k])) ||
                    !same(x2_lane(k & 1, v[i], v[j], v[k], v[k], v[i], v[j]), reference(v[i], v[j], v[k]))) {
                    if (wrong++ < 5)
                        print_message("# fmaf(%a, %a, %a): attn %a, hardware %a\n", v[i], v[j], v[k],
                                      attn_fmaf_exact(v[i], v[j], v[k]), reference(v[i], v[j], v[k]));
                }
    assert_int_equal(wrong, 0);
}

/* Sums that land, as doubles, exactly halfway between two subnormal floats while the exact sum is not
 * there: p = (1 + 2^-23)(1 - 2^-23) 2^-150 = 2^-150 - 2^-196, plus c = K 2^-149 (K odd) is a hair below
 * K 2^-149 + 2^-150, which the double sum rounds to; rounding that to float (ties to even) goes up, wrongly.
 * The halfway points of subnormals are where attn_fmaf_x2_fast's bit pattern does not look. */
static void test_subnormal_halfway(void **state)
{
    (void)state;
    int wrong = 0, naive_wrong = 0;
    for (int k = 1; k < 4000; k += 2)
        for (int sign = 0; sign < 4; sign++) {
            float a = ldexpf(1.0f + 0x1p-23f, -75), b = ldexpf(1.0f - 0x1p-23f, -75);
            float c = ldexpf((float)k, -149);
            if (sign & 1)
                a = -a, c = -c;
            if (sign & 2) /* the same product, its factors' exponents moved */
                a = ldexpf(a, 40), b = ldexpf(b, -40);
            float want = reference(a, b, c);
            if (!same((float)((double)a * (double)b + (double)c), want))
                naive_wrong++;
            if (!same(attn_fmaf_exact(a, b, c), want) || !same(x2_lane(k & 1, a, b, c, b, c, a), want) ||
                !same(x2_lane(1 - (k & 1), a, b, c, 1.0f, 1.0f, 0.0f), want)) {
                if (wrong++ < 5)
                    print_message("# fmaf(%a, %a, %a): hardware %a\n", a, b, c, want);
            }
        }
    assert_int_equal(wrong, 0);
    assert_true(naive_wrong > 0); /* the triples are the cases that need the care */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_subnormal_halfway),
        cmocka_unit_test(test_random_and_aimed_triples),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
