/* boxmuller.c — the Box-Muller step of PyTorch's randn / normal_ for 16 or more contiguous floats, as
 * Debian's torch 1.13 runs it on AVX2 machines (aten/src/ATen/native/cpu/DistributionKernels.cpp:
 * normal_fill_16_AVX2).
 *
 * That kernel takes log and sincos from avx_mathfun.h (Giovanni Garberoglio's AVX port of Julien Pommier's
 * sse_mathfun, after Cephes): log256_ps and sincos256_ps, polynomials of cephes's constants evaluated
 * 8 lanes at a time. PyTorch's AVX2 kernels are compiled with -mavx2 -mfma, and GCC contracts the
 * intrinsics' multiply-then-add pairs into fused multiply-adds wherever it can: which pairs it fused
 * decides the last bit. The functions below are our own implementation of that algorithm, one lane at a
 * time, with the same constants (written as the exact float values the kernel holds) and the same
 * operations in the same order, each fused multiply-add where the compiled kernel has one (read from
 * the disassembly of libtorch_cpu.so.1.13's AVX2 normal kernel). Each lane of the vector code is
 * independent, so one lane at a time gives the same bits.
 *
 * Used on every machine: attn's reference is PyTorch's AVX2 kernels, and this plain C gives their bits
 * on any CPU (PyTorch itself would run its scalar kernel, with libm, on a CPU without AVX2). */
#include "boxmuller.h"
#include "fmaf_exact.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

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

/* ---- log256_ps, one lane: the natural log for x > 0 (NaN for x <= 0) ------------------------------- */

#define SQRTHF 0x1.6a09e6p-1f  /* cephes_SQRTHF 0.707106781186547524 */
#define LOG_Q1 -0x1.bd0106p-13f /* cephes_log_q1 -2.12194440e-4 */
#define LOG_Q2 0x1.63p-1f       /* cephes_log_q2 0.693359375 */

static const float log_p[9] = {
    0x1.204376p-4f,  /* 7.0376836292E-2 */
    -0x1.d7a37p-4f,  /* -1.1514610310E-1 */
    0x1.de4a34p-4f,  /* 1.1676998740E-1 */
    -0x1.fcba9ep-4f, /* -1.2420140846E-1 */
    0x1.23d37ep-3f,  /* 1.4249322787E-1 */
    -0x1.555ca0p-3f, /* -1.6668057665E-1 */
    0x1.999d58p-3f,  /* 2.0000714765E-1 */
    -0x1.fffff8p-3f, /* -2.4999993993E-1 */
    0x1.555554p-2f,  /* 3.3333331174E-1 */
};

static float log_lane(float x)
{
    int invalid = x <= 0.0f; /* _CMP_LE_OS: false for NaN */
    x = x > 0x1p-126f ? x : 0x1p-126f; /* _mm256_max_ps(x, min_norm_pos): cut off denormals */
    uint32_t u = bits_of(x);
    int32_t exponent = (int32_t)(u >> 23) - 0x7f;
    x = float_of((u & 0x807fffffu) | bits_of(0.5f)); /* keep the mantissa, in [0.5, 1) */
    float e = (float)exponent + 1.0f;
    int below = x < SQRTHF;
    float tmp = below ? x : 0.0f; /* x & mask */
    x = x - 1.0f;
    e = e - (below ? 1.0f : 0.0f);
    float e_q1 = e * LOG_Q1;
    x = x + tmp;
    float y = attn_fmaf(x, log_p[0], log_p[1]); /* y = p0; y = y*x + p1; ... fused */
    for (int i = 2; i < 9; i++)
        y = attn_fmaf(x, y, log_p[i]);
    float z = x * x;
    y = x * y;
    y = attn_fmaf(y, z, e_q1);   /* y*z + e*q1 */
    y = attn_fmaf(-z, 0.5f, y);  /* y - z*0.5 */
    x = x + y;
    x = attn_fmaf(e, LOG_Q2, x); /* x + e*q2 */
    return invalid ? float_of(0xffffffffu) : x; /* _mm256_or_ps with the all-ones mask: NaN */
}

