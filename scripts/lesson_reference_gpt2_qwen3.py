"""PyTorch's numbers for lessons/23_gpt2_to_qwen3.lua ("From GPT-2 to Qwen3"):
tests/data/torch/lesson_gpt2_qwen3.txt, the lesson's seeded computations done again in PyTorch.

Two small models with random weights, each built right after torch.manual_seed(123), with the full
vocabularies so that the real tokenizers' ids fit:
  GPT-2: the book's chapter 4 GPTModel (scripts/torch_reference_gpt2.py): vocabulary 50,257, context 32,
         emb_dim 32, 4 heads, 2 layers, no dropout, no query/key/value biases
  Qwen3: Sebastian Raschka's from-scratch Qwen3Model (rasbt/LLMs-from-scratch ch05/11_qwen3, written again in
         scripts/torch_reference_qwen3_llama.py): vocabulary 151,936, context 32, emb_dim 32, 4 query heads
         sharing 2 key/value heads of 16 dims, QK-norm, hidden_dim 48, 2 layers, RoPE base 1e6
The sentence "你的旅程从一步开始" goes through both. Its token ids are not typed here: they are read from the
tokenizers' reference files, made by other tokenizers than attn's (GPT-2's by js-tiktoken,
tests/data/tiktoken/gpt2.jsonl; Qwen3's by @lenml/tokenizers, tests/data/tokenizers/reference.jsonl).
Written (attn's ids are these + 1; layers and heads counted from 1 in the names):
  gq.<m>.ids          the sentence's ids (int64)
  gq.<m>.x            the block input: tok_emb(ids) + pos_emb(positions) for GPT-2, tok_emb(ids) for Qwen3
  gq.<m>.norm1        block 1's norm1 of x (LayerNorm, RMSNorm)
  gq.<m>.weights.1    block 1's attention weights [heads, n, n]
  gq.<m>.h1           x after block 1's attention and its shortcut
  gq.<m>.ff1          block 1's feed-forward of norm2(h1) (GELU MLP, SwiGLU)
  gq.qwen.q_raw.1 / q_normed.1 / q_rope.1   head 1 of block 1: queries before QK-norm, after it, after RoPE
  gq.act.x, gq.act.gelu, gq.act.silu        GELU (the book's tanh form) and SiLU on linspace(-3, 3, 7)
  gq.<m>.top5.probs / top5.ids              the last position's five most likely next tokens
  gq.<m>.greedy       3 tokens of greedy generation (generate_text_simple, no cache)
Format as lesson_sqrt_dk.txt. Run through scripts/gen-torch-reference.sh (OPENBLAS_CORETYPE=Haswell, one thread).
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_format as fmt  # noqa: E402  (the reference files' format)
from torch_reference_gpt2 import GELU, GPTModel  # noqa: E402  (the book's chapter 4 classes)
from torch_reference_qwen3_llama import Model as Qwen3OrLlama, rotate  # noqa: E402  (the notebooks' classes)

ROOT = os.path.join(HERE, "..")
OUT = os.path.join(ROOT, "tests", "data", "torch")
SENTENCE = "你的旅程从一步开始"
GPT_CFG = {"vocab_size": 50257, "context_length": 32, "emb_dim": 32, "n_heads": 4, "n_layers": 2,
           "drop_rate": 0.0, "qkv_bias": False}
QWEN_CFG = {"vocab_size": 151936, "context_length": 32, "emb_dim": 32, "n_heads": 4, "n_layers": 2,
            "hidden_dim": 48, "head_dim": 16, "qk_norm": True, "n_kv_groups": 2, "rope_base": 1000000.0}
lines = fmt.Lines()
put = lines.put


def ids_from(path, key):
    """The sentence's ids as another tokenizer gave them (a JSON line with "text" and key)."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for line in f:
            case = json.loads(line)
            if case["text"] == SENTENCE:
                return torch.tensor([case[key]])
    raise SystemExit("lesson_reference_gpt2_qwen3: %s has no line for %s" % (path, SENTENCE))


