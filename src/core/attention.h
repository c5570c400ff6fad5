/* attention.h — the stages of the attention mechanism as named operations.
 *
 * In PyTorch these are anonymous lines inside a module's forward; here each is a function a student
 * can call and print (attention.scores, attention.softmax, ... in Lua). All of them work on a batch:
 * leading dims broadcast as in torch.matmul. Shapes below use n queries, m keys, d features.
 *
 *   scores        q [..., n, d], k [..., m, d]          -> [..., n, m]   q·kᵀ (kᵀ is a view, not a copy)
 *   scale         s, d_k                                -> s / sqrt(d_k)  (as the book's s / d_k**0.5)
 *   causal_mask   n, m                                  -> bool [n, m], true above the diagonal (hidden)
 *   valid_len_mask n, lens [b] or [b, q]                -> bool [b, 1, n] or [b, q, n], true where j >= len
 *   mask          s, hidden (bool, broadcasts to s), fill -> s with hidden entries set to fill
 *   weighted_sum  w [..., n, m], v [..., m, dv]         -> [..., n, dv]
 *   dropout       x, p                                  -> x * bernoulli(1 - p) / (1 - p), torch's RNG
 *   split_heads   x [..., n, d], h                      -> [..., h, n, d/h]  (view + transpose: no copy)
 *   merge_heads   x [..., h, n, dh]                     -> [..., n, h*dh]    (contiguous)
 *   general       s [..., n, ds], W [ds, dh], h [..., m, dh] -> [..., n, m]  Luong's s·W·hᵀ
 *   additive      q [..., n, dq], k [..., m, dk], W_q [u, dq], W_k [u, dk], v [u] or [1, u]
 *                                                       -> [..., n, m]   vᵀ tanh(W_q q_i + W_k k_j)
 * Softmax is attn_softmax (softmax.c, bit for bit as PyTorch). NaN: a NaN score makes its whole row of
 * weights NaN (the row maximum is NaN), and a row whose scores are all -inf gives NaN weights, both as
 * PyTorch does; a large finite fill such as -1e9 gives a uniform row instead.
 *
 * Error messages name the Lua function ("attention.scores: ...") and the shapes involved. */
#ifndef ATTN_ATTENTION_H
#define ATTN_ATTENTION_H

#include "tensor.h"

attn_tensor *attn_scores(const attn_tensor *q, const attn_tensor *k, attn_error *err);
attn_tensor *attn_scale(const attn_tensor *s, double d_k, attn_error *err);
attn_tensor *attn_causal_mask(int64_t n, int64_t m, attn_error *err);
attn_tensor *attn_valid_len_mask(int64_t n, const attn_tensor *lens, attn_error *err);
attn_tensor *attn_mask(const attn_tensor *s, const attn_tensor *hidden, float fill, attn_error *err);
attn_tensor *attn_weighted_sum(const attn_tensor *w, const attn_tensor *v, attn_error *err);
/* Training-mode dropout exactly as PyTorch's: p = 0 returns an alias of x without drawing, p = 1 all
 * zeros without drawing, otherwise noise = bernoulli(1 - p) / (1 - p) drawn in row-major order. */
attn_tensor *attn_dropout(const char *fn, const attn_tensor *x, double p, attn_error *err);
attn_tensor *attn_split_heads(const attn_tensor *x, int64_t h, attn_error *err);
attn_tensor *attn_merge_heads(const attn_tensor *x, attn_error *err);
attn_tensor *attn_general(const attn_tensor *s, const attn_tensor *W, const attn_tensor *h, attn_error *err);
attn_tensor *attn_additive(const attn_tensor *q, const attn_tensor *k, const attn_tensor *W_q,
                           const attn_tensor *W_k, const attn_tensor *v, attn_error *err);

#endif
