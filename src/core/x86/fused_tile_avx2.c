/* x86/fused_tile_avx2.c — fused_tile.h's kernel in AVX2 + FMA: 4 rows × 16 columns in 8 of the 16 ymm
 * registers. Compiled for any x86-64 (the pragma); x86/vector_kernels.c hands it out only when the CPU
 * runs it. */
#pragma GCC target("avx2,fma")
#define TILE_NAME attn_fused_tile_avx2
#define TILE_VW 8
#define TILE_RB 4
#include "fused_tile_body.h"
