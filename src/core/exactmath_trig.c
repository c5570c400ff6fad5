/* exactmath_trig.c — sin and cos with the bits of SLEEF 3.5.1's u10 FMA build (exactmath.h).
 *
 * SLEEF's algorithms (src/libm/sleefsimdsp.c: xsinf_u1, xcosf_u1 and their argument reduction rempif;
 * Naoki Shibata and contributors, Boost Software License 1.0), written again one float at a time with the
 * same constants and the same float operations in the same order (exactmath_exp.c says how).
 *
 * Two argument reductions: for |x| < 125, x - q pi/2 with pi in three float pieces; otherwise Payne and
 * Hanek's, with x times 1/(2 pi) taken from a table of four-float pieces of 1/(2 pi) for each exponent of x. SLEEF ships that table (src/libm/rempitab.c, made with MPFR by
 * src/gencoef/mkrempitab.c); attn builds the same table once, from the bits of 2/pi, with integers. */
#include "exactmath.h"
#include "exactmath_pair.h"

#include <stdatomic.h>

#define M_1_PI_F 0.318309886183790671537767526745028724f /* 1 / pi */
#define PI_A2 3.1414794921875f /* pi = PI_A2 + PI_B2 + PI_C2, the first two with zeros in their low bits */
#define PI_B2 0.00011315941810607910156f
#define PI_C2 1.9841872589410058936e-09f
#define TRIG_RANGE 125.0f /* the fast reduction's limit */
#define PI_HI 3.1415927410125732422f /* pi as a pair of floats */
#define PI_LO -8.7422776573475857731e-08f

/* ---- the table of 1/(2 pi) ------------------------------------------------------------------------- */

/* 2/pi in binary, 384 bits after the point, most significant first (the constant every libm's large
 * argument reduction starts from; python3 -c "from mpmath import mp; mp.prec=400; print(hex(int(2/mp.pi*2**384)))"
 * prints it). 1/(2 pi) is the same bits two places further right. */
static const uint32_t two_over_pi[12] = {
    0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0, 0xDB629599, 0x3C439041,
    0xFE5163AB, 0xDEBBC561, 0xB7246E3A, 0x424DD2E0, 0x06492EEA, 0x09D1921C,
};

#define WORDS 13 /* a signed fixed-point number: word 0 the integer part and sign, then 384 bits after the point */
#define FRAC_BITS (32 * (WORDS - 1))

typedef struct fixed {
    uint32_t w[WORDS]; /* two's complement, w[0] most significant; value = w / 2^FRAC_BITS */
} fixed;

static int fixed_negative(const fixed *a)
{
    return (a->w[0] >> 31) != 0;
}

static void fixed_negate(fixed *a)
{
    uint64_t carry = 1;
    for (int i = WORDS - 1; i >= 0; i--) {
        carry += (uint32_t)~a->w[i];
        a->w[i] = (uint32_t)carry;
        carry >>= 32;
    }
}

/* a += m * 2^shift, in units of 2^-FRAC_BITS (|m| < 2^25, 0 <= shift < FRAC_BITS), exactly. */
static void fixed_add(fixed *a, int64_t m, int shift)
{
    int neg = m < 0;
    uint64_t mag = neg ? (uint64_t)-m : (uint64_t)m;
    fixed b = {{0}};
    int word = WORDS - 1 - shift / 32, bit = shift % 32;
    uint64_t lo = mag << bit; /* mag < 2^25, so this fits */
    b.w[word] = (uint32_t)lo;
    b.w[word - 1] = (uint32_t)(lo >> 32);
    if (neg)
        fixed_negate(&b);
    uint64_t carry = 0;
    for (int i = WORDS - 1; i >= 0; i--) {
        carry += (uint64_t)a->w[i] + b.w[i];
        a->w[i] = (uint32_t)carry;
        carry >>= 32;
    }
}

/* a * 2^scale rounded to the nearest double (ties to even), as MPFR's mpfr_get_d does. */
static double fixed_to_double(const fixed *in, int scale)
{
    fixed a = *in;
    int neg = fixed_negative(&a);
    if (neg)
        fixed_negate(&a);
    int top = -1; /* index of the highest set bit, counted from the least significant */
    for (int i = 0; i < WORDS && top < 0; i++)
        if (a.w[i])
            for (int b = 31; b >= 0 && top < 0; b--)
                if (a.w[i] >> b & 1)
                    top = (WORDS - 1 - i) * 32 + b;
    if (top < 0)
        return 0.0;
    uint64_t mant = 0;
    int round = 0, sticky = 0;
    for (int p = top; p >= 0; p--) {
        int bit = a.w[WORDS - 1 - p / 32] >> (p % 32) & 1;
        if (top - p < 53)
            mant = mant << 1 | (uint64_t)bit;
        else if (top - p == 53)
            round = bit;
        else
            sticky |= bit;
    }
    int lowest = top < 52 ? 0 : top - 52; /* the weight of mant's last bit */
    if (round && (sticky || (mant & 1)))
        mant++;
    double d = ldexp((double)mant, lowest - FRAC_BITS + scale);
    return neg ? -d : d;
}

