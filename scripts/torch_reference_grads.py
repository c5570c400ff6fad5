"""PyTorch's gradients for src/lua/autograd/formulas_extra.lua (tests/lua/formulas_spec.lua): grads.txt.

Tab-separated lines "case", the formula called in Lua (G is formulas_extra; inputs made from
torch.manual_seed, whose streams attn reproduces bit for bit), the same gradient computed by PyTorch's
autograd in Python (code that sets r: the gradients flattened and concatenated), the tolerance ("exact",
or a bound with the reason in tests/lua/formulas_spec.lua) and the float32 bits, row-major.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)
from reference_format import f32  # noqa: E402


def seeded(seed, lua, py, tol="exact"):
    return ("(function() torch.manual_seed(%d); %s end)()" % (seed, lua), "torch.manual_seed(%d)\n%s" % (seed, py), tol)


def flat(*ts):
    return "r = torch.cat([t.reshape(-1) for t in (%s,)])" % ", ".join(ts)


CASES = []
# cross_entropy: grad of the loss w.r.t. the logits, [N, C] across the vector widths, the reductions, ignore_index
for seed, n, c in [(1, 4, 5), (2, 3, 17), (3, 33, 8), (4, 6, 100), (5, 2, 1000)]:
    for red, ign in [("mean", None), ("sum", None), ("mean", 1)]:
        ign_lua = "" if ign is None else ", ignore_index = %d" % (ign + 1)
        ign_py = "" if ign is None else ", ignore_index=%d" % ign
        CASES.append(seeded(seed,
            'local x = torch.randn(%d, %d) * 2; local t = torch.randint(1, %d, {%d}); t[1] = %s; '
            'return G.cross_entropy_backward(torch.tensor(1.0), x, t, {reduction = "%s"%s})'
            % (n, c, c + 1, n, "2" if ign is not None else "t[1]", red, ign_lua),
            'x = (torch.randn(%d, %d) * 2).requires_grad_(); t = torch.randint(0, %d, (%d,)); %s\n'
            'F.cross_entropy(x, t, reduction="%s"%s).backward()\n%s'
            % (n, c, c, n, "t[0] = 1" if ign is not None else "", red, ign_py, flat("x.grad"))))
    CASES.append(seeded(seed,
        'local x = torch.randn(%d, %d); local t = torch.randint(1, %d, {%d}); local g = torch.randn(%d); '
        'return G.cross_entropy_backward(g, x, t, {reduction = "none"})' % (n, c, c + 1, n, n),
        'x = torch.randn(%d, %d).requires_grad_(); t = torch.randint(0, %d, (%d,)); g = torch.randn(%d)\n'
        'F.cross_entropy(x, t, reduction="none").backward(g)\n%s' % (n, c, c, n, n, flat("x.grad"))))
CASES += [
    seeded(6, 'local x = torch.randn(2, 256, 50257) * 0.1; local t = torch.randint(1, 50258, {2, 256}); '
              'local g = G.cross_entropy_backward(torch.tensor(1.0), x:flatten(1, 2), t:flatten()):reshape(-1); '
              'return g[{torch.arange(1, g:numel() + 1, 997)}]',
           'x = (torch.randn(2, 256, 50257) * 0.1).requires_grad_(); t = torch.randint(0, 50257, (2, 256))\n'
           'F.cross_entropy(x.flatten(0, 1), t.flatten()).backward()\n'
           'r = x.grad.reshape(-1)[::997]'),
    seeded(7, 'local x = torch.randn(3, 5, 4); local t = torch.randint(1, 6, {3, 4}); '
              'return G.cross_entropy_backward(torch.tensor(1.0), x, t)',
           'x = torch.randn(3, 5, 4).requires_grad_(); t = torch.randint(0, 5, (3, 4))\n'
           'F.cross_entropy(x, t).backward()\n' + flat("x.grad")),
    seeded(8, 'local x = torch.randn(7); return G.cross_entropy_backward(torch.tensor(2.5), x, torch.tensor(4))',
           'x = torch.randn(7).requires_grad_()\nF.cross_entropy(x, torch.tensor(3)).backward(torch.tensor(2.5))\n' + flat("x.grad")),
    seeded(9, 'local x = torch.randn(5, 9); local t = torch.randint(1, 10, {5}); return G.nll_loss_backward(torch.tensor(1.5), x, t)',
           'x = torch.randn(5, 9).requires_grad_(); t = torch.randint(0, 9, (5,))\n'
           'F.nll_loss(x, t).backward(torch.tensor(1.5))\n' + flat("x.grad")),
    seeded(10, 'local x = torch.randn(6, 33); local g = torch.randn(6, 33); return G.log_softmax_backward(g, torch.log_softmax(x, -1), -1)',
           'x = torch.randn(6, 33).requires_grad_(); g = torch.randn(6, 33)\ntorch.log_softmax(x, -1).backward(g)\n' + flat("x.grad")),
    seeded(10, 'local x = torch.randn(6, 5); local g = torch.randn(6, 5); return G.log_softmax_backward(g, torch.log_softmax(x, 1), 1)',
           'x = torch.randn(6, 5).requires_grad_(); g = torch.randn(6, 5)\ntorch.log_softmax(x, 0).backward(g)\n' + flat("x.grad")),
    seeded(11, 'local x = torch.randn(4, 37); local y = torch.randn(4, 37); return torch.cat{G.mse_loss_backward(torch.tensor(1.0), x, y)}',
           'x = torch.randn(4, 37).requires_grad_(); y = torch.randn(4, 37).requires_grad_()\n'
           'F.mse_loss(x, y).backward()\n' + flat("x.grad", "y.grad")),
    seeded(11, 'local x = torch.randn(4, 3); local y = torch.randn(4, 3); local g = torch.randn(4, 3); '
               'return torch.cat{G.mse_loss_backward(g, x, y, {reduction = "none"})}',
           'x = torch.randn(4, 3).requires_grad_(); y = torch.randn(4, 3).requires_grad_(); g = torch.randn(4, 3)\n'
           'F.mse_loss(x, y, reduction="none").backward(g)\n' + flat("x.grad", "y.grad")),
    seeded(12, 'local x = torch.randn(3, 4); local g = torch.randn(3, 3); '
               'return G.gather_backward(g, x, 2, torch.tensor{{1, 1, 4}, {4, 2, 2}, {3, 3, 3}})',
           'x = torch.randn(3, 4).requires_grad_(); g = torch.randn(3, 3)\n'
           'x.gather(1, torch.tensor([[0, 0, 3], [3, 1, 1], [2, 2, 2]])).backward(g)\n' + flat("x.grad")),
    seeded(13, 'local x = torch.randn(5, 7) * 3 + 1; return G.var_backward(torch.tensor(1.0), x)',
           'x = (torch.randn(5, 7) * 3 + 1).requires_grad_()\nx.var().backward()\n' + flat("x.grad")),
    seeded(13, 'local x = torch.randn(5, 7); local g = torch.randn(5); return G.var_backward(g, x, {dim = 2, correction = 0})',
           'x = torch.randn(5, 7).requires_grad_(); g = torch.randn(5)\nx.var(1, unbiased=False).backward(g)\n' + flat("x.grad")),
    seeded(13, 'local x = torch.randn(5, 7); local g = torch.randn(1, 7); return G.var_backward(g, x, {dim = 1, keepdim = true})',
           'x = torch.randn(5, 7).requires_grad_(); g = torch.randn(1, 7)\nx.var(0, keepdim=True).backward(g)\n' + flat("x.grad")),
    seeded(14, 'local x = torch.randn(4, 9); local g = torch.randn(4); return G.std_backward(g, x:std(-1), x, {dim = -1})',
           'x = torch.randn(4, 9).requires_grad_(); g = torch.randn(4)\nx.std(-1).backward(g)\n' + flat("x.grad")),
    seeded(14, 'local x = torch.randn(4, 9); return G.std_backward(torch.tensor(1.0), x:std(), x)',
           'x = torch.randn(4, 9).requires_grad_()\nx.std().backward()\n' + flat("x.grad")),
    seeded(15, 'local x = torch.randn(4, 6); local g = torch.randn(4); local v, i = x:max(2); return G.max_backward(g, x, 2, i, false)',
           'x = torch.randn(4, 6).requires_grad_(); g = torch.randn(4)\nx.max(1)[0].backward(g)\n' + flat("x.grad")),
    seeded(15, 'local x = torch.randn(4, 6); local g = torch.randn(1, 6); local v, i = x:min(1, true); return G.min_backward(g, x, 1, i, true)',
           'x = torch.randn(4, 6).requires_grad_(); g = torch.randn(1, 6)\nx.min(0, keepdim=True)[0].backward(g)\n' + flat("x.grad")),
    ('(function() local x = torch.tensor{1.0, 3.0, 3.0, 2.0, 3.0}; return G.max_all_backward(torch.tensor(1.0), x, x:max()) end)()',
     'x = torch.tensor([1.0, 3.0, 3.0, 2.0, 3.0], requires_grad=True)\nx.max().backward()\n' + flat("x.grad"), "exact"),
    seeded(16, 'local x = torch.randn(3, 5); local y = torch.randn(3, 5); local g = torch.randn(3, 5); '
               'return torch.cat{G.where_backward(g, x:gt(y))}',
           'x = torch.randn(3, 5).requires_grad_(); y = torch.randn(3, 5).requires_grad_(); g = torch.randn(3, 5)\n'
           'torch.where(x > y, x, y).backward(g)\n' + flat("x.grad", "y.grad")),
]
# the recurrent cells: every gradient, against autograd through PyTorch's own GRUCell / LSTMCell
CELL_LUA = ('local x = torch.randn(3, 4); local h = torch.randn(3, 5); local c = torch.randn(3, 5); '
            'local cell = nn.%s(4, 5); local g = torch.randn(3, 5); local gc = torch.randn(3, 5); ')
CELL_PY = ('x = torch.randn(3, 4).requires_grad_(); h = torch.randn(3, 5).requires_grad_(); '
           'c = torch.randn(3, 5).requires_grad_()\ncell = torch.nn.%s(4, 5); g = torch.randn(3, 5); gc = torch.randn(3, 5)\n')
CASES += [
    seeded(17, CELL_LUA % "GRUCell" + 'local r = {G.gru_cell_backward(g, x, h, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)}; '
           'for k = 1, #r do r[k] = r[k]:reshape(-1) end; return torch.cat(r)',
           CELL_PY % "GRUCell" + 'cell(x, h).backward(g)\n'
           + flat("x.grad", "h.grad", "cell.weight_ih.grad", "cell.weight_hh.grad", "cell.bias_ih.grad", "cell.bias_hh.grad"),
           "1e-6"),
    seeded(18, CELL_LUA % "LSTMCell" + 'local r = {G.lstm_cell_backward(g, gc, x, h, c, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)}; '
           'for k = 1, #r do r[k] = r[k]:reshape(-1) end; return torch.cat(r)',
           CELL_PY % "LSTMCell" + 'hy, cy = cell(x, (h, c))\ntorch.autograd.backward([hy, cy], [g, gc])\n'
           + flat("x.grad", "h.grad", "c.grad", "cell.weight_ih.grad", "cell.weight_hh.grad", "cell.bias_ih.grad", "cell.bias_hh.grad"),
           "1e-6"),
]

# Through attn's autograd engine (not formulas_extra): what the round-4 campaign found silently wrong.
CASES += [
    # indexing with an index tensor keeps the graph (IndexBackward0: repeated indices add up)
    seeded(19, 'local x = torch.randn(3):requires_grad_(); (x[{torch.tensor{1, 2}}]:sum() + x:sum()):backward(); return x.grad',
           'x = torch.randn(3).requires_grad_()\n(x[torch.tensor([0, 1])].sum() + x.sum()).backward()\n' + flat("x.grad")),
    seeded(20, 'local x = torch.randn(4, 3):requires_grad_(); local g = torch.randn(5, 3); '
               'x[{torch.tensor{1, 3, 1, 4, 1}}]:backward(g); return x.grad',
           'x = torch.randn(4, 3).requires_grad_(); g = torch.randn(5, 3)\n'
           'x[torch.tensor([0, 2, 0, 3, 0])].backward(g)\n' + flat("x.grad")),
    seeded(21, 'local x = torch.randn(4, 5):requires_grad_(); local g = torch.randn(4, 3); '
               'x[{{}, torch.tensor{5, 2, 5}}]:backward(g); return x.grad',
           'x = torch.randn(4, 5).requires_grad_(); g = torch.randn(4, 3)\n'
           'x[:, torch.tensor([4, 1, 4])].backward(g)\n' + flat("x.grad")),
    seeded(22, 'local x = torch.randn(3, 4, 2):requires_grad_(); local g = torch.randn(2); '
               'x[{torch.tensor{1, 3}, torch.tensor{2, 4}, 2}]:backward(g); return x.grad',
           'x = torch.randn(3, 4, 2).requires_grad_(); g = torch.randn(2)\n'
           'x[torch.tensor([0, 2]), torch.tensor([1, 3]), 1].backward(g)\n' + flat("x.grad")),
    # add and sub with alpha: the other operand's gradient is alpha times
    seeded(23, 'local x = torch.randn(5):requires_grad_(); x:add(x * x, {alpha = 3}):sum():backward(); return x.grad',
           'x = torch.randn(5).requires_grad_()\nx.add(x * x, alpha=3).sum().backward()\n' + flat("x.grad")),
    seeded(24, 'local a = torch.randn(2, 3):requires_grad_(); local b = torch.randn(3):requires_grad_(); '
               'local g = torch.randn(2, 3); torch.sub(a, b, {alpha = 2.5}):backward(g); return torch.cat{a.grad:reshape(-1), b.grad}',
           'a = torch.randn(2, 3).requires_grad_(); b = torch.randn(3).requires_grad_(); g = torch.randn(2, 3)\n'
           'torch.sub(a, b, alpha=2.5).backward(g)\n' + flat("a.grad", "b.grad")),
    seeded(25, 'local a = torch.randn(4):requires_grad_(); local b = torch.randn(4):requires_grad_(); '
               'torch.add(a, b, {alpha = -0.7}):sum():backward(); return torch.cat{a.grad, b.grad}',
           'a = torch.randn(4).requires_grad_(); b = torch.randn(4).requires_grad_()\n'
           'torch.add(a, b, alpha=-0.7).sum().backward()\n' + flat("a.grad", "b.grad")),
    # an int64 gradient given to backward takes the output's dtype
    seeded(26, 'local x = torch.randn(3):requires_grad_(); (x * 2.5):backward(torch.tensor{1, 2, 3}); return x.grad',
           'x = torch.randn(3).requires_grad_()\n(x * 2.5).backward(torch.tensor([1, 2, 3]))\n' + flat("x.grad")),
    # a tensor exponent, and a number base
    seeded(27, 'local x = (torch.rand(2, 4) + 0.5):requires_grad_(); local e = torch.randn(4):requires_grad_(); '
               'local g = torch.randn(2, 4); (x ^ e):backward(g); return torch.cat{x.grad:reshape(-1), e.grad}',
           'x = (torch.rand(2, 4) + 0.5).requires_grad_(); e = torch.randn(4).requires_grad_(); g = torch.randn(2, 4)\n'
           '(x ** e).backward(g)\n' + flat("x.grad", "e.grad")),
    ('(function() local x = torch.tensor{0.0, 0.0, 2.0}:requires_grad_(); local e = torch.tensor{0.0, 2.0, 0.0}:requires_grad_(); '
     'x:pow(e):sum():backward(); return torch.cat{x.grad, e.grad} end)()',
     'x = torch.tensor([0.0, 0.0, 2.0], requires_grad=True); e = torch.tensor([0.0, 2.0, 0.0], requires_grad=True)\n'
     'x.pow(e).sum().backward()\n' + flat("x.grad", "e.grad"), "exact"),
    seeded(28, 'local x = torch.randn(5):requires_grad_(); (3 ^ x):sum():backward(); return x.grad',
           'x = torch.randn(5).requires_grad_()\n(3 ** x).sum().backward()\n' + flat("x.grad")),
    seeded(29, 'local x = torch.randn(5):requires_grad_(); torch.pow(0.5, x):sum():backward(); return x.grad',
           'x = torch.randn(5).requires_grad_()\ntorch.pow(0.5, x).sum().backward()\n' + flat("x.grad")),
    # opt:step(closure): the closure runs (grad on), its loss is returned, then the update
    seeded(30, 'local w = torch.randn(3):requires_grad_(); local opt = torch.optim.SGD({w}, {lr = 0.1, momentum = 0.9}); '
               'local calls = 0; local losses = {}; for i = 1, 2 do losses[i] = opt:step(function() calls = calls + 1; '
               'opt:zero_grad(); local l = (w * w):sum(); l:backward(); return l end):detach() end; '
               'return torch.cat{w:detach(), losses[1]:reshape(1), losses[2]:reshape(1), torch.tensor{calls}:float()}',
           'w = torch.randn(3).requires_grad_(); opt = torch.optim.SGD([w], lr=0.1, momentum=0.9); calls = [0]\n'
           'def closure():\n    calls[0] += 1; opt.zero_grad(); l = (w * w).sum(); l.backward(); return l\n'
           'losses = [opt.step(closure).detach() for i in range(2)]\n'
           'r = torch.cat([w.detach(), losses[0].reshape(1), losses[1].reshape(1), torch.tensor([calls[0]]).float()])'),
    seeded(31, 'local w = torch.randn(4):requires_grad_(); local opt = torch.optim.Adam({w}, {lr = 0.01}); '
               'local loss = opt:step(function() opt:zero_grad(); local l = (w - 1):pow(2):mean(); l:backward(); return l end); '
               'return torch.cat{w:detach(), loss:detach():reshape(1)}',
           'w = torch.randn(4).requires_grad_(); opt = torch.optim.Adam([w], lr=0.01)\n'
           'def closure():\n    opt.zero_grad(); l = (w - 1).pow(2).mean(); l.backward(); return l\n'
           'loss = opt.step(closure)\nr = torch.cat([w.detach(), loss.detach().reshape(1)])'),
]


def gen_grads(write):
    lines = []
    for lua, py, tol in CASES:
        env = {"torch": torch, "F": F}
        exec(py, env)
        r = env["r"].detach().reshape(-1)
        lines.append("case\t%s\t%s\t%s\t%s" % (lua, py.replace("\n", "; "), tol, " ".join(f32(v) for v in r.tolist())))
    write("grads.txt", "backward formulas: Lua call, PyTorch autograd in Python, tolerance, the gradients as float32 "
          "bits (tab-separated; see scripts/torch_reference_grads.py)", lines)


if __name__ == "__main__":
    # run by scripts/gen-torch-reference.sh: one thread, Debian's torch, OpenBLAS's Haswell kernels
    gen_grads(fmt.writer(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch")))
