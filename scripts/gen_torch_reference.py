"""Writes PyTorch's own random numbers to tests/data/torch/*.txt, for tests/c/test_rng.c (and torch.sum
results to sum.txt, for tests/c/test_reduce.c; softmax and exp/log/tanh/sigmoid results to softmax.txt,
for tests/c/test_softmax.c; the books' attention classes to attention.txt, for
tests/lua/attention_nn_spec.lua, see torch_reference_attention.py; layer_norm, gelu, silu, erf, sin and
cos to layers.txt, for tests/c/test_layers.c, and Python Deep Learning's Transformer layers to transformer.txt,
for tests/lua/transformer_spec.lua, see torch_reference_layers.py; the recurrent layers, torch.nn.init and
the whole Transformer to models.txt, for tests/lua/rnn_spec.lua and model_spec.lua, see
torch_reference_models.py).

Run it through scripts/gen-torch-reference.sh (Debian's python3-torch, /usr/bin/python3).

The files' format (a header of '#' lines, then "<kind> key=value ... : values" lines, float32 values as
their bit patterns, float64 parameters as float.hex(), which C's strtod reads back exactly) is written by
scripts/reference_format.py, which names the readers.
"""
import math
import os
import struct
import sys

import torch

import reference_format as fmt
from reference_format import cpu_capability, f32, f32s, shape_str
from torch_reference_attention import gen_attention
from torch_reference_dtypes import gen_dtypes
from torch_reference_products import gen_products
from torch_reference_random import gen_random
from torch_reference_stats import gen_stats
from torch_reference_sweep import gen_sweep
from torch_reference_layers import gen_layers, gen_transformer
from torch_reference_models import gen_models

SEEDS = [0, 5, 7, 42, 123, 789, 2**40 + 5]
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch")


def write(name, what, lines):
    """OUT/name: the write(name, what, lines) every gen_* function is handed."""
    fmt.write(OUT, name, what, lines)


def gen_rand():
    lines = []
    for seed in SEEDS:
        for shape in [(1,), (6,), (3, 2), (6, 6), (17,), (100,)]:
            torch.manual_seed(seed)
            lines.append("rand seed=%d shape=%s : %s" % (seed, shape_str(shape), f32s(torch.rand(*shape))))
    # A fresh torch.Generator() starts from default_rng_seed_val (c10/core/GeneratorImpl.h). The default
    # generator does not: PyTorch seeds it from /dev/urandom at start-up, so that stream is not recorded.
    g = torch.Generator()
    lines.append("rand seed=default initial_seed=%d shape=6 : %s" % (g.initial_seed(), f32s(torch.rand(6, generator=g))))
    write("rand.txt", "torch.manual_seed(seed); torch.rand(*shape)", lines)


def gen_uniform():
    lines = []
    ranges = [(-0.5, 0.7), (-1 / math.sqrt(3), 1 / math.sqrt(3)), (2.0, 5.0), (-3.25, -0.125)]
    for seed in SEEDS:
        for a, b in ranges:
            for n in [6, 17, 100]:
                torch.manual_seed(seed)
                t = torch.empty(n).uniform_(a, b)
                lines.append("uniform seed=%d n=%d a=%s b=%s : %s" % (seed, n, a.hex(), b.hex(), f32s(t)))
    write("uniform.txt", "torch.manual_seed(seed); torch.empty(n).uniform_(a, b)", lines)


def gen_randn():
    lines = []
    for seed in SEEDS:
        for n in [1, 2, 5, 15, 16, 17, 33, 100]:
            torch.manual_seed(seed)
            lines.append("randn seed=%d n=%d : %s" % (seed, n, f32s(torch.randn(n))))
    write("randn.txt", "torch.manual_seed(seed); torch.randn(n)", lines)


def gen_normal():
    lines = []
    for seed in SEEDS:
        for mean, std in [(2.0, 3.0), (-1.5, 0.25)]:
            for n in [5, 20]:
                torch.manual_seed(seed)
                t = torch.empty(n).normal_(mean, std)
                lines.append("normal seed=%d n=%d mean=%s std=%s : %s"
                             % (seed, n, mean.hex(), std.hex(), f32s(t)))
    write("normal.txt", "torch.manual_seed(seed); torch.empty(n).normal_(mean, std)", lines)


def gen_randint():
    lines = []
    for seed in SEEDS:
        for low, high, n in [(0, 10, 20), (-5, 1000000, 8), (-2**40, 2**40, 6), (3, 4, 3)]:
            torch.manual_seed(seed)
            t = torch.randint(low, high, (n,))
            assert t.dtype == torch.int64
            lines.append("randint seed=%d n=%d low=%d high=%d : %s"
                         % (seed, n, low, high, " ".join(str(v) for v in t.tolist())))
    write("randint.txt", "torch.manual_seed(seed); torch.randint(low, high, (n,)) (int64, decimal)", lines)


