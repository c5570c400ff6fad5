"""bench_gpt2.py — PyTorch's side of scripts/bench-gpt2.sh: chapter 4's GPTModel at GPT_CONFIG_124M (random
weights, seeded, eval mode), forward on one 1024-token input; prints the median of 3 runs in ms."""
import sys
import time

import torch

sys.path.insert(0, sys.path[0])
from torch_reference_gpt2 import GPTModel, GPT_CONFIG_124M  # the book's classes, written out there

torch.manual_seed(123)
model = GPTModel(GPT_CONFIG_124M)
model.eval()
ids = torch.randint(0, 50257, (1, 1024))
times = []
with torch.no_grad():
    model(ids)  # warm-up
    for _ in range(3):
        t = time.perf_counter()
        model(ids)
        times.append((time.perf_counter() - t) * 1000)
times.sort()
print("%.1f" % times[1])
