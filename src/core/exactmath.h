/* exactmath.h — attn's own expf, logf, tanhf, erff, sinf and cosf: the bits of SLEEF 3.5.1's u10 functions
 * as its FMA build computes them (Sleef_expf1_u10purecfma and the like, which equal every lane of the
 * 8-wide AVX2 functions PyTorch's Vectorized<float> calls), on every float input, in portable C11.
 *
 * Why attn has its own: libsleef's FMA build runs only on CPUs with FMA, and WebAssembly has no libsleef
 * (Debian's source package could not be fetched either); SLEEF's non-FMA build gives other bits. These
 * give the FMA build's bits everywhere, given an exactly rounded fmaf (exactmath_pair.h). They are SLEEF's
 * algorithms (Naoki Shibata and contributors, Boost Software License 1.0), written again for attn;
 * scripts/check-exactmath.sh compares them with libsleef on all 2^32 inputs, tests/c/test_exactmath.c on
 * a sample. mathlib.h says which of the two attn calls where. */
#ifndef ATTN_EXACTMATH_H
#define ATTN_EXACTMATH_H

/* exactmath_exp.c */
float exactmath_expf(float x);  /* Sleef_expf1_u10purecfma */
float exactmath_logf(float x);  /* Sleef_logf1_u10purecfma */
float exactmath_tanhf(float x); /* Sleef_tanhf1_u10purecfma */
float exactmath_erff(float x);  /* Sleef_erff1_u10purecfma */

/* exactmath_trig.c */
float exactmath_sinf(float x); /* Sleef_sinf1_u10purecfma */
float exactmath_cosf(float x); /* Sleef_cosf1_u10purecfma */

/* sin (cosine == 0) or cos of 8 floats as SLEEF's 8-wide functions compute them (Sleef_sinf8_u10avx2):
 * they choose the argument reduction once per vector, the slow one for all 8 lanes if any lane has
 * |x| >= 125, nan or inf; a lane can then differ in the last bit from the one-float function. */
void exactmath_trigf8(int cosine, const float in[8], float out[8]);

#endif
