/* dot.c — attn_sdot (gemv.h): the dot product of two float vectors, added in the order of OpenBLAS 0.3.21's
 * Haswell sdot (kernel/x86_64/sdot.c with sdot_microk_haswell-2.c, its C part as Debian compiled it: no
 * fused multiply-add; tests/c/test_gemv.c checks it against libopenblas bit for bit). fma is one rounding;
 * "double" sums are in double, of float products converted exactly; the result is rounded to float once.
 *
 *   both increments 1:  the first n & ~31 elements go to 32 lanes, element i to lane i % 32, each lane an
 *                       fma chain from +0 in order; lanes 0-7, 8-15, 16-23, 24-31 are four vectors v0..v3,
 *                       each halved h_k[l] = v_k[l] + v_k[l+4]; s = (h0 + h1) + (h2 + h3) lane by lane;
 *                       lanes = (s0 + s1) + (s2 + s3) (0 when there were no 32). The rest: t = 0 (double),
 *                       t += x[i]*y[i] in order. The result: float(double(lanes) + t).
 *   otherwise:          d = 0 (double); d += (x[i]*y[i] + x[i+1]*y[i+1]) for each pair, the pair's sum
 *                       in float; then d += x*y for an odd last element. The result: float(d).
 *
 * It is one sum: it cannot be split among threads or vectors without changing bits, so it is one chain of
 * the order above; the 32 lanes, which are the order's own, are AVX2's four vectors (x86/dot_avx2.c). */
#include "gemv.h"

#include "fmaf_exact.h"
#include "isa.h"

/* the 32 lanes over n (a multiple of 32) contiguous elements, reduced */
static float lanes32_portable(int64_t n, const float *x, const float *y)
{
    float lane[32] = {0};
    for (int64_t i = 0; i < n; i += 32)
        for (int l = 0; l < 32; l++)
            lane[l] = attn_fmaf(x[i + l], y[i + l], lane[l]);
    float s[4];
    for (int l = 0; l < 4; l++) {
        float h0 = lane[l] + lane[l + 4], h1 = lane[8 + l] + lane[12 + l];
        float h2 = lane[16 + l] + lane[20 + l], h3 = lane[24 + l] + lane[28 + l];
        s[l] = (h0 + h1) + (h2 + h3);
    }
    return (s[0] + s[1]) + (s[2] + s[3]);
}

float attn_sdot(int64_t n, const float *x, int64_t incx, const float *y, int64_t incy)
{
    if (n <= 0)
        return 0.0f;
    if (incx == 1 && incy == 1) {
        int64_t n1 = n & ~(int64_t)31;
        float lanes = 0.0f;
        if (n1) {
#if defined(__x86_64__) && defined(__GNUC__)
            if (attn_isa_current() != ATTN_ISA_PORTABLE)
                lanes = attn_sdot32_avx2(n1, x, y);
            else
#endif
                lanes = lanes32_portable(n1, x, y);
        }
        double t = 0.0;
        for (int64_t i = n1; i < n; i++)
            t += (double)(x[i] * y[i]);
        return (float)((double)lanes + t);
    }
    double d = 0.0;
    int64_t i = 0;
    for (; i + 2 <= n; i += 2)
        d += (double)(x[i * incx] * y[i * incy] + x[(i + 1) * incx] * y[(i + 1) * incy]);
    if (i < n)
        d += (double)(x[i * incx] * y[i * incy]);
    return (float)d;
}
