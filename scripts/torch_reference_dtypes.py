"""PyTorch's dtype rules and int64 printing, as Lua/Python pairs, for tests/lua/dtype_spec.lua.

Each case is one expression written twice, in attn's Lua and in PyTorch's Python (the same
computation: attn counts dims and indices from 1, so dim=0 there is dim=1 here). PyTorch evaluates
the Python one; dtypes.txt records what it printed (str of the result), or "error" when PyTorch
refused. The spec evaluates the Lua one in attn and compares the text character for character.

Lines of dtypes.txt (tab-separated, '#' lines are comments):
    prelude <TAB> lua <TAB> python            run once before the cases (both sides' variables)
    case <TAB> lua <TAB> python <TAB> result  result with backslash and newline escaped as \\ and \\n
"""

import torch

# i, f, b: one tensor of each dtype; i2, f2, b2 a second one; zi, zf 0-d tensors.
PRELUDE = [
    ("i, f, b = torch.tensor{1, 2, 3}, torch.tensor{0.5, 1.5, -2.0}, torch.tensor{true, false, true}",
     "i, f, b = torch.tensor([1, 2, 3]), torch.tensor([0.5, 1.5, -2.0]), torch.tensor([True, False, True])"),
    ("i2, f2, b2 = torch.tensor{2, -3, 4}, torch.tensor{4.0, 0.25, 3.0}, torch.tensor{false, false, true}",
     "i2, f2, b2 = torch.tensor([2, -3, 4]), torch.tensor([4.0, 0.25, 3.0]), torch.tensor([False, False, True])"),
    ("zi, zf = torch.tensor(2), torch.tensor(2.5)", "zi, zf = torch.tensor(2), torch.tensor(2.5)"),
    ("m = torch.tensor{{1, -20, 3}, {400, 5, -6}}", "m = torch.tensor([[1, -20, 3], [400, 5, -6]])"),
]