def greedy(model, ids, n):
    with torch.no_grad():
        for _ in range(n):
            logits = model(ids)[:, -1, :]
            ids = torch.cat([ids, logits.argmax(dim=-1, keepdim=True)], dim=1)
    return ids


def top5(name, model, ids):
    with torch.no_grad():
        probs = torch.softmax(model(ids)[0, -1], dim=-1)
    vals, idx = torch.topk(probs, 5)
    put(name + ".top5.probs", vals)
    put(name + ".top5.ids", idx)


def gpt_side():
    torch.manual_seed(123)
    model = GPTModel(GPT_CFG)
    model.eval()
    ids = ids_from("tests/data/tiktoken/gpt2.jsonl", "ids")
    put("gq.gpt.ids", ids)
    blk = model.trf_blocks[0]
    with torch.no_grad():
        n = ids.shape[1]
        x = model.tok_emb(ids) + model.pos_emb(torch.arange(n))
        put("gq.gpt.x", x[0])
        a = blk.norm1(x)
        put("gq.gpt.norm1", a[0])
        att = blk.att  # the attention weights, as MultiHeadAttention.forward computes them
        heads = lambda t: t.view(1, n, att.num_heads, att.head_dim).transpose(1, 2)
        q, k = heads(att.W_query(a)), heads(att.W_key(a))
        scores = (q @ k.transpose(2, 3)).masked_fill(att.mask.bool()[:n, :n], -torch.inf)
        put("gq.gpt.weights.1", torch.softmax(scores / k.shape[-1] ** 0.5, dim=-1)[0])
        h1 = x + att(a)
        put("gq.gpt.h1", h1[0])
        put("gq.gpt.ff1", blk.ff(blk.norm2(h1))[0])
    top5("gq.gpt", model, ids)
    put("gq.gpt.greedy", greedy(model, ids, 3))


def qwen_side():
    torch.manual_seed(123)
    model = Qwen3OrLlama(QWEN_CFG, True)
    model.eval()
    ids = ids_from("tests/data/tokenizers/reference.jsonl", "qwen3")
    put("gq.qwen.ids", ids)
    blk = model.trf_blocks[0]
    with torch.no_grad():
        n = ids.shape[1]
        x = model.tok_emb(ids)
        put("gq.qwen.x", x[0])
        a = blk.norm1(x)
        put("gq.qwen.norm1", a[0])
        att = blk.att
        q = att.W_query(a).view(1, n, att.num_heads, att.head_dim).transpose(1, 2)
        put("gq.qwen.q_raw.1", q[0, 0])
        qn = att.q_norm(q)
        put("gq.qwen.q_normed.1", qn[0, 0])
        put("gq.qwen.q_rope.1", rotate(qn, model.cos, model.sin)[0, 0])
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        h1 = x + att(a, mask, model.cos, model.sin)
        put("gq.qwen.weights.1", att.last_weights[0])
        put("gq.qwen.h1", h1[0])
        put("gq.qwen.ff1", blk.ff(blk.norm2(h1))[0])
    top5("gq.qwen", model, ids)
    put("gq.qwen.greedy", greedy(model, ids, 3))


def activations():
    x = torch.linspace(-3, 3, 7)
    put("gq.act.x", x)
    put("gq.act.gelu", GELU()(x))
    put("gq.act.silu", torch.nn.functional.silu(x))


def main():
    torch.set_num_threads(1)
    gpt_side()
    qwen_side()
    activations()
    head = fmt.lesson_header("lessons/23_gpt2_to_qwen3.lua: its seeded computations, in PyTorch",
                             "lesson_reference_gpt2_qwen3.py", int64_note="int64 lines: decimal")
    fmt.write_file(os.path.join(OUT, "lesson_gpt2_qwen3.txt"), head, lines)


if __name__ == "__main__":
    main()
