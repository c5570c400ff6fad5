"""torch_reference_qwen3_llama.py — PyTorch's side of attn's Qwen3 and Llama 3 tests, with Debian's
python3-torch 1.13.

Writes, byte-identical on every run, tiny models with random weights in the Hugging Face layout (config.json
with Hugging Face's key names, safetensors with Hugging Face's tensor names) and what PyTorch computes with them:
  tests/data/hf_models/qwen3-f32/          Qwen3, float32, one model.safetensors, tied output head
  tests/data/hf_models/qwen3-bf16-sharded/ Qwen3, bfloat16, two shards and model.safetensors.index.json
  tests/data/hf_models/llama3-f32/         Llama 3 (RoPE frequency scaling), float32, its own lm_head
  tests/data/hf_models/llama3-bf16/        Llama 3, bfloat16, tied output head
  tests/data/hf_models/reference.safetensors
      <model>.logits   the logits [1, 8, vocab] for the token ids TOKENS, computed by the models below with the
                       file's weights (bfloat16 ones widened to float32, as attn widens them when loading)
      <model>.rope_cos / .rope_sin   the RoPE tables (context_length x head_dim) the model computes
      <model>.weights.<layer>        layer's attention weights [heads, 8, 8] on TOKENS (layers from 1)
The float32 directories are the weights of Qwen3Model / Llama3Model constructed right after
torch.manual_seed(123), so attn's constructors can be compared with them weight for weight.

The models are written here in my own words after Sebastian Raschka's from-scratch notebooks
(rasbt/LLMs-from-scratch: ch05/11_qwen3/standalone-qwen3.ipynb, ch05/07_gpt_to_llama/standalone-llama32.ipynb):
the same classes, parameter names, creation order and operations. PyTorch 1.13 has no nn.RMSNorm, which the
Llama notebook uses: RMSNorm below computes what nn.RMSNorm computes (x * rsqrt(mean(x²) + eps) * weight), its
parameter named `weight` as there. Run through scripts/gen-torch-reference.sh or directly:
OPENBLAS_CORETYPE=Haswell /usr/bin/python3 scripts/torch_reference_qwen3_llama.py
"""
import json
import math
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_safetensors import save_safetensors  # noqa: E402  (the files attn's safetensors.load_file reads)

torch.set_num_threads(1)
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "data", "hf_models")

TOKENS = [5, 17, 42, 3, 60, 11, 29, 8]  # 0-based, as PyTorch counts (attn's ids are these + 1)

QWEN3_TINY = {"vocab_size": 64, "context_length": 32, "emb_dim": 32, "n_heads": 4, "n_layers": 2,
              "hidden_dim": 48, "head_dim": 16, "qk_norm": True, "n_kv_groups": 2, "rope_base": 1000000.0}
LLAMA3_TINY = {"vocab_size": 64, "context_length": 32, "emb_dim": 32, "n_heads": 4, "n_layers": 2,
               "hidden_dim": 48, "n_kv_groups": 2, "rope_base": 500000.0,
               # original_context_length 8 (Llama 3.2's is 8192): with head_dim 8 the four frequencies then
               # fall in all three bands of the scaling (kept, smoothed, divided by the factor)
               "rope_freq": {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                             "original_context_length": 8}}


# ---- the models --------------------------------------------------------------------------------------

class RMSNorm(nn.Module):
    """Root-mean-square norm: x / sqrt(mean(x²) + eps), times a learned scale (no shift)."""

    def __init__(self, emb_dim, eps, name):
        super().__init__()
        self.eps = eps
        self.name = name  # "scale" (the Qwen3 notebook's RMSNorm) or "weight" (nn.RMSNorm, the Llama notebook's)
        setattr(self, name, nn.Parameter(torch.ones(emb_dim)))

    def forward(self, x):
        mean_sq = x.pow(2).mean(dim=-1, keepdim=True)
        return x * torch.rsqrt(mean_sq + self.eps) * getattr(self, self.name)


