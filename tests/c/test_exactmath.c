/* test_exactmath.c — attn's own expf, logf, tanhf, erff, sinf and cosf (exactmath.h) against Debian's
 * libsleef 3.5.1, bit for bit (nans too): on 2^22 bit patterns per function spread over all floats (every
 * sign and exponent, with many mantissas), on the special values and the edges where the algorithms
 * switch (each with its neighbours), and, on a CPU with AVX2 and FMA, the groups of 8 of
 * exactmath_trigf8 against SLEEF's 8-wide sin and cos with a slow lane at every position.
 * scripts/check-exactmath.sh makes the same comparison on all 2^32 floats. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "exactmath.h"

float Sleef_expf1_u10purecfma(float x);
float Sleef_logf1_u10purecfma(float x);
float Sleef_tanhf1_u10purecfma(float x);
float Sleef_erff1_u10purecfma(float x);
float Sleef_sinf1_u10purecfma(float x);
float Sleef_cosf1_u10purecfma(float x);

typedef float (*fn1)(float);

static const struct {
    const char *name;
    fn1 mine, sleef;
} FNS[] = {
    {"expf", exactmath_expf, Sleef_expf1_u10purecfma},   {"logf", exactmath_logf, Sleef_logf1_u10purecfma},
    {"tanhf", exactmath_tanhf, Sleef_tanhf1_u10purecfma}, {"erff", exactmath_erff, Sleef_erff1_u10purecfma},
    {"sinf", exactmath_sinf, Sleef_sinf1_u10purecfma},   {"cosf", exactmath_cosf, Sleef_cosf1_u10purecfma},
};
#define NFNS (int)(sizeof FNS / sizeof FNS[0])

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The count of inputs among in[0..n) where function f's bits differ from SLEEF's; prints the first few. */
static long differences(int f, const float *in, long n)
{
    long differ = 0;
    for (long i = 0; i < n; i++) {
        float a = FNS[f].mine(in[i]), b = FNS[f].sleef(in[i]);
        if (bits_of(a) != bits_of(b) && differ++ < 5)
            print_message("%s(0x%08x = %.9g): attn 0x%08x, SLEEF 0x%08x\n", FNS[f].name, bits_of(in[i]),
                          (double)in[i], bits_of(a), bits_of(b));
    }
    return differ;
}

/* 2^22 bit patterns k * 1021 + 7 (mod 2^32): 1021 is odd, so the low mantissa bits vary too */
static void test_spread_over_all_floats(void **state)
{
    (void)state;
    enum { N = 1 << 22 };
    static float in[N];
    for (uint32_t k = 0; k < N; k++)
        in[k] = float_of(k * 1021u + 7u);
    for (int f = 0; f < NFNS; f++)
        assert_int_equal(differences(f, in, N), 0);
}

/* Special values, and the points where an algorithm changes course, each with 4 neighbours either side */
static void test_specials_and_edges(void **state)
{
    (void)state;
    const float centres[] = {
        0.0f, FLT_MIN, FLT_MAX, float_of(1), float_of(0x007fffff), INFINITY, 1.0f, 0.5f, 2.0f,
        -104.0f, 100.0f, 88.72283935546875f, -87.33654022216797f, 0.75f, 1.0f / 0.75f, /* exp, log */
        8.664339742f, 9.010913e-3f,                                                      /* tanh */
        1.1f, 2.4f, 4.0f, 3.9192059040069580078125f,                                     /* erf */
        0.7f, 125.0f, 1.5707963705062866f, 3.1415927410125732f, 4.712388980384690f,      /* sin, cos */
        6.2831854820251465f, 1e4f, 1e5f, 1e6f, 8388608.0f, 16777216.0f, 3.3554432e7f,
        (float)(1 << 30) * 4.0f, 1e20f, 1e30f, 1.2379400392853803e27f /* 2^90 */, 2.5e38f,
    };
    const uint32_t nans[] = {0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff, 0xffffffff,
                             0x7fa00000, 0x7f812345, 0xffc54321};
    float in[4 * (sizeof centres / sizeof centres[0]) * 9 + sizeof nans / sizeof nans[0]];
    long n = 0;
    for (size_t c = 0; c < sizeof centres / sizeof centres[0]; c++)
        for (int sign = 0; sign < 2; sign++)
            for (int d = -4; d <= 4; d++) {
                uint32_t u = bits_of(fabsf(centres[c])) + (uint32_t)d;
                if (d < 0 && bits_of(fabsf(centres[c])) < (uint32_t)-d)
                    u = (uint32_t)-d; /* below +0: the smallest subnormals instead */
                in[n++] = float_of(u | (sign ? 0x80000000u : 0));
            }
    for (size_t k = 0; k < sizeof nans / sizeof nans[0]; k++)
        in[n++] = float_of(nans[k]);
    for (int f = 0; f < NFNS; f++)
        assert_int_equal(differences(f, in, n), 0);
}

#if defined(__x86_64__)
#include <immintrin.h>
__m256 Sleef_sinf8_u10avx2(__m256 x);
__m256 Sleef_cosf8_u10avx2(__m256 x);

__attribute__((target("avx2,fma"))) static void sleef8(int cosine, const float *in, float *out)
{
    __m256 v = _mm256_loadu_ps(in);
    _mm256_storeu_ps(out, cosine ? Sleef_cosf8_u10avx2(v) : Sleef_sinf8_u10avx2(v));
}

static int have_avx2(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static void sleef8(int cosine, const float *in, float *out)
{
    (void)cosine, (void)in, (void)out;
}

static int have_avx2(void)
{
    return 0;
}
#endif

/* Groups of 8 small arguments, each with one lane made slow (|x| >= 125, inf or nan) in turn, and without */
static void test_groups_of_8_against_the_avx2_functions(void **state)
{
    (void)state;
    if (!have_avx2())
        skip();
    const float slow[] = {125.0f, -1000.0f, 3e30f, INFINITY, NAN};
    long differ = 0, checked = 0;
    for (uint32_t g = 0; g < 20000; g++) {
        float in[8], a[8], b[8];
        for (int l = 0; l < 8; l++) /* arguments from about 1e-3 to 120, both signs */
            in[l] = float_of(((g * 8u + (uint32_t)l) * 2654435761u) % 0x08700000u + 0x3a800000u) *
                    ((g + (uint32_t)l) % 2 ? -1.0f : 1.0f);
        int lane = (int)(g % 9) - 1; /* -1: no slow lane */
        if (lane >= 0)
            in[lane] = slow[g % 5];
        for (int cosine = 0; cosine < 2; cosine++) {
            exactmath_trigf8(cosine, in, a);
            sleef8(cosine, in, b);
            for (int l = 0; l < 8; l++, checked++)
                if (bits_of(a[l]) != bits_of(b[l]) && differ++ < 5)
                    print_message("%s8 lane %d of group %u (0x%08x): attn 0x%08x, SLEEF 0x%08x\n",
                                  cosine ? "cos" : "sin", l, g, bits_of(in[l]), bits_of(a[l]), bits_of(b[l]));
        }
    }
    assert_true(checked == 20000L * 16);
    assert_int_equal(differ, 0);
}

int main(void)
{
    cmocka_set_message_output(CM_OUTPUT_TAP);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spread_over_all_floats),
        cmocka_unit_test(test_specials_and_edges),
        cmocka_unit_test(test_groups_of_8_against_the_avx2_functions),
    };
    return cmocka_run_group_tests_name("exactmath", tests, NULL, NULL);
}