/* a -= f * 2^-scale, f a float, exactly. */
static void fixed_sub_float(fixed *a, float f, int scale)
{
    if (f == 0.0f)
        return;
    int e;
    float m = frexpf(f, &e); /* f = m 2^e, 0.5 <= |m| < 1 */
    int64_t mi = (int64_t)ldexpf(m, 24);
    fixed_add(a, -mi, e - 24 - scale + FRAC_BITS);
}

static float clear_low2(float f)
{
    return em_float(em_bits(f) & 0xFFFFFFFCu);
}

/* Row r (r = 0 .. 102) is for x of exponent 25 + r (and row 0 for every smaller x): 1/(2 pi) less its first
 * r + 2 bits after the point, which only add whole turns to x / (2 pi); times 2^64 past exponent 90 (where
 * the reduction scales x down by 2^64); split into four floats as SLEEF's generator splits it: three nearest
 * floats (through the nearest double) with their two low bits cleared, and the rest. */
#define ROWS 103
static float rempi_table[ROWS][4];
static atomic_int rempi_state; /* 0 not built, 1 being built, 2 built */

static void build_row(int r, float row[4])
{
    int k = r + 2, scale = r + 25 > 90 ? 64 : 0;
    fixed a = {{0}};
    for (int i = 0; i < 12; i++) /* 1/(2 pi) = (2/pi) / 4 */
        a.w[i + 1] = two_over_pi[i] >> 2 | (i > 0 ? two_over_pi[i - 1] << 30 : 0);
    for (int b = 0; b < k; b++) /* drop the whole turns: the first k bits after the point */
        a.w[1 + b / 32] &= ~(0x80000000u >> (b % 32));
    for (int j = 0; j < 4; j++) {
        float f = (float)fixed_to_double(&a, scale);
        if (j < 3)
            f = clear_low2(f);
        row[j] = f;
        fixed_sub_float(&a, f, scale);
    }
}

static const float *rempi_row(int r)
{
    if (atomic_load_explicit(&rempi_state, memory_order_acquire) != 2) {
        int idle = 0;
        if (atomic_compare_exchange_strong(&rempi_state, &idle, 1)) {
            for (int i = 0; i < ROWS; i++)
                build_row(i, rempi_table[i]);
            atomic_store_explicit(&rempi_state, 2, memory_order_release);
        } else {
            while (atomic_load_explicit(&rempi_state, memory_order_acquire) != 2)
                ; /* another thread is building it: a few microseconds */
        }
    }
    return rempi_table[r];
}

/* ---- the slow reduction: Payne and Hanek's (SLEEF's rempif) ------------------------------------------ */

typedef struct reduced {
    em_pair r; /* what is left of x, in radians */
    int32_t q; /* the quarter turns taken off, modulo 4 in its last two bits */
} reduced;

/* x's nearest multiple of 1/4 taken off, with the count of quarters (SLEEF's rempisubf on a CPU with
 * SSE4.1: round to nearest even). */
static float take_quarters(float x, int32_t *quarters)
{
    float y = rintf(x * 4.0f);
    *quarters = em_int(truncf(y - rintf(x) * 4.0f));
    return x - y * 0.25f;
}

/* finite a only */
static reduced reduce_slow(float a)
{
    int32_t ex = em_ilogb(a) - 25;
    a = em_ldexp_bits(a, ex > 90 - 25 ? -64 : 0);
    ex = ex < 0 ? 0 : ex;
    const float *row = rempi_row(ex); /* finite x: ex <= 102 */

    int32_t q, q2;
    em_pair x = em_mul_ff(a, row[0]);
    x.x = take_quarters(x.x, &q);
    x = em_normalize(x);
    em_pair y = em_mul_ff(a, row[1]);
    x = em_add2_pp(x, y);
    x.x = take_quarters(x.x, &q2);
    q += q2;
    x = em_normalize(x);
    y = em_mul_pf(em_pair_of(row[2], row[3]), a);
    x = em_add2_pp(x, y);
    x = em_normalize(x);
    x = em_mul_pp(x, em_pair_of(PI_HI * 2, PI_LO * 2));
    if (fabsf(a) < 0.7f)
        x = em_pair_of(a, 0.0f);
    reduced out = {x, q};
    return out;
}

