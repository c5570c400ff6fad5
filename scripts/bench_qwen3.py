"""bench_qwen3.py — PyTorch's side of scripts/bench-qwen3.sh, with Debian's python3-torch 1.13.

    /usr/bin/python3 -s scripts/bench_qwen3.py save DIR
        writes a Qwen3-0.6B-shaped model with random seeded weights in the Hugging Face layout:
        DIR/config.json and DIR/model.safetensors (bfloat16, tied output head: ~1.2 GB)
    /usr/bin/python3 -s scripts/bench_qwen3.py run DIR THREADS N
        loads DIR into the book's from-scratch Qwen3Model with its KV cache (rasbt/LLMs-from-scratch,
        pkg/llms_from_scratch/kv_cache/qwen3.py, the code of ch05/11_qwen3/standalone-qwen3-plus-kvcache.ipynb,
        written out below operation for operation) with torch.set_num_threads(THREADS), then prints
        "forward_ms decode_ms": the median of 3 forwards of 512 tokens (after one warm-up), and the median of
        3 greedy decodes of N tokens with the cache after a 16-token prompt (the prompt's forward not timed).

The weights are the same in both programs (the file), the token ids too (TOKENS below; attn's are these + 1).
"""
import json
import os
import struct
import sys
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_qwen3_llama import hf_config, load_state  # noqa: E402  (the Hugging Face names)

# Qwen3-0.6B (the notebook's QWEN3_CONFIG for "0.6B"); context_length cut from 40960 to 4096: the RoPE
# tables only, which neither benchmark reaches
CFG = {"vocab_size": 151936, "context_length": 4096, "emb_dim": 1024, "n_heads": 16, "n_layers": 28,
       "hidden_dim": 3072, "head_dim": 128, "qk_norm": True, "n_kv_groups": 8, "rope_base": 1000000.0}
N_FORWARD, N_PROMPT = 512, 16


def tokens(n):
    """The first n of the benchmark's 512 token ids (0-based), [1, n]; save writes them to DIR/ids.txt for attn."""
    g = torch.Generator().manual_seed(7)
    return torch.randint(0, CFG["vocab_size"], (1, N_FORWARD), generator=g)[:, :n]


# ---- the book's model with its KV cache ----------------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, emb_dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.scale = nn.Parameter(torch.ones(emb_dim))

    def forward(self, x):
        input_dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(dim=-1, keepdim=True)
        norm_x = x * torch.rsqrt(variance + self.eps)
        norm_x = norm_x * self.scale
        return norm_x.to(input_dtype)


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], bias=False)
        self.fc2 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], bias=False)
        self.fc3 = nn.Linear(cfg["hidden_dim"], cfg["emb_dim"], bias=False)

    def forward(self, x):
        return self.fc3(nn.functional.silu(self.fc1(x)) * self.fc2(x))