class FeedForward(nn.Module):
    """SwiGLU: fc3(silu(fc1(x)) * fc2(x)), no biases."""

    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], bias=False)
        self.fc2 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], bias=False)
        self.fc3 = nn.Linear(cfg["hidden_dim"], cfg["emb_dim"], bias=False)

    def forward(self, x):
        return self.fc3(nn.functional.silu(self.fc1(x)) * self.fc2(x))


def rope_tables(head_dim, theta_base, context_length, freq_config=None):
    """cos, sin [context_length, head_dim]: split-half RoPE, with Llama 3's frequency scaling when given."""
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    if freq_config is not None:
        low_wavelen = freq_config["original_context_length"] / freq_config["low_freq_factor"]
        high_wavelen = freq_config["original_context_length"] / freq_config["high_freq_factor"]
        wavelen = 2 * torch.pi / inv_freq
        scaled = torch.where(wavelen > low_wavelen, inv_freq / freq_config["factor"], inv_freq)
        smooth = (freq_config["original_context_length"] / wavelen - freq_config["low_freq_factor"]) / (
            freq_config["high_freq_factor"] - freq_config["low_freq_factor"])
        smoothed = (1 - smooth) * (inv_freq / freq_config["factor"]) + smooth * inv_freq
        medium = (wavelen <= low_wavelen) & (wavelen >= high_wavelen)
        inv_freq = torch.where(medium, smoothed, scaled)
    positions = torch.arange(context_length, dtype=torch.float32)
    angles = positions.unsqueeze(1) * inv_freq.unsqueeze(0)
    angles = torch.cat([angles, angles], dim=1)
    return torch.cos(angles), torch.sin(angles)


def rotate(x, cos, sin):
    n, d = x.shape[-2], x.shape[-1]
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return x * cos[:n] + torch.cat((-x2, x1), dim=-1) * sin[:n]


class GroupedQueryAttention(nn.Module):
    """Grouped-query attention. qwen3 = True: the Qwen3 notebook's (queries created first, an explicit head_dim,
    RMSNorm on each query and key head); else the Llama notebook's (keys and values created first)."""

    def __init__(self, d_in, num_heads, num_kv_groups, head_dim, qwen3):
        super().__init__()
        self.num_heads, self.num_kv_groups, self.head_dim = num_heads, num_kv_groups, head_dim
        self.group_size = num_heads // num_kv_groups
        self.d_out = num_heads * head_dim
        if qwen3:
            self.W_query = nn.Linear(d_in, self.d_out, bias=False)
            self.W_key = nn.Linear(d_in, num_kv_groups * head_dim, bias=False)
            self.W_value = nn.Linear(d_in, num_kv_groups * head_dim, bias=False)
            self.out_proj = nn.Linear(self.d_out, d_in, bias=False)
            self.q_norm = RMSNorm(head_dim, 1e-6, "scale")
            self.k_norm = RMSNorm(head_dim, 1e-6, "scale")
        else:
            self.W_key = nn.Linear(d_in, num_kv_groups * head_dim, bias=False)
            self.W_value = nn.Linear(d_in, num_kv_groups * head_dim, bias=False)
            self.W_query = nn.Linear(d_in, self.d_out, bias=False)
            self.out_proj = nn.Linear(self.d_out, self.d_out, bias=False)
            self.q_norm = self.k_norm = None

    def forward(self, x, mask, cos, sin):
        b, n, _ = x.shape
        q = self.W_query(x).view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.W_key(x).view(b, n, self.num_kv_groups, self.head_dim).transpose(1, 2)
        v = self.W_value(x).view(b, n, self.num_kv_groups, self.head_dim).transpose(1, 2)
        if self.q_norm is not None:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        k = k.repeat_interleave(self.group_size, dim=1)
        v = v.repeat_interleave(self.group_size, dim=1)
        scores = (q @ k.transpose(2, 3)).masked_fill(mask, -torch.inf)
        weights = torch.softmax(scores / self.head_dim ** 0.5, dim=-1)
        self.last_weights = weights  # for the reference file: what attention.overview shows
        context = (weights @ v).transpose(1, 2).reshape(b, n, self.d_out)
        return self.out_proj(context)


