/* variance.c — var and std, as PyTorch 1.13 computes them on the CPU (aten/src/ATen/native/ReduceOps.cpp:
 * std_var_out, std_var_all_cpu; native/SharedReduceOps.h: WelfordOps), in double, rounded to float at
 * the end:
 *
 *   a result of one element (over all elements, or along a dim that leaves one): two passes. The
 *     float32 mean (torch.mean, widened to double), then the sum of (x - mean)^2 in double, in the order
 *     PyTorch's TensorIterator walks the memory, one partial sum per 2-D slice of the coalesced loop
 *     added to the total; var = sum / max(0, n - correction).
 *   otherwise, along dim: Welford's update in double over the dim, in order: delta = x - mean,
 *     mean += delta / n, m2 += delta * (x - mean); var = m2 / (n - correction, or 0 if that is not
 *     positive).
 * std is sqrt(var) in double. correction is 1 for the unbiased estimate (PyTorch's default), 0 for the
 * biased one; no elements, or too few for the correction, give nan or inf as in PyTorch. */
#include "ops.h"

#include <math.h>
#include <string.h>

/* The sum of (x - mean)^2 over t in PyTorch's loop order: t's dims in memory order, adjacent dims that
 * walk memory evenly merged into one, a partial sum per slice of the two innermost dims. */
static double squared_deviations(const attn_tensor *t, double mean, attn_error *err)
{
    attn_tensor *m = attn_memory_order(t, err);
    if (!m)
        return NAN;
    int64_t shape[ATTN_MAX_DIMS], stride[ATTN_MAX_DIMS];
    int nd = 0;
    for (int d = m->ndim - 1; d >= 0; d--) { /* innermost first, merging what coalesces */
        if (m->shape[d] == 1)
            continue;
        if (nd > 0 && m->stride[d] == stride[nd - 1] * shape[nd - 1]) {
            shape[nd - 1] *= m->shape[d];
            continue;
        }
        shape[nd] = m->shape[d];
        stride[nd++] = m->stride[d];
    }
    int64_t inner = nd > 0 ? shape[0] : 1, outer = nd > 1 ? shape[1] : 1, slices = 1;
    for (int d = 2; d < nd; d++)
        slices *= shape[d];
    const float *base = m->storage->data + m->offset;
    double total = 0.0;
    for (int64_t s = 0; s < slices; s++) {
        int64_t at = 0, rest = s;
        for (int d = 2; d < nd; d++) {
            at += (rest % shape[d]) * stride[d];
            rest /= shape[d];
        }
        double local = 0.0;
        for (int64_t i = 0; i < outer && !attn_poll(0); i++)
            for (int64_t j = 0; j < inner; j++) {
                double dx = (double)base[at + i * (nd > 1 ? stride[1] : 0) + j * (nd > 0 ? stride[0] : 0)] - mean;
                local += dx * dx;
            }
        total += local;
    }
    attn_free(m);
    if (attn_poll(0))
        return attn_interrupted(err), NAN;
    return total;
}

static float finish(double m2, double divisor, int take_sqrt)
{
    double var = m2 / divisor;
    return (float)(take_sqrt ? sqrt(var) : var);
}

/* The whole-tensor case: one float. */
static int var_all(const attn_tensor *t, int64_t correction, int take_sqrt, float *out, attn_error *err)
{
    attn_tensor *mean = attn_mean(t, -1, 0, err);
    if (!mean)
        return -1;
    double m = mean->storage->data[0];
    attn_free(mean);
    double m2 = squared_deviations(t, m, err);
    if (isnan(m2) && attn_poll(0))
        return -1;
    int64_t n = attn_numel(t);
    *out = finish(m2, (double)(n - correction > 0 ? n - correction : 0), take_sqrt);
    return 0;
}

/* Welford along one contiguous row of len floats. */
static float var_row(const float *p, int64_t len, int64_t correction, int take_sqrt)
{
    double mean = 0.0, m2 = 0.0, nf = 0.0;
    for (int64_t i = 0; i < len; i++) {
        nf = (double)(i + 1);
        double delta = (double)p[i] - mean;
        mean += delta / nf;
        m2 += delta * ((double)p[i] - mean);
    }
    return finish(m2, nf > (double)correction ? nf - (double)correction : 0.0, take_sqrt);
}

/* Along dim: rows results, each a Welford pass over one row of len elements. dim is moved last and the
 * rows made contiguous (the values, not the order, are what matter for each row's pass, which runs
 * along dim in order). -1 with err set when out of memory or interrupted. */
static int var_along(const attn_tensor *t, int dim, int64_t correction, int take_sqrt, float *out, int64_t rows,
                     int64_t len, attn_error *err)
{
    attn_tensor *moved = attn_dim_last(t, dim, err);
    attn_tensor *c = moved ? attn_contiguous(moved, err) : NULL;
    attn_free(moved);
    if (!c)
        return -1;
    for (int64_t r = 0; r < rows; r++) {
        if (attn_poll(0)) {
            attn_free(c);
            attn_interrupted(err);
            return -1;
        }
        out[r] = var_row(c->storage->data + c->offset + r * len, len, correction, take_sqrt);
    }
    attn_free(c);
    return 0;
}

attn_tensor *attn_var(const char *fn, const attn_tensor *t, int dim, int64_t correction, int keepdim,
                      int take_sqrt, attn_error *err)
{
    if (dim >= t->ndim || (dim >= 0 && t->ndim == 0))
        return attn_fail(err, "%s: dim %d is out of range for a %d-D tensor", fn, dim + 1, t->ndim);
    if (t->dtype != ATTN_FLOAT32)
        return attn_fail(err, "%s: expected a floating-point tensor, got %s (PyTorch's %s is only for floating "
                              "point); convert it with :float()", fn, attn_dtype_name(t->dtype), fn);
    int64_t shape[ATTN_MAX_DIMS] = {0};
    int ndim = 0;
    for (int d = 0; d < t->ndim && dim >= 0; d++)
        if (d != dim || keepdim)
            shape[ndim++] = d == dim ? 1 : t->shape[d];
    attn_tensor *out = attn_empty(fn, ndim, shape, ATTN_FLOAT32, err);
    if (!out)
        return NULL;
    int64_t rows = attn_numel(out), len = dim < 0 ? attn_numel(t) : t->shape[dim];
    if (rows == 0)
        return out;
    if (attn_numel(t) == 0) { /* PyTorch: result.fill_(nan) */
        for (int64_t r = 0; r < rows; r++)
            out->storage->data[r] = NAN;
        return out;
    }
    if (rows == 1) { /* one result: PyTorch's two-pass std_var_all_cpu, whatever the dim */
        if (var_all(t, correction, take_sqrt, out->storage->data, err)) {
            attn_free(out);
            return NULL;
        }
        return out;
    }
    if (var_along(t, dim, correction, take_sqrt, out->storage->data, rows, len, err)) {
        attn_free(out);
        return NULL;
    }
    return out;
}