CREATION = [
    ("torch.tensor{1, 2, 3}", "torch.tensor([1, 2, 3])"),
    ("m", "m"),
    ("torch.tensor{1, -1000000000000, 5}", "torch.tensor([1, -1000000000000, 5])"),
    ("torch.tensor{9007199254740993}", "torch.tensor([9007199254740993])"),  # 2^53 + 1, exactly
    ("torch.tensor{9007199254740993} + 2", "torch.tensor([9007199254740993]) + 2"),
    ("torch.tensor{9007199254740993} * 3", "torch.tensor([9007199254740993]) * 3"),
    ("torch.tensor{math.maxinteger, math.mininteger}", "torch.tensor([2**63 - 1, -2**63])"),
    ("torch.tensor{math.maxinteger} + 1", "torch.tensor([2**63 - 1]) + 1"),  # wraps, as int64 does
    ("torch.tensor(7)", "torch.tensor(7)"),
    ("torch.tensor(-7).dtype", "torch.tensor(-7).dtype"),
    ("torch.tensor(7.0)", "torch.tensor(7.0)"),
    ("torch.tensor{true, 2}", "torch.tensor([True, 2])"),
    ("torch.tensor{1, 2.5}", "torch.tensor([1, 2.5])"),
    ("torch.tensor{{1, 2}, {3, 4.5}}", "torch.tensor([[1, 2], [3, 4.5]])"),
    ("torch.tensor({}, {dtype = torch.int64})", "torch.tensor([], dtype=torch.int64)"),
    ("torch.zeros(0, 3, {dtype = torch.int64})", "torch.zeros(0, 3, dtype=torch.int64)"),
    ("torch.zeros(2, 3, {dtype = torch.int64})", "torch.zeros(2, 3, dtype=torch.int64)"),
    ("torch.ones(2, {dtype = torch.long})", "torch.ones(2, dtype=torch.long)"),
    ("torch.tensor({1.9, -1.9}, {dtype = torch.int64})", "torch.tensor([1.9, -1.9], dtype=torch.int64)"),
    ("torch.tensor({1, 2}, {dtype = torch.float32})", "torch.tensor([1, 2], dtype=torch.float32)"),
    ("torch.full({2, 2}, 7)", "torch.full((2, 2), 7)"),
    ("torch.full({2}, 7.0)", "torch.full((2,), 7.0)"),
    ("torch.full({2}, true)", "torch.full((2,), True)"),
    ("torch.full({2}, 7, {dtype = torch.float32})", "torch.full((2,), 7, dtype=torch.float32)"),
    ("torch.zeros_like(i)", "torch.zeros_like(i)"),
    ("torch.full_like(i, 2.7)", "torch.full_like(i, 2.7)"),
    ("torch.arange(5)", "torch.arange(5)"),
    ("torch.arange(-5, 5)", "torch.arange(-5, 5)"),
    ("torch.arange(0, 10, 3)", "torch.arange(0, 10, 3)"),
    ("torch.arange(10, 0, -3)", "torch.arange(10, 0, -3)"),
    ("torch.arange(5.0)", "torch.arange(5.0)"),
    ("torch.arange(0, 2, 0.5)", "torch.arange(0, 2, 0.5)"),
    ("torch.arange(3, {dtype = torch.float32})", "torch.arange(3, dtype=torch.float32)"),
    ("torch.arange(1000)", "torch.arange(1000)"),  # threshold: printed in full
    ("torch.arange(1001)", "torch.arange(1001)"),  # summarised
    ("torch.arange(2000):view(40, 50)", "torch.arange(2000).view(40, 50)"),
    ("torch.arange(30):view(2, 3, 5)", "torch.arange(30).view(2, 3, 5)"),
    ("torch.arange(100) * 1000000000", "torch.arange(100) * 1000000000"),
    ("torch.arange(24) - 12", "torch.arange(24) - 12"),
    ("torch.arange(3000):view(2, 1500)", "torch.arange(3000).view(2, 1500)"),
    ("i:float()", "i.float()"),
    ("torch.tensor{9007199254740993}:float()", "torch.tensor([9007199254740993]).float()"),
    ("f:long()", "f.long()"),
    ("torch.tensor{2.7, -2.7, 0 / 0, math.huge, -math.huge, 1e30}:long()",
     "torch.tensor([2.7, -2.7, float('nan'), float('inf'), -float('inf'), 1e30]).long()"),
    ("b:long()", "b.long()"),
    ("i:bool()", "i.bool()"),
    ("i:to(torch.float32)", "i.to(torch.float32)"),
    ("f:to(i)", "f.to(i)"),
    ("i.dtype", "i.dtype"),
    ("f:long().dtype", "f.long().dtype"),
    ("m:sum():item()", "m.sum().item()"),
    ("m[2][1]", "m[1][0].item()"),
    ("i[{2}]", "i[1].item()"),
]

BINARY = [("+", "+"), ("-", "-"), ("*", "*"), ("/", "/"), ("^", "**")]
OPERANDS = [("i", "i"), ("f", "f"), ("b", "b")]
OTHERS = [("i2", "i2"), ("f2", "f2"), ("b2", "b2"), ("2", "2"), ("2.5", "2.5"), ("true", "True"),
          ("zi", "zi"), ("zf", "zf")]


def arithmetic():
    cases = []
    for lop, pop in BINARY:
        for la, pa in OPERANDS:
            for lb, pb in OTHERS:
                if (la, lb) == ("b", "true") and lop == "^":
                    continue  # Lua's ^ on a boolean never reaches the tensor
                cases.append(("%s %s %s" % (la, lop, lb), "%s %s %s" % (pa, pop, pb)))
                if lb in ("2", "2.5", "zi", "zf"):
                    cases.append(("%s %s %s" % (lb, lop, la), "%s %s %s" % (pb, pop, pa)))
    for name in ["maximum", "minimum", "eq", "ne", "lt", "ge", "logical_and"]:
        for la, pa in OPERANDS:
            for lb, pb in [("i2", "i2"), ("f2", "f2"), ("b2", "b2")]:
                cases.append(("torch.%s(%s, %s)" % (name, la, lb), "torch.%s(%s, %s)" % (name, pa, pb)))
    cases += [
        ("i:eq(2)", "i.eq(2)"), ("i:eq(2.0)", "i.eq(2.0)"), ("i:lt(2.5)", "i.lt(2.5)"),
        ("i2 ^ i", "i2 ** i"), ("torch.tensor{2, 1, -1} ^ torch.tensor{-1, -2, -3}",
                                "torch.tensor([2, 1, -1]) ** torch.tensor([-1, -2, -3])"),
        ("i ^ -1", "i ** -1"), ("i ^ 0.5", "i ** 0.5"), ("i ^ 0", "i ** 0"), ("2 ^ i", "2 ** i"),
        ("i / 0", "i / 0"), ("-i", "-i"), ("-b", "-b"),
    ]
    return cases


