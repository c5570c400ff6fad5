/* isa.h — which instruction set attn's exact kernels run with, chosen in one place.
 *
 * Every kernel whose bits attn promises (the products, the softmax's sums, exp and friends) exists once
 * as portable C and, where it pays, once per vector instruction set. All versions of a kernel compute
 * each output element with the same operations in the same order (vectors and threads run across output
 * elements, never along a sum), so the choice changes only the time, never a bit.
 *
 * The choice is made by one file per kind of machine: src/core/x86/dispatch.c asks the CPU at run time
 * (the only file that may); src/core/generic/dispatch.c, for every other machine, is fixed when attn is
 * built. ATTN_ISA in the environment (portable, avx2, avx512) forces a narrower set, for the tests that
 * compare the versions and for the benchmarks; a set this CPU cannot run is refused (the widest is kept). */
#ifndef ATTN_ISA_H
#define ATTN_ISA_H

typedef enum attn_isa {
    ATTN_ISA_PORTABLE, /* plain C11 with an exactly rounded fmaf: any CPU, WebAssembly */
    ATTN_ISA_AVX2,     /* x86-64 with AVX2 and FMA (Haswell and later) */
    ATTN_ISA_AVX512,   /* x86-64 with AVX-512 F, BW, DQ, VL (Skylake-X, Ice Lake, Zen 4 and later) */
    ATTN_ISA_NEON,     /* aarch64's Advanced SIMD (every aarch64 CPU has it, and FMA) */
    ATTN_ISA_SIMD128   /* WebAssembly's 128-bit SIMD (the web build: src/core/wasm, compiled with -msimd128) */
} attn_isa;

/* The instruction set the kernels use now: the widest this CPU runs, or the narrower one ATTN_ISA asks for. */
attn_isa attn_isa_current(void);

/* Whether this CPU runs isa (ATTN_ISA_PORTABLE: always). */
int attn_isa_runs(attn_isa isa);

/* Uses isa from now on (tests, benchmarks); -1, changing nothing, when this CPU cannot run it. */
int attn_isa_set(attn_isa isa);

/* "portable", "avx2", "avx512", "neon", "simd128"; and the reverse (-1 for an unknown name). */
const char *attn_isa_name(attn_isa isa);
int attn_isa_from_name(const char *name);

#endif