def gen_sequence():
    """Several calls after one seed: the cached normal sample crosses calls (and mean/std)."""
    ops_list = [
        "randn:3,randn:1,randn:20,randn:1,rand:2,randn:2",
        "randn:1,normal:1:2:3,normal:3:-1:0.5,randn:17,randn:5",
        "rand:5,randn:7,uniform:4:-0.5:0.7,randn:1,randint:5:0:10,randn:33",
    ]
    lines = []
    for seed in [7, 123]:
        for ops in ops_list:
            torch.manual_seed(seed)
            vals = []
            for op in ops.split(","):
                parts = op.split(":")
                kind, n, args = parts[0], int(parts[1]), [float(x) for x in parts[2:]]
                if kind == "randn":
                    t = torch.randn(n)
                elif kind == "rand":
                    t = torch.rand(n)
                elif kind == "normal":
                    t = torch.empty(n).normal_(args[0], args[1])
                elif kind == "uniform":
                    t = torch.empty(n).uniform_(args[0], args[1])
                elif kind == "randint":
                    t = torch.randint(int(args[0]), int(args[1]), (n,)).float()
                vals.append(f32s(t))
            lines.append("sequence seed=%d ops=%s : %s" % (seed, ops, " ".join(vals)))
    write("sequence.txt", "torch.manual_seed(seed), then the ops in order (kind:n[:args]); values concatenated", lines)


def gen_linear():
    """layers: comma-separated IN x OUT then b (bias) or n (no bias), created one after another.
    Values: every parameter in creation order (weight row-major, then bias), concatenated; with
    head=K tail=K only the first K and last K of that stream."""
    cases = [
        (789, "3x2n", 0),
        (123, "3x2b", 0),
        (0, "2x2b", 0),
        (123, "2x2b", 0),
        (42, "4x3b", 0),
        (123, "768x768n", 8),
        (789, "3x2n,3x2n,3x2n", 0),
        (123, "3x2n,3x2n", 0),
        (123, "2x2n,2x2n,2x2n,2x2b", 0),
        (5, "7x1b,1x5b", 0),
    ]
    lines = []
    for seed, layers, k in cases:
        torch.manual_seed(seed)
        vals = []
        for spec in layers.split(","):
            dims, bias = spec[:-1], spec[-1] == "b"
            n_in, n_out = (int(x) for x in dims.split("x"))
            lin = torch.nn.Linear(n_in, n_out, bias=bias)
            vals.extend(lin.weight.detach().reshape(-1).tolist())
            if bias:
                vals.extend(lin.bias.detach().tolist())
        extra = ""
        if k:
            vals = vals[:k] + vals[-k:]
            extra = " head=%d tail=%d" % (k, k)
        lines.append("linear seed=%d layers=%s%s : %s" % (seed, layers, extra, " ".join(f32(v) for v in vals)))
    write("linear.txt", "torch.manual_seed(seed); nn.Linear(in, out, bias) for each layer, in order", lines)


def gen_kaiming():
    """The bounds nn.Linear.reset_parameters computes (torch/nn/init.py), as Python computes them."""
    lines = []
    for fan_in in [1, 3, 7, 768]:
        gain = torch.nn.init.calculate_gain("leaky_relu", math.sqrt(5))
        std = gain / math.sqrt(fan_in)
        bound = math.sqrt(3.0) * std
        bias_bound = 1 / math.sqrt(fan_in)
        # check that this is what kaiming_uniform_ really used: same draws as uniform_(-bound, bound)
        torch.manual_seed(11)
        w = torch.empty(4, fan_in)
        torch.nn.init.kaiming_uniform_(w, a=math.sqrt(5))
        torch.manual_seed(11)
        assert torch.equal(w, torch.empty(4, fan_in).uniform_(-bound, bound))
        lines.append("kaiming in=%d : gain=%s std=%s bound=%s bound_f32=%s bias_bound=%s bias_bound_f32=%s"
                     % (fan_in, gain.hex(), std.hex(), bound.hex(), f32(bound), bias_bound.hex(), f32(bias_bound)))
    write("kaiming.txt", "nn.Linear init bounds: kaiming_uniform_(a=sqrt(5)) and the bias bound, by fan-in", lines)


