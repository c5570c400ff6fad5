/* x86/fused_tile_avx512.c — fused_tile.h's kernel in AVX-512: 8 rows × 32 columns in 16 of the 32 zmm
 * registers. Compiled for any x86-64 (the pragma); x86/vector_kernels.c hands it out only when the CPU
 * runs it. */
#pragma GCC target("avx512f,fma")
#define TILE_NAME attn_fused_tile_avx512
#define TILE_VW 16
#define TILE_RB 8
#include "fused_tile_body.h"
