"""bench_train_step.py — PyTorch's side of scripts/bench-train-step.sh: chapter 5's training step on the
book's GPTModel (scripts/torch_reference_gpt2.py) at GPT_CONFIG_124M with context_length 256, dropout 0.1,
train mode, seeded random weights, a random batch of 2 x 256 token ids and targets:
    optimizer.zero_grad(); loss = F.cross_entropy(model(ids).flatten(0, 1), targets.flatten());
    loss.backward(); optimizer.step()      with torch.optim.AdamW(lr=4e-4, weight_decay=0.1)
argv: thread count, warm-up steps, timed steps. Prints "wall_ms cpu_ms peak_rss_kb": the median step's
wall-clock time, the median step's CPU time (every thread's: time.process_time) and the peak resident
memory (VmHWM, read at the end)."""
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_gpt2 import GPTModel, GPT_CONFIG_124M  # noqa: E402  (the book's classes)


def peak_rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])


def main():
    torch.set_num_threads(int(sys.argv[1]))
    warmup = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    torch.manual_seed(123)
    cfg = dict(GPT_CONFIG_124M, context_length=256)
    model = GPTModel(cfg)
    model.train()
    ids = torch.randint(0, cfg["vocab_size"], (2, 256))
    targets = torch.randint(0, cfg["vocab_size"], (2, 256))
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)

    def train_step():
        optimizer.zero_grad()
        loss = F.cross_entropy(model(ids).flatten(0, 1), targets.flatten())
        loss.backward()
        optimizer.step()

    for _ in range(warmup):
        train_step()
    walls, cpus = [], []
    for _ in range(steps):
        t, c = time.perf_counter(), time.process_time()
        train_step()
        cpus.append((time.process_time() - c) * 1e3)
        walls.append((time.perf_counter() - t) * 1e3)
    walls.sort()
    cpus.sort()
    print("%.1f %.1f %d" % (walls[(steps - 1) // 2], cpus[(steps - 1) // 2], peak_rss_kb()))


if __name__ == "__main__":
    main()
