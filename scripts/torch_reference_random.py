"""PyTorch's random fills where the last bit or the order is easy to get wrong, for tests/lua/random_spec.lua.

fills.txt has one case a line, tab-separated: "case", the computation in attn's Lua, the same in
Python, and the result's float32 bit patterns in row-major order. Covered:
  - randn / normal_ on 16 or more contiguous elements: PyTorch's AVX2 kernel (normal_fill_16_AVX2, with
    avx_mathfun's log and sincos), long runs so that many values of the log and the angle are seen;
  - in-place fills of tensors that are not contiguous (transposed, permuted, sliced): uniform_, normal_
    and bernoulli_ draw in the order TensorIterator walks the memory, not in row-major order;
  - dropout of a transposed input: the noise is empty_like(x), with x's layout.
Debian's torch has no MKL, so bernoulli_ and dropout are attn's "default" flavour (the spec sets it).
"""
import torch

SEEDED = [
    ("torch.randn(1000)", "torch.randn(1000)"),
    ("torch.randn(4096)", "torch.randn(4096)"),
    ("torch.randn(77)", "torch.randn(77)"),
    ("torch.randn(16)", "torch.randn(16)"),
    ("torch.randn(2, 3, 40)", "torch.randn(2, 3, 40)"),
    ("torch.empty(300):normal_(3, 0.5)", "torch.empty(300).normal_(3, 0.5)"),
    ("torch.empty(64):normal_(-2, 4)", "torch.empty(64).normal_(-2, 4)"),
    ("nn.Embedding(30, 8).weight", "torch.nn.Embedding(30, 8).weight.detach()"),
    ("torch.empty(3, 5):t():uniform_()", "torch.empty(3, 5).t().uniform_()"),
    ("torch.empty(3, 5):t():uniform_(-2, 2)", "torch.empty(3, 5).t().uniform_(-2, 2)"),
    ("torch.empty(2, 3, 4):permute(3, 1, 2):uniform_()", "torch.empty(2, 3, 4).permute(2, 0, 1).uniform_()"),
    ("torch.empty(2, 3, 4):transpose(1, 2):uniform_()", "torch.empty(2, 3, 4).transpose(0, 1).uniform_()"),
    ("torch.empty(6, 5)[{{}, {2, 4}}]:uniform_()", "torch.empty(6, 5)[:, 1:4].uniform_()"),
    ("(function() local x = torch.zeros(6, 5); x[{{}, {2, 4}}]:uniform_(); return x end)()",
     "(lambda x: (x[:, 1:4].uniform_(), x)[1])(torch.zeros(6, 5))"),
    ("torch.empty(4, 5):t():normal_()", "torch.empty(4, 5).t().normal_()"),
    ("torch.empty(8, 3):t():normal_(1, 2)", "torch.empty(8, 3).t().normal_(1, 2)"),
    ("torch.empty(6, 5)[{{}, {2, 4}}]:normal_()", "torch.empty(6, 5)[:, 1:4].normal_()"),
    ("torch.empty(3, 5):t():bernoulli_(0.3)", "torch.empty(3, 5).t().bernoulli_(0.3)"),
    ("torch.empty(2, 3, 4):permute(3, 1, 2):bernoulli_()", "torch.empty(2, 3, 4).permute(2, 0, 1).bernoulli_()"),
    ("torch.dropout(torch.ones(4, 6):t(), 0.5, true)", "torch.dropout(torch.ones(4, 6).t(), 0.5, True)"),
    ("torch.dropout(torch.ones(2, 3, 4):permute(3, 1, 2), 0.25, true)",
     "torch.dropout(torch.ones(2, 3, 4).permute(2, 0, 1), 0.25, True)"),
    ("torch.dropout(torch.ones(6, 5)[{{}, {2, 4}}], 0.5, true)", "torch.dropout(torch.ones(6, 5)[:, 1:4], 0.5, True)"),
    ("nn.Dropout(0.5)(torch.rand(4, 6):t())", "torch.nn.Dropout(0.5)(torch.rand(4, 6).t())"),
]


def gen_random(write_tsv, f32s):
    lines = []
    for seed in [0, 123]:
        for lua, python in SEEDED:
            torch.manual_seed(seed)
            t = eval(python, {"torch": torch})
            lines.append("case\t(function() torch.manual_seed(%d); return %s end)()\t"
                         "torch.manual_seed(%d); %s\t%s" % (seed, lua, seed, python, f32s(t)))
    write_tsv("fills.txt", "random fills: Lua and Python of one computation and PyTorch's result as float32 bits, "
              "row-major (tab-separated; see scripts/torch_reference_random.py)", lines)
