/* generic/dispatch.c — every machine but x86-64 (isa.h): the instruction set is fixed when attn is built.
 * aarch64 always has Advanced SIMD and FMA; WebAssembly is built with its SIMD (src/web/web.mk compiles
 * src/core/wasm with -msimd128: a browser without it refuses the whole module); anything else (RISC-V, ...)
 * runs the portable C. */
#include "isa.h"

#if defined(__aarch64__)
#define WIDEST ATTN_ISA_NEON
#elif defined(__wasm__)
#define WIDEST ATTN_ISA_SIMD128
#else
#define WIDEST ATTN_ISA_PORTABLE
#endif

int attn_isa_runs(attn_isa isa)
{
    return isa == ATTN_ISA_PORTABLE || isa == WIDEST;
}

attn_isa attn_isa_widest(void)
{
    return WIDEST;
}
