/* fused_rows.h — the loops of attention.fused's online softmax over a row of scores (fused_task.c), shared
 * by the portable code and its AVX2 copy (src/core/x86/fused_avx2.c, the same loops compiled for 8 floats
 * per instruction). exp has two forms that give one result: the AVX2 one with fused multiply-adds, and
 * attn_fused_exp_row_portable, which computes each lane's operations in plain C with fmaf. */
#ifndef ATTN_FUSED_ROWS_H
#define ATTN_FUSED_ROWS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* exp(x) for x <= 0 (nan stays nan), less than 1 ulp from the exact value (checked on every float in
 * [-87.3, 0]): Cephes expf's polynomial after Cody-Waite reduction x = n·ln2 + r. Plain float arithmetic
 * and bit operations, so that gcc vectorizes the loops that call it. Results below 2^-126 (x < -87.3)
 * are flushed to 0, which moves a softmax weight by less than 1e-37. */
static inline float attn_exp_nonpositive(float x)
{
    const float magic = 12582912.0f; /* 1.5·2^23: adding it rounds to an integer kept in the low bits */
    float t = x * 1.44269504088896341f + magic;
    float n = t - magic;
    float r = x - n * 0.693359375f; /* ln2 in two parts: n·hi is exact for |n| < 2^9 */
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float y = p * r * r + r + 1.0f;
    uint32_t tb, sb;
    memcpy(&tb, &t, sizeof tb);
    sb = (tb - 0x4B400000u + 127u) << 23; /* 2^n for n in [-126, 0] */
    float two_n;
    memcpy(&two_n, &sb, sizeof two_n);
    /* x < -87.3 (-inf included) gives +0: a mask rather than a branch, so the loops stay vectorized */
    float e = y * two_n;
    uint32_t eb, keep = 0u - (uint32_t)!(x < -87.3f);
    memcpy(&eb, &e, sizeof eb);
    eb &= keep;
    memcpy(&e, &eb, sizeof e);
    return e;
}

/* The same reduction and polynomial with each a·b + c rounded once (fmaf): one lane of the AVX2 exp
 * (x86/fused_avx2.c), as accurate (checked on every float in [-87.3, 0]: at most 1.01 ulp from the exact
 * value, 14 floats at 1 ulp or more). */
static inline float attn_exp_nonpositive_fma(float x)
{
    const float magic = 12582912.0f;
    float t = fmaf(x, 1.44269504088896341f, magic);
    float n = t - magic;
    float r = fmaf(-n, 0.693359375f, x);
    r = fmaf(-n, -2.12194440e-4f, r);
    float p = 1.9875691500e-4f;
    p = fmaf(p, r, 1.3981999507e-3f);
    p = fmaf(p, r, 8.3334519073e-3f);
    p = fmaf(p, r, 4.1665795894e-2f);
    p = fmaf(p, r, 1.6666665459e-1f);
    p = fmaf(p, r, 5.0000001201e-1f);
    float y = fmaf(p, r * r, r) + 1.0f;
    uint32_t tb, sb;
    memcpy(&tb, &t, sizeof tb);
    sb = (tb - 0x4B400000u + 127u) << 23;
    float two_n;
    memcpy(&two_n, &sb, sizeof two_n);
    float e = y * two_n;
    uint32_t eb, keep = 0u - (uint32_t)!(x < -87.3f); /* _CMP_NLT_UQ: kept unless x < -87.3; nan kept */
    memcpy(&eb, &e, sizeof eb);
    eb &= keep;
    memcpy(&e, &eb, sizeof e);
    return e;
}

/* s[j] = exp(s[j] - max); returns their sum: blocks of 8 through the fused exp into 8 lane sums, the
 * last n % 8 through attn_exp_nonpositive into a tail sum, then ((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7))+tail:
 * the AVX2 copy's order (x86/fused_avx2.c). */
static inline float attn_fused_exp_row_portable(float *s, int64_t n, float max)
{
    float acc[8] = {0}, tail = 0.0f;
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; l++) {
            float e = attn_exp_nonpositive_fma(s[j + l] - max);
            s[j + l] = e;
            acc[l] = acc[l] + e;
        }
    for (; j < n; j++) {
        s[j] = attn_exp_nonpositive(s[j] - max);
        tail += s[j];
    }
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7])) + tail;
}

/* The largest of n floats (-inf for none; a nan never wins: it spreads through exp instead). Eight
 * accumulators so that the compiler can keep them in one vector register. */
static inline float attn_fused_row_max_loop(const float *s, int64_t n)
{
    float acc[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; l++)
            acc[l] = s[j + l] > acc[l] ? s[j + l] : acc[l];
    for (; j < n; j++)
        acc[0] = s[j] > acc[0] ? s[j] : acc[0];
    float mx = acc[0];
    for (int l = 1; l < 8; l++)
        mx = acc[l] > mx ? acc[l] : mx;
    return mx;
}

/* o[j] *= a: the row of O rescaled by α */
static inline void attn_fused_scale_row_loop(float *o, int64_t n, float a)
{
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; l++)
            o[j + l] *= a;
    for (; j < n; j++)
        o[j] *= a;
}

#endif
