"""Multi-head latent attention (MLA) of the bonus chapter ch04/05_mla of "Build a Large Language Model (From
Scratch)" in PyTorch, for tests/data/torch/mla.txt (read by tests/lua/mla_spec.lua) and
tests/data/torch/lessons_mla.txt (read by lessons/22_latent_attention.lua).

The chapter's code lives in Sebastian Raschka's repository rasbt/LLMs-from-scratch,
ch04/05_mla/gpt_with_kv_mla.py: MultiHeadLatentAttention(d_in, d_out, dropout, num_heads, qkv_bias=False,
latent_dim=None) makes W_query, W_DKV (down to the latent), W_UK and W_UV (latent up to keys and values),
out_proj (with a bias) in that order; its cache cache_c_kv holds the latents, ptr_current_pos the position
of the next token; GPTModel is chapter 4's with that attention in every block (here the KV-cache chapter's
GPTModel of torch_reference_variants.py, handed this attention class). The forward below does the chapter's
operations in the chapter's order (projections, cache, up-projections, heads, q·kᵀ, the mask q_pos < k_pos
filled with -inf, softmax of scores / √head_dim, dropout, weights·v, heads merged, out_proj), written again in
this file's words; nothing of that repository is read when this runs.

Run by scripts/gen-torch-reference.sh:
    OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 /usr/bin/python3 scripts/torch_reference_mla.py tests/data/torch
"""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)
from reference_format import f32s  # noqa: E402
from torch_reference_variants import GPTModel, cached_generation, through_cache  # noqa: E402


class MultiHeadLatentAttention(nn.Module):
    @classmethod
    def from_config(cls, cfg):
        """The block's attention layer for a GPT configuration (what torch_reference_variants.Block calls)."""
        d = cfg["emb_dim"]
        return cls(d, d, cfg["drop_rate"], cfg["n_heads"], cfg["qkv_bias"], cfg["latent_dim"])

    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, latent_dim=None):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.latent_dim = latent_dim if latent_dim is not None else max(16, d_out // 8)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_DKV = nn.Linear(d_in, self.latent_dim, bias=qkv_bias)
        self.W_UK = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.W_UV = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.reset_cache()

    def reset_cache(self):
        self.cache_c_kv, self.ptr_current_pos = None, 0

    def heads(self, t):
        b, n, _ = t.shape
        return t.view(b, n, self.num_heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(self, x, use_cache=False):
        b, n, _ = x.shape
        queries_all = self.W_query(x)
        latent_new = self.W_DKV(x)
        if use_cache:
            latent = latent_new if self.cache_c_kv is None else torch.cat([self.cache_c_kv, latent_new], dim=1)
            self.cache_c_kv = latent
        else:
            latent = latent_new
        keys_all, values_all = self.W_UK(latent), self.W_UV(latent)
        q, k, v = self.heads(queries_all), self.heads(keys_all), self.heads(values_all)
        scores = torch.matmul(q, k.transpose(-2, -1))
        if use_cache:
            q_pos = torch.arange(self.ptr_current_pos, self.ptr_current_pos + n, dtype=torch.long)
            self.ptr_current_pos += n
        else:
            q_pos = torch.arange(n, dtype=torch.long)
            self.ptr_current_pos = 0
        k_pos = torch.arange(k.shape[-2], dtype=torch.long)
        scores.masked_fill_(q_pos.unsqueeze(-1) < k_pos.unsqueeze(0), -torch.inf)
        w = self.dropout(torch.softmax(scores / k.shape[-1] ** 0.5, dim=-1))
        z = (w @ v).transpose(1, 2).contiguous().view(b, n, self.d_out)
        return self.out_proj(z)


def layer_cases(lines):
    # seeded layer, x = torch.rand(b, n, d_in); the same tokens through the cache: 3, then one at a time
    for seed, d_in, d_out, heads, latent, bias, b, n in [
            (123, 8, 12, 4, 6, False, 2, 5), (7, 16, 16, 4, None, False, 1, 7), (5, 8, 8, 2, 4, True, 2, 4)]:
        torch.manual_seed(seed)
        m = MultiHeadLatentAttention(d_in, d_out, 0.0, heads, qkv_bias=bias, latent_dim=latent)
        out, cached = through_cache(m, torch.rand(b, n, d_in))
        case = "seed=%d d_in=%d d_out=%d num_heads=%d latent_dim=%d qkv_bias=%d b=%d n=%d" % (
            seed, d_in, d_out, heads, latent or 0, int(bias), b, n)
        lines.append("mla %s what=out : %s" % (case, f32s(out)))
        lines.append("mla %s what=cached : %s" % (case, f32s(cached)))
        lines.append("mla %s what=cache_c_kv : %s" % (case, f32s(m.cache_c_kv)))
        lines.append("mla %s what=max_abs_diff : %s" % (case, float((cached - out).abs().max()).hex()))


def gpt_case(lines):
    # chapter 4's GPT with MLA in every block: greedy generation with the cache, then the same ids uncached
    cfg = {"vocab_size": 50, "context_length": 16, "emb_dim": 32, "n_heads": 4, "n_layers": 2,
           "drop_rate": 0.1, "qkv_bias": False, "latent_dim": 8}
    torch.manual_seed(123)
    return cached_generation(lines, "gpt_mla", "seed=123 vocab_size=50 context_length=16 emb_dim=32 n_heads=4 "
                             "n_layers=2 latent_dim=8 prompt=2,6,0,8 new=8",
                             GPTModel(cfg, attention=MultiHeadLatentAttention))


def lesson_cases(write, idx, logits):
    # lessons/22_latent_attention.lua, in the lessons' format (lesson.reference)
    lesson = fmt.Lines()
    tensor = lesson.put

    # an MLA layer on the book's six tokens: d_out 8, 4 heads (head_dim 2), latent_dim 4, seed 123
    inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                           [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]).unsqueeze(0)
    torch.manual_seed(123)
    m = MultiHeadLatentAttention(3, 8, 0.0, 4, latent_dim=4)
    out, cached = through_cache(m, inputs)
    tensor("mla.out", out)
    tensor("mla.cached", cached)
    tensor("mla.cache_c_kv", m.cache_c_kv)  # the six tokens' latents, what the cache holds
    with torch.no_grad():
        tensor("mla.keys", m.W_UK(m.cache_c_kv))
    lesson.put_ids("gpt.ids", idx + 1)  # attn's ids, counted from 1
    tensor("gpt.logits", logits)
    write("lessons_mla.txt", "lessons/22_latent_attention.lua: multi-head latent attention "
          "(scripts/torch_reference_mla.py)", lesson)


if __name__ == "__main__":
    torch.set_num_threads(1)
    write = fmt.writer(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch"))
    lines = []
    layer_cases(lines)
    idx, logits = gpt_case(lines)
    write("mla.txt", "multi-head latent attention, the bonus chapter ch04/05_mla (scripts/torch_reference_mla.py): "
          "layers, cached and uncached, and a GPT with MLA; results row-major", lines)
    lesson_cases(write, idx, logits)
