/* generic/sleefmath.c — sleefmath.h on every machine but x86-64 (aarch64, WebAssembly): attn's own
 * functions (exactmath.h), so that the core needs no libsleef. */
#include "sleefmath.h"

#include "exactmath.h"

float sleefmath_expf(float x)
{
    return exactmath_expf(x);
}

float sleefmath_logf(float x)
{
    return exactmath_logf(x);
}

float sleefmath_tanhf(float x)
{
    return exactmath_tanhf(x);
}

float sleefmath_erff(float x)
{
    return exactmath_erff(x);
}

float sleefmath_sinf(float x)
{
    return exactmath_sinf(x);
}

float sleefmath_cosf(float x)
{
    return exactmath_cosf(x);
}
