/* ops.h — arithmetic, comparisons, reductions and the attention stages on attn tensors.
 * Results are new tensors (the caller frees them); functions ending in _ modify their first argument.
 * Binary operations broadcast and promote dtypes as PyTorch does (bool < int64 < float32; true
 * division, exp, log, ... give float32). Dims are 0-based (the bindings translate). */
#ifndef ATTN_OPS_H
#define ATTN_OPS_H

#include "tensor.h"

typedef enum attn_binop {
    ATTN_ADD, ATTN_SUB, ATTN_MUL, ATTN_DIV, ATTN_POW, ATTN_MAXIMUM, ATTN_MINIMUM,
    ATTN_EQ, ATTN_NE, ATTN_LT, ATTN_LE, ATTN_GT, ATTN_GE, /* these give bool tensors */
    ATTN_LOGICAL_AND, ATTN_LOGICAL_OR
} attn_binop;

typedef enum attn_unop {
    ATTN_NEG, ATTN_EXP, ATTN_LOG, ATTN_SQRT, ATTN_TANH, ATTN_ABS, ATTN_SIGMOID, ATTN_RELU,
    ATTN_LOGICAL_NOT
} attn_unop;

/* Broadcasts a and b to a common shape (PyTorch rules) or fails naming fn and both shapes. */
int attn_broadcast_shape(const char *fn, const attn_tensor *a, const attn_tensor *b,
                         int *ndim, int64_t *shape, attn_error *err);

attn_tensor *attn_binary(const char *fn, attn_binop op, const attn_tensor *a, const attn_tensor *b, attn_error *err);
/* a op s, or s op a when scalar_first; the number's dtype takes part in the promotion (an int64 tensor
 * times a Lua float is float32, a float32 tensor plus a Lua integer stays float32). */
attn_tensor *attn_binary_scalar(const char *fn, attn_binop op, const attn_tensor *a, attn_number s,
                                int scalar_first, attn_error *err);
/* a + alpha * b (PyTorch's torch.add(a, b, alpha=...); sub is alpha negated), with a + b's broadcasting
 * and promotion; a float alpha is refused for an int64 result, as PyTorch refuses it. */
attn_tensor *attn_add_scaled(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_number alpha,
                             attn_error *err);
attn_tensor *attn_unary(attn_unop op, const attn_tensor *a, attn_error *err);
attn_tensor *attn_pow_scalar(const attn_tensor *a, attn_number exponent, attn_error *err);
attn_tensor *attn_where(const attn_tensor *cond, const attn_tensor *a, const attn_tensor *b, attn_error *err);

/* Reductions. dim < 0 means "over all elements" (result 0-d, keepdim ignored).
 * Sums add in exactly the order PyTorch's CPU kernel uses (reduce.c), so the last bit matches. */
attn_tensor *attn_sum(const attn_tensor *t, int dim, int keepdim, attn_error *err);
attn_tensor *attn_mean(const attn_tensor *t, int dim, int keepdim, attn_error *err);
/* var (std when take_sqrt): correction 1 is the unbiased estimate, 0 the biased one; PyTorch's algorithms
 * (two passes for a single result, Welford along a dim), in double, bit for bit (variance.c). */
attn_tensor *attn_var(const char *fn, const attn_tensor *t, int dim, int64_t correction, int keepdim,
                      int take_sqrt, attn_error *err);
/* max/min: values and (when dim >= 0 and indices != NULL) 0-based indices as an int64 tensor. */
attn_tensor *attn_max(const char *fn, const attn_tensor *t, int dim, int keepdim, int want_min,
                      attn_tensor **indices, attn_error *err);

/* matmul with PyTorch semantics: 1-D·1-D dot, 2-D product, 1-D promoted on either side, batched N-D
 * with broadcast batch dimensions. Products are the BLAS calls (sgemm_, sgemv_) PyTorch 1.13 makes (bmm.c),
 * computed by attn's own kernels in the order of OpenBLAS's Haswell ones (gemm.c, gemv.c). */
attn_tensor *attn_matmul(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_error *err);
attn_tensor *attn_dot(const attn_tensor *a, const attn_tensor *b, attn_error *err);
/* torch.addmm(bias, a, b): bias (broadcast to [n, m]) + a [n, k] · b [k, m], the bias in the result before
 * BLAS adds the product in, as PyTorch (and so nn.Linear on a 2-D or 3-D input) computes it. */
attn_tensor *attn_addmm(const char *fn, const attn_tensor *bias, const attn_tensor *a, const attn_tensor *b,
                        attn_error *err);

/* The attention stages. */
attn_tensor *attn_tril(const char *fn, const attn_tensor *t, int64_t diagonal, int upper, attn_error *err);
/* value is cast to t's dtype (for an int64 tensor a non-finite float is an error, as in PyTorch). */
attn_tensor *attn_masked_fill(const attn_tensor *t, const attn_tensor *mask, attn_number value, attn_error *err);
int attn_masked_fill_(attn_tensor *t, const attn_tensor *mask, attn_number value, attn_error *err);
attn_tensor *attn_softmax(const attn_tensor *t, int dim, int log, attn_error *err);

/* backward.c: grad * (1 - y * y) with 1 - y * y rounded once (fused), as PyTorch's tanh_backward kernel */
attn_tensor *attn_tanh_backward(const attn_tensor *grad, const attn_tensor *y, attn_error *err);

/* backward.c: PyTorch's _softmax_backward_data, (grad - sum(grad * y, dim)) * y, summed in its kernels' order */
attn_tensor *attn_softmax_backward(const attn_tensor *grad, const attn_tensor *y, int dim, attn_error *err);

#endif
