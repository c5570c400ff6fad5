/* layers.h — the numeric parts of the Transformer's layers, as PyTorch 1.13's CPU kernels compute them:
 * layer_norm, the activations gelu (erf and tanh forms) and silu, erf, sin and cos, and the embedding
 * lookup. Results are new contiguous float32 tensors that the caller frees; errors come back through
 * attn_error with the user-facing function name first ("layer_norm: ..."). */
#ifndef ATTN_LAYERS_H
#define ATTN_LAYERS_H

#include "tensor.h"

/* layer_norm over the last nnorm dims of x (PyTorch's normalized_shape is exactly those dims): each row of
 * N = prod(normalized_shape) numbers becomes (x - mean) / sqrt(var + eps) * weight + bias with the biased
 * variance, bit for bit as torch.nn.functional.layer_norm on the CPU. weight and bias are NULL or have the
 * normalized shape. */
attn_tensor *attn_layer_norm(const attn_tensor *x, int nnorm, const attn_tensor *weight, const attn_tensor *bias,
                             double eps, attn_error *err);

/* layer_norm's backward (NativeLayerNormBackward0) for the gradient grad of its output, bit for bit as PyTorch
 * 1.13's CPU kernel on one thread: dx always, and the weight's and bias's gradients (dweight, dbias) when weight
 * is given (else they are NULL). 0, or -1 with err set (and nothing to free). */
int attn_layer_norm_backward(const attn_tensor *grad, const attn_tensor *x, int nnorm, const attn_tensor *weight,
                             double eps, attn_tensor **dx, attn_tensor **dweight, attn_tensor **dbias, attn_error *err);

/* The mean and the biased variance of one row of n floats, in the order of PyTorch's RowwiseMoments
 * (Welford over 8 lanes in chunks of 16, merged as a cascade). Exposed for the C tests. */
void attn_row_moments(const float *x, int64_t n, float *mean, float *var);

typedef enum attn_activation {
    ATTN_ACT_GELU,      /* x/2 * (1 + erf(x/sqrt(2))), torch.nn.functional.gelu(x) */
    ATTN_ACT_GELU_TANH, /* x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), gelu(x, approximate='tanh') */
    ATTN_ACT_SILU,      /* x * sigmoid(x), torch.nn.functional.silu */
    ATTN_ACT_ERF,       /* torch.erf */
    ATTN_ACT_SIN,       /* torch.sin */
    ATTN_ACT_COS        /* torch.cos */
} attn_activation;

/* f applied to every element of x (any strides; the result is contiguous). */
attn_tensor *attn_activate(attn_activation f, const attn_tensor *x, attn_error *err);

/* The rows of weight [num, dim] picked by the ids in indices (an int64 tensor of any shape S): the result has
 * shape S + [dim]. first_id is the id of row 0 (1 in Lua), and errors name ids as the user wrote them:
 * "embedding: index 7 is out of range for an embedding of 6 rows (ids 1 to 6)". */
attn_tensor *attn_embedding(const attn_tensor *weight, const attn_tensor *indices, int64_t first_id,
                            attn_error *err);

#endif