def compute_rope_params(head_dim, theta_base, context_length):
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2, dtype=torch.float32)[: head_dim // 2].float() / head_dim))
    positions = torch.arange(context_length, dtype=torch.float32)
    angles = positions[:, None] * inv_freq[None, :]
    angles = torch.cat([angles, angles], dim=1)
    return torch.cos(angles), torch.sin(angles)


def apply_rope(x, cos, sin, offset=0):
    _, _, seq_len, head_dim = x.shape
    x1, x2 = x[..., : head_dim // 2], x[..., head_dim // 2:]
    cos = cos[offset:offset + seq_len, :].unsqueeze(0).unsqueeze(0)
    sin = sin[offset:offset + seq_len, :].unsqueeze(0).unsqueeze(0)
    rotated = torch.cat((-x2, x1), dim=-1)
    return ((x * cos) + (rotated * sin)).to(dtype=x.dtype)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_in, num_heads, num_kv_groups, head_dim):
        super().__init__()
        self.num_heads, self.num_kv_groups, self.head_dim = num_heads, num_kv_groups, head_dim
        self.group_size = num_heads // num_kv_groups
        self.d_out = num_heads * head_dim
        self.W_query = nn.Linear(d_in, self.d_out, bias=False)
        self.W_key = nn.Linear(d_in, num_kv_groups * head_dim, bias=False)
        self.W_value = nn.Linear(d_in, num_kv_groups * head_dim, bias=False)
        self.out_proj = nn.Linear(self.d_out, d_in, bias=False)
        self.q_norm = RMSNorm(head_dim, eps=1e-6)
        self.k_norm = RMSNorm(head_dim, eps=1e-6)

    def forward(self, x, mask, cos, sin, start_pos=0, cache=None):
        b, num_tokens, _ = x.shape
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys_new = self.W_key(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values_new = self.W_value(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        queries, keys_new = self.q_norm(queries), self.k_norm(keys_new)
        queries = apply_rope(queries, cos, sin, offset=start_pos)
        keys_new = apply_rope(keys_new, cos, sin, offset=start_pos)
        if cache is not None:
            prev_k, prev_v = cache
            keys, values = torch.cat([prev_k, keys_new], dim=2), torch.cat([prev_v, values_new], dim=2)
        else:
            keys, values = keys_new, values_new
        next_cache = (keys, values)
        keys = keys.repeat_interleave(self.group_size, dim=1)
        values = values.repeat_interleave(self.group_size, dim=1)
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)
        attn_weights = torch.softmax(attn_scores / self.head_dim ** 0.5, dim=-1)
        context = (attn_weights @ values).transpose(1, 2).reshape(b, num_tokens, self.d_out)
        return self.out_proj(context), next_cache


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = GroupedQueryAttention(cfg["emb_dim"], cfg["n_heads"], cfg["n_kv_groups"], cfg["head_dim"])
        self.ff = FeedForward(cfg)
        self.norm1 = RMSNorm(cfg["emb_dim"], eps=1e-6)
        self.norm2 = RMSNorm(cfg["emb_dim"], eps=1e-6)

    def forward(self, x, mask, cos, sin, start_pos=0, cache=None):
        shortcut = x
        x, next_cache = self.att(self.norm1(x), mask, cos, sin, start_pos=start_pos, cache=cache)
        x = x + shortcut
        shortcut = x
        x = self.ff(self.norm2(x))
        return x + shortcut, next_cache


class KVCache:
    def __init__(self, n_layers):
        self.cache = [None] * n_layers

    def get(self, i):
        return self.cache[i]

    def update(self, i, value):
        self.cache[i] = value


class Qwen3Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.trf_blocks = nn.ModuleList([TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = RMSNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)
        cos, sin = compute_rope_params(cfg["head_dim"], cfg["rope_base"], cfg["context_length"])
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.current_pos = 0

    def forward(self, in_idx, cache=None):
        x = self.tok_emb(in_idx)
        num_tokens = x.shape[1]
        if cache is not None:
            pos_start = self.current_pos
            pos_end = pos_start + num_tokens
            self.current_pos = pos_end
            mask = torch.triu(torch.ones(pos_end, pos_end, dtype=torch.bool), diagonal=1)[pos_start:pos_end, :pos_end]
        else:
            pos_start = 0
            mask = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)
        mask = mask[None, None, :, :]
        for i, block in enumerate(self.trf_blocks):
            blk_cache = cache.get(i) if cache else None
            x, new_blk_cache = block(x, mask, self.cos, self.sin, start_pos=pos_start, cache=blk_cache)
            if cache is not None:
                cache.update(i, new_blk_cache)
        return self.out_head(self.final_norm(x))

    def reset_kv_cache(self):
        self.current_pos = 0


# ---- the file ---------------------------------------------------------------------------------------------

def hf_shapes(cfg):
    """name -> shape of every weight of Qwen3ForCausalLM (tied: no lm_head)."""
    d, hd, h, g, f = cfg["emb_dim"], cfg["head_dim"], cfg["n_heads"], cfg["n_kv_groups"], cfg["hidden_dim"]
    s = {"model.embed_tokens.weight": [cfg["vocab_size"], d], "model.norm.weight": [d]}
    for i in range(cfg["n_layers"]):
        p = "model.layers.%d." % i
        s.update({p + "self_attn.q_proj.weight": [h * hd, d], p + "self_attn.k_proj.weight": [g * hd, d],
                  p + "self_attn.v_proj.weight": [g * hd, d], p + "self_attn.o_proj.weight": [d, h * hd],
                  p + "self_attn.q_norm.weight": [hd], p + "self_attn.k_norm.weight": [hd],
                  p + "input_layernorm.weight": [d], p + "post_attention_layernorm.weight": [d],
                  p + "mlp.gate_proj.weight": [f, d], p + "mlp.up_proj.weight": [f, d],
                  p + "mlp.down_proj.weight": [d, f]})
    return s


def save(directory):
    """Writes the file tensor by tensor (never the whole model in memory): norms 1 + noise, matrices N(0, 0.02²)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(hf_config(CFG, True, True, "bfloat16"), f, indent=2, sort_keys=True)
    shapes = hf_shapes(CFG)
    header, at = {}, 0
    for name in sorted(shapes):
        n = 2 * int(torch.tensor(shapes[name]).prod())
        header[name] = {"dtype": "BF16", "shape": shapes[name], "data_offsets": [at, at + n]}
        at += n
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(directory, "ids.txt"), "w") as f:
        f.write(" ".join(str(i) for i in tokens(N_FORWARD)[0].tolist()) + "\n")
    g = torch.Generator().manual_seed(123)
    with open(os.path.join(directory, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in sorted(shapes):
            shape = shapes[name]
            t = torch.randn(shape, generator=g) * (0.1 if len(shape) == 1 else 0.02)
            if len(shape) == 1:
                t += 1
            f.write(t.to(torch.bfloat16).view(torch.int16).numpy().tobytes())


def read_state(directory):
    """The file's tensors (bfloat16, as stored)."""
    with open(os.path.join(directory, "model.safetensors"), "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data_at = 8 + n
        state = {}
        for name, e in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
            begin, end = e["data_offsets"]
            f.seek(data_at + begin)
            raw = bytearray(f.read(end - begin))
            state[name] = torch.frombuffer(raw, dtype=torch.bfloat16).view(e["shape"])
    return state


def median(xs):
    return sorted(xs)[len(xs) // 2]


def run(directory, threads, n):
    torch.set_num_threads(threads)
    torch.manual_seed(123)
    model = Qwen3Model(CFG)
    load_state(model, read_state(directory), True)  # bfloat16 widened to float32, the head tied
    model.eval()
    forward = []
    with torch.no_grad():
        ids = tokens(N_FORWARD)
        for i in range(4):
            t = time.perf_counter()
            model(ids)
            if i > 0:  # the first is the warm-up
                forward.append((time.perf_counter() - t) * 1e3)
        decode = []
        for _ in range(3):
            model.reset_kv_cache()
            cache = KVCache(CFG["n_layers"])
            logits = model(tokens(N_PROMPT), cache=cache)
            t = time.perf_counter()
            for _ in range(n):
                nxt = logits[:, -1].argmax(dim=-1, keepdim=True)
                logits = model(nxt, cache=cache)
            decode.append((time.perf_counter() - t) * 1e3)
    print("%.1f %.1f" % (median(forward), median(decode)))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "save":
        save(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit("usage: bench_qwen3.py save DIR | run DIR THREADS N")
