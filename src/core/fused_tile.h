/* fused_tile.h — attention.fused's tile product, attn's own (no BLAS): C = A B, or C += A B, for the
 * small row-major tiles of one task (S = Q Kᵀ with Q pre-scaled, O = α·O + P V). attention.fused promises
 * the staged path's numbers within float rounding, not its bits: these kernels sum each element in one
 * chain over k with fused multiply-adds where the machine has them, at whatever width is fastest.
 *
 * The operands are padded by the caller so that no kernel needs a tail: rows a multiple of
 * FUSED_TILE_ROWS, cols a multiple of FUSED_TILE_COLS (zeros where there is no key or column). */
#ifndef ATTN_FUSED_TILE_H
#define ATTN_FUSED_TILE_H

#include <stdint.h>

#define FUSED_TILE_ROWS 8  /* every kernel's block of rows divides it */
#define FUSED_TILE_COLS 32 /* every kernel's block of columns divides it */

/* C (rows×cols, ldc) = A (rows×k, lda) · B (k×cols), or += when accumulate; row-major. B is read in
 * panels of FUSED_TILE_COLS columns, bpanel floats apart: B(l, c) = b[(c / 32) bpanel + l ldb + c % 32]
 * (a row-major B: bpanel = 32; B packed panel after panel: ldb = 32, bpanel = 32 k). */
typedef void (*attn_fused_tile_fn)(int64_t rows, int64_t cols, int64_t k, const float *a, int64_t lda,
                                   const float *b, int64_t ldb, int64_t bpanel, float *c, int64_t ldc, int accumulate);

/* vectors of 4 floats: any machine (SSE2 on x86-64, NEON, WebAssembly's SIMD or scalar code elsewhere) */
void attn_fused_tile_portable(int64_t rows, int64_t cols, int64_t k, const float *a, int64_t lda, const float *b,
                              int64_t ldb, int64_t bpanel, float *c, int64_t ldc, int accumulate);

/* the kernel of attn_isa_current() (the vector table's, else the portable one) */
attn_fused_tile_fn attn_fused_tile_now(void);

#endif
