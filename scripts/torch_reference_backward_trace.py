"""torch_reference_backward_trace.py — PyTorch's gradients of every stage of attention.trace's stages, for
the backward tracer (src/lua/attention/backward.lua, tests/lua/trace_backward_spec.lua):
tests/data/torch/backward_trace.txt.

Each case runs one of the books' attention classes the way attention.trace computes it: the stages of
src/lua/attention/pipeline.lua in the tracer's order (the projections queries, keys, values; split heads;
scores; masked and scaled in the module's order; weights; context; merge heads; output), each an
out-of-place op of the same kind as attn's stage (a matmul, a division by sqrt(d_k), masked_fill, softmax,
view + transpose), checked equal to the module's own forward. Every stage's tensor keeps its gradient
(retain_grad), L = (out * grad_out).sum() with grad_out drawn from a seeded generator, then L.backward().

Cases (layout of support.case_file in tests/lua/support.lua, float32 as bit patterns): tensors x (or
ids), grad_out, loss, grad.<stage key> (the key is attn's field name: queries, split_k, scores, ...),
grad.<parameter name> (the projections' parameters, as model.named_parameters() names them).
  sa_v1, sa_v2, causal, mha, wrapper   chapter 3's classes (seeds 123, 789, 123, 123, 123), the book's
                                       inputs (a batch of two for the last three)
  qkv     attention.trace{q =, k =, v =, heads = 2, mask = "causal"} on seeded random q, k, v
  annotated  Python Deep Learning's MultiHeadedAttention (the attention of its Transformer blocks), seed 123,
          2 heads of d_model 4, a padding mask (1 = visible): scaled, then masked with -1e9
  gqa, mla   the bonus chapters' GroupedQueryAttention (4 query heads, 2 key/value heads) and
          MultiHeadLatentAttention (2 heads, latent_dim 4), seed 123, x drawn from the generator: the stages of
          their own trace (the key/value heads repeated as the chapter's repeat_interleave repeats them)
  block   chapter 4's TransformerBlock (seed 123, emb_dim 4, 2 heads): x, norm1, the attention's stages,
          shortcut1 = x + out, norm2, ff, shortcut2 (the block's output); x's gradient too
  encoder, encoder_post  Python Deep Learning's EncoderBlock around its MultiHeadedAttention and a
          PositionwiseFFN (4 → 8 → 4), seed 123, a padding mask: pre-LN, and post-LN (norm after each shortcut)
  gpt     chapter 4's GPTModel (seed 123, 2 layers, 2 heads, 16 dims, vocabulary 50), layer 2, head 2:
          the stages of gpt/inspect.lua (block 2's input after norm1, that head's Q, K, V, ...)
Run through scripts/gen-torch-reference.sh (OPENBLAS_CORETYPE=Haswell, one thread).
"""
import os
import sys

import torch
import torch.nn as nn

torch.set_num_threads(1)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)
from torch_reference_autograd import CausalAttention, SelfAttention_v1, SelfAttention_v2  # noqa: E402
from torch_reference_gpt2 import GPTModel, MultiHeadAttention  # noqa: E402  (the book's classes)

LINES = fmt.CaseLines()
tensor_line = LINES.put
INPUTS = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
BATCH = torch.stack((INPUTS, INPUTS), dim=0)


