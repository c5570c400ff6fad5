/* learn.h — the operations of training: the optimizers' element-wise updates (pointwise.c), the losses
 * (loss.c), gather, and the random permutation a data loader shuffles with (randperm.c). Dims are 0-based, class ids 0-based (the bindings translate). */
#ifndef ATTN_LEARN_H
#define ATTN_LEARN_H

#include "tensor.h"

/* a + alpha * b (add with {alpha =}) is ops.h's attn_add_scaled. */
/* self + value * t1 * t2 (addcmul) or self + value * t1 / t2 (divide: addcdiv), as PyTorch rounds them. */
attn_tensor *attn_addcmul(const char *fn, const attn_tensor *self, const attn_tensor *t1, const attn_tensor *t2,
                          double value, int divide, attn_error *err);

/* One Adam / AdamW update of a parameter from its gradient, in place in param, exp_avg and exp_avg_sq
 * (adam_step.c): the scalars as the separate operations cast them to float32. All four tensors contiguous
 * float32 of one shape, else -1 and nothing changed. */
typedef struct attn_adam_scalars {
    int decoupled;                 /* AdamW: param * decay first */
    float decay;                   /* 1 - lr * weight_decay */
    float beta1, one_minus_beta1;  /* exp_avg's */
    float beta2, one_minus_beta2;  /* exp_avg_sq's */
    float bias_correction2_sqrt;   /* sqrt(1 - beta2 ** step) */
    float eps;
    float neg_step_size;           /* -lr / (1 - beta1 ** step) */
} attn_adam_scalars;
int attn_adam_step(attn_tensor *param, const attn_tensor *grad, attn_tensor *exp_avg, attn_tensor *exp_avg_sq,
                   const attn_adam_scalars *s);

typedef enum attn_reduction { ATTN_REDUCE_NONE, ATTN_REDUCE_MEAN, ATTN_REDUCE_SUM } attn_reduction;

/* nll_loss(input, target): input [C], [N, C] or [N, C, d1, ...] of log-probabilities, target [], [N] or
 * [N, d1, ...] of 0-based class ids (int64); a target equal to ignore_index counts for nothing. PyTorch
 * 1.13's nll_loss / nll_loss2d forward, its cascade sum included, bit for bit. */
attn_tensor *attn_nll_loss(const char *fn, const attn_tensor *input, const attn_tensor *target,
                           int64_t ignore_index, attn_reduction reduction, attn_error *err);
/* cross_entropy: log_softmax over the class dim (dim 0 of a 1-D input, else dim 1), then nll_loss. */
attn_tensor *attn_cross_entropy(const char *fn, const attn_tensor *input, const attn_tensor *target,
                                int64_t ignore_index, attn_reduction reduction, attn_error *err);
/* mse_loss: (input - target)^2, reduced by PyTorch's sum (reduce.c's order) or mean. */
attn_tensor *attn_mse_loss(const char *fn, const attn_tensor *input, const attn_tensor *target,
                           attn_reduction reduction, attn_error *err);
/* gather(t, dim, index): out[i][j][k] = t[index[i][j][k]][j][k] (dim 0), index 0-based int64, of t's
 * number of dims and no larger than t in the other dims. */
attn_tensor *attn_gather(const char *fn, const attn_tensor *t, int dim, const attn_tensor *index,
                         attn_error *err);

/* v indexed along dims[0..n) by the int64 tensors idx[0..n) of 0-based indices (negative ones count from
 * the end), broadcast together: PyTorch's advanced indexing, as a copy (advindex.c). */
attn_tensor *attn_index_lists(const char *fn, const attn_tensor *v, int n, const int *dims,
                              attn_tensor *const *idx, attn_error *err);
/* t:scatter(dim, index, src) / t:scatter_add(...) (add): a copy of t with src's elements written (added) at
 * index's 0-based positions along dim (scatter.c). */
attn_tensor *attn_scatter(const char *fn, const attn_tensor *t, int dim, const attn_tensor *index,
                          const attn_tensor *src, int add, attn_error *err);
/* torch.bincount(input, weights, minlength): input a 1-D int64 tensor of 0-based bins >= 0, weights NULL
 * (an int64 count) or float32 of input's length (their float32 sums), at least minlength bins (bincount.c). */
attn_tensor *attn_bincount(const char *fn, const attn_tensor *input, const attn_tensor *weights, int64_t minlength,
                           attn_error *err);
/* log_softmax's backward: grad - exp(output) * sum(grad, dim), as PyTorch's kernels (softmax_grad.c). */
attn_tensor *attn_log_softmax_backward(const attn_tensor *grad, const attn_tensor *output, int dim, attn_error *err);
/* torch.linspace(start, end, steps), float32, as PyTorch's CPU kernel fills it (linspace.c). */
attn_tensor *attn_linspace(double start, double end, int64_t steps, attn_error *err);
/* torch.randperm(n): a permutation of 0 .. n-1 (int64) drawn from the generator as PyTorch draws it. */
attn_tensor *attn_randperm(int64_t n, attn_error *err);

#endif
