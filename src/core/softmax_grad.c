/* softmax_grad.c — log_softmax's backward as PyTorch 1.13's CPU kernels compute it, for the autograd
 * formulas (src/lua/autograd/formulas_extra.lua): grad_input = grad - exp(output) * sum(grad, dim).
 *   last dim   _vec_host_softmax_backward_lastdim (SoftMaxKernel.cpp): the sum by vec::reduce_all(+)
 *              (vmath_reduce_sum), exp by SLEEF (vmath_exp) on every element (vec::map2 loads the tail
 *              as a partial vector), and x - exp(y) * sum as one fused multiply-subtract, which is
 *              how gcc compiled it (read off PyTorch's results: tests/lua/formulas_spec.lua)
 *   other dims one inner position at a time: the sum in float in order along dim, std::exp (libm's
 *              expf), and the same fused multiply-subtract (read off PyTorch's results, which a double
 *              sum or SLEEF's exp do not give: tests/lua/formulas_spec.lua). */
#include "learn.h"
#include "ops.h"
#include "vmath.h"

#include <math.h>

attn_tensor *attn_log_softmax_backward(const attn_tensor *grad, const attn_tensor *output, int dim, attn_error *err)
{
    const char *fn = "log_softmax_backward";
    char a[160], b[160];
    int ndim = output->ndim == 0 ? 1 : output->ndim;
    if (dim < 0 || dim >= ndim)
        return attn_fail(err, "%s: dim %d is out of range for a %d-D tensor", fn, dim + 1, output->ndim);
    if (attn_check_float(fn, "the gradient", grad, err) || attn_check_float(fn, "the output", output, err))
        return NULL;
    if (grad->ndim != output->ndim || attn_numel(grad) != attn_numel(output))
        return attn_fail(err, "%s: the gradient %s and the output %s must have one shape", fn,
                         attn_shape_str(grad, a, sizeof a), attn_shape_str(output, b, sizeof b));
    for (int d = 0; d < grad->ndim; d++)
        if (grad->shape[d] != output->shape[d])
            return attn_fail(err, "%s: the gradient %s and the output %s must have one shape", fn,
                             attn_shape_str(grad, a, sizeof a), attn_shape_str(output, b, sizeof b));
    attn_tensor *cg = attn_contiguous(grad, err);
    attn_tensor *co = cg ? attn_contiguous(output, err) : NULL;
    attn_tensor *out = co ? attn_empty(fn, output->ndim, output->shape, ATTN_FLOAT32, err) : NULL;
    if (!out) {
        attn_free(cg);
        attn_free(co);
        return NULL;
    }
    int64_t size = output->ndim == 0 ? 1 : output->shape[dim], outer = 1, inner = 1;
    for (int d = 0; d < dim; d++)
        outer *= output->shape[d];
    for (int d = dim + 1; d < output->ndim; d++)
        inner *= output->shape[d];
    const float *g = cg->storage->data + cg->offset, *y = co->storage->data + co->offset;
    float *o = out->storage->data;
    for (int64_t r = 0; r < outer; r++) {
        if (attn_interrupt_requested) {
            attn_free(cg);
            attn_free(co);
            attn_free(out);
            return attn_interrupted(err);
        }
        const float *gr = g + r * size * inner, *yr = y + r * size * inner;
        float *orow = o + r * size * inner;
        if (dim == ndim - 1) {
            float sum = vmath_reduce_sum(gr, size);
            for (int64_t i = 0; i < size; i++)
                orow[i] = fmaf(-vmath_exp(yr[i]), sum, gr[i]);
            continue;
        }
        for (int64_t k = 0; k < inner; k++) {
            float sum = 0;
            for (int64_t d = 0; d < size; d++)
                sum += gr[d * inner + k];
            for (int64_t d = 0; d < size; d++)
                orow[d * inner + k] = fmaf(-expf(yr[d * inner + k]), sum, gr[d * inner + k]);
        }
    }
    attn_free(cg);
    attn_free(co);
    return out;
}
