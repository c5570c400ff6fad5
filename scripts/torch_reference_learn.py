"""PyTorch's losses, gather, list indexing, randperm, DataLoader order, linspace and optimizers, for
tests/lua/learn_spec.lua and tests/lua/optim_spec.lua (the "learning" ops).

learn.txt: tab-separated lines "case", a computation in Lua (attn's 1-based ids: a Python id i is attn's
i + 1), the same in Python (code that sets r), the result's dtype and its values (float32 as bit
patterns, int64 in decimal), row-major. The inputs are made inside both computations from
torch.manual_seed, whose streams attn reproduces bit for bit (tests/data/torch/rand*.txt).

optim.txt: for each optimizer and options, two parameters (shapes [37] and [5, 7]: two 16-wide vector
blocks and a tail, as PyTorch's kernels split them) with seeded values, one gradient per step, and after
3 or 10 steps the parameters and every state tensor, as blocks of lines:
    optim <TAB> id <TAB> class <TAB> Lua options table <TAB> steps
    tensor <TAB> id <TAB> name <TAB> shape <TAB> bits      (p1, p2, then g<step>_<param>, then after_p1,
                                                            after_p2, then <state key>_<param>)
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)
from reference_format import f32  # noqa: E402


def values(t):
    t = t.detach().reshape(-1)
    if t.dtype == torch.int64:
        return "int64", " ".join(str(v) for v in t.tolist())
    if t.dtype == torch.bool:
        return "bool", " ".join(str(int(v)) for v in t.tolist())
    return "float32", " ".join(f32(v) for v in t.tolist())


# (Lua expression, Python code setting r). Lua runs with torch, nn and F = nn.functional in scope.
def seeded(seed, lua_body, py_body):
    return ("(function() torch.manual_seed(%d); %s end)()" % (seed, lua_body),
            "torch.manual_seed(%d)\n%s" % (seed, py_body))


LOSSES = []
# cross_entropy over shapes [C], [N, C] (C across the 8-lane and 16 blocks) and [N, C, d] (nll_loss2d)
for seed, n, c in [(1, 4, 5), (2, 3, 17), (3, 33, 8), (4, 70, 100), (5, 2, 50257)]:
    for red in ["mean", "sum", "none"]:
        LOSSES.append(seeded(seed,
            'local x = torch.randn(%d, %d) * 3; local t = torch.randint(1, %d, {%d}); '
            'return F.cross_entropy(x, t, {reduction = "%s"})' % (n, c, c + 1, n, red),
            'x = torch.randn(%d, %d) * 3; t = torch.randint(0, %d, (%d,)); r = F.cross_entropy(x, t, reduction="%s")'
            % (n, c, c, n, red)))
    # a target ignored: PyTorch's -100 is attn's -100 too (ignore_index is compared with the targets as written)
    LOSSES.append(seeded(seed,
        'local x = torch.randn(%d, %d); local t = torch.randint(1, %d, {%d}); t[1] = -100; '
        'return F.cross_entropy(x, t)' % (n, c, c + 1, n),
        'x = torch.randn(%d, %d); t = torch.randint(0, %d, (%d,)); t[0] = -100; r = F.cross_entropy(x, t)'
        % (n, c, c, n)))
    LOSSES.append(seeded(seed,
        'local x = torch.randn(%d, %d); local t = torch.randint(1, %d, {%d}); '
        'return nn.CrossEntropyLoss{ignore_index = 2}(x, t)' % (n, c, c + 1, n),
        'x = torch.randn(%d, %d); t = torch.randint(0, %d, (%d,)); r = torch.nn.CrossEntropyLoss(ignore_index=1)(x, t)'
        % (n, c, c, n)))
# the book's chapter 5 loss: logits [2, 256, 50257] flattened, targets flattened
LOSSES.append(seeded(7,
    'local logits = torch.randn(2, 256, 50257); local targets = torch.randint(1, 50258, {2, 256}); '
    'return F.cross_entropy(logits:flatten(1, 2), targets:flatten())',
    'logits = torch.randn(2, 256, 50257); targets = torch.randint(0, 50257, (2, 256)); '
    'r = F.cross_entropy(logits.flatten(0, 1), targets.flatten())'))
LOSSES += [
    seeded(8, 'local x = torch.randn(7); return F.cross_entropy(x, torch.tensor(3))',
           'x = torch.randn(7); r = F.cross_entropy(x, torch.tensor(2))'),
    seeded(9, 'local x = torch.randn(3, 5, 4); local t = torch.randint(1, 6, {3, 4}); return F.cross_entropy(x, t)',
           'x = torch.randn(3, 5, 4); t = torch.randint(0, 5, (3, 4)); r = F.cross_entropy(x, t)'),
    seeded(9, 'local x = torch.randn(3, 5, 4); local t = torch.randint(1, 6, {3, 4}); '
              'return F.cross_entropy(x, t, {reduction = "none"})',
           'x = torch.randn(3, 5, 4); t = torch.randint(0, 5, (3, 4)); r = F.cross_entropy(x, t, reduction="none")'),
    seeded(10, 'local x = torch.randn(2, 3, 2, 5); local t = torch.randint(1, 4, {2, 2, 5}); return F.cross_entropy(x, t)',
           'x = torch.randn(2, 3, 2, 5); t = torch.randint(0, 3, (2, 2, 5)); r = F.cross_entropy(x, t)'),
    seeded(11, 'local x = torch.log_softmax(torch.randn(6, 9), -1); local t = torch.randint(1, 10, {6}); '
               'return F.nll_loss(x, t)',
           'x = torch.log_softmax(torch.randn(6, 9), -1); t = torch.randint(0, 9, (6,)); r = F.nll_loss(x, t)'),
    seeded(11, 'local x = torch.randn(6, 9); local t = torch.randint(1, 10, {6}); '
               'return F.nll_loss(x, t, {reduction = "sum"})',
           'x = torch.randn(6, 9); t = torch.randint(0, 9, (6,)); r = F.nll_loss(x, t, reduction="sum")'),
    seeded(12, 'local x = torch.randn(37); local y = torch.randn(37); return F.mse_loss(x, y)',
           'x = torch.randn(37); y = torch.randn(37); r = F.mse_loss(x, y)'),
    seeded(12, 'local x = torch.randn(4, 33); local y = torch.randn(4, 33); return nn.MSELoss{reduction = "sum"}(x, y)',
           'x = torch.randn(4, 33); y = torch.randn(4, 33); r = torch.nn.MSELoss(reduction="sum")(x, y)'),
    seeded(12, 'local x = torch.randn(4, 3); local y = torch.randn(4, 3); return F.mse_loss(x, y, {reduction = "none"})',
           'x = torch.randn(4, 3); y = torch.randn(4, 3); r = F.mse_loss(x, y, reduction="none")'),
]

INDEXING = [
    seeded(13, 'local p = torch.softmax(torch.randn(2, 3, 10), -1); local t = torch.randint(1, 11, {2, 3}); '
               'return p[{1, torch.tensor{1, 2, 3}, t[1]}]',
           'p = torch.softmax(torch.randn(2, 3, 10), -1); t = torch.randint(0, 10, (2, 3)); r = p[0, [0, 1, 2], t[0]]'),
    seeded(14, 'local x = torch.randn(4, 5, 6); return x[{{}, torch.tensor{1, 3}, torch.tensor{2, -1}}]',
           'x = torch.randn(4, 5, 6); r = x[:, [0, 2], [1, -1]]'),
    seeded(14, 'local x = torch.randn(4, 5, 6); return x[{torch.tensor{1, 4}, {}, torch.tensor{{2}, {3}}}]',
           'x = torch.randn(4, 5, 6); r = x[[0, 3], :, [[1], [2]]]'),
    seeded(15, 'local x = torch.randn(3, 4); return x:gather(2, torch.tensor{{1, 1}, {4, 2}, {3, 3}})',
           'x = torch.randn(3, 4); r = x.gather(1, torch.tensor([[0, 0], [3, 1], [2, 2]]))'),
    seeded(15, 'local x = torch.randn(3, 4); return torch.gather(x, 1, torch.tensor{{1, 2, 3, 1}, {3, 3, 1, 2}})',
           'x = torch.randn(3, 4); r = torch.gather(x, 0, torch.tensor([[0, 1, 2, 0], [2, 2, 0, 1]]))'),
]

RANDOM = []
for seed in [0, 123, 789]:
    for n in [1, 2, 10, 100, 1000, 5000]:
        RANDOM.append(seeded(seed, 'return torch.randperm(%d) - 1' % n, 'r = torch.randperm(%d)' % n))
    RANDOM.append(seeded(seed, 'local g = torch.Generator():manual_seed(%d); return torch.cat{torch.randperm(9, {generator = g}) - 1, torch.randperm(5) - 1}' % (seed + 1),
                         'g = torch.Generator().manual_seed(%d); r = torch.cat([torch.randperm(9, generator=g), torch.randperm(5)])' % (seed + 1)))
# DataLoader: two passes over a shuffled loader and one over an unshuffled one, then the default stream
for seed, n, bs, drop in [(123, 10, 3, True), (123, 10, 3, False), (7, 9, 2, False), (42, 33, 4, True)]:
    lua = ('local ds = {}; for i = 1, %d do ds[i] = torch.tensor(i - 1.0) end; '
           'local train = torch.utils.data.DataLoader(ds, {batch_size = %d, shuffle = true, drop_last = %s}); '
           'local val = torch.utils.data.DataLoader(ds, {batch_size = %d, shuffle = false, drop_last = false}); '
           'local out = {}; for _ = 1, 2 do for b in train do out[#out + 1] = b end end; '
           'for b in val do out[#out + 1] = b end; out[#out + 1] = torch.rand(3); return torch.cat(out)'
           % (n, bs, "true" if drop else "false", bs))
    py = ('ds = [torch.tensor(float(i)) for i in range(%d)]\n'
          'train = DataLoader(ds, batch_size=%d, shuffle=True, drop_last=%s)\n'
          'val = DataLoader(ds, batch_size=%d, shuffle=False, drop_last=False)\n'
          'out = [b for _ in range(2) for b in train] + [b for b in val] + [torch.rand(3)]\nr = torch.cat(out)'
          % (n, bs, drop, bs))
    RANDOM.append(seeded(seed, lua, py))
# items that are pairs: (x, y) as the book's GPTDatasetV1 gives them
RANDOM.append(seeded(5,
    'local ds = {}; for i = 1, 6 do ds[i] = {torch.tensor{i, i + 1}, torch.tensor{i + 1, i + 2}} end; '
    'local out = {}; for x, y in torch.utils.data.DataLoader(ds, {batch_size = 2, shuffle = true}) do '
    'out[#out + 1] = x:flatten(); out[#out + 1] = y:flatten() end; return torch.cat(out)',
    'ds = [(torch.tensor([i, i + 1]), torch.tensor([i + 1, i + 2])) for i in range(1, 7)]\n'
    'out = []\nfor x, y in DataLoader(ds, batch_size=2, shuffle=True):\n    out += [x.flatten(), y.flatten()]\n'
    'r = torch.cat(out)'))
for a, b, n in [(-3, 3, 100), (0, 1, 7), (0, 10, 1000), (-1.5, 2.25, 37), (1, 2, 17), (5, 5, 1), (0, 1, 0), (2, -7, 33)]:
    RANDOM.append(("torch.linspace(%r, %r, %d)" % (a, b, n), "r = torch.linspace(%r, %r, %d)" % (a, b, n)))


def gen_learn(write):
    lines = []
    for lua, py in LOSSES + INDEXING + RANDOM:
        env = {"torch": torch, "F": F, "DataLoader": DataLoader}
        exec(py, env)
        dtype, vals = values(env["r"])
        lines.append("case\t%s\t%s\t%s\t%s" % (lua, py.replace("\n", "; "), dtype, vals))
    write("learn.txt", "losses, gather, list indexing, randperm, DataLoader, linspace: Lua and Python of one "
          "computation and PyTorch's result (tab-separated; see scripts/torch_reference_learn.py)", lines)


# ---- optimizers --------------------------------------------------------------------------------

OPTIMIZERS = [
    ("SGD", {"lr": 0.1}, "{lr = 0.1}"),
    ("SGD", {"lr": 0.05, "momentum": 0.9}, "{lr = 0.05, momentum = 0.9}"),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.1}, "{lr = 0.05, momentum = 0.9, dampening = 0.1}"),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}, "{lr = 0.05, momentum = 0.8, nesterov = true}"),
    ("SGD", {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1}, "{lr = 0.01, momentum = 0.9, weight_decay = 0.1}"),
    ("SGD", {"lr": 0.01, "weight_decay": 0.3, "maximize": True}, "{lr = 0.01, weight_decay = 0.3, maximize = true}"),
    ("Adam", {}, "{}"),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99)}, "{lr = 0.01, betas = {0.8, 0.99}}"),
    ("Adam", {"lr": 0.003, "weight_decay": 0.1}, "{lr = 0.003, weight_decay = 0.1}"),
    ("Adam", {"lr": 0.003, "eps": 1e-6, "amsgrad": True}, "{lr = 0.003, eps = 1e-06, amsgrad = true}"),
    ("AdamW", {}, "{}"),
    ("AdamW", {"lr": 0.0004, "weight_decay": 0.1}, "{lr = 0.0004, weight_decay = 0.1}"),  # the book's ch. 5
    ("AdamW", {"lr": 0.01, "betas": (0.9, 0.95), "weight_decay": 0.0}, "{lr = 0.01, betas = {0.9, 0.95}, weight_decay = 0.0}"),
    ("AdamW", {"lr": 0.005, "amsgrad": True, "maximize": True}, "{lr = 0.005, amsgrad = true, maximize = true}"),
]
SHAPES = [(37,), (5, 7)]


def gen_optim(write):
    lines = []
    case = 0
    for steps in [3, 10]:
        for name, opts, lua_opts in OPTIMIZERS:
            case += 1
            torch.manual_seed(1000 + case)
            params = [torch.randn(*s) for s in SHAPES]
            lines.append("optim\t%d\t%s\t%s\t%d" % (case, name, lua_opts, steps))
            for i, p in enumerate(params):
                lines.append("tensor\t%d\tp%d\t%s\t%s" % (case, i + 1, ",".join(map(str, p.shape)), values(p)[1]))
            params = [p.clone().requires_grad_(True) for p in params]
            opt = getattr(torch.optim, name)(params, **opts)
            assert not opt.defaults.get("foreach"), "the single-tensor implementation"
            for s in range(steps):
                for i, p in enumerate(params):
                    g = torch.randn(*p.shape) * (0.5 + s)
                    p.grad = g
                    lines.append("tensor\t%d\tg%d_%d\t%s\t%s" % (case, s + 1, i + 1, ",".join(map(str, p.shape)),
                                                                 values(g)[1]))
                opt.step()
            for i, p in enumerate(params):
                lines.append("tensor\t%d\tafter_p%d\t%s\t%s" % (case, i + 1, ",".join(map(str, p.shape)),
                                                                values(p)[1]))
                for key, value in sorted(opt.state[p].items()):
                    if torch.is_tensor(value):
                        lines.append("tensor\t%d\t%s_%d\t%s\t%s" % (case, key, i + 1, ",".join(map(str, value.shape)),
                                                                    values(value)[1]))
    write("optim.txt", "torch.optim SGD, Adam, AdamW (single-tensor CPU code): params, grads per step, then "
          "params and state (tab-separated; see scripts/torch_reference_learn.py)", lines)


if __name__ == "__main__":
    # run by scripts/gen-torch-reference.sh: one thread, Debian's torch, OpenBLAS's Haswell kernels
    write = fmt.writer(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch"))
    gen_learn(write)
    gen_optim(write)
