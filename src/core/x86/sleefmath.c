/* x86/sleefmath.c — sleefmath.h on x86-64: Debian's libsleef where its FMA build runs and the vector
 * kernels are in use, attn's own functions (exactmath.h, the same bits) on a CPU without FMA or under
 * ATTN_ISA=portable, which is how the tests compare the two on one machine. */
#include "sleefmath.h"

#include "exactmath.h"
#include "isa.h"

/* sleef.h declares the purecfma variants only when compiled for an FMA target; the library exports them
 * on every build, and they are called only when isa.h says the CPU has FMA. */
float Sleef_expf1_u10purecfma(float x);
float Sleef_logf1_u10purecfma(float x);
float Sleef_tanhf1_u10purecfma(float x);
float Sleef_erff1_u10purecfma(float x);
float Sleef_sinf1_u10purecfma(float x);
float Sleef_cosf1_u10purecfma(float x);

/* isa.h's AVX2 and AVX-512 both come with FMA */
static int use_libsleef(void)
{
    return attn_isa_current() != ATTN_ISA_PORTABLE;
}

float sleefmath_expf(float x)
{
    return use_libsleef() ? Sleef_expf1_u10purecfma(x) : exactmath_expf(x);
}

float sleefmath_logf(float x)
{
    return use_libsleef() ? Sleef_logf1_u10purecfma(x) : exactmath_logf(x);
}

float sleefmath_tanhf(float x)
{
    return use_libsleef() ? Sleef_tanhf1_u10purecfma(x) : exactmath_tanhf(x);
}

float sleefmath_erff(float x)
{
    return use_libsleef() ? Sleef_erff1_u10purecfma(x) : exactmath_erff(x);
}

float sleefmath_sinf(float x)
{
    return use_libsleef() ? Sleef_sinf1_u10purecfma(x) : exactmath_sinf(x);
}

float sleefmath_cosf(float x)
{
    return use_libsleef() ? Sleef_cosf1_u10purecfma(x) : exactmath_cosf(x);
}
