"""torch_reference_gpt2.py — PyTorch's side of attn's GPT-2 tests, with Debian's python3-torch 1.13.

Writes, byte-identical on every run:
  tests/data/gpt2/tiny/config.json, tests/data/gpt2/tiny/model.safetensors
      a tiny GPT-2 (2 layers, 4 heads, 64 dims, vocabulary 1000, context 32) with random weights, in
      Hugging Face's layout for GPT2LMHeadModel (the names of the official gpt2 download: wte, wpe,
      h.N.attn.c_attn, ... ; Conv1D weights stored [in, out]; c_attn the three projections side by
      side; lm_head tied to wte; the causal-mask buffers h.N.attn.bias included, as old checkpoints have)
  tests/data/gpt2/reference.safetensors
      what PyTorch computes: the book's GPTModel built after torch.manual_seed(123) (every weight of the
      tiny configuration; 16 evenly spaced elements of every weight of GPT_CONFIG_124M, and its parameter
      count), the tiny model's logits for a fixed input, generate_text_simple's and generate's ids
      (temperature, top-k, torch.multinomial), and torch.multinomial on its own.
The book's classes (chapters 3 to 5 of Build a Large Language Model (From Scratch)) are written out below as
the book has them. Run through scripts/gen-torch-reference.sh or directly: /usr/bin/python3 scripts/torch_reference_gpt2.py
"""
import json
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_safetensors import save_safetensors  # noqa: E402  (the files attn's safetensors.load_file reads)

torch.set_num_threads(1)
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "data", "gpt2")


# ---- the book's classes ------------------------------------------------------------------------------

class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
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
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                    nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], context_length=cfg["context_length"],
                                      num_heads=cfg["n_heads"], dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        shortcut = x
        x = self.norm1(x)
        x = self.att(x)
        x = self.drop_shortcut(x)
        x = x + shortcut
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = self.drop_shortcut(x)
        x = x + shortcut
        return x


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = tok_embeds + pos_embeds
        x = self.drop_emb(x)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        logits = self.out_head(x)
        return logits


# chapter 4, "Adding shortcut connections": the book's class as printed
class ExampleDeepNeuralNetwork(nn.Module):
    def __init__(self, layer_sizes, use_shortcut):
        super().__init__()
        self.use_shortcut = use_shortcut
        self.layers = nn.ModuleList([
            nn.Sequential(nn.Linear(layer_sizes[i], layer_sizes[i + 1]), GELU()) for i in range(5)])

    def forward(self, x):
        for layer in self.layers:
            layer_output = layer(x)
            if self.use_shortcut and x.shape == layer_output.shape:
                x = x + layer_output
            else:
                x = layer_output
        return x


def generate_text_simple(model, idx, max_new_tokens, context_size):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        probas = torch.softmax(logits, dim=-1)
        idx_next = torch.argmax(probas, dim=-1, keepdim=True)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        if top_k is not None:
            top_logits, _ = torch.topk(logits, top_k)
            min_val = top_logits[:, -1]
            logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device), logits)
        if temperature > 0.0:
            logits = logits / temperature
            probs = torch.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
        else:
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)
        if idx_next == eos_id:
            break
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


GPT_CONFIG_124M = {"vocab_size": 50257, "context_length": 1024, "emb_dim": 768, "n_heads": 12, "n_layers": 12,
                   "drop_rate": 0.1, "qkv_bias": False}
TINY = {"vocab_size": 1000, "context_length": 32, "emb_dim": 64, "n_heads": 4, "n_layers": 2, "drop_rate": 0.1,
        "qkv_bias": True}


# ---- Hugging Face's layout (the files written by reference_safetensors.py) -------------------------

def hf_state(model, cfg):
    """The model's weights under Hugging Face's GPT-2 names and layouts (Conv1D: [in, out])."""
    s = {"wte.weight": model.tok_emb.weight, "wpe.weight": model.pos_emb.weight,
         "ln_f.weight": model.final_norm.scale, "ln_f.bias": model.final_norm.shift}
    n = cfg["context_length"]
    for i, b in enumerate(model.trf_blocks):
        p = "h.%d." % i
        a = b.att
        s[p + "ln_1.weight"], s[p + "ln_1.bias"] = b.norm1.scale, b.norm1.shift
        s[p + "ln_2.weight"], s[p + "ln_2.bias"] = b.norm2.scale, b.norm2.shift
        s[p + "attn.c_attn.weight"] = torch.cat([a.W_query.weight.T, a.W_key.weight.T, a.W_value.weight.T], dim=1)
        s[p + "attn.c_attn.bias"] = torch.cat([a.W_query.bias, a.W_key.bias, a.W_value.bias])
        s[p + "attn.c_proj.weight"], s[p + "attn.c_proj.bias"] = a.out_proj.weight.T, a.out_proj.bias
        s[p + "mlp.c_fc.weight"], s[p + "mlp.c_fc.bias"] = b.ff.layers[0].weight.T, b.ff.layers[0].bias
        s[p + "mlp.c_proj.weight"], s[p + "mlp.c_proj.bias"] = b.ff.layers[2].weight.T, b.ff.layers[2].bias
        s[p + "attn.bias"] = torch.tril(torch.ones(n, n)).view(1, 1, n, n)  # the old checkpoints' mask buffer
    return s