def gen_dropout():
    """Mask as one digit per element (1 kept, 0 dropped); every kept output equals scale exactly."""
    lines = []
    for p in [0.5, 0.1, 0.9]:
        for seed in [0, 42, 123, 789]:
            for shape in [(6, 6), (1, 37), (100, 10)]:
                torch.manual_seed(seed)
                out = torch.nn.Dropout(p)(torch.ones(*shape))
                flat = out.reshape(-1).tolist()
                scale = max(flat) if any(flat) else 1 / (1 - p)
                assert all(v == 0 or v == scale for v in flat)
                mask = "".join("1" if v else "0" for v in flat)
                lines.append("dropout seed=%d p=%s shape=%s scale=%s : %s"
                             % (seed, p.hex(), shape_str(shape), f32(scale), mask))
    write("dropout.txt", "torch.manual_seed(seed); nn.Dropout(p)(torch.ones(*shape)): the default "
          "(non-MKL) Bernoulli flavour", lines)


def gen_sum():
    """torch.sum over all elements (dim=-1) and over each dim, for tests/c/test_reduce.c. PyTorch's CPU
    sum is a cascade with interleaved and vector accumulators (SumKernel.cpp), so the last bit depends on
    the order; views are summed as views (TensorIterator reorders their dims by stride).

    'input id=ID n=N' gives a storage of N floats; 'sum id=ID shape=.. stride=.. offset=O dim=D' is
    torch.sum(storage.as_strided(shape, stride, O)) (dim -1) or .sum(D): the result in row-major order."""
    shapes = [(1,), (5,), (6,), (7,), (8,), (9,), (15,), (16,), (17,), (31,), (32,), (33,), (64,), (100,),
              (257,), (1000,), (4097,), (6, 6), (3, 40), (40, 3), (2, 6, 3), (2, 2, 6, 6), (17, 9),
              (20, 45), (12, 4), (24, 8), (5, 16), (9, 32), (1, 5), (5, 1), (1, 1, 9)]
    lines = []

    def add_input(name, flat):
        assert flat.dim() == 1 and flat.is_contiguous() and flat.dtype == torch.float32
        lines.append("input id=%s n=%d : %s" % (name, flat.numel(), f32s(flat)))

    def add_sums(name, storage, view):
        assert view.storage().data_ptr() == storage.storage().data_ptr()
        for dim in [-1] + list(range(view.dim())):
            res = view.sum() if dim == -1 else view.sum(dim)
            lines.append("sum id=%s shape=%s stride=%s offset=%d dim=%d : %s"
                         % (name, shape_str(view.shape), shape_str(view.stride()), view.storage_offset(),
                            dim, f32s(res)))

    # the hand-checked case: in order these add up to 0x3f800001, torch's order gives 0x3f800000
    hand = torch.tensor([struct.unpack("<f", struct.pack("<I", h))[0] for h in
                         (0x3e0ddf6b, 0x3e7399c9, 0x3e6edf65, 0x3dfdef4e, 0x3ddd8e76, 0x3e21e889)])
    assert f32(hand.sum()) == "0x3f800000"
    add_input("hand", hand)
    add_sums("hand", hand, hand)

    for shape in shapes:
        numel = math.prod(shape)
        if numel < 900:
            draws = [("rand", 0), ("randn", 1), ("rand", 123)]
        elif numel <= 1000:
            draws = [("rand", 0), ("randn", 1)]
        else:  # the file stays under 400 KB
            draws = [("randn", 1)]
        for dist, seed in draws:
            torch.manual_seed(seed)
            x = (torch.rand if dist == "rand" else torch.randn)(*shape)
            name = "%s%d_%s" % (dist, seed, "x".join(str(s) for s in shape))
            flat = x.reshape(-1)
            add_input(name, flat)
            views = [x]
            if x.dim() == 1:
                if numel >= 3:
                    views += [x[::2], x[1:]]  # strided slice, offset slice
                if numel >= 8:
                    views.append(x[2::3])
                if numel >= 64:  # overlapping windows: equal strides, TensorIterator breaks ties by size
                    views += [x.as_strided((3, 5), (1, 1), numel // 2),
                              x.as_strided((9, 4), (1, 1), numel // 3),
                              x.as_strided((5, 3), (1, 1), numel - 7)]
                    if numel <= 257:
                        views.append(x.unfold(0, 8, 3))
                if numel <= 257:  # sum(1) has one result per element: small ones only (file size)
                    views.append(x.unsqueeze(1).expand(numel, 3))  # stride 0 (broadcast)
            elif numel > 1:
                views.append(x.transpose(0, x.dim() - 1))
                views.append(x.permute(*reversed(range(x.dim()))) if x.dim() > 2 else x.t()[1:])
                if shape[-1] >= 2:
                    views.append(x[..., ::2])
                if shape[0] >= 2:
                    views.append(x[1:])
                if x.dim() == 4:
                    views.append(x.permute(2, 0, 3, 1))
            for v in views:
                add_sums(name, flat, v)
            # the contiguous copy of a transposed view is a new tensor: its own input
            if x.dim() >= 2 and numel > 1 and seed == 1:
                c = x.transpose(0, x.dim() - 1).contiguous()
                add_input(name + "_tc", c.reshape(-1))
                add_sums(name + "_tc", c.reshape(-1), c)
    write("sum.txt", "torch.sum(view) and view.sum(dim) of float32 tensors and views (as_strided on a "
          "storage); results row-major", lines)


def gen_softmax():
    """Softmax, log_softmax and element-wise exp/log/tanh/sigmoid for tests/c/test_softmax.c.

    'softmax shape=S dim=D : IN -> OUT' is torch.softmax(x, D) of the contiguous tensor x of shape S
    (D is PyTorch's 0-based dim), inputs and outputs row-major; 'log_softmax' likewise.
    'exp n=N : IN -> OUT' (and log, tanh, sigmoid) is the function applied to a 1-D tensor of N values.
    torch.sigmoid computes the last numel % 16 elements of a contiguous tensor with the scalar formula
    (cpu_kernel_vec's tail) and the others with the vector one: 'sigmoid' values all come from the
    vector path (the tensor is padded to a multiple of 16), 'sigmoid_tail' values from the scalar one
    (tensors of 15). exp/log/tanh go through vml::v<op> (vec::map), so every element takes the vector
    path whatever its position."""
    lines = []
    g = torch.Generator()
    g.manual_seed(20240531)

    def bits(vals):
        return torch.tensor([struct.unpack("<f", struct.pack("<I", b))[0] for b in vals], dtype=torch.float32)

    def add(kind, x, dim):
        x = x.contiguous()
        fn = torch.softmax if kind == "softmax" else torch.log_softmax
        y = fn(x, dim)
        lines.append("%s shape=%s dim=%d : %s -> %s" % (kind, shape_str(x.shape), dim, f32s(x), f32s(y)))

    def randn(*shape, scale=1.0):
        return torch.randn(*shape, generator=g) * scale

    # last dim: several rows of randn * scale for each length (a 2-D tensor, one softmax per row)
    lengths = [1, 2, 3, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100, 1000]
    for n in lengths:
        for scale in [0.1, 1.0, 3.0, 30.0]:
            if n == 1000 and scale in (0.1, 3.0):
                continue  # the file stays under 300 KB
            add("softmax", randn(1 if n == 1000 else 2, n, scale=scale), 1)
    # special rows: masked (-inf) entries, all -inf, large and tiny values, a nan
    inf = float("inf")
    for n in [1, 3, 8, 9, 17, 33]:
        x = randn(6, n, scale=2.0)
        x[0, 1::2] = -inf                        # masked entries
        x[1, :] = -inf                           # all masked: nan, as in PyTorch
        x[2, :] = 80 + torch.rand(n, generator=g) * 20  # large: exp would overflow without the max
        x[3, :] = torch.randn(n, generator=g) * 1e-30   # tiny
        x[4, :] = bits([0x00000001 + 37 * i for i in range(n)])  # subnormal
        x[4, 0] = -0.0
        x[5, n // 2] = float("nan")
        add("softmax", x, 1)
        add("log_softmax", x, 1)
    x = torch.tensor([[0.0, -inf, -inf, -inf, -inf, -inf, -inf]])
    add("softmax", torch.cat([x, torch.tril(randn(7, 7)).masked_fill(torch.triu(torch.ones(7, 7), 1) == 1, -inf)]), 1)
    # log_softmax over the last dim
    for n in lengths:
        for scale in [0.1, 3.0]:
            if n == 1000 and scale != 3.0:
                continue
            add("log_softmax", randn(1, n, scale=scale), 1)
    # other dims of 3-D tensors (vec_softmax: 8 inner positions at a time, the rest scalar)
    for shape in [(2, 6, 3), (4, 5, 6), (3, 4, 10), (2, 3, 16), (3, 2, 17)]:
        for scale in [1.0, 30.0] if shape in [(2, 6, 3), (4, 5, 6)] else [3.0]:
            x = randn(*shape, scale=scale)
            for dim in range(3):
                add("softmax", x, dim)
                if scale != 30.0:
                    add("log_softmax", x, dim)
    x = randn(3, 4, 10)
    x[1, 2, 3] = -inf
    x[:, 0, 9] = -inf
    x[2, :, 1] = -inf
    for dim in range(3):
        add("softmax", x, dim)
        add("log_softmax", x, dim)
    add("softmax", torch.tensor(2.5), 0)  # 0-d
    add("log_softmax", torch.tensor(2.5), 0)

    # element-wise functions
    edges = [0.0, -0.0, inf, -inf, float("nan"), 1.0, -1.0, 0.5, -0.5, 2.0, 1e-8, -1e-8,
             3.4028234663852886e38, -3.4028234663852886e38, 1.1754943508222875e-38, -1.1754943508222875e-38]
    sub = bits([0x00000001, 0x80000001, 0x00000100, 0x007fffff, 0x807fffff, 0x00400000])
    exp_edge = bits([0x42b17217, 0x42b17218, 0x42b17219, 0x42b17216, 0xc2aeac4f, 0xc2aeac50, 0xc2aeac51,
                     0xc2cff1b4, 0xc2cff1b5, 0xc2cff1b3, 0xc2d00000, 0xc2cfffff, 0xc2d00001, 0x42d00000,
                     0x42cfffff, 0xc2b00000, 0xc2a00000, 0x42b00000, 0xc2ce0000])  # ~88.72, ~-87.34, ~-103.97, +-104
    def elementwise(name, fn, vals):
        x = torch.cat([torch.tensor(edges), sub, vals]).to(torch.float32)
        n = x.numel()
        if name == "sigmoid":  # pad so that no element falls in cpu_kernel_vec's scalar tail
            pad = (-n) % 16
            y = fn(torch.cat([x, torch.zeros(pad)]))[:n]
        elif name == "sigmoid_tail":  # tensors of 15: every element in the scalar tail
            y = torch.cat([fn(c.contiguous()) for c in x.split(15)])
        else:
            y = fn(x)
        lines.append("%s n=%d : %s -> %s" % (name, n, f32s(x), f32s(y)))

    def u(n, lo, hi):
        return torch.rand(n, generator=g, dtype=torch.float64) * (hi - lo) + lo
    elementwise("exp", torch.exp, torch.cat([exp_edge, u(150, -110, 95), u(100, -2, 2), u(50, -1e-3, 1e-3)]))
    pos = torch.exp2(u(200, -149, 128)).float()  # every binade
    elementwise("log", torch.log, torch.cat([pos, u(60, 0.5, 2), u(40, 1 - 1e-5, 1 + 1e-5), -pos[:10],
                                             bits([0x3f7fffff, 0x3f800001, 0x7f7fffff])]))
    elementwise("tanh", torch.tanh, torch.cat([u(150, -10, 10), u(60, -0.7, 0.7), u(40, -1e-3, 1e-3),
                                               u(30, -100, 100), bits([0x41100000, 0x41200000, 0x3f0ccccd,
                                                                       0x3f0ccccc, 0x39800000, 0x3f200000])]))
    sig = torch.cat([exp_edge, -exp_edge, u(150, -110, 110), u(100, -8, 8), u(30, -1e-3, 1e-3)])
    elementwise("sigmoid", torch.sigmoid, sig)
    elementwise("sigmoid_tail", torch.sigmoid, sig)
    write("softmax.txt", "torch.softmax/log_softmax(x, dim) (inputs and outputs row-major) and torch.exp/log/"
          "tanh/sigmoid of 1-D tensors; one thread, AVX2 kernels", lines)


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    assert not torch.backends.mkl.is_available(), "expected a build without MKL (Debian's python3-torch)"
    assert "Math Kernel Library" not in torch.__config__.show()
    # The AVX2/AVX512 kernels fuse uniform_'s x * (to - from) + from into one FMA (as rng.c does); the
    # scalar "NO AVX" kernels round twice and differ in the last bit for about one value in ten.
    assert cpu_capability() in ("AVX2", "AVX512"), "CPU capability %s: need AVX2 or AVX512" % cpu_capability()
    gen_rand()
    gen_uniform()
    gen_randn()
    gen_normal()
    gen_randint()
    gen_sequence()
    gen_linear()
    gen_kaiming()
    gen_dropout()
    gen_sum()
    gen_softmax()
    gen_attention(write, f32s)
    gen_dtypes(write)
    gen_products(write, f32s)
    gen_random(write, f32s)
    gen_stats(write, f32s)
    gen_sweep(write, f32s)
    # oneDNN picks its gelu kernel by the CPU (another one on AVX-512 machines); attn follows the AVX2 one
    assert cpu_capability() == "AVX2", "layers.txt and transformer.txt need an AVX2 (not AVX-512) machine"
    gen_layers(write, f32s)
    gen_transformer(write)
    gen_models(write)


if __name__ == "__main__":
    main()
