/* fmaf_exact.c — attn_fmaf_exact (fmaf_exact.h): a fused multiply-add of floats from double arithmetic.
 *
 * The product of two floats (24-bit significands) has at most 48 bits: in a double (53) it is exact. Its sum
 * with c, rounded to a double, may not be; rounding that double to a float then rounds twice, and a sum
 * that the first rounding put exactly halfway between two floats goes the wrong way. So the double sum is
 * rounded to odd instead (Boldo and Melquiond: rounding to odd with at least two more bits, then to nearest,
 * is rounding to nearest once): its error, found exactly by Knuth's two-sum, says whether it was inexact, and
 * then its last bit is made 1 by moving it one step toward the exact sum, when that bit is 0. No rounding
 * mode is changed (WebAssembly has none to change). Infinities and NaN pass through the plain arithmetic. */
#include "fmaf_exact.h"

#include <stdint.h>
#include <string.h>

float attn_fmaf_exact(float a, float b, float c)
{
    double p = (double)a * (double)b; /* exact */
    double s = p + (double)c;
    if (!isfinite(s))
        return (float)s;
    /* two-sum: err is exactly (p + c) - s */
    double bv = s - p;
    double err = (p - (s - bv)) + ((double)c - bv);
    if (err != 0.0) {
        uint64_t u;
        memcpy(&u, &s, sizeof u);
        if ((u & 1) == 0) {
            /* s is not 0 here (a nonzero exact sum is at least 2^-298, far from underflowing a double):
             * one step away from 0 when the exact sum lies beyond s, toward 0 when it lies short of it */
            if ((err > 0) == (s > 0))
                u++;
            else
                u--;
            memcpy(&s, &u, sizeof s);
        }
    }
    return (float)s;
}
