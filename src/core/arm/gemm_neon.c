/* arm/gemm_neon.c — gemm.c's tile kernels with aarch64's Advanced SIMD: four rows of C in a vector, each
 * lane one element adding its terms in the order of gemm_portable.c (vfmaq_f32 is FMLA, one rounding).
 * aarch64 always has it, so generic/dispatch.c chooses it when attn is built for aarch64. */
#include "gemm.h"

#if defined(__aarch64__)

#include <arm_neon.h>

#define INLINE inline __attribute__((always_inline))
#define UNROLLED _Pragma("GCC unroll 16") /* keeps the sums in registers */

/* C[0 .. rows) += s for the 4 rows of s (rows may be fewer than 4, or none) */
static INLINE void add_to_c(float *c, int rows, float32x4_t s)
{
    if (rows >= 4) {
        vst1q_f32(c, vaddq_f32(vld1q_f32(c), s));
    } else if (rows > 0) {
        float t[4];
        vst1q_f32(t, s);
        for (int r = 0; r < rows; r++)
            c[r] = c[r] + t[r];
    }
}

/* V vectors of 4 rows (V/2 panels of 8, k-stride 8) by W columns, one chain */
static INLINE void one_rows(const int V, const int W, int64_t kl, const float *pa, int rows, const float *pb,
                            int ldpb, float *c, int64_t ldc)
{
    float32x4_t s[4][6];
    UNROLLED
    for (int v = 0; v < V; v++) {
        UNROLLED
        for (int j = 0; j < W; j++)
            s[v][j] = vdupq_n_f32(0.0f);
    }
    for (int64_t l = 0; l < kl; l++) {
        float32x4_t a[4];
        UNROLLED
        for (int v = 0; v < V; v++)
            a[v] = vld1q_f32(pa + (v / 2) * 8 * kl + l * 8 + (v % 2) * 4);
        UNROLLED
        for (int j = 0; j < W; j++) {
            float32x4_t b = vdupq_n_f32(pb[j * ldpb + l]);
            UNROLLED
            for (int v = 0; v < V; v++)
                s[v][j] = vfmaq_f32(s[v][j], a[v], b);
        }
    }
    UNROLLED
    for (int j = 0; j < W; j++) {
        UNROLLED
        for (int v = 0; v < V; v++)
            add_to_c(c + j * ldc + 4 * v, rows - 4 * v, s[v][j]);
    }
}

/* 8 rows by W columns, two chains: even l below kl & ~7 into e, odd into o, the rest into e */
static INLINE void two_rows(const int W, int64_t kl, const float *pa, const float *pb, int ldpb, float *c,
                            int64_t ldc)
{
    float32x4_t e[2][6], o[2][6];
    UNROLLED
    for (int j = 0; j < W; j++)
        e[0][j] = e[1][j] = o[0][j] = o[1][j] = vdupq_n_f32(0.0f);
    int64_t k8 = kl & ~(int64_t)7, l = 0;
    for (; l < kl; l++) {
        float32x4_t a0 = vld1q_f32(pa + l * 8), a1 = vld1q_f32(pa + l * 8 + 4);
        int odd = l < k8 && (l & 1);
        UNROLLED
        for (int j = 0; j < W; j++) {
            float32x4_t b = vdupq_n_f32(pb[j * ldpb + l]);
            if (odd) {
                o[0][j] = vfmaq_f32(o[0][j], a0, b);
                o[1][j] = vfmaq_f32(o[1][j], a1, b);
            } else {
                e[0][j] = vfmaq_f32(e[0][j], a0, b);
                e[1][j] = vfmaq_f32(e[1][j], a1, b);
            }
        }
    }
    UNROLLED
    for (int j = 0; j < W; j++) {
        add_to_c(c + j * ldc, 4, vaddq_f32(e[0][j], o[0][j]));
        add_to_c(c + j * ldc + 4, 4, vaddq_f32(e[1][j], o[1][j]));
    }
}

#define BY_WIDTH(call)                                                                                             \
    switch (w) {                                                                                                   \
    case 1: call(1); break;                                                                                        \
    case 2: call(2); break;                                                                                        \
    case 3: call(3); break;                                                                                        \
    case 4: call(4); break;                                                                                        \
    case 5: call(5); break;                                                                                        \
    default: call(6); break;                                                                                       \
    }

static void one_chain(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c,
                      int64_t ldc)
{
    if (rows <= 8) {
#define ONE8(W) one_rows(2, W, kl, pa, rows, pb, ldpb, c, ldc)
        BY_WIDTH(ONE8)
    } else {
#define ONE16(W) one_rows(4, W, kl, pa, rows, pb, ldpb, c, ldc)
        BY_WIDTH(ONE16)
    }
}

static void two_chains(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c,
                       int64_t ldc)
{
    (void)rows; /* always a whole group of 8 */
#define TWO8(W) two_rows(W, kl, pa, pb, ldpb, c, ldc)
    BY_WIDTH(TWO8)
}

const attn_gemm_kernels attn_gemm_neon = {
    .pw = 8, .wide_rows = 16, .wide_cols = 6, .one_chain = one_chain, .two_chains = two_chains};

#endif