class TransformerBlock(nn.Module):
    def __init__(self, cfg, qwen3):
        super().__init__()
        head_dim = cfg.get("head_dim") or cfg["emb_dim"] // cfg["n_heads"]
        self.att = GroupedQueryAttention(cfg["emb_dim"], cfg["n_heads"], cfg["n_kv_groups"], head_dim, qwen3)
        self.ff = FeedForward(cfg)
        eps, name = (1e-6, "scale") if qwen3 else (1e-5, "weight")
        self.norm1 = RMSNorm(cfg["emb_dim"], eps, name)
        self.norm2 = RMSNorm(cfg["emb_dim"], eps, name)

    def forward(self, x, mask, cos, sin):
        x = x + self.att(self.norm1(x), mask, cos, sin)
        return x + self.ff(self.norm2(x))


class Model(nn.Module):
    """Qwen3Model (qwen3 = True) or Llama3Model: embedding, blocks, final norm, output head."""

    def __init__(self, cfg, qwen3):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.trf_blocks = nn.ModuleList([TransformerBlock(cfg, qwen3) for _ in range(cfg["n_layers"])])
        eps, name = (1e-6, "scale") if qwen3 else (1e-5, "weight")
        self.final_norm = RMSNorm(cfg["emb_dim"], eps, name)
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)
        head_dim = cfg.get("head_dim") or cfg["emb_dim"] // cfg["n_heads"]
        self.cos, self.sin = rope_tables(head_dim, cfg["rope_base"], cfg["context_length"], cfg.get("rope_freq"))

    def forward(self, in_idx):
        x = self.tok_emb(in_idx)
        n = x.shape[1]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        for block in self.trf_blocks:
            x = block(x, mask, self.cos, self.sin)
        return self.out_head(self.final_norm(x))


# ---- the Hugging Face layout -------------------------------------------------------------------------

def hf_state(model, qwen3, tied):
    """The model's weights under Hugging Face's names (Qwen3ForCausalLM, LlamaForCausalLM)."""
    s = {"model.embed_tokens.weight": model.tok_emb.weight}
    norm = "scale" if qwen3 else "weight"
    for i, blk in enumerate(model.trf_blocks):
        p, att = "model.layers.%d." % i, blk.att
        s[p + "self_attn.q_proj.weight"] = att.W_query.weight
        s[p + "self_attn.k_proj.weight"] = att.W_key.weight
        s[p + "self_attn.v_proj.weight"] = att.W_value.weight
        s[p + "self_attn.o_proj.weight"] = att.out_proj.weight
        if qwen3:
            s[p + "self_attn.q_norm.weight"] = att.q_norm.scale
            s[p + "self_attn.k_norm.weight"] = att.k_norm.scale
        s[p + "input_layernorm.weight"] = getattr(blk.norm1, norm)
        s[p + "mlp.gate_proj.weight"] = blk.ff.fc1.weight
        s[p + "mlp.up_proj.weight"] = blk.ff.fc2.weight
        s[p + "mlp.down_proj.weight"] = blk.ff.fc3.weight
        s[p + "post_attention_layernorm.weight"] = getattr(blk.norm2, norm)
    s["model.norm.weight"] = getattr(model.final_norm, norm)
    if not tied:
        s["lm_head.weight"] = model.out_head.weight
    return {k: v.detach().clone() for k, v in s.items()}


def hf_config(cfg, qwen3, tied, dtype):
    c = {"architectures": ["Qwen3ForCausalLM" if qwen3 else "LlamaForCausalLM"],
         "model_type": "qwen3" if qwen3 else "llama",
         "vocab_size": cfg["vocab_size"], "hidden_size": cfg["emb_dim"], "intermediate_size": cfg["hidden_dim"],
         "num_hidden_layers": cfg["n_layers"], "num_attention_heads": cfg["n_heads"],
         "num_key_value_heads": cfg["n_kv_groups"], "max_position_embeddings": cfg["context_length"],
         "rope_theta": cfg["rope_base"], "rms_norm_eps": 1e-6 if qwen3 else 1e-5,
         "tie_word_embeddings": tied, "torch_dtype": dtype, "hidden_act": "silu", "attention_bias": False}
    if qwen3:
        c["head_dim"] = cfg["head_dim"]
    else:
        f = cfg["rope_freq"]
        c["rope_scaling"] = {"factor": f["factor"], "low_freq_factor": f["low_freq_factor"],
                             "high_freq_factor": f["high_freq_factor"],
                             "original_max_position_embeddings": f["original_context_length"], "rope_type": "llama3"}
    return c


