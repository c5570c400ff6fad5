"""PyTorch's numbers for lessons/19_sqrt_dk_gradients.lua ("why divide by √d_k — measured"):
tests/data/torch/lesson_sqrt_dk.txt, the lesson's seeded computations done again in PyTorch.

For d_k in 3, 64, 768, 4096: torch.manual_seed(123); Q = randn(8, d_k); K = randn(8, d_k); G = randn(8, 8)
(an upstream gradient); scores S = Q @ K.T; for scale in (1, 1/sqrt(d_k)): A = softmax(S * scale, -1),
loss = (A * G).sum(), backward. Written: S, the largest weight A.max(), the weights A, the norms
((g ** 2).sum().sqrt()) of the gradient reaching the softmax's input z = S * scale and of that reaching S. Then the variance of q·k: torch.manual_seed(7); q, k = randn(1000,
d_k) each; (q * k).sum(-1).var(). And the book's chapter 3 scores of x^(2) (its inputs), softmax of them and
of 8 times them. Format as lessons_pdl_ch7.txt (scripts/gen_lesson_reference.py).
Run through scripts/gen-torch-reference.sh (OPENBLAS_CORETYPE=Haswell, one thread).
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "torch")
lines = fmt.Lines()
put = lines.put
DKS = [3, 64, 768, 4096]


def cases():
    for d in DKS:
        torch.manual_seed(123)
        Q = torch.randn(8, d)
        K = torch.randn(8, d)
        G = torch.randn(8, 8)
        S = Q @ K.T
        put("sqrt_dk.d%d.scores" % d, S)
        for tag, scale in (("raw", 1.0), ("scaled", 1 / math.sqrt(d))):
            s = S.clone().requires_grad_()
            z = s * scale
            z.retain_grad()
            A = torch.softmax(z, -1)
            (A * G).sum().backward()
            put("sqrt_dk.d%d.%s.weights" % (d, tag), A)
            put("sqrt_dk.d%d.%s.max_weight" % (d, tag), A.max())
            put("sqrt_dk.d%d.%s.grad_norm_z" % (d, tag), (z.grad ** 2).sum().sqrt())
            put("sqrt_dk.d%d.%s.grad_norm" % (d, tag), (s.grad ** 2).sum().sqrt())
        torch.manual_seed(7)
        q = torch.randn(1000, d)
        k = torch.randn(1000, d)
        put("sqrt_dk.d%d.dot_var" % d, (q * k).sum(-1).var())


def eight_times():
    # the book's chapter 3 inputs ("Your journey starts with one step"), x^(2) against every token
    inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                           [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
    s = inputs @ inputs[1]
    put("sqrt_dk.book.scores", s)
    put("sqrt_dk.book.softmax", torch.softmax(s, -1))
    put("sqrt_dk.book.softmax8", torch.softmax(s * 8, -1))


def main():
    torch.set_num_threads(1)
    cases()
    eight_times()
    head = fmt.lesson_header("lessons/19_sqrt_dk_gradients.lua: its seeded computations, in PyTorch",
                             "lesson_reference_sqrt_dk.py")
    fmt.write_file(os.path.join(OUT, "lesson_sqrt_dk.txt"), head, lines)


if __name__ == "__main__":
    main()