FUNCTIONS = [
    ("i:abs()", "i.abs()"), ("(-i):abs()", "(-i).abs()"), ("b:abs()", "b.abs()"),
    ("(i - 2):relu()", "(i - 2).relu()"), ("b:relu()", "b.relu()"),
    ("torch.tensor{-0.0, 0.0, -1.0, 2.0}:relu()", "torch.tensor([-0.0, 0.0, -1.0, 2.0]).relu()"),
    ("i:exp()", "i.exp()"), ("i:log()", "i.log()"), ("i:sqrt()", "i.sqrt()"), ("i:tanh()", "i.tanh()"),
    ("i:sigmoid()", "i.sigmoid()"), ("b:exp()", "b.exp()"), ("i:logical_not()", "i.logical_not()"),
    ("i:sin()", "i.sin()"), ("i:cos()", "i.cos()"), ("i:erf()", "i.erf()"),
    ("nn.functional.gelu(i)", "torch.nn.functional.gelu(i)"),
    ("nn.functional.silu(i)", "torch.nn.functional.silu(i)"),
    ("i:softmax(1)", "i.softmax(0)"),
    ("m:sum()", "m.sum()"), ("m:sum(1)", "m.sum(0)"), ("m:sum(2, true)", "m.sum(1, keepdim=True)"),
    ("b:sum()", "b.sum()"), ("torch.tensor{{true, false}, {true, true}}:sum(1)",
                            "torch.tensor([[True, False], [True, True]]).sum(0)"),
    ("m:mean()", "m.mean()"), ("b:mean()", "b.mean()"), ("m:float():mean()", "m.float().mean()"),
    ("m:max()", "m.max()"), ("m:min()", "m.min()"), ("m:max(2)", "m.max(1).values"),
    ("select(2, m:max(2))", "m.max(1).indices + 1"), ("select(2, m:min(1))", "m.min(0).indices + 1"),
    ("m:argmax()", "m.argmax() + 1"), ("m:argmin(2)", "m.argmin(1) + 1"), ("f:argmax()", "f.argmax() + 1"),
    ("b:max()", "b.max()"),
    ("i:matmul(i2)", "i @ i2"), ("torch.dot(i, i2)", "torch.dot(i, i2)"), ("m:matmul(i)", "m @ i"),
    ("i:matmul(m.T)", "i @ m.T"), ("m:matmul(m.T)", "m @ m.T"),
    ("torch.stack{m, m}:matmul(m.T)", "torch.stack([m, m]) @ m.T"),
    ("torch.stack{m, -m}:matmul(torch.stack{m, m}:transpose(2, 3))",
     "torch.stack([m, -m]) @ torch.stack([m, m]).transpose(1, 2)"),
    ("i:matmul(f)", "i @ f"), ("m:matmul(f)", "m @ f"),
    ("torch.where(b, i, f)", "torch.where(b, i, f)"), ("torch.where(b, i, 2.5)", "torch.where(b, i, 2.5)"),
    ("torch.where(b, i, 0)", "torch.where(b, i, 0)"), ("torch.where(b, 1, 0)", "torch.where(b, 1, 0)"),
    ("i:masked_fill(b, 9)", "i.masked_fill(b, 9)"), ("i:masked_fill(b, 2.5)", "i.masked_fill(b, 2.5)"),
    ("i:masked_fill(b, -math.huge)", "i.masked_fill(b, -float('inf'))"),
    ("f:masked_fill(b, 7)", "f.masked_fill(b, 7)"),
    ("torch.cat{i, f}", "torch.cat([i, f])"), ("torch.cat{i, b}", "torch.cat([i, b])"),
    ("torch.stack{i, b}", "torch.stack([i, b])"), ("torch.stack{b, b2}", "torch.stack([b, b2])"),
    ("torch.tril(m)", "torch.tril(m)"), ("torch.triu(m, 1)", "torch.triu(m, 1)"),
    ("i:clone():add_(1)", "i.clone().add_(1)"), ("i:clone():add_(2.5)", "i.clone().add_(2.5)"),
    ("f:clone():add_(i)", "f.clone().add_(i)"), ("i:clone():mul_(i2)", "i.clone().mul_(i2)"),
    ("i:clone():div_(2)", "i.clone().div_(2)"), ("b:clone():add_(1)", "b.clone().add_(1)"),
    ("i:clone():fill_(2.7)", "i.clone().fill_(2.7)"), ("i:clone():fill_(-9007199254740993)",
                                                     "i.clone().fill_(-9007199254740993)"),
    ("torch.zeros(3):copy_(i)", "torch.zeros(3).copy_(i)"), ("i:clone():copy_(f)", "i.clone().copy_(f)"),
    ("m:view(3, 2)", "m.view(3, 2)"), ("m.T", "m.T"), ("m[{{}, 2}]", "m[:, 1]"),
    ("m:unsqueeze(1):expand(2, 2, 3)", "m.unsqueeze(0).expand(2, 2, 3)"),
]