def write_dir(name, state, config, shards=1):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    if shards == 1:
        save_safetensors(state, os.path.join(d, "model.safetensors"))
        return
    names = sorted(state)
    per = math.ceil(len(names) / shards)
    weight_map, total = {}, 0
    for s in range(shards):
        file = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
        part = {n: state[n] for n in names[s * per:(s + 1) * per]}
        for n in part:
            weight_map[n] = file
        total += save_safetensors(part, os.path.join(d, file))
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2, sort_keys=True)
        f.write("\n")


def load_state(model, state, qwen3):
    """Puts the file's weights (widened to float32) into the model, tying the head when the file has none."""
    params = dict(model.named_parameters())
    norm = "scale" if qwen3 else "weight"
    target = {"model.embed_tokens.weight": "tok_emb.weight", "model.norm.weight": "final_norm." + norm,
              "lm_head.weight": "out_head.weight"}
    local = {"self_attn.q_proj.weight": "att.W_query.weight", "self_attn.k_proj.weight": "att.W_key.weight",
             "self_attn.v_proj.weight": "att.W_value.weight", "self_attn.o_proj.weight": "att.out_proj.weight",
             "self_attn.q_norm.weight": "att.q_norm.scale", "self_attn.k_norm.weight": "att.k_norm.scale",
             "input_layernorm.weight": "norm1." + norm, "mlp.gate_proj.weight": "ff.fc1.weight",
             "mlp.up_proj.weight": "ff.fc2.weight", "mlp.down_proj.weight": "ff.fc3.weight",
             "post_attention_layernorm.weight": "norm2." + norm}
    with torch.no_grad():
        for hf_name in sorted(state):
            if hf_name in target:
                mine = target[hf_name]
            else:
                rest = hf_name[len("model.layers."):]
                i, leaf = rest.split(".", 1)
                mine = "trf_blocks.%s.%s" % (i, local[leaf])
            params[mine].copy_(state[hf_name].float())
        if "lm_head.weight" not in state:
            model.out_head.weight = model.tok_emb.weight


def main():
    os.makedirs(OUT, exist_ok=True)
    ref = {}
    ids = torch.tensor([TOKENS])
    for name, cfg, qwen3, tied, bf16, shards, seed in [
            ("qwen3-f32", QWEN3_TINY, True, True, False, 1, 123),
            ("qwen3-bf16-sharded", QWEN3_TINY, True, True, True, 2, 456),
            ("llama3-f32", LLAMA3_TINY, False, False, False, 1, 123),
            ("llama3-bf16", LLAMA3_TINY, False, True, True, 1, 456)]:
        torch.manual_seed(seed)
        model = Model(cfg, qwen3)
        state = hf_state(model, qwen3, tied)
        if bf16:
            state = {k: v.to(torch.bfloat16) for k, v in state.items()}
        write_dir(name, state, hf_config(cfg, qwen3, tied, "bfloat16" if bf16 else "float32"), shards)
        load_state(model, state, qwen3)
        with torch.no_grad():
            ref[name + ".logits"] = model(ids)
            for i, blk in enumerate(model.trf_blocks):
                ref["%s.weights.%d" % (name, i + 1)] = blk.att.last_weights[0]
        ref[name + ".rope_cos"], ref[name + ".rope_sin"] = model.cos, model.sin
    save_safetensors(ref, os.path.join(OUT, "reference.safetensors"))
    print("torch_reference_qwen3_llama: wrote tests/data/hf_models/", file=sys.stderr)


if __name__ == "__main__":
    main()
