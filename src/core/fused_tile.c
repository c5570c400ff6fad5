/* fused_tile.c — the portable fused_tile.h kernel (vectors of 4 floats), and the choice of kernel. */
#define TILE_NAME attn_fused_tile_portable
#define TILE_VW 4
#define TILE_RB 4
#include "fused_tile_body.h"

#include "vector_kernels.h"

attn_fused_tile_fn attn_fused_tile_now(void)
{
    attn_fused_tile_fn vector = attn_vector_kernels_now()->fused_tile;
    return vector ? vector : attn_fused_tile_portable;
}
