/* sleefmath.h — SLEEF 3.5.1's u10 float functions with the bits of its FMA build: what PyTorch 1.13's
 * Vectorized<float> computes exp, log, tanh, erf, sin and cos with (Sleef_expf8_u10 and the like, whose
 * lanes equal the one-float FMA build, Sleef_expf1_u10purecfma).
 *
 * Two implementations give the same bits (scripts/check-exactmath.sh, on all 2^32 floats): Debian's
 * libsleef, whose FMA build runs only on a CPU with FMA, and attn's own (exactmath.h), which runs
 * anywhere. Which one attn calls is chosen by the build, one file per kind of machine (isa.h):
 * src/core/x86/sleefmath.c calls libsleef when the vector kernels are in use (isa.h's AVX2 or AVX-512,
 * both with FMA) and attn's own otherwise (a CPU without FMA, or ATTN_ISA=portable);
 * src/core/generic/sleefmath.c (aarch64, WebAssembly) always attn's own, and needs no libsleef. */
#ifndef ATTN_SLEEFMATH_H
#define ATTN_SLEEFMATH_H

float sleefmath_expf(float x);
float sleefmath_logf(float x);
float sleefmath_tanhf(float x);
float sleefmath_erff(float x);
float sleefmath_sinf(float x);
float sleefmath_cosf(float x);

#endif