/* ---- sincos256_ps, one lane ------------------------------------------------------------------------ */

#define FOPI 0x1.45f306p+0f   /* cephes_FOPI 1.27323954473516, 4/pi */
#define DP1 -0x1.92p-1f       /* minus_cephes_DP1 -0.78515625 */
#define DP2 -0x1.fb4p-13f     /* minus_cephes_DP2 -2.4187564849853515625e-4 */
#define DP3 -0x1.4442d2p-25f  /* minus_cephes_DP3 -3.77489497744594108e-8 */
#define COS_P0 0x1.99eb9cp-16f /* coscof_p0 2.443315711809948E-005 */
#define COS_P1 -0x1.6c0c34p-10f /* coscof_p1 -1.388731625493765E-003 */
#define COS_P2 0x1.55554ap-5f   /* coscof_p2 4.166664568298827E-002 */
#define SIN_P0 -0x1.9943f2p-13f /* sincof_p0 -1.9515295891E-4 */
#define SIN_P1 0x1.11073cp-7f   /* sincof_p1 8.3321608736E-3 */
#define SIN_P2 -0x1.555546p-3f  /* sincof_p2 -1.6666654611E-1 */

static void sincos_lane(float theta, float *s, float *c)
{
    uint32_t t = bits_of(theta);
    float x = float_of(t & 0x7fffffffu); /* |theta| */
    uint32_t sign_sin = t & 0x80000000u;
    int32_t j = (int32_t)(x * FOPI); /* _mm256_cvttps_epi32: toward zero */
    j = j + 1;
    int32_t j_even = j & ~1; /* j = (j + 1) & ~1, as cephes */
    float y = (float)j_even;
    uint32_t swap_sin = (uint32_t)(j & 4) << 29;
    int poly_sin = (j & 2) == 0; /* which polynomial gives the sine */
    uint32_t sign_cos = (uint32_t)(~(j_even - 2) & 4) << 29;
    /* the "magic pass": x = ((x - y*DP1) - y*DP2) - y*DP3, each step fused */
    x = attn_fmaf(y, DP1, x);
    x = attn_fmaf(y, DP2, x);
    x = attn_fmaf(y, DP3, x);
    sign_sin ^= swap_sin;
    float z = x * x;
    /* the cosine polynomial (0 <= x <= pi/4) */
    float yc = attn_fmaf(z, COS_P0, COS_P1);
    yc = attn_fmaf(z, yc, COS_P2);
    float half_z = z * 0.5f;
    yc = z * yc;
    yc = attn_fmaf(yc, z, -half_z);
    yc = yc + 1.0f;
    /* the sine polynomial */
    float ys = attn_fmaf(SIN_P0, z, SIN_P1);
    ys = attn_fmaf(z, ys, SIN_P2);
    ys = z * ys;
    ys = attn_fmaf(ys, x, x);
    /* select: the masked parts are +0.0, and the sums keep the exact signs of the vector code's adds */
    float sin_part = poly_sin ? ys : 0.0f, cos_part = poly_sin ? 0.0f : yc;
    float sin_v = sin_part + cos_part;
    float cos_v = (ys - sin_part) + (yc - cos_part);
    *s = float_of(bits_of(sin_v) ^ sign_sin);
    *c = float_of(bits_of(cos_v) ^ sign_cos);
}

/* ---- normal_fill_16_AVX2 --------------------------------------------------------------------------- */

#define TWO_PI 0x1.921fb6p+2f /* _mm256_set1_ps(2.0f * c10::pi<double>) */

void attn_boxmuller16_avx2(float *d, float mean, float std)
{
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - d[j];
        float theta = TWO_PI * d[j + 8];
        float radius = sqrtf(log_lane(u1) * -2.0f);
        float s, c;
        sincos_lane(theta, &s, &c);
        d[j] = attn_fmaf(radius * c, std, mean);     /* _mm256_fmadd_ps(cosval, std, mean) */
        d[j + 8] = attn_fmaf(radius * s, std, mean); /* and sinval */
    }
}

