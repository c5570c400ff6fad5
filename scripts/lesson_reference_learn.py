"""PyTorch's numbers for lessons/20_watch_attention_learn.lua ("watch attention learn"):
tests/data/torch/lesson_learn.txt, the lesson's training loop done again in PyTorch.

The task: reverse 6 digits. The model: one self-attention layer with no residual path, so that the
answer at position i can only come from the token it attends to; its right alignment is the
anti-diagonal (position i attends to position 7 - i, counting from 1).

    torch.manual_seed(0)
    tok = Embedding(10, 16); pos = Embedding(6, 16)                  (made in this order)
    W_q, W_k, W_v = Linear(16, 16, bias=False) x 3; out = Linear(16, 10)
    forward(src): x = tok(src) + pos(arange(6)); q, k, v = W_q(x), W_k(x), W_v(x)
                  a = softmax(q @ k.transpose(1, 2) / sqrt(16), -1); logits = out(a @ v)
    opt = Adam(parameters, lr=0.003)
    for step in 1..200: src = randint(0, 10, (32, 6)); tgt = src.flip(1)
                        loss = cross_entropy(logits.flatten(0, 1), tgt.flatten())
                        zero_grad; backward; opt.step()

Written: the loss of every step (before its update), and again in the stretches the lesson checks
at its checkpoints (steps 1 to 1, 10, 25 and 50; 51 to 75, 100 and 200), the first batch, and at the checkpoints (after
0, 10, 25, 50, 75, 100 and 200 updates) the attention weights of the example 2 7 1 8 3 5 (under
no_grad; drawing nothing from the random stream). Format as lesson_sqrt_dk.txt. Run through
scripts/gen-torch-reference.sh (OPENBLAS_CORETYPE=Haswell, one thread).
"""
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "torch")
N, VOCAB, D, BATCH, STEPS, LR = 6, 10, 16, 32, 200, 0.003
CHECKPOINTS = [0, 10, 25, 50, 75, 100, 200]
EXAMPLE = [2, 7, 1, 8, 3, 5]
LOSS_RANGES = [(1, 1), (1, 10), (1, 25), (1, 50), (51, 75), (51, 100), (51, 200)]
lines = fmt.Lines()
put, put_ids = lines.put, lines.put_ids


class Reverser(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(VOCAB, D)
        self.pos = torch.nn.Embedding(N, D)
        self.W_q = torch.nn.Linear(D, D, bias=False)
        self.W_k = torch.nn.Linear(D, D, bias=False)
        self.W_v = torch.nn.Linear(D, D, bias=False)
        self.out = torch.nn.Linear(D, VOCAB)

    def forward(self, src):
        x = self.tok(src) + self.pos(torch.arange(N))
        q, k, v = self.W_q(x), self.W_k(x), self.W_v(x)
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(D), -1)
        return self.out(a @ v), a


def train():
    torch.manual_seed(0)
    model = Reverser()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    example = torch.tensor([EXAMPLE])
    losses = []
    start = time.perf_counter()
    for step in range(STEPS + 1):
        if step in CHECKPOINTS:
            with torch.no_grad():
                put("learn.weights.%d" % step, model(example)[1][0])
        if step == STEPS:
            break
        src = torch.randint(0, VOCAB, (BATCH, N))
        if step == 0:
            put_ids("learn.batch1", src)
        logits, _ = model(src)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), src.flip(1).flatten())
        losses.append(loss.detach())
        opt.zero_grad()
        loss.backward()
        opt.step()
    seconds = time.perf_counter() - start
    losses = torch.stack(losses)
    put("learn.losses", losses)
    # the stretches the lesson checks at its checkpoints: steps a to b (counted from 1, as the lesson does)
    for a, b in LOSS_RANGES:
        put("learn.losses.%d_%d" % (a, b), losses[a - 1:b])
    return seconds


def main():
    torch.set_num_threads(1)
    seconds = train()
    head = fmt.lesson_header("lessons/20_watch_attention_learn.lua: its training loop, in PyTorch",
                             "lesson_reference_learn.py", int64_note="int64 lines in decimal")
    fmt.write_file(os.path.join(OUT, "lesson_learn.txt"), head, lines)
    print("the %d steps took %.2f s" % (STEPS, seconds))


if __name__ == "__main__":
    main()