RANDOM = [
    ("(function() torch.manual_seed(0); return torch.randint(0, 10, {7}) end)()",
     "(torch.manual_seed(0), torch.randint(0, 10, (7,)))[1]"),
    ("(function() torch.manual_seed(5); return torch.randint(-3, 3, {2, 4}) end)()",
     "(torch.manual_seed(5), torch.randint(-3, 3, (2, 4)))[1]"),
    ("(function() torch.manual_seed(1); return torch.randint(-1099511627776, 1099511627776, {3}) end)()",
     "(torch.manual_seed(1), torch.randint(-2**40, 2**40, (3,)))[1]"),
    # Debian's torch has no MKL: its Bernoulli draws are attn's "default" flavour
    ("(function() local was = torch.set_bernoulli_flavor('default'); torch.manual_seed(0); "
     "local t = torch.empty(5, {dtype = torch.int64}):bernoulli_(0.5); torch.set_bernoulli_flavor(was); "
     "return t end)()",
     "(torch.manual_seed(0), torch.empty(5, dtype=torch.int64).bernoulli_(0.5))[1]"),
    ("i:clone():uniform_()", "i.clone().uniform_()"), ("i:clone():normal_()", "i.clone().normal_()"),
]


# Keyword options: PyTorch's aliases (axis, keepdims), alpha, dtype; a misspelt keyword is an
# error in both. r1, r2: 1000 seeded uniform numbers (the prelude, the same stream in both); a %.9g
# string tells every float32 apart; the count of elements that differ from r1 + r2 * alpha (two
# roundings) checks add's one rounding (PyTorch's fmadd) element by element.
KEYWORD_PRELUDE = [
    ("r1, r2 = (function() torch.manual_seed(24); return torch.rand(1000), torch.rand(1000) end)()",
     "torch.manual_seed(24); r1, r2 = torch.rand(1000), torch.rand(1000)"),
]

