"""The attention of the bonus chapters of "Build a Large Language Model (From Scratch)" in PyTorch, for
tests/data/torch/variants.txt (read by tests/lua/variants_spec.lua, which runs attn's classes and
functions on the same seeds).

The chapters' code lives in Sebastian Raschka's repository rasbt/LLMs-from-scratch: ch04/03_kv-cache
(gpt_with_kv_cache.py: MultiHeadAttention with cache_k, cache_v, ptr_current_pos; GPTModel with
current_pos; generate_text_simple_cached), ch04/04_gqa (GroupedQueryAttention: W_key, W_value, W_query,
out_proj, created in that order; keys and values repeated with repeat_interleave), ch04/06_swa (the
band mask diff < 0 or diff >= W, and the cache that keeps W tokens while a chunk of n attends over the
last W + n - 1: the fix of rasbt/LLMs-from-scratch#1013), ch05/07_gpt_to_llama (compute_rope_params and apply_rope,
split halves). The few lines each needs are written again here, in this file's words; nothing of that
repository is read when this runs.

Run by scripts/gen-torch-reference.sh:
    OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 /usr/bin/python3 scripts/torch_reference_variants.py tests/data/torch
"""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)


# ---- attention with grouped key/value heads, a KV cache and an optional sliding window --------------

class GroupedQueryAttention(nn.Module):
    """num_kv_groups key/value heads shared by num_heads query heads; window: sliding-window attention."""

    def __init__(self, d_in, d_out, dropout, num_heads, num_kv_groups, qkv_bias=False, window=None):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.num_kv_groups, self.group_size = num_kv_groups, num_heads // num_kv_groups
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.window = window
        self.reset_cache()

    def reset_cache(self):
        self.cache_k, self.cache_v, self.pos = None, None, 0

    def forward(self, x, use_cache=False):
        b, n, _ = x.shape
        heads = lambda t, h: t.view(b, n, h, self.head_dim).transpose(1, 2)
        q = heads(self.W_query(x), self.num_heads)
        k = heads(self.W_key(x), self.num_kv_groups)
        v = heads(self.W_value(x), self.num_kv_groups)
        q_start = k_start = 0
        if use_cache:
            old = 0 if self.cache_k is None else self.cache_k.shape[2]
            all_k = k if self.cache_k is None else torch.cat([self.cache_k, k], dim=2)
            all_v = v if self.cache_v is None else torch.cat([self.cache_v, v], dim=2)
            total = all_k.shape[2]
            k, v = all_k, all_v
            if self.window is not None:
                keep = min(total, self.window + n - 1)
                k, v = all_k[:, :, -keep:], all_v[:, :, -keep:]
                self.cache_k, self.cache_v = all_k[:, :, -min(total, self.window):], all_v[:, :, -min(total, self.window):]
            else:
                self.cache_k, self.cache_v = all_k, all_v
            q_start = self.pos
            k_start = self.pos - old + (total - k.shape[2])
            self.pos += n
        k = k.repeat_interleave(self.group_size, dim=1)
        v = v.repeat_interleave(self.group_size, dim=1)
        scores = q @ k.transpose(2, 3)
        qp = torch.arange(q_start, q_start + q.shape[2]).unsqueeze(-1)
        kp = torch.arange(k_start, k_start + k.shape[2]).unsqueeze(0)
        diff = qp - kp
        hidden = diff < 0
        if self.window is not None:
            hidden = hidden | (diff >= self.window)
        scores = scores.masked_fill(hidden, -torch.inf)
        w = self.dropout(torch.softmax(scores / k.shape[-1] ** 0.5, dim=-1))
        z = (w @ v).transpose(1, 2).contiguous().view(b, n, self.d_out)
        return self.out_proj(z)


# ---- chapter 4's GPT with the cache (the bonus chapter's MultiHeadAttention: mask buffer rows from
# ---- ptr_current_pos) -------------------------------------------------------------------------------

class CachedMHA(nn.Module):
    @classmethod
    def from_config(cls, cfg):
        """The block's attention layer for a GPT configuration (what Block calls)."""
        d = cfg["emb_dim"]
        return cls(d, d, cfg["context_length"], cfg["drop_rate"], cfg["n_heads"], cfg["qkv_bias"])

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        self.reset_cache()

    def reset_cache(self):
        self.cache_k, self.cache_v, self.pos = None, None, 0

    def forward(self, x, use_cache=False):
        b, n, _ = x.shape
        heads = lambda t: t.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        k, v, q = heads(self.W_key(x)), heads(self.W_value(x)), heads(self.W_query(x))
        start = 0
        if use_cache:
            self.cache_k = k if self.cache_k is None else torch.cat([self.cache_k, k], dim=2)
            self.cache_v = v if self.cache_v is None else torch.cat([self.cache_v, v], dim=2)
            k, v, start = self.cache_k, self.cache_v, self.pos
            self.pos += n
        scores = q @ k.transpose(2, 3)
        scores.masked_fill_(self.mask.bool()[start:start + n, :k.shape[2]], -torch.inf)
        w = self.dropout(torch.softmax(scores / k.shape[-1] ** 0.5, dim=-1))
        return self.out_proj((w @ v).transpose(1, 2).contiguous().view(b, n, self.d_out))


