/* linspace.c — torch.linspace(start, end, steps) as PyTorch 1.13 fills it on the CPU (RangeFactoriesKernel.cpp,
 * linspace_kernel, float32): step = (end - start) / (steps - 1) in float; the first half counts up from
 * start, the second half down from end. Its vectorised loop takes 16 elements at a time as two vectors of 8,
 * each Vectorized::arange(base, step): base by the same rule (which gcc compiled to one fused multiply-add:
 * start + step * i, end - step * (steps - i - 1)), lane k as base + k * step rounded twice; the last
 * steps % 16 elements are the scalar rule alone. Read off PyTorch's results and checked bit for bit by
 * tests/lua/learn_spec.lua. PyTorch splits more than 32,768 steps among threads, each starting its own
 * groups of 16: attn computes them as one thread does. */
#include "learn.h"

#include <math.h>

static float point(float start, float end, float step, int64_t steps, int64_t i)
{
    return i < steps / 2 ? fmaf(step, (float)i, start) : fmaf(-step, (float)(steps - i - 1), end);
}

attn_tensor *attn_linspace(double start_d, double end_d, int64_t steps, attn_error *err)
{
    if (steps < 0)
        return attn_fail(err, "linspace: steps must be non-negative, got %lld", (long long)steps);
    attn_tensor *out = attn_empty("linspace", 1, &steps, ATTN_FLOAT32, err);
    if (!out || steps == 0)
        return out;
    float *o = out->storage->data, start = (float)start_d, end = (float)end_d;
    if (steps == 1) {
        o[0] = start;
        return out;
    }
    float step = (end - start) / (float)(steps - 1);
    int64_t i = 0;
    for (; i + 16 <= steps; i += 16) {
        for (int64_t v = i; v < i + 16; v += 8) { /* two vectors of 8 */
            float base = point(start, end, step, steps, v);
            for (int k = 0; k < 8; k++)
                o[v + k] = base + (float)k * step;
        }
    }
    for (; i < steps; i++)
        o[i] = point(start, end, step, steps, i);
    return out;
}
