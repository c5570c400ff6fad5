/* fmaf_exact.c — attn_fmaf_exact (fmaf_exact.h), out of line: fmaf_exact.h's attn_fmaf_exact_inline says how
 * it rounds once from double arithmetic. */
#include "fmaf_exact.h"

float attn_fmaf_exact(float a, float b, float c)
{
    return attn_fmaf_exact_inline(a, b, c);
}
