/* wasm/gemm_simd128.c — gemm.c's tile kernels with WebAssembly's SIMD (f64x2), for the web build (its
 * instruction set ATTN_ISA_SIMD128, fixed when attn is built: generic/dispatch.c). The same tiles as
 * gemm_portable.c, each element's sum made by the same fused multiply-adds in the same order, two rows at
 * once through attn_fmaf_x2 (wasm/fmaf_x2.h: fmaf_exact.c's rounding, lane by lane), so the same bits.
 * Every element is a chain of its own, so a tile is done one column j at a time, all l for that column,
 * its eight rows' sums held in four registers (double lanes that hold floats: fmaf_x2.h) until they are
 * added into C as floats. */
#include "gemm.h"
#include "wasm/fmaf_x2.h"

enum { PW = 8, LANES = PW / 2 };

/* A(0..7, l) as four pairs of doubles */
static inline void load_a(const float *pa, attn_f64x2 a[LANES])
{
    for (int q = 0; q < LANES; q++)
        a[q] = (attn_f64x2){pa[2 * q], pa[2 * q + 1]};
}

/* s = fma(A(r, l), B(l, j), s) for l in order, then C += s */
static void one_chain(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c, int64_t ldc)
{
    for (int j = 0; j < w; j++) {
        const float *bj = pb + (int64_t)j * ldpb;
        attn_f64x2 s[LANES] = {{0}};
        for (int64_t l = 0; l < kl; l++) {
            attn_f64x2 a[LANES];
            load_a(pa + l * PW, a);
            double b = bj[l];
            attn_f64x2 bb = {b, b};
            for (int q = 0; q < LANES; q++)
                s[q] = attn_fmaf_x2(a[q], bb, s[q]);
        }
        float *cj = c + j * ldc;
        for (int r = 0; r < rows; r++)
            cj[r] = cj[r] + (float)s[r / 2][r % 2];
    }
}

/* even l below kl & ~7 into e, odd ones into o, the rest into e; C += e + o (as gemm_portable.c) */
static void two_chains(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c, int64_t ldc)
{
    int64_t k8 = kl & ~(int64_t)7;
    for (int j = 0; j < w; j++) {
        const float *bj = pb + (int64_t)j * ldpb;
        attn_f64x2 e[LANES] = {{0}}, o[LANES] = {{0}}, a[LANES];
        int64_t l = 0;
        for (; l < k8; l += 2) {
            load_a(pa + l * PW, a);
            attn_f64x2 b0 = {bj[l], bj[l]};
            for (int q = 0; q < LANES; q++)
                e[q] = attn_fmaf_x2(a[q], b0, e[q]);
            load_a(pa + (l + 1) * PW, a);
            attn_f64x2 b1 = {bj[l + 1], bj[l + 1]};
            for (int q = 0; q < LANES; q++)
                o[q] = attn_fmaf_x2(a[q], b1, o[q]);
        }
        for (; l < kl; l++) {
            load_a(pa + l * PW, a);
            attn_f64x2 b = {bj[l], bj[l]};
            for (int q = 0; q < LANES; q++)
                e[q] = attn_fmaf_x2(a[q], b, e[q]);
        }
        float *cj = c + j * ldc;
        for (int r = 0; r < rows; r++)
            cj[r] = cj[r] + ((float)e[r / 2][r % 2] + (float)o[r / 2][r % 2]);
    }
}

const attn_gemm_kernels attn_gemm_simd128 = {
    .pw = PW, .wide_rows = PW, .wide_cols = 6, .one_chain = one_chain, .two_chains = two_chains};
