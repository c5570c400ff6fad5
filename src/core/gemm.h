/* gemm.h — attn's own single-precision matrix product, bit for bit the one OpenBLAS 0.3.21 computes with
 * its Haswell kernels on one thread (what PyTorch 1.13's reference data were made with), on every
 * machine, instruction set and thread count. gemm.c says in which order each element is summed. */
#ifndef ATTN_GEMM_H
#define ATTN_GEMM_H

#include <stdint.h>

/* C = op(A) op(B) + beta C, column-major, as the Fortran sgemm_(ta, tb, m, n, k, alpha = 1, a, lda, b,
 * ldb, beta, c, ldc): op(A) is m x k ('N': A(i, l) = a[i + l lda]; 'T': a[l + i lda]), op(B) k x n
 * ('N': b[l + j ldb]; 'T': b[j + l ldb]), C m x n (c[i + j ldc]). beta = 0 overwrites C (never read),
 * beta = 1 adds to it, any other scales it first (C = beta C, as OpenBLAS does). Threads (attn_threads())
 * share the output tiles; each element is computed by one thread in the same order whatever their number.
 * 0; -1 when Ctrl-C stopped it (C is then incomplete); ATTN_GEMM_NO_MEMORY when its packing room (some
 * 3 MB a thread) could not be had (C untouched). */
int attn_sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
               int64_t ldb, float beta, float *c, int64_t ldc);
#define ATTN_GEMM_NO_MEMORY (-2)

/* ---- for the kernels of each instruction set (gemm_portable.c, x86/gemm_avx2.c, x86/gemm_avx512.c) ----
 *
 * A tile kernel adds one k-block's sums into C: C[r + j ldc] += sum over l < kl of A(r, l) B(l, j), for
 * r < rows, j < w (w <= 6, or wide_cols), the sum made as the table in gemm.c says (one chain, or two).
 * pa: op(A) packed in panels of `pw` rows: A(r, l) = pa[(r / pw) pw kl + l pw + r % pw]; a tile of up to
 * 8 rows may start inside a panel (pa then points at its first row, and still steps pw per l).
 * pb: op(B) packed by columns: B(l, j) = pb[j ldpb + l] (ldpb >= kl). */
typedef void (*attn_gemm_tile_fn)(int64_t kl, const float *pa, int rows, const float *pb, int ldpb, int w, float *c,
                                  int64_t ldc);

typedef struct attn_gemm_kernels {
    int pw;             /* rows of a packed panel of A: 8 or 16 */
    int wide_rows;      /* the most rows one_chain takes from a panel's start (whole panels) */
    int wide_cols;      /* the most columns one_chain takes (6 or 12) */
    attn_gemm_tile_fn one_chain;  /* every element one chain over l: rows <= wide_rows, w <= wide_cols */
    attn_gemm_tile_fn two_chains; /* every element two chains (see gemm.c): rows <= 8 */
} attn_gemm_kernels;

extern const attn_gemm_kernels attn_gemm_portable;
#if defined(__x86_64__) && defined(__GNUC__)
extern const attn_gemm_kernels attn_gemm_avx2, attn_gemm_avx512;
/* x86/gemm_avx2.c's tiles of up to 8 rows, whose packed A steps `stride` floats per l (AVX-512's too) */
void attn_gemm_avx2_one8(int64_t kl, const float *pa, int stride, int rows, const float *pb, int ldpb, int w, float *c,
                         int64_t ldc);
void attn_gemm_avx2_two8(int64_t kl, const float *pa, int stride, int rows, const float *pb, int ldpb, int w, float *c,
                         int64_t ldc);
#endif
#if defined(__aarch64__)
extern const attn_gemm_kernels attn_gemm_neon;
#endif
#if defined(__wasm__)
extern const attn_gemm_kernels attn_gemm_simd128; /* wasm/gemm_simd128.c */
#endif

#endif