# Chapter 4's LayerNorm and GELU, written here rather than imported from torch_reference_gpt2.py: importing
# that file sets torch to one thread, and scripts/bench_kv_cache.py, which imports this one, measures
# PyTorch with its default threads.
class LayerNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.eps, self.scale, self.shift = 1e-5, nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))

    def forward(self, x):
        mean, var = x.mean(dim=-1, keepdim=True), x.var(dim=-1, keepdim=True, unbiased=False)
        return self.scale * ((x - mean) / torch.sqrt(var + self.eps)) + self.shift


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class Block(nn.Module):
    """Chapter 4's transformer block with a cache; attention is the class of its attention layer (any with
    from_config(cfg), reset_cache() and forward(x, use_cache)): CachedMHA here, the MLA chapter's
    MultiHeadLatentAttention in torch_reference_mla.py. The attention is made first, as the chapters do:
    the order of the layers is the order of their draws from the seeded generator."""

    def __init__(self, cfg, attention=CachedMHA):
        super().__init__()
        d = cfg["emb_dim"]
        self.att = attention.from_config(cfg)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), GELU(), nn.Linear(4 * d, d))
        self.norm1, self.norm2 = LayerNorm(d), LayerNorm(d)
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x, use_cache=False):
        x = x + self.drop_shortcut(self.att(self.norm1(x), use_cache=use_cache))
        return x + self.drop_shortcut(self.ff(self.norm2(x)))


