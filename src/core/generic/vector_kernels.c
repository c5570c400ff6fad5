/* generic/vector_kernels.c — the table of vector_kernels.h on every machine but x86-64: empty for now, so
 * every caller runs its portable code, which gives the AVX2 kernels' bits (NEON versions may fill it). */
#include "vector_kernels.h"

static const attn_vector_kernels portable = {0};

const attn_vector_kernels *attn_vector_kernels_now(void)
{
    return &portable;
}