/* sin and cos of inf and nan: SLEEF sets every bit of the reduced argument (its "or with the nan mask"),
 * and its answer is that nan, 0xFFFFFFFF, whatever its reduction read past the end of its table (row 103).
 * Returned directly: C does not promise how arithmetic passes a nan's bits on. */
#define NAN_ALL_ONES 0xFFFFFFFFu

/* ---- sin and cos --------------------------------------------------------------------------------- */

/* sin(t) for the reduced argument t (|t| <= pi/2), by SLEEF's odd polynomial, t a pair of floats. */
static float sin_poly(em_pair t)
{
    em_pair s = em_square(t);
    float u = 2.6083159809786593541503e-06f;
    u = em_fma(u, s.x, -0.0001981069071916863322258f);
    u = em_fma(u, s.x, 0.00833307858556509017944336f);
    em_pair x = em_add_fp(1.0f, em_mul_pp(em_add_ff(-0.166666597127914428710938f, u * s.x), s));
    return em_mul_pp_f(t, x);
}

static float negate_if(float u, int odd)
{
    return odd ? em_float(em_bits(u) ^ 0x80000000u) : u;
}

static float sin_fast(float d)
{
    float u = rintf(d * M_1_PI_F);
    int32_t q = em_int(u);
    float v = em_fma(u, -PI_A2, d);
    em_pair s = em_add2_ff(v, u * -PI_B2);
    s = em_add_pf(s, u * -PI_C2);
    u = negate_if(sin_poly(s), q & 1);
    return em_bits(d) == 0x80000000u ? d : u; /* sin(-0) = -0 */
}

static float sin_slow(float d)
{
    reduced red = reduce_slow(d);
    int32_t q = ((red.q & 3) * 2 + (red.r.x > 0 ? 2 : 1)) >> 2;
    if ((red.q & 1) == 1) {
        em_pair h = em_pair_of(em_mulsign(PI_HI * -0.5f, red.r.x), em_mulsign(PI_LO * -0.5f, red.r.x));
        red.r = em_add2_pp(red.r, h);
    }
    em_pair s = em_normalize(red.r);
    float u = negate_if(sin_poly(s), q & 1);
    return em_bits(d) == 0x80000000u ? d : u;
}

static float cos_fast(float d)
{
    float dq = em_fma(rintf(em_fma(d, M_1_PI_F, -0.5f)), 2.0f, 1.0f);
    int32_t q = em_int(rintf(dq));
    em_pair s = em_add2_ff(d, dq * (-PI_A2 * 0.5f));
    s = em_add2_pf(s, dq * (-PI_B2 * 0.5f));
    s = em_add2_pf(s, dq * (-PI_C2 * 0.5f));
    return negate_if(sin_poly(s), (q & 2) == 0);
}

static float cos_slow(float d)
{
    reduced red = reduce_slow(d);
    int32_t q = ((red.q & 3) * 2 + (red.r.x > 0 ? 8 : 7)) >> 1;
    if ((red.q & 1) == 0) {
        float y = red.r.x > 0 ? 0.0f : -1.0f;
        em_pair h = em_pair_of(em_mulsign(PI_HI * -0.5f, y), em_mulsign(PI_LO * -0.5f, y));
        red.r = em_add2_pp(red.r, h);
    }
    em_pair s = em_normalize(red.r);
    return negate_if(sin_poly(s), (q & 2) == 0);
}

float exactmath_sinf(float x)
{
    if (!isfinite(x))
        return em_float(NAN_ALL_ONES);
    return fabsf(x) < TRIG_RANGE ? sin_fast(x) : sin_slow(x);
}

float exactmath_cosf(float x)
{
    if (!isfinite(x))
        return em_float(NAN_ALL_ONES);
    return fabsf(x) < TRIG_RANGE ? cos_fast(x) : cos_slow(x);
}

void exactmath_trigf8(int cosine, const float in[8], float out[8])
{
    int slow = 0;
    for (int i = 0; i < 8; i++)
        slow |= !(fabsf(in[i]) < TRIG_RANGE);
    for (int i = 0; i < 8; i++)
        out[i] = !isfinite(in[i]) ? em_float(NAN_ALL_ONES)
                 : cosine         ? (slow ? cos_slow(in[i]) : cos_fast(in[i])) : (slow ? sin_slow(in[i]) : sin_fast(in[i]));
}
