/* wasm/gemm_simd128.c — gemm.c's tile kernels with WebAssembly's SIMD (f64x2), for the web build (its
 * instruction set ATTN_ISA_SIMD128, fixed when attn is built: generic/dispatch.c). The same tiles as
 * gemm_portable.c, each element's sum made by the same fused multiply-adds in the same order, two rows at
 * once through wasm/fmaf_x2.h (fmaf_exact.c's rounding, lane by lane), so the same bits.
 * Every element is a chain of its own, so a tile is done one column j at a time, all l for that column,
 * its eight rows' sums held in four registers (double lanes that hold floats: fmaf_x2.h) until they are
 * added into C as floats. */
#include "gemm.h"
#include "wasm/fmaf_x2.h"

enum { PW = 8, LANES = PW / 2 };

/* s[q] = fma(A(2q, l), b, s[q]) and fma(A(2q + 1, l), b, s[q]) for the four pairs of rows: the double sums
 * rounded to float, or (when a lane of the eight needs care: nearly never) attn_fmaf_x2 on all four */
static inline void fma_column(const float *pa, double b, attn_f64x2 *s0, attn_f64x2 *s1, attn_f64x2 *s2,
                              attn_f64x2 *s3)
{
    attn_f64x2 bb = {b, b};
    attn_f64x2 a0 = {pa[0], pa[1]}, a1 = {pa[2], pa[3]}, a2 = {pa[4], pa[5]}, a3 = {pa[6], pa[7]};
    attn_f64x2 t0 = a0 * bb + *s0, t1 = a1 * bb + *s1, t2 = a2 * bb + *s2, t3 = a3 * bb + *s3;
    if (__builtin_expect(attn_any_x2(attn_fmaf_x2_care(t0) | attn_fmaf_x2_care(t1) | attn_fmaf_x2_care(t2) |
                                     attn_fmaf_x2_care(t3)), 0)) {
        *s0 = attn_fmaf_x2(a0, bb, *s0), *s1 = attn_fmaf_x2(a1, bb, *s1);
        *s2 = attn_fmaf_x2(a2, bb, *s2), *s3 = attn_fmaf_x2(a3, bb, *s3);
    } else {
        *s0 = attn_float_x2(t0), *s1 = attn_float_x2(t1), *s2 = attn_float_x2(t2), *s3 = attn_float_x2(t3);
    }
}

/* C(r, j) += the sums of rows r < rows (e + o when two chains: floats, added as floats) */
static inline void add_into_c(float *cj, int rows, attn_f64x2 e0, attn_f64x2 e1, attn_f64x2 e2, attn_f64x2 e3,
                              const attn_f64x2 *o)
{
    attn_f64x2 e[LANES] = {e0, e1, e2, e3};
    for (int r = 0; r < rows; r++)
        cj[r] = cj[r] + (o ? ((float)e[r / 2][r % 2] + (float)o[r / 2][r % 2]) : (float)e[r / 2][r % 2]);
}

/* s = fma(A(r, l), B(l, j), s) for l in order, then C += s */
static void one_chain(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c, int64_t ldc)
{
    for (int j = 0; j < w; j++) {
        const float *bj = pb + (int64_t)j * ldpb;
        attn_f64x2 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        for (int64_t l = 0; l < kl; l++)
            fma_column(pa + l * PW, bj[l], &s0, &s1, &s2, &s3);
        add_into_c(c + j * ldc, rows, s0, s1, s2, s3, 0);
    }
}

/* even l below kl & ~7 into e, odd ones into o, the rest into e; C += e + o (as gemm_portable.c) */
static void two_chains(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c, int64_t ldc)
{
    int64_t k8 = kl & ~(int64_t)7;
    for (int j = 0; j < w; j++) {
        const float *bj = pb + (int64_t)j * ldpb;
        attn_f64x2 e0 = {0}, e1 = {0}, e2 = {0}, e3 = {0}, o0 = {0}, o1 = {0}, o2 = {0}, o3 = {0};
        int64_t l = 0;
        for (; l < k8; l += 2) {
            fma_column(pa + l * PW, bj[l], &e0, &e1, &e2, &e3);
            fma_column(pa + (l + 1) * PW, bj[l + 1], &o0, &o1, &o2, &o3);
        }
        for (; l < kl; l++)
            fma_column(pa + l * PW, bj[l], &e0, &e1, &e2, &e3);
        attn_f64x2 o[LANES] = {o0, o1, o2, o3};
        add_into_c(c + j * ldc, rows, e0, e1, e2, e3, o);
    }
}

const attn_gemm_kernels attn_gemm_simd128 = {
    .pw = PW, .wide_rows = PW, .wide_cols = 6, .one_chain = one_chain, .two_chains = two_chains};
