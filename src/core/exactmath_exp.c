/* exactmath_exp.c — exp, log, tanh and erf with the bits of SLEEF 3.5.1's u10 FMA build (exactmath.h).
 *
 * SLEEF's algorithms (src/libm/sleefsimdsp.c: xexpf, xlogf_u1, xtanhf, xerff_u1 and their helper
 * expk2f; Naoki Shibata and contributors, Boost Software License 1.0), written again one float at a time:
 * the same constants, the same float operations in the same order, a fused multiply-add exactly where
 * SLEEF's FMA build has one (its vmla), and SLEEF's special-case selections in its order. The constants are
 * SLEEF's polynomial coefficients and splits of ln 2, written as SLEEF writes them. */
#include "exactmath.h"
#include "exactmath_pair.h"

#include <float.h>

#define R_LN2 1.442695040888963407359924681001892137426645954152985934135449406931f /* 1 / ln 2 */
#define L2U 0.693145751953125f       /* ln 2 = L2U + L2L, L2U with zeros in its low bits */
#define L2L 1.428606765330187045e-06f
#define NAN_ALL_ONES 0xFFFFFFFFu /* SLEEF's "or with the nan mask": every bit set */

/* rint(x) as an int32, as SLEEF's vrint_vi2_vf on a CPU with SSE4.1 (round to nearest even, then truncate) */
static int32_t rint_int(float x)
{
    return em_int(rintf(x));
}

float exactmath_expf(float d)
{
    if (isnan(d)) /* SLEEF's arithmetic passes the nan on, quieted; spelled out, as C does not promise it */
        return em_float(em_bits(d) | 0x00400000u);
    int32_t q = rint_int(d * R_LN2);
    float s = em_fma((float)q, -L2U, d);
    s = em_fma((float)q, -L2L, s);

    float u = 0.000198527617612853646278381f;
    u = em_fma(u, s, 0.00139304355252534151077271f);
    u = em_fma(u, s, 0.00833336077630519866943359f);
    u = em_fma(u, s, 0.0416664853692054748535156f);
    u = em_fma(u, s, 0.166666671633720397949219f);
    u = em_fma(u, s, 0.5f);
    u = 1.0f + em_fma(s * s, u, s);
    u = em_ldexp2(u, q);

    if (d < -104.0f)
        u = 0.0f;
    if (100.0f < d)
        u = INFINITY;
    return u;
}

float exactmath_logf(float d)
{
    float in = d;
    int tiny = d < FLT_MIN; /* subnormals (and zero, negatives) are scaled by 2^64 first */
    if (tiny)
        d = d * ((float)(INT64_C(1) << 32) * (float)(INT64_C(1) << 32));
    int32_t e = em_ilogb(d * (1.0f / 0.75f));
    float m = em_ldexp_bits(d, -e);
    if (tiny)
        e -= 64;
    em_pair s = em_mul_pf(em_pair_of(0.69314718246459960938f, -1.904654323148236017e-09f), (float)e);

    em_pair x = em_div(em_add2_ff(-1.0f, m), em_add2_ff(1.0f, m));
    float x2 = x.x * x.x;
    float t = +0.3027294874e+0f;
    t = em_fma(t, x2, +0.3996108174e+0f);
    t = em_fma(t, x2, +0.6666694880e+0f);

    s = em_add_pp(s, em_scale(x, 2.0f));
    s = em_add_pf(s, x2 * x.x * t);
    float r = s.x + s.y;

    if (in == INFINITY)
        r = INFINITY;
    if (in < 0.0f || isnan(in))
        r = NAN;
    if (in == 0.0f)
        r = -INFINITY;
    return r;
}

/* e^d for a pair d, as a pair (SLEEF's expk2f); 0 below -104. */
static em_pair exp_pair(em_pair d)
{
    float u = (d.x + d.y) * R_LN2;
    int32_t q = rint_int(u);
    em_pair s = em_add2_pf(d, (float)q * -L2U);
    s = em_add2_pf(s, (float)q * -L2L);

    u = +0.1980960224e-3f;
    u = em_fma(u, s.x, +0.1394256484e-2f);
    u = em_fma(u, s.x, +0.8333456703e-2f);
    u = em_fma(u, s.x, +0.4166637361e-1f);

    em_pair t = em_add2_pf(em_mul_pf(s, u), +0.166666659414234244790680580464e+0f);
    t = em_add2_pf(em_mul_pp(s, t), 0.5f);
    t = em_add2_pp(s, em_mul_pp(em_square(s), t));
    t = em_add_fp(1.0f, t);

    t = em_pair_of(em_ldexp2(t.x, q), em_ldexp2(t.y, q));
    if (d.x < -104.0f)
        t = em_pair_of(0.0f, 0.0f);
    return t;
}

float exactmath_tanhf(float x)
{
    float y = fabsf(x);
    em_pair d = exp_pair(em_pair_of(y, 0.0f));
    em_pair e = em_recip(d);
    d = em_div(em_add_pp(d, em_neg(e)), em_add_pp(d, e));
    y = d.x + d.y;

    if (fabsf(x) > 8.664339742f || isnan(y))
        y = 1.0f;
    y = em_mulsign(y, x);
    return isnan(x) ? em_float(NAN_ALL_ONES) : y;
}

/* erf's three pieces, on |x| < 1.1 (in x^2), < 2.4 and < 4 (in |x|): each a polynomial whose last two
 * coefficients are pairs of floats. */
static const float erf_c[3][5] = {
    {+0.7089292194e-4f, -0.7768311189e-3f, +0.5159463733e-2f, -0.2683781274e-1f, +0.1128318012e+0f},
    {-0.1792667899e-4f, +0.3937633010e-3f, -0.3949181177e-2f, +0.2445474640e-1f, -0.1070996150e+0f},
    {-0.9495757695e-5f, +0.2481465926e-3f, -0.2918176819e-2f, +0.2059706673e-1f, -0.9901899844e-1f},
};
static const em_pair erf_d[3][2] = {
    {EM_PAIR_OF_DOUBLE(-0.376125876000657465175213237214e+0), EM_PAIR_OF_DOUBLE(+0.112837916021059138255978217023e+1)},
    {EM_PAIR_OF_DOUBLE(-0.634588905908410389971210809210e+0), EM_PAIR_OF_DOUBLE(-0.112879855826694507209862753992e+1)},
    {EM_PAIR_OF_DOUBLE(-0.643598050547891613081201721633e+0), EM_PAIR_OF_DOUBLE(-0.112461487742845562801052956293e+1)},
};

float exactmath_erff(float x)
{
    float a = fabsf(x);
    int piece = a < 1.1f ? 0 : a < 2.4f ? 1 : 2; /* nan: 2, as SLEEF's comparisons give */
    float u = piece == 0 ? a * a : a;

    float t = erf_c[piece][0];
    for (int i = 1; i < 5; i++)
        t = em_fma(t, u, erf_c[piece][i]);
    em_pair d = em_mul_ff(t, u);
    d = em_add2_pp(d, erf_d[piece][0]);
    d = em_mul_pf(d, u);
    d = em_add2_pp(d, erf_d[piece][1]);
    d = em_mul_pf(d, a);
    if (piece != 0)
        d = em_add_fp(1.0f, em_neg(exp_pair(d))); /* erf = 1 - exp(polynomial) */

    float r = em_mulsign(a < 4.0f ? d.x + d.y : 1.0f, x);
    return isnan(a) ? NAN : r;
}