KEYWORDS = [
    ("m:sum{dim = 2, keepdims = true}", "m.sum(dim=1, keepdims=True)"),
    ("m:sum{axis = 1}", "m.sum(axis=0)"),
    ("m:float():mean{axis = 1, keepdims = true}", "m.float().mean(axis=0, keepdims=True)"),
    ("m:max{dim = 2, keepdims = true}", "m.max(dim=1, keepdims=True).values"),
    ("m:argmax{axis = 2}", "m.argmax(axis=1) + 1"),
    ("f:var{axis = 1, keepdims = true}", "f.var(axis=0, keepdims=True)"),
    ("torch.softmax(f, {axis = 1})", "torch.softmax(f, axis=0)"),
    ("torch.cat({i, i2}, {axis = 1})", "torch.cat([i, i2], axis=0)"),
    ("m:mean{dims = 1}", "m.float().mean(dims=0)"),
    ("m:sum{dim = 1, keepdmi = true}", "m.sum(dim=0, keepdmi=True)"),
    ("i:add(i2, {alpha = 3})", "i.add(i2, alpha=3)"),
    ("i:sub(i2, {alpha = -2})", "i.sub(i2, alpha=-2)"),
    ("i:add(i2, {alpha = 2.5})", "i.add(i2, alpha=2.5)"),
    ("f:add(i2, {alpha = 2.5})", "f.add(i2, alpha=2.5)"),
    ("torch.add(f, 2, {alpha = 3})", "torch.add(f, 2, alpha=3)"),
    ("f:mul(f2, {alpha = 2})", "f.mul(f2, alpha=2)"),
    ("f:clone():add_(f2, {alpha = 2})", "f.clone().add_(f2, alpha=2)"),
    ("f:clone():sub_(f2, {alpha = 0.5})", "f.clone().sub_(f2, alpha=0.5)"),
    ("string.format('%.9g', r1:add(r2, {alpha = 0.1}):sum():item())",
     "'%.9g' % r1.add(r2, alpha=0.1).sum().item()"),
    ("string.format('%.9g', r1:sub(r2, {alpha = 0.3}):sum():item())",
     "'%.9g' % r1.sub(r2, alpha=0.3).sum().item()"),
    ("string.format('%.9g', r1:add(r2, {alpha = 0.7}):max():item())",
     "'%.9g' % r1.add(r2, alpha=0.7).max().item()"),
    ("string.format('%.9g %.9g %.9g', table.unpack(r1:add(r2, {alpha = 1.3})[{{1, 3}}]:tolist()))",
     "'%.9g %.9g %.9g' % tuple(r1.add(r2, alpha=1.3)[:3].tolist())"),
    # how many elements differ from r1 + r2 * alpha rounded twice: PyTorch's one rounding is seen
    ("r1:add(r2, {alpha = 0.1}):ne(r1 + r2 * 0.1):sum()", "r1.add(r2, alpha=0.1).ne(r1 + r2 * 0.1).sum()"),
    ("r1:sub(r2, {alpha = 3.7}):ne(r1 - r2 * 3.7):sum()", "r1.sub(r2, alpha=3.7).ne(r1 - r2 * 3.7).sum()"),
    ("torch.zeros_like(f, {dtype = torch.int64})", "torch.zeros_like(f, dtype=torch.int64)"),
    ("torch.ones_like(i, {dtype = torch.float32})", "torch.ones_like(i, dtype=torch.float32)"),
    ("torch.full_like(i, 2, {dtype = torch.bool})", "torch.full_like(i, 2, dtype=torch.bool)"),
    ("torch.eye(2, 3, {dtype = torch.int64})", "torch.eye(2, 3, dtype=torch.int64)"),
    ("torch.ones(2, {dtpye = torch.int64})", "torch.ones(2, dtpye=torch.int64)"),
    ("torch.tril(m, {diagonal = 1})", "torch.tril(m, diagonal=1)"),
    ("torch.tril(m, {diag = 1})", "torch.tril(m, diag=1)"),
]


def escape(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n")


def run(python, env):
    try:
        r = eval(python, env)
    except Exception:  # PyTorch refuses it: attn must refuse it too
        return "error"
    assert not isinstance(r, bool), "a Python bool prints as True, Lua's as true: " + python
    return str(r)


def gen_dtypes(write):
    env = {"torch": torch}
    lines = []
    for lua, python in PRELUDE + KEYWORD_PRELUDE:
        exec(python, env)
        lines.append("prelude\t%s\t%s" % (lua, python))
    cases = CREATION + arithmetic() + FUNCTIONS + RANDOM + KEYWORDS
    for lua, python in cases:
        lines.append("case\t%s\t%s\t%s" % (lua, python, escape(run(python, env))))
    write("dtypes.txt", "dtype rules and int64 printing: Lua and Python of one computation, and what PyTorch "
          "printed (tab-separated; see scripts/torch_reference_dtypes.py)", lines)
