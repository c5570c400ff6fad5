/* fused.h — attention in one pass (attention.fused): softmax(q·kᵀ·scale, causal mask)·v computed with an
 * online softmax, cache-blocked and multi-threaded, without ever holding the n×m matrix of scores.
 *
 *   q [..., n, d], k [..., m, d], v [..., m, dv]  ->  [..., n, dv]
 *
 * The leading dims of q, k and v broadcast against each other (PyTorch rules). Any strides are accepted;
 * the last two dims of each are read in place when they are row-major or transposed (row-major or transposed, such as
 * the book's split heads x:view(b, n, h, dh):transpose(2, 3)), otherwise copied once.
 *
 * causal: key j is hidden from query i when j > i (0-based), whatever n and m are: the mask is
 * torch.triu(torch.ones(n, m), 1), aligned at the top left, which is PyTorch's is_causal convention
 * in scaled_dot_product_attention. scale: NAN means the default 1/sqrt(d).
 *
 * The result holds the same numbers as the staged path (scores, mask, softmax, weighted sum) within
 * float rounding (tests: |difference| <= 1e-5 on inputs in [-1, 1]), not bit for bit. A query row whose
 * scores are all -inf, or which has a nan or +inf score, gives nan, as the staged path does. It is
 * laid out in memory as [..., n, h, dv] when the input is [..., h, n, d] (a transposed view, as the
 * output of PyTorch's CPU flash kernel), so that merging heads, out:transpose(-3, -2):contiguous(),
 * copies nothing. */
#ifndef ATTN_FUSED_H
#define ATTN_FUSED_H

#include "tensor.h"

attn_tensor *attn_fused(const attn_tensor *q, const attn_tensor *k, const attn_tensor *v, int causal, double scale,
                        attn_error *err);

/* Tuning, for tests and the benchmark: worker threads (0: attn_threads()), query rows and
 * keys per block (0: chosen from d and dv). Applies to later calls; returns nothing. */
void attn_fused_config(int threads, int block_q, int block_k);

#endif
