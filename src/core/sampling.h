/* sampling.h — what chapter 5's generate needs beyond argmax: torch.topk and torch.multinomial, the
 * latter drawing from the seeded stream exactly as PyTorch 1.13's CPU kernel does, and the
 * exponential fill it is built on. */
#ifndef ATTN_SAMPLING_H
#define ATTN_SAMPLING_H

#include "tensor.h"

/* t:exponential_(lambd): each element -log1p(-u)/lambd for u a double uniform on [0, 1) made from one
 * 64-bit draw (53 bits), cast to float: PyTorch's CPU kernel for builds without MKL (Debian's). In
 * memory order. -1 when interrupted. */
int attn_exponential_(attn_tensor *t, double lambd, attn_error *err);

/* The k largest (or smallest) along the last dim, sorted, as values and 0-based indices (int64).
 * Ties keep the lower index first; nan counts as larger than every number, as PyTorch's topk. */
int attn_topk(const attn_tensor *t, int64_t k, int largest, attn_tensor **values, attn_tensor **indices,
              attn_error *err);

/* torch.multinomial(probs, num_samples [, replacement]) for 1-D [n] or 2-D [rows, n] probs (weights,
 * not necessarily summing to 1): with one sample, or without replacement, PyTorch draws q ~ Exp(1)
 * for every element and takes the argmax (the top num_samples) of probs / q; 0-based indices. With
 * replacement and more than one sample PyTorch takes another path, which attn does not have: refused. */
attn_tensor *attn_multinomial(const attn_tensor *probs, int64_t num_samples, int replacement, attn_error *err);

#endif
