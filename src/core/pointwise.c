/* pointwise.c — the element-wise operations of PyTorch's optimizers, with PyTorch 1.13's CPU rounding:
 *
 *   add with alpha   a + alpha * b       fma(alpha, b, a): ATen's ufunc add (ufunc/add.h) is
 *                                        vec::fmadd(other, alpha, self), and its scalar tail was compiled
 *                                        to the same fused multiply-add
 *   addcmul          self + v * t1 * t2  fma(v * t1, t2, self): PointwiseOpsKernel.cpp's
 *                                        self + scalar * t1 * t2, which gcc contracted to one FMA after
 *                                        the rounded v * t1, in its vector loop and its scalar tail alike
 *   addcdiv          self + v * t1 / t2  (v * t1) / t2, then + self: three roundings (a division cannot
 *                                        be fused)
 *
 * alpha and v are the Python floats the optimizers pass (1 - beta1, -step_size, ...), which PyTorch
 * casts to float before the loop. The FMA choices were read off PyTorch's results (Debian's 1.13,
 * AVX2 kernels) and are checked bit for bit by tests/lua/optim_spec.lua and dtype_spec.lua (add and sub with alpha): a plain
 * a + alpha * b differs from PyTorch in ~1 element in 10. They hold for operands of one shape (what an
 * optimizer has); with a broadcast operand PyTorch's scalar tail may hoist alpha * b out of its loop and
 * round twice, which this file does not copy (documented in ?torch.addcmul). Results are float32. */
#include "learn.h"
#include "ops.h"

#include <math.h>
#include <string.h>

/* The operands broadcast to one shape, as contiguous float32 copies (or aliases), in ops[0..n). */
static int prepare(const char *fn, const attn_tensor *const *in, int n, attn_tensor **ops, int *ndim,
                   int64_t *shape, attn_error *err)
{
    attn_tensor acc = *in[0]; /* only its shape is read: the common shape, pairwise as TensorIterator */
    for (int i = 1; i < n; i++) {
        int nd;
        int64_t sh[ATTN_MAX_DIMS];
        if (attn_broadcast_shape(fn, &acc, in[i], &nd, sh, err))
            return -1;
        acc.ndim = nd;
        memcpy(acc.shape, sh, sizeof(int64_t) * (size_t)nd);
    }
    *ndim = acc.ndim;
    memcpy(shape, acc.shape, sizeof(int64_t) * (size_t)acc.ndim);
    for (int i = 0; i < n; i++) {
        attn_tensor *f = in[i]->dtype == ATTN_INT64 ? attn_to_dtype(in[i], ATTN_FLOAT32, err) : attn_alias(in[i], err);
        attn_tensor *e = f ? attn_expand(f, *ndim, shape, err) : NULL;
        ops[i] = e ? attn_contiguous(e, err) : NULL;
        attn_free(f);
        attn_free(e);
        if (!ops[i]) {
            for (int k = 0; k < i; k++)
                attn_free(ops[k]);
            return -1;
        }
    }
    return 0;
}

static const float *data_of(const attn_tensor *t)
{
    return t->storage->data + t->offset;
}

attn_tensor *attn_addcmul(const char *fn, const attn_tensor *self, const attn_tensor *t1, const attn_tensor *t2,
                          double value, int divide, attn_error *err)
{
    const attn_tensor *in[3] = {self, t1, t2};
    attn_tensor *ops[3];
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    if (self->dtype != ATTN_FLOAT32 || t1->dtype != ATTN_FLOAT32 || t2->dtype != ATTN_FLOAT32)
        return attn_fail(err, "%s: expected float32 tensors, got %s, %s and %s", fn, attn_dtype_name(self->dtype),
                         attn_dtype_name(t1->dtype), attn_dtype_name(t2->dtype));
    if (prepare(fn, in, 3, ops, &ndim, shape, err))
        return NULL;
    attn_tensor *out = attn_empty(fn, ndim, shape, ATTN_FLOAT32, err);
    if (out) {
        const float *s = data_of(ops[0]), *x = data_of(ops[1]), *y = data_of(ops[2]);
        float *o = out->storage->data, v = (float)value;
        int64_t n = attn_numel(out);
        if (divide)
            for (int64_t i = 0; i < n; i++)
                o[i] = s[i] + v * x[i] / y[i];
        else
            for (int64_t i = 0; i < n; i++)
                o[i] = fmaf(v * x[i], y[i], s[i]);
    }
    for (int i = 0; i < 3; i++)
        attn_free(ops[i]);
    return out;
}