class GPTModel(nn.Module):
    """Chapter 4's GPTModel with a cache, its blocks' attention of the class attention (see Block)."""

    def __init__(self, cfg, attention=CachedMHA):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.ModuleList([Block(cfg, attention) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)
        self.current_pos = 0

    def reset_kv_cache(self):
        for blk in self.trf_blocks:
            blk.att.reset_cache()
        self.current_pos = 0

    def forward(self, idx, use_cache=False):
        n = idx.shape[1]
        start = self.current_pos if use_cache else 0
        if use_cache:
            self.current_pos += n
        x = self.drop_emb(self.tok_emb(idx) + self.pos_emb(torch.arange(start, start + n)).unsqueeze(0))
        for blk in self.trf_blocks:
            x = blk(x, use_cache=use_cache)
        return self.out_head(self.final_norm(x))


# ---- RoPE: the angles, and the rotation of split halves -------------------------------------------------

def rope_params(head_dim, theta_base, context_length):
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2, dtype=torch.float32)[: head_dim // 2].float() / head_dim))
    angles = torch.arange(context_length, dtype=torch.float32).unsqueeze(1) * inv_freq.unsqueeze(0)
    angles = torch.cat([angles, angles], dim=1)
    return torch.cos(angles), torch.sin(angles)


def apply_rope(x, cos, sin, offset=0):
    n, d = x.shape[-2], x.shape[-1]
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    cos, sin = cos[offset:offset + n, :], sin[offset:offset + n, :]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


def through_cache(m, x):
    """An attention layer's output for x [b, n, d_in] at once, and for the same tokens through its cache (the
    first 3, then one at a time), in eval mode and without autograd: (out, cached), each [b, n, d_out]."""
    m.eval()
    with torch.no_grad():
        out = m(x)
        m.reset_cache()
        steps = [m(x[:, :3], use_cache=True)] + [m(x[:, i:i + 1], use_cache=True) for i in range(3, x.shape[1])]
    return out, torch.cat(steps, dim=1)


def cached_generation(lines, kind, case, model):
    """8 tokens of greedy generation after the prompt 2 6 0 8, with the cache (the prompt, then one token at a
    time), and the same ids through the model again without it: the lines '<kind> <case> what=ids / logits /
    uncached_logits / max_abs_diff'. Returns the ids and the cached logits."""
    model.eval()
    idx = torch.tensor([[2, 6, 0, 8]])
    with torch.no_grad():
        model.reset_kv_cache()
        logits = model(idx, use_cache=True)
        cached = [logits]
        for _ in range(7):
            nxt = logits[:, -1].argmax(dim=-1, keepdim=True)
            idx = torch.cat([idx, nxt], dim=1)
            logits = model(nxt, use_cache=True)
            cached.append(logits)
        idx = torch.cat([idx, logits[:, -1].argmax(dim=-1, keepdim=True)], dim=1)
        full = model(idx[:, :-1])
    cached = torch.cat(cached, dim=1)
    lines.append("%s %s what=ids : %s" % (kind, case, " ".join(str(i) for i in idx[0].tolist())))
    lines.append("%s %s what=logits : %s" % (kind, case, fmt.f32s(cached)))
    lines.append("%s %s what=uncached_logits : %s" % (kind, case, fmt.f32s(full)))
    lines.append("%s %s what=max_abs_diff : %s" % (kind, case, float((cached - full).abs().max()).hex()))
    return idx, cached


def gen_variants(write, f32s):
    lines = []

    # GQA (and MQA: 1 group; MHA: as many groups as heads): seeded module, x = torch.rand(b, n, d_in)
    for seed, d_in, d_out, heads, groups, b, n, window in [
            (123, 8, 12, 4, 2, 2, 5, None), (123, 8, 12, 4, 1, 2, 5, None), (123, 8, 12, 4, 4, 2, 5, None),
            (7, 16, 16, 4, 2, 1, 7, 3)]:
        torch.manual_seed(seed)
        m = GroupedQueryAttention(d_in, d_out, 0.0, heads, groups, window=window)
        out, cached = through_cache(m, torch.rand(b, n, d_in))
        case = "seed=%d d_in=%d d_out=%d num_heads=%d num_kv_groups=%d b=%d n=%d window=%s" % (
            seed, d_in, d_out, heads, groups, b, n, window or 0)
        lines.append("gqa %s what=out : %s" % (case, f32s(out)))
        lines.append("gqa %s what=cached : %s" % (case, f32s(cached)))

    # RoPE: cos and sin, and x = torch.rand(b, h, n, d) rotated (offset: the position of the first token)
    for seed, b, h, n, d, theta, offset in [(123, 1, 2, 6, 8, 10000, 0), (5, 2, 1, 4, 16, 500000, 3)]:
        torch.manual_seed(seed)
        x = torch.rand(b, h, n, d)
        cos, sin = rope_params(d, theta, offset + n)
        case = "seed=%d b=%d h=%d n=%d d=%d theta_base=%d offset=%d" % (seed, b, h, n, d, theta, offset)
        lines.append("rope %s what=cos : %s" % (case, f32s(cos)))
        lines.append("rope %s what=sin : %s" % (case, f32s(sin)))
        lines.append("rope %s what=out : %s" % (case, f32s(apply_rope(x, cos, sin, offset))))

    # chapter 4's GPT with the cache: greedy generation; ids are PyTorch's (attn's are one more)
    cfg = {"vocab_size": 50, "context_length": 16, "emb_dim": 32, "n_heads": 4, "n_layers": 2,
           "drop_rate": 0.1, "qkv_bias": False}
    torch.manual_seed(123)
    idx, cached = cached_generation(lines, "gpt_cached", "seed=123 vocab_size=50 context_length=16 emb_dim=32 "
                                    "n_heads=4 n_layers=2 prompt=2,6,0,8 new=8", GPTModel(cfg))

    # lessons/16_kv_cache_gqa.lua and 17_positions_windows.lua, in the lessons' format (lesson.reference)
    lesson = fmt.Lines()
    tensor = lesson.put
    lesson.put_ids("kv.ids", idx + 1)  # attn's ids, counted from 1
    tensor("kv.logits", cached)
    # a GQA layer on the book's six tokens: 4 query heads, 2 key/value heads, seed 123
    inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                           [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]).unsqueeze(0)
    for groups in (2, 1):
        torch.manual_seed(123)
        gqa_out, gqa_cached = through_cache(GroupedQueryAttention(3, 8, 0.0, 4, groups), inputs)
        tensor("gqa%d.out" % groups, gqa_out)
        tensor("gqa%d.cached" % groups, gqa_cached)
    # lessons/17_positions_windows.lua: a query and a key rotated by RoPE, and a sliding-window layer
    torch.manual_seed(123)
    q = torch.rand(1, 1, 6, 4)
    cos, sin = rope_params(4, 10000, 6)
    tensor("rope.q", q)
    tensor("rope.rotated", apply_rope(q, cos, sin))
    torch.manual_seed(123)
    m = GroupedQueryAttention(3, 4, 0.0, 2, 2, window=2)
    m.eval()
    with torch.no_grad():
        tensor("swa.out", m(inputs))
        m.reset_cache()
        tensor("swa.cached", torch.cat([m(inputs[:, i:i + 2], use_cache=True) for i in range(0, 6, 2)], dim=1))

    write("lessons_variants.txt", "lessons/16_kv_cache_gqa.lua and 17_positions_windows.lua: the KV cache, "
          "grouped-query attention, RoPE, sliding windows (scripts/torch_reference_variants.py)", lesson)

    write("variants.txt", "the bonus chapters' attention (scripts/torch_reference_variants.py): GQA/MQA, "
          "KV cache, sliding window, RoPE, cached generation; results row-major", lines)


if __name__ == "__main__":
    torch.set_num_threads(1)
    gen_variants(fmt.writer(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch")), fmt.f32s)