def main():
    os.makedirs(os.path.join(OUT, "tiny"), exist_ok=True)
    ref = {}

    # 1. Seeded construction, bit for bit: every weight of the tiny configuration ...
    torch.manual_seed(123)
    model = GPTModel(TINY)
    for name, p in model.named_parameters():
        ref["seeded/" + name] = p.detach().clone()
    ref["seeded/next"] = torch.rand(4)
    # ... and 16 evenly spaced elements of every weight of GPT_CONFIG_124M, with the count.
    torch.manual_seed(123)
    big = GPTModel(GPT_CONFIG_124M)
    for name, p in big.named_parameters():
        flat = p.detach().reshape(-1)
        n = flat.numel()
        ref["seeded124m/" + name] = flat[torch.tensor([k * (n - 1) // 15 for k in range(16)])].clone()
    ref["seeded124m/next"] = torch.rand(4)
    ref["seeded124m/count"] = torch.tensor([sum(p.numel() for p in big.parameters())])
    del big

    # 2. The tiny GPT-2 in Hugging Face's layout: the tiny configuration, with the output head tied to the
    #    token embedding as GPT-2's is. Every weight is drawn afresh at GPT-2's scale (normal, std 0.1; LayerNorms near 1 and 0) so the
    #    logits are of order 1, as a trained model's are, and 1e-5 is a tight bound on them.
    torch.manual_seed(456)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, LayerNorm):
                m.scale.copy_(1 + 0.1 * torch.randn(m.scale.shape))
                m.shift.copy_(0.1 * torch.randn(m.shift.shape))
            elif isinstance(m, (nn.Linear, nn.Embedding)):
                m.weight.normal_(0, 0.1)
                if getattr(m, "bias", None) is not None:
                    m.bias.normal_(0, 0.02)
    model.out_head.weight = model.tok_emb.weight
    model.eval()
    save_safetensors(hf_state(model, TINY), os.path.join(OUT, "tiny", "model.safetensors"))
    config = {"architectures": ["GPT2LMHeadModel"], "activation_function": "gelu_new", "model_type": "gpt2",
              "layer_norm_epsilon": 1e-05, "n_ctx": TINY["context_length"], "n_positions": TINY["context_length"],
              "n_embd": TINY["emb_dim"], "n_head": TINY["n_heads"], "n_layer": TINY["n_layers"],
              "vocab_size": TINY["vocab_size"], "attn_pdrop": 0.1, "embd_pdrop": 0.1, "resid_pdrop": 0.1}
    with open(os.path.join(OUT, "tiny", "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")

    # 3. What the tiny model computes.
    torch.manual_seed(789)
    ids = torch.randint(0, TINY["vocab_size"], (2, 10))
    ref["input"] = ids
    with torch.no_grad():
        ref["logits"] = model(ids)
    start = ids[:1, :4]
    ref["simple"] = generate_text_simple(model, start, 6, TINY["context_length"])
    ref["simple_crop"] = generate_text_simple(model, ids[:1], 5, 6)
    torch.manual_seed(123)
    ref["sample_topk"] = generate(model, start, 8, TINY["context_length"], temperature=1.4, top_k=25)
    torch.manual_seed(7)
    ref["sample"] = generate(model, start, 8, TINY["context_length"], temperature=0.7)
    ref["greedy_topk"] = generate(model, start, 5, TINY["context_length"], temperature=0.0, top_k=5)

    # 4. torch.multinomial alone: one sample per row, and three without replacement.
    for seed in range(1, 11):
        torch.manual_seed(seed)
        probs = torch.softmax(torch.randn(3, 50) / 0.5, dim=-1)
        ref["multinomial/%d/probs" % seed] = probs
        ref["multinomial/%d/one" % seed] = torch.multinomial(probs, 1)
        ref["multinomial/%d/three" % seed] = torch.multinomial(probs, 3)
        ref["multinomial/%d/next" % seed] = torch.rand(2)
    save_safetensors(ref, os.path.join(OUT, "reference.safetensors"))
    print("torch_reference_gpt2: wrote tests/data/gpt2/tiny/ and tests/data/gpt2/reference.safetensors", file=sys.stderr)


if __name__ == "__main__":
    main()
