"""bench_autograd.py — PyTorch's side of scripts/bench_autograd.sh: the book's MultiHeadAttention (ch. 3),
forward and backward of (out * w).sum(), B = 8, T = 1024, d = 768, 12 heads, causal, dropout 0.
argv: thread count, repetitions. Prints the best time in ms."""
import sys
import time

import torch

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from bench_torch import MultiHeadAttention  # noqa: E402  (the book's class, as scripts/bench.sh uses it)


def main():
    torch.set_num_threads(int(sys.argv[1]))
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    torch.manual_seed(123)
    mha = MultiHeadAttention(768, 768, 1024, 0.0, 12)
    x = torch.rand(8, 1024, 768)
    w = torch.rand(8, 1024, 768)
    best = float("inf")
    for _ in range(reps):
        mha.zero_grad()
        t0 = time.perf_counter()
        (mha(x) * w).sum().backward()
        best = min(best, time.perf_counter() - t0)
    print("%.1f" % (best * 1e3))


if __name__ == "__main__":
    main()
