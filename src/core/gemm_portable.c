/* gemm_portable.c — the tile kernels of gemm.c in plain C: any machine, and WebAssembly. attn_fmaf rounds
 * exactly (fmaf_exact.h: the C library's fmaf, or attn's own where that one is wrong); gcc makes fmaf one
 * instruction where the machine has one (aarch64's fmadd). */
#include "fmaf_exact.h"
#include "gemm.h"

enum { PW = 8 };

/* s = fma(A(r, l), B(l, j), s) for l in order, then C += s */
static void one_chain(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c, int64_t ldc)
{
    float s[6][PW] = {{0}};
    for (int64_t l = 0; l < kl; l++)
        for (int j = 0; j < w; j++) {
            float b = pb[j * ldpb + l];
            for (int r = 0; r < PW; r++)
                s[j][r] = attn_fmaf(pa[l * PW + r], b, s[j][r]);
        }
    for (int j = 0; j < w; j++)
        for (int r = 0; r < rows; r++)
            c[r + j * ldc] = c[r + j * ldc] + s[j][r];
}

/* even l below kl & ~7 into e, odd ones into o, the rest into e; C += e + o */
static void two_chains(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c, int64_t ldc)
{
    float e[6][PW] = {{0}}, o[6][PW] = {{0}};
    int64_t k8 = kl & ~(int64_t)7;
    for (int64_t l = 0; l < kl; l++)
        for (int j = 0; j < w; j++) {
            float b = pb[j * ldpb + l];
            float(*s)[PW] = l < k8 && (l & 1) ? o : e;
            for (int r = 0; r < PW; r++)
                s[j][r] = attn_fmaf(pa[l * PW + r], b, s[j][r]);
        }
    for (int j = 0; j < w; j++)
        for (int r = 0; r < rows; r++)
            c[r + j * ldc] = c[r + j * ldc] + (e[j][r] + o[j][r]);
}

const attn_gemm_kernels attn_gemm_portable = {
    .pw = PW, .wide_rows = PW, .wide_cols = 6, .one_chain = one_chain, .two_chains = two_chains};