class MultiHeadAttentionWrapper(nn.Module):  # the book's In [48]
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList([CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                                    for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


def attend(st, q, k, v, mask, mask_first, d_k):
    """scores, (masked, scaled | scaled, masked), weights, context, each kept in st."""
    st["scores"] = q @ k.transpose(-2, -1)
    s = st["scores"]
    order = ["masked", "scaled"] if mask_first else ["scaled", "masked"]
    for key in order:
        if key == "masked":
            if mask is None:
                continue
            s = s.masked_fill(mask, -torch.inf)
        else:
            s = s / d_k ** 0.5
        st[key] = s
    st["weights"] = torch.softmax(s, dim=-1)
    st["context"] = st["weights"] @ v


def split(t, h):  # attention.split_heads: [b, n, d] -> [b, h, n, d/h], a view
    b, n, d = t.shape
    return t.view(b, n, h, d // h).transpose(1, 2)


def merge(z):  # the book's merge: [b, h, n, dv] -> [b, n, h·dv]
    b, h, n, dv = z.shape
    return z.transpose(1, 2).contiguous().view(b, n, h * dv)


def finish(case, st, out, module_out, g, params, extra="", close=False):
    # GPT's head alone is [n, d] products (mm), the model's all heads at once (bmm): the same up to rounding
    same = torch.allclose(out, module_out, rtol=0, atol=1e-6) if close else torch.equal(out, module_out)
    assert same, case + ": the stages do not give the module's output"
    for t in st.values():
        if t.requires_grad:
            t.retain_grad()
    w = torch.randn(tuple(out.shape), generator=g)
    loss = (out * w).sum()
    loss.backward()
    LINES.append("case name=%s%s : -" % (case, extra))
    tensor_line(case, "grad_out", w)
    tensor_line(case, "loss", loss)
    for key, t in st.items():
        if t.grad is not None:
            tensor_line(case, "grad." + key, t.grad)
    for name, p in params:
        tensor_line(case, "grad." + name, p.grad)


def single_head(case, seed, make, x, g):
    torch.manual_seed(seed)
    m = make()
    st = {}
    proj = (lambda w: x @ w) if isinstance(m.W_query, torch.Tensor) else (lambda w: w(x))
    st["queries"], st["keys"], st["values"] = proj(m.W_query), proj(m.W_key), proj(m.W_value)
    n = x.shape[-2]
    mask = m.mask.bool()[:n, :n] if hasattr(m, "mask") else None
    attend(st, st["queries"], st["keys"], st["values"], mask, True, st["keys"].shape[-1])
    finish(case, st, st["context"], m(x), g, m.named_parameters(), " seed=%d" % seed)


def wrapper(g):
    torch.manual_seed(123)
    m = MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)
    st = {}
    for key, name in (("queries", "W_query"), ("keys", "W_key"), ("values", "W_value")):
        st[key] = torch.stack([getattr(h, name)(BATCH) for h in m.heads], dim=1)  # [b, h, n, d]
    attend(st, st["queries"], st["keys"], st["values"], m.heads[0].mask.bool()[:6, :6], True, 2)
    st["output"] = merge(st["context"])  # the trace shows the concatenation as "output"
    finish("wrapper", st, st["output"], m(BATCH), g, m.named_parameters(), " seed=123")


def mha(g):
    torch.manual_seed(123)
    m = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    st = {"queries": m.W_query(BATCH), "keys": m.W_key(BATCH), "values": m.W_value(BATCH)}
    st["split"], st["split_k"], st["split_v"] = split(st["queries"], 2), split(st["keys"], 2), split(st["values"], 2)
    attend(st, st["split"], st["split_k"], st["split_v"], m.mask.bool()[:6, :6], True, 1)
    st["merged"] = merge(st["context"])
    st["output"] = m.out_proj(st["merged"])
    finish("mha", st, st["output"], m(BATCH), g, m.named_parameters(), " seed=123")


def annotated(g):
    """Python Deep Learning's MultiHeadedAttention (its Transformer blocks' attention), a padding mask."""
    from torch_reference_layers import MultiHeadedAttention
    x = torch.randn(2, 5, 4, generator=g)
    mask = torch.tensor([[[1, 1, 1, 1, 0]], [[1, 1, 1, 0, 0]]])  # [b, 1, n], 1 = visible, as the module takes it
    torch.manual_seed(123)
    m = MultiHeadedAttention(2, 4, dropout=0.0)
    st = {"queries": m.fc_layers[0](x), "keys": m.fc_layers[1](x), "values": m.fc_layers[2](x)}
    st["split"], st["split_k"], st["split_v"] = split(st["queries"], 2), split(st["keys"], 2), split(st["values"], 2)
    st["scores"] = st["split"] @ st["split_k"].transpose(-2, -1)
    st["scaled"] = st["scores"] / 2 ** 0.5
    st["masked"] = st["scaled"].masked_fill(mask.unsqueeze(1) == 0, -1e9)
    st["weights"] = torch.softmax(st["masked"], dim=-1)
    st["context"] = st["weights"] @ st["split_v"]
    st["merged"] = merge(st["context"])
    st["output"] = m.fc_layers[3](st["merged"])
    finish("annotated", st, st["output"], m(x, x, x, mask), g, m.named_parameters(), " seed=123")
    tensor_line("annotated", "x", x)
    tensor_line("annotated", "mask", mask)


def qkv(g):
    q, k, v = (torch.randn(1, 4, 6, generator=g).requires_grad_() for _ in range(3))
    st = {"split": split(q, 2), "split_k": split(k, 2), "split_v": split(v, 2)}
    attend(st, st["split"], st["split_k"], st["split_v"], torch.triu(torch.ones(4, 4), 1).bool(), False, 3)
    st["merged"] = merge(st["context"])
    finish("qkv", st, st["merged"], st["merged"], g, [("q", q), ("k", k), ("v", v)])
    for name, t in (("q", q), ("k", k), ("v", v)):
        tensor_line("qkv", name, t)


def gpt(g):
    cfg = {"vocab_size": 50, "context_length": 8, "emb_dim": 16, "n_heads": 2, "n_layers": 2, "drop_rate": 0.0,
           "qkv_bias": False}
    ids = torch.randint(0, 50, (1, 5), generator=g)
    torch.manual_seed(123)
    model = GPTModel(cfg)
    L, H = 2, 2
    n = ids.shape[1]
    h = model.tok_emb(ids) + model.pos_emb(torch.arange(n))
    h = model.drop_emb(h)
    for b in range(L - 1):
        h = model.trf_blocks[b](h)
    att = model.trf_blocks[L - 1].att
    st = {"x": model.trf_blocks[L - 1].norm1(h)[0]}

    def heads_of(x):  # gpt/inspect.lua's heads_of: all three projections, split into heads
        return (split(att.W_query(x), 2), split(att.W_key(x), 2), split(att.W_value(x), 2))
    # as the trace computes them: one call of heads_of per projection, that head's part of its result
    st["queries"] = heads_of(st["x"].unsqueeze(0))[0][0][H - 1]
    st["keys"] = heads_of(st["x"].unsqueeze(0))[1][0][H - 1]
    st["values"] = heads_of(st["x"].unsqueeze(0))[2][0][H - 1]
    attend(st, st["queries"], st["keys"], st["values"], att.mask.bool()[:n, :n], True, att.head_dim)
    ctx = (att.dropout(torch.softmax((split(att.W_query(st["x"].unsqueeze(0)), 2) @
                                      split(att.W_key(st["x"].unsqueeze(0)), 2).transpose(2, 3))
                                     .masked_fill(att.mask.bool()[:n, :n], -torch.inf) / att.head_dim ** 0.5, dim=-1))
           @ split(att.W_value(st["x"].unsqueeze(0)), 2))[0][H - 1]
    finish("gpt", st, st["context"], ctx.detach(), g, [], close=True, extra=(
           " seed=123 layer=%d head=%d vocab_size=50 context_length=8 emb_dim=16 n_heads=2 n_layers=2" % (L, H)))
    tensor_line("gpt", "ids", ids)


def gqa(g):
    """The bonus chapter's GroupedQueryAttention (ch04/04_gqa): 4 query heads sharing 2 key/value heads."""
    from torch_reference_variants import GroupedQueryAttention
    x = torch.randn(2, 5, 4, generator=g)
    torch.manual_seed(123)
    m = GroupedQueryAttention(4, 8, 0.0, num_heads=4, num_kv_groups=2)
    st = {"queries": m.W_query(x), "keys": m.W_key(x), "values": m.W_value(x)}
    st["split"], st["split_k"], st["split_v"] = split(st["queries"], 4), split(st["keys"], 2), split(st["values"], 2)
    # the chapter's repeat_interleave, as the module's forward does it (attn's: a view expanded, then copied)
    st["repeated_k"] = st["split_k"].repeat_interleave(2, dim=1)
    st["repeated_v"] = st["split_v"].repeat_interleave(2, dim=1)
    attend(st, st["split"], st["repeated_k"], st["repeated_v"], torch.triu(torch.ones(5, 5), 1).bool(), True, 2)
    st["merged"] = merge(st["context"])
    st["output"] = m.out_proj(st["merged"])
    finish("gqa", st, st["output"], m(x), g, m.named_parameters(), " seed=123")
    tensor_line("gqa", "x", x)


def mla(g):
    """The bonus chapter's MultiHeadLatentAttention (ch04/05_mla): keys and values up-projected from a latent."""
    from torch_reference_mla import MultiHeadLatentAttention
    x = torch.randn(2, 5, 4, generator=g)
    torch.manual_seed(123)
    m = MultiHeadLatentAttention(4, 8, 0.0, 2, latent_dim=4)
    st = {"queries": m.W_query(x), "latent": m.W_DKV(x)}
    st["up_k"], st["up_v"] = m.W_UK(st["latent"]), m.W_UV(st["latent"])
    st["split"], st["split_k"], st["split_v"] = split(st["queries"], 2), split(st["up_k"], 2), split(st["up_v"], 2)
    attend(st, st["split"], st["split_k"], st["split_v"], torch.triu(torch.ones(5, 5), 1).bool(), True, 4)
    st["merged"] = merge(st["context"])
    st["output"] = m.out_proj(st["merged"])
    finish("mla", st, st["output"], m(x), g, m.named_parameters(), " seed=123")
    tensor_line("mla", "x", x)


def block(g):
    """Chapter 4's TransformerBlock: norm1, the attention, the shortcut, norm2, the feed-forward, the shortcut."""
    from torch_reference_gpt2 import TransformerBlock
    cfg = {"vocab_size": 50, "context_length": 6, "emb_dim": 4, "n_heads": 2, "n_layers": 1, "drop_rate": 0.0,
           "qkv_bias": False}
    x = torch.randn(2, 6, 4, generator=g).requires_grad_()
    torch.manual_seed(123)
    b = TransformerBlock(cfg)
    att = b.att
    st = {"x": x, "norm1": b.norm1(x)}
    st["queries"], st["keys"], st["values"] = att.W_query(st["norm1"]), att.W_key(st["norm1"]), att.W_value(st["norm1"])
    st["split"], st["split_k"], st["split_v"] = split(st["queries"], 2), split(st["keys"], 2), split(st["values"], 2)
    attend(st, st["split"], st["split_k"], st["split_v"], att.mask.bool()[:6, :6], True, att.head_dim)
    st["merged"] = merge(st["context"])
    st["output"] = att.out_proj(st["merged"])
    st["shortcut1"] = x + b.drop_shortcut(st["output"])
    st["norm2"] = b.norm2(st["shortcut1"])
    st["ff"] = b.ff(st["norm2"])
    st["shortcut2"] = st["shortcut1"] + b.drop_shortcut(st["ff"])
    finish("block", st, st["shortcut2"], b(x), g, b.named_parameters(),
           " seed=123 vocab_size=50 context_length=6 emb_dim=4 n_heads=2 n_layers=1")
    tensor_line("block", "x", x)


def encoder(g, case, post):
    """Python Deep Learning's EncoderBlock (pre-LN as built by default; post-LN: norm_first = false)."""
    from torch_reference_layers import EncoderBlock, MultiHeadedAttention, PositionwiseFFN
    x = torch.randn(2, 5, 4, generator=g).requires_grad_()
    mask = torch.tensor([[[1, 1, 1, 1, 0]], [[1, 1, 1, 0, 0]]])  # [b, 1, n], 1 = visible, as the block takes it
    torch.manual_seed(123)
    b = EncoderBlock(4, MultiHeadedAttention(2, 4, dropout=0.0), PositionwiseFFN(4, 8, dropout=0.0), dropout=0.0,
                     post_ln=post)
    s1, s2 = b.sublayers
    fc = b.self_attn.fc_layers
    st = {"x": x}
    if not post:
        st["norm1"] = s1.norm(x)
    inp = x if post else st["norm1"]
    st["queries"], st["keys"], st["values"] = fc[0](inp), fc[1](inp), fc[2](inp)
    st["split"], st["split_k"], st["split_v"] = split(st["queries"], 2), split(st["keys"], 2), split(st["values"], 2)
    st["scores"] = st["split"] @ st["split_k"].transpose(-2, -1)
    st["scaled"] = st["scores"] / 2 ** 0.5
    st["masked"] = st["scaled"].masked_fill(mask.unsqueeze(1) == 0, -1e9)
    st["weights"] = torch.softmax(st["masked"], dim=-1)
    st["context"] = st["weights"] @ st["split_v"]
    st["merged"] = merge(st["context"])
    st["output"] = fc[3](st["merged"])
    st["shortcut1"] = x + s1.dropout(st["output"])
    if post:
        st["post_norm1"] = s1.norm(st["shortcut1"])
        h = ff_in = st["post_norm1"]
    else:
        st["norm2"] = s2.norm(st["shortcut1"])
        h, ff_in = st["shortcut1"], st["norm2"]
    st["ff"] = b.ffn(ff_in)
    st["shortcut2"] = h + s2.dropout(st["ff"])
    out = st["shortcut2"]
    if post:
        st["post_norm2"] = s2.norm(out)
        out = st["post_norm2"]
    finish(case, st, out, b(x, mask), g, b.named_parameters(), " seed=123 post_ln=%d" % int(post))
    tensor_line(case, "x", x)
    tensor_line(case, "mask", mask)


def main(out_dir):
    g = torch.Generator().manual_seed(27)
    single_head("sa_v1", 123, lambda: SelfAttention_v1(3, 2), INPUTS, g)
    single_head("sa_v2", 789, lambda: SelfAttention_v2(3, 2), INPUTS, g)
    single_head("causal", 123, lambda: CausalAttention(3, 2, 6, 0.0), BATCH, g)
    mha(g)
    wrapper(g)
    qkv(g)
    gpt(g)
    annotated(g)
    gqa(g)
    mla(g)
    block(g)
    encoder(g, "encoder", False)
    encoder(g, "encoder_post", True)
    fmt.write(out_dir, "backward_trace.txt", "the backward tracer: the gradient of every stage of attention.trace's "
              "stages (scripts/torch_reference_backward_trace.py)", LINES)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch"))
