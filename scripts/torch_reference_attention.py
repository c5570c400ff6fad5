"""The books' attention classes in PyTorch, as the books write them, for tests/data/torch/attention.txt
(read by tests/lua/attention_nn_spec.lua, which runs attn's nn classes on the same seeds).

Imported by gen_torch_reference.py, which calls gen_attention(write, f32s).

Every case: torch.manual_seed(seed); the module is created; then the inputs are drawn with torch.rand
(in the order queries, keys, values, each only when it is a separate tensor); forward runs in the mode
given (train: dropout draws from the generator, the "default" Bernoulli flavour of Debian's torch).
One line per case and per quantity ("what=out" is the forward's result, "what=weights" the attention
weights the class keeps: the annotated transformer's self.attn).
"""
import math

import torch
from torch import nn

# Python Deep Learning (3rd ed.), ch. 7 (after the annotated transformer): its classes as the seed writes them
from torch_reference_layers import MultiHeadedAttention, subsequent_mask


# ---- d2l (2020 PyTorch port) -------------------------------------------------------------------

def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange(maxlen, dtype=torch.float32)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_len):
    if valid_len is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    if valid_len.dim() == 1:
        valid_len = torch.repeat_interleave(valid_len, repeats=shape[1], dim=0)
    else:
        valid_len = valid_len.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_len, value=-1e6)
    return nn.functional.softmax(X.reshape(shape), dim=-1)


class DotProductAttention(nn.Module):
    def __init__(self, dropout, **kwargs):
        super(DotProductAttention, self).__init__(**kwargs)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, valid_len=None):
        d = query.shape[-1]
        scores = torch.bmm(query, key.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_len)
        return torch.bmm(self.dropout(self.attention_weights), value)


class MLPAttention(nn.Module):
    """d2l's PyTorch MLPAttention with its formula v^T tanh(W_q q + W_k k): the 2020 port applied W_k to
    the queries and left out the tanh; attn (and d2l's later AdditiveAttention) follow the formula."""

    def __init__(self, key_size, query_size, units, dropout, **kwargs):
        super(MLPAttention, self).__init__(**kwargs)
        self.W_k = nn.Linear(key_size, units, bias=False)
        self.W_q = nn.Linear(query_size, units, bias=False)
        self.v = nn.Linear(units, 1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, valid_len):
        query, key = self.W_q(query), self.W_k(key)
        features = torch.tanh(query.unsqueeze(2) + key.unsqueeze(1))
        scores = self.v(features).squeeze(-1)
        attention_weights = self.dropout(masked_softmax(scores, valid_len))
        return torch.bmm(attention_weights, value)


# ---- ch. 3: LLMs from scratch, ch. 3 ---------------------------------------------------------------

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
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        self.attn_weights = attn_weights
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


# ---- the cases --------------------------------------------------------------------------------------------

def lens_str(lens):
    if lens is None:
        return "none"
    if isinstance(lens[0], list):  # one per query: rows joined by ";"
        return ";".join(",".join(str(v) for v in row) for row in lens)
    return ",".join(str(v) for v in lens)


def gen_attention(write, f32s):
    lines = []

    def emit(head, out, weights):
        lines.append("%s what=out : %s" % (head, f32s(out)))
        lines.append("%s what=weights : %s" % (head, f32s(weights)))

    # MultiHeadedAttention: mask none, causal (subsequent_mask) or pad (key lengths per batch element)
    for seed, h, d_model, b, n, m, mask, mode, p in [
            (0, 2, 8, 2, 5, 5, "none", "eval", 0.1),
            (1, 2, 8, 2, 5, 5, "causal", "eval", 0.1),
            (2, 4, 16, 3, 4, 7, "pad", "eval", 0.1),
            (3, 1, 4, 1, 3, 3, "none", "eval", 0.0),
            (4, 8, 64, 2, 10, 10, "causal", "eval", 0.1),
            (5, 2, 8, 2, 6, 6, "causal", "train", 0.1),
            (6, 4, 16, 2, 5, 9, "pad", "train", 0.25)]:
        torch.manual_seed(seed)
        mod = MultiHeadedAttention(h, d_model, p)
        mod.train(mode == "train")
        q = torch.rand(b, n, d_model)
        k = v = q
        if m != n:
            k = torch.rand(b, m, d_model)
            v = torch.rand(b, m, d_model)
        lens = None
        if mask == "none":
            mk = None
        elif mask == "causal":
            mk = subsequent_mask(n)
        else:
            lens = [max(1, m - 3 * i) for i in range(b)]
            mk = (torch.arange(m)[None, :] < torch.tensor(lens)[:, None]).unsqueeze(1)
        out = mod(q, k, v, mk)
        emit("multiheaded seed=%d h=%d d_model=%d b=%d n=%d m=%d mask=%s lens=%s mode=%s p=%s"
             % (seed, h, d_model, b, n, m, mask, lens_str(lens), mode, p.hex()), out, mod.attn)

    # DotProductAttention and MLPAttention with valid lengths: none, one per batch, one per query
    for seed, b, n, m, dq, dk, dv, lens, mode, p in [
            (0, 2, 1, 10, 2, 2, 4, [2, 6], "eval", 0.5),
            (1, 2, 3, 6, 4, 4, 5, None, "eval", 0.5),
            (2, 3, 2, 5, 3, 3, 2, [1, 5, 3], "eval", 0.1),
            (3, 2, 3, 4, 4, 4, 3, [[1, 2, 4], [3, 0, 2]], "eval", 0.1),
            (4, 2, 4, 6, 8, 8, 4, [6, 3], "train", 0.2),
            (5, 2, 3, 4, 5, 3, 2, [2, 4], "eval", 0.0)]:
        for cls in ("dot", "mlp"):
            if cls == "dot" and dq != dk:
                continue
            torch.manual_seed(seed)
            mod = DotProductAttention(p) if cls == "dot" else MLPAttention(dk, dq, 8, p)
            mod.train(mode == "train")
            q, k, v = torch.rand(b, n, dq), torch.rand(b, m, dk), torch.rand(b, m, dv)
            vl = None if lens is None else torch.tensor(lens)
            out = mod(q, k, v, vl)
            lines.append("%s seed=%d b=%d n=%d m=%d dq=%d dk=%d dv=%d lens=%s mode=%s p=%s what=out : %s"
                         % (cls, seed, b, n, m, dq, dk, dv, lens_str(lens), mode, p.hex(), f32s(out)))

    # ch. 3's MultiHeadAttention beyond the book's toy: biases, more heads, dropout in training mode
    for seed, d_in, d_out, ctx, heads, b, n, bias, mode, p in [
            (123, 8, 12, 10, 3, 2, 7, True, "eval", 0.1),
            (7, 16, 16, 8, 4, 3, 8, False, "train", 0.1),
            (9, 5, 6, 6, 1, 1, 6, False, "eval", 0.0)]:
        torch.manual_seed(seed)
        mod = MultiHeadAttention(d_in, d_out, ctx, p, heads, qkv_bias=bias)
        mod.train(mode == "train")
        x = torch.rand(b, n, d_in)
        out = mod(x)
        emit("mha seed=%d d_in=%d d_out=%d context_length=%d num_heads=%d b=%d n=%d qkv_bias=%s mode=%s p=%s"
             % (seed, d_in, d_out, ctx, heads, b, n, "true" if bias else "false", mode, p.hex()),
             out, mod.attn_weights)

    write("attention.txt", "the books' attention classes (scripts/torch_reference_attention.py): "
          "seeded module, torch.rand inputs, forward; results row-major", lines)
