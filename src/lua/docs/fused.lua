-- fused.lua — help for attention.fused (src/core/fused.c, src/bind/fused.c). Loaded by attn.docs,
-- which passes its helpers.

local D = require("attn.docs.define")
local def = D.def
local attention = require("attn.attention")

def("attention.fused", "attention.fused(q, k, v [, {causal = false, scale = 1/sqrt(d)}])", [=[
Attention in one pass: softmax(q·kᵀ·scale)·v, the same numbers as the stages (scores, scale, mask,
softmax, weighted sum; attention.forward{q = q, k = k, v = v, mask = "causal"}) within float rounding
(tested to 1e-5), computed the way FlashAttention does:
the keys are taken a block at a time and the softmax is kept as a running max and a running sum, so
the n×m matrix of scores never exists (400 MB for the ch. 3 bonus model: batch 8, 12 heads, 1024
tokens). Blocks are sized for the CPU cache and spread over all cores. q is [..., n, d], k [..., m, d],
v [..., m, dv]; the result is [..., n, dv]; leading dims broadcast. Views such as the book's split
heads x:view(b, n, h, dh):transpose(2, 3) are read in place. causal = true hides key j from query i
when j > i, the mask torch.triu(torch.ones(n, m), 1): for n ≠ m it is aligned at the top left, as
PyTorch's scaled_dot_product_attention(is_causal=True). scale defaults to 1/sqrt(d), as there. A row
with a nan or +inf score gives nan, as softmax does, and m = 0 keys give zeros, as the staged matmul;
blocks of hidden keys are skipped, so a nan in v there need not reach the result, where the stages
give nan (0·nan). A multi-head result [b, h, n, dh] is stored so that out:transpose(2, 3):contiguous() (merging
the heads) copies nothing. There are no attention weights to show: use the stages for those.]=], [=[
attention.fused(inputs, inputs, inputs, {scale = 1})   -- the book's all_context_vecs (3.3.2)
--> tensor([[0.4421, 0.5931, 0.5790],
-->         [0.4419, 0.6515, 0.5683],
-->         [0.4431, 0.6496, 0.5671],
-->         [0.4304, 0.6298, 0.5510],
-->         [0.4671, 0.5910, 0.5266],
-->         [0.4177, 0.6503, 0.5645]])
x = torch.rand(2, 6, 4)                                -- batch 2, 6 tokens, 4 dims
s = x:matmul(x:transpose(2, 3)) / math.sqrt(4)         -- the same, in stages
s = s:masked_fill(torch.triu(torch.ones(6, 6), 1):bool(), -math.huge)
(attention.fused(x, x, x, {causal = true}) - torch.softmax(s, -1):matmul(x)):abs():max():item() < 1e-6
--> true]=], attention.fused)
