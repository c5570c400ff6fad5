/* safetensors_dtypes.c — a safetensors tensor attn cannot use in place (another dtype, or F32/I64 data
 * not aligned) read into attn's dtypes: F32, F16, BF16 and F64 into float32, I64, I32, I16, I8 and U8
 * into int64, BOOL into attn's bool. Apart from safetensors.c (the header's checks, the reading): this
 * is only arithmetic on bytes. */
#include "safetensors.h"

#include <string.h>

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (man << 13); /* inf, NaN */
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else { /* subnormal: normalise */
        int e = -1;
        do {
            e++;
            man <<= 1;
        } while ((man & 0x400) == 0);
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3FF) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* One loop per dtype (the dtype is decided once per tensor, not once per number: a model's embedding is
 * 155M numbers). Each element is read before it is written, and the loops run front to back, so `at` may
 * be the end of t's own memory (safetensors.c's in-place read): element i's wider value ends at or before
 * the first byte of element i + 1's narrower one. */
void attn_st_convert(const char *dt, size_t size, const unsigned char *at, attn_tensor *t)
{
    int64_t n = attn_numel(t);
    float *f = t->storage->data;
    int64_t *l = t->storage->i64;
    (void)size;
    if (strcmp(dt, "F32") == 0) {
        for (int64_t i = 0; i < n; i++)
            memcpy(&f[i], at + (size_t)i * 4, 4);
    } else if (strcmp(dt, "BF16") == 0) {
        for (int64_t i = 0; i < n; i++) {
            const unsigned char *p = at + (size_t)i * 2;
            uint32_t bits = (uint32_t)(p[0] | (p[1] << 8)) << 16;
            memcpy(&f[i], &bits, 4);
        }
    } else if (strcmp(dt, "F16") == 0) {
        for (int64_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, at + (size_t)i * 2, 2);
            f[i] = half_to_float(h);
        }
    } else if (strcmp(dt, "F64") == 0) {
        for (int64_t i = 0; i < n; i++) {
            double v;
            memcpy(&v, at + (size_t)i * 8, 8);
            f[i] = (float)v;
        }
    } else if (strcmp(dt, "BOOL") == 0) {
        for (int64_t i = 0; i < n; i++)
            f[i] = at[i] ? 1.0f : 0.0f;
    } else if (strcmp(dt, "I64") == 0) {
        for (int64_t i = 0; i < n; i++)
            memcpy(&l[i], at + (size_t)i * 8, 8);
    } else if (strcmp(dt, "I32") == 0) {
        for (int64_t i = 0; i < n; i++) {
            int32_t v;
            memcpy(&v, at + (size_t)i * 4, 4);
            l[i] = v;
        }
    } else if (strcmp(dt, "I16") == 0) {
        for (int64_t i = 0; i < n; i++) {
            int16_t v;
            memcpy(&v, at + (size_t)i * 2, 2);
            l[i] = v;
        }
    } else if (strcmp(dt, "I8") == 0) {
        for (int64_t i = 0; i < n; i++)
            l[i] = (int8_t)at[i];
    } else { /* U8 */
        for (int64_t i = 0; i < n; i++)
            l[i] = at[i];
    }
}
