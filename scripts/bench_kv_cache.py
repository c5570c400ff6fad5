"""bench_kv_cache.py — PyTorch's side of scripts/bench-kv-cache.sh: the bonus chapter's GPT with the KV cache
(ch04/03_kv-cache, written out in torch_reference_variants.py) at GPT_CONFIG_124M, random seeded weights,
eval mode: N new tokens after a 4-token prompt with the cache, as its generate_text_simple_cached; prints
the time in ms."""
import sys
import time

import torch

sys.path.insert(0, sys.path[0])
from torch_reference_variants import GPTModel  # the chapter's model with its cache, written out there

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
cfg = {"vocab_size": 50257, "context_length": 1024, "emb_dim": 768, "n_heads": 12, "n_layers": 12,
       "drop_rate": 0.1, "qkv_bias": False}
torch.manual_seed(123)
model = GPTModel(cfg)
model.eval()
idx = torch.tensor([[15496, 11, 314, 716]])  # "Hello, I am"
t = time.perf_counter()
with torch.no_grad():
    model.reset_kv_cache()
    logits = model(idx, use_cache=True)
    for i in range(n):
        nxt = logits[:, -1].argmax(dim=-1, keepdim=True)
        idx = torch.cat([idx, nxt], dim=1)
        if i < n - 1:
            logits = model(nxt, use_cache=True)
print("%.1f" % ((time.perf_counter() - t) * 1000))
