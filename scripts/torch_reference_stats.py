"""PyTorch's var and std, for tests/lua/stats_spec.lua: stats.txt, tab-separated like fills.txt
("case", the computation in Lua, the same in Python, the result's float32 bits row-major).

PyTorch 1.13 computes them in double by two algorithms: one result (over everything, or along a dim that
leaves one element) by two passes in the order its TensorIterator walks memory; several along a dim by
Welford's update. The inputs are torch.rand's (scaled and shifted, some far from 0, where the two passes
and Welford differ most), in contiguous, transposed and sliced layouts.
"""
import torch

X = [  # name -> (Lua, Python) making the input after torch.manual_seed
    ("torch.rand(6)", "torch.rand(6)"),
    ("torch.rand(100) * 10 - 5", "torch.rand(100) * 10 - 5"),
    ("torch.rand(4096) + 1000", "torch.rand(4096) + 1000"),
    ("torch.rand(33, 17)", "torch.rand(33, 17)"),
    ("torch.rand(2, 3, 40) * 3 + 100", "torch.rand(2, 3, 40) * 3 + 100"),
    ("torch.rand(17, 33):t()", "torch.rand(17, 33).t()"),
    ("torch.rand(4, 9, 5)[{{}, {2, 7}}]", "torch.rand(4, 9, 5)[:, 1:7]"),
    ("torch.rand(1, 50) - 0.5", "torch.rand(1, 50) - 0.5"),
]

CALLS = [  # (Lua, Python) applied to x
    ("x:var()", "x.var()"), ("x:std()", "x.std()"), ("x:var(false)", "x.var(unbiased=False)"),
    ("x:std(false)", "x.std(unbiased=False)"), ("x:var{correction = 2}", "x.var(dim=None, correction=2)"),
    ("x:var(1)", "x.var(0)"), ("x:std(-1)", "x.std(-1)"), ("x:var(-1, false, true)", "x.var(-1, False, True)"),
    ("x:std{dim = 1, keepdim = true}", "x.std(dim=0, keepdim=True)"),
    ("x:var{dim = -1, correction = 0}", "x.var(dim=-1, correction=0)"),
]


def gen_stats(write, f32s):
    lines = []
    for seed, (lx, px) in enumerate(X):
        for lc, pc in CALLS:
            torch.manual_seed(seed)
            x = eval(px, {"torch": torch})
            r = eval(pc, {"x": x})
            lines.append("case\t(function() torch.manual_seed(%d); local x = %s; return %s end)()\t"
                         "torch.manual_seed(%d); x = %s; %s\t%s" % (seed, lx, lc, seed, px, pc, f32s(r)))
    for lua, python in [("torch.tensor{5.0}:var()", "torch.tensor([5.0]).var()"),
                        ("torch.tensor{5.0, 7.0}:var{correction = 2}", "torch.tensor([5.0, 7.0]).var(dim=None, correction=2)"),
                        ("torch.zeros(0):var()", "torch.zeros(0).var()"),
                        ("torch.zeros(2, 0):var(2)", "torch.zeros(2, 0).var(1)"),
                        ("torch.tensor(3.0):std()", "torch.tensor(3.0).std()")]:
        lines.append("case\t%s\t%s\t%s" % (lua, python, f32s(eval(python, {"torch": torch}))))
    write("stats.txt", "var and std: Lua and Python of one computation and PyTorch's result as float32 bits "
          "(tab-separated; see scripts/torch_reference_stats.py)", lines)
