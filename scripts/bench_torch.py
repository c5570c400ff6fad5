"""The PyTorch baseline of tests/bench/bench.c: the book's MultiHeadAttention (Build a Large Language Model
(From Scratch), chapter 3, written as the book writes it) on batch 8, 1024 tokens, 768 dims, 12 heads,
causal, in eval mode and without autograd (attn keeps no graph either).

    /usr/bin/python3 -s scripts/bench_torch.py THREADS

runs with torch.set_num_threads(THREADS) (OpenBLAS, which Debian's torch calls for its products, keeps
its own thread count, the same as attn's when OPENBLAS_NUM_THREADS is the same). It prints "ready" once
the model is built, then reads commands from stdin, one a line: "forward" runs one forward pass and
prints its milliseconds; end of input ends it. The benchmark alternates these calls with attn's own
measurements, so that both see the same load on a shared machine.
"""
import sys
import time

import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert (d_out % num_heads == 0), "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)
        return context_vec


def main():
    torch.set_num_threads(int(sys.argv[1]))
    torch.manual_seed(123)
    x = torch.rand(8, 1024, 768)
    mha = MultiHeadAttention(768, 768, 1024, 0.0, 12).eval()
    print("ready", flush=True)
    with torch.no_grad():
        for line in sys.stdin:
            if line.strip() != "forward":
                continue
            t0 = time.perf_counter()
            mha(x)
            print("%.3f" % ((time.perf_counter() - t0) * 1e3), flush=True)


if __name__ == "__main__":
    main()
