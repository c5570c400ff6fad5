/* fused_tile_body.h — the body of a fused_tile.h kernel, included once per instruction set by a file that
 * defines TILE_NAME (the function), TILE_VW (floats per vector) and TILE_RB (rows per block; it divides
 * FUSED_TILE_ROWS, and 2·TILE_VW divides FUSED_TILE_COLS). gcc's vector extensions make the same C into
 * SSE2, AVX2 or AVX-512 code, whichever target the including file compiles for; that file is built with
 * -ffp-contract=fast (Makefile), so acc += x·b becomes one fused multiply-add where the machine has one.
 *
 * A block of TILE_RB rows × 2 vectors of columns is held in registers for the whole sum over k: 2 loads of
 * B and TILE_RB broadcasts of A per step of k feed 2·TILE_RB multiply-adds. The column blocks are the
 * outer loop, so one k×2·TILE_VW panel of B stays in L1 while the rows of A stream past it. */
#include "fused_tile.h"

#include <string.h>

typedef float tile_vec __attribute__((vector_size(TILE_VW * sizeof(float))));

static inline tile_vec tile_load(const float *p)
{
    tile_vec v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void tile_store(float *p, tile_vec v)
{
    memcpy(p, &v, sizeof v);
}

void TILE_NAME(int64_t rows, int64_t cols, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
               int64_t bpanel, float *c, int64_t ldc, int accumulate)
{
    for (int64_t c0 = 0; c0 < cols; c0 += 2 * TILE_VW)
        for (int64_t r0 = 0; r0 < rows; r0 += TILE_RB) {
            tile_vec acc0[TILE_RB], acc1[TILE_RB];
            float *cr = c + r0 * ldc + c0;
            const float *ar = a + r0 * lda;
            const float *bc = b + c0 / FUSED_TILE_COLS * bpanel + c0 % FUSED_TILE_COLS;
#pragma GCC unroll 16
            for (int i = 0; i < TILE_RB; i++) {
                acc0[i] = accumulate ? tile_load(cr + i * ldc) : (tile_vec){0};
                acc1[i] = accumulate ? tile_load(cr + i * ldc + TILE_VW) : (tile_vec){0};
            }
            for (int64_t l = 0; l < k; l++) {
                tile_vec b0 = tile_load(bc + l * ldb), b1 = tile_load(bc + l * ldb + TILE_VW);
#pragma GCC unroll 16
                for (int i = 0; i < TILE_RB; i++) {
                    float x = ar[i * lda + l];
                    acc0[i] += x * b0;
                    acc1[i] += x * b1;
                }
            }
#pragma GCC unroll 16
            for (int i = 0; i < TILE_RB; i++) {
                tile_store(cr + i * ldc, acc0[i]);
                tile_store(cr + i * ldc + TILE_VW, acc1[i]);
            }
        }
}
