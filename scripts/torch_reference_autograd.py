"""torch_reference_autograd.py — PyTorch's gradients for attn's autograd: tests/data/torch/autograd.txt,
read by tests/lua/autograd_reference_spec.lua.

For each op, on shapes that cross the vector widths (8 and 16 floats) and OpenBLAS's blocking sizes: the inputs
(seeded torch.randn, written as float32 bit patterns, so attn reads the very numbers), the upstream gradient
grad_out, the forward result out, and the gradient of every input (grad.1, grad.2, ...) after
out.backward(grad_out). The book's attention classes (seeds 123 and 789 as the book uses them) and chapter 4's
GPTModel on a small configuration: every parameter's gradient of loss = (out * grad_out).sum().

Layout (support.case_file in tests/lua/support.lua):
    case name=<id> op=<op> [key=value ...] : -
    tensor case=<id> name=<name> shape=<d1,d2,...> : <bits>      (int64 name=... : decimal ids, 0-based)
Run through scripts/gen-torch-reference.sh (OPENBLAS_CORETYPE=Haswell, one thread).
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)
from torch_reference_gpt2 import GPTModel  # noqa: E402  (the book's chapter 4 classes)


LINES = fmt.CaseLines()
tensor_line = LINES.put


def positive(t):
    return t.abs() + 0.5


# op name -> (function of the inputs, how many float inputs, extra keys written to the case line)
OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "add_scalar": lambda a: a + 0.5,
    "rsub_scalar": lambda a: 1 - a,
    "mul_scalar": lambda a: a * 3.0,
    "div_scalar": lambda a: a / 8 ** 0.5,
    "neg": lambda a: -a,
    "exp": lambda a: torch.exp(a),
    "log": lambda a: torch.log(a),
    "tanh": lambda a: torch.tanh(a),
    "sqrt": lambda a: torch.sqrt(a),
    "sigmoid": lambda a: torch.sigmoid(a),
    "relu": lambda a: torch.relu(a),
    "pow2": lambda a: torch.pow(a, 2),
    "pow3": lambda a: torch.pow(a, 3),
    "gelu": lambda a: F.gelu(a),
    "gelu_tanh": lambda a: F.gelu(a, approximate="tanh"),
    "silu": lambda a: F.silu(a),
    "sum": lambda a: a.sum(),
    "sum_dim": lambda a: a.sum(dim=-1),
    "sum_dim0_keep": lambda a: a.sum(dim=0, keepdim=True),
    "mean": lambda a: a.mean(),
    "mean_dim": lambda a: a.mean(dim=-1, keepdim=True),
    "softmax": lambda a: torch.softmax(a, dim=-1),
    "softmax_dim0": lambda a: torch.softmax(a, dim=0),
    "matmul": lambda a, b: a @ b,
    "mm": lambda a, b: torch.mm(a, b),
    "bmm": lambda a, b: torch.bmm(a, b),
    "linear": lambda x, w, b: F.linear(x, w, b),
    "linear_nobias": lambda x, w: F.linear(x, w),
    "view": lambda a: a.view(-1),
    "transpose": lambda a: a.transpose(0, 1) * 1.5,
    "permute": lambda a: a.permute(2, 0, 1) * 1.5,
    "T": lambda a: a.T @ a,
    "narrow": lambda a: a.narrow(1, 1, 2),
    "select": lambda a: a[1],
    "expand": lambda a: a.expand(3, a.shape[0], a.shape[1]) * 2,
    "unsqueeze": lambda a: a.unsqueeze(1),
    "cat": lambda a, b: torch.cat((a, b), dim=-1),
    "stack": lambda a, b: torch.stack((a, b), dim=0),
    "masked_fill": lambda a: a.masked_fill(torch.triu(torch.ones(a.shape[-2], a.shape[-1]), diagonal=1).bool(), -torch.inf).softmax(-1),
    "layer_norm": lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b),
    "layer_norm_plain": lambda x: F.layer_norm(x, (x.shape[-1],)),
    "x_times_x": lambda a: a * a + a,
    "attention": lambda q, k, v: torch.softmax((q @ k.transpose(-2, -1)) / k.shape[-1] ** 0.5, dim=-1) @ v,
}

# The inputs of each case: a list of shapes (or a function of a generator for special inputs).
CASES = [
    ("add", [(4, 17), (17,)]), ("add", [(2, 3, 9), (3, 1)]), ("add", [(16, 16), (16, 16)]),
    ("sub", [(4, 17), (17,)]), ("sub", [(2, 1, 8), (5, 8)]),
    ("mul", [(4, 17), (17,)]), ("mul", [(3, 33), (3, 33)]), ("mul", [(2, 3, 9), (3, 1)]),
    ("div", [(4, 17), ("pos", 17)]), ("div", [(3, 33), ("pos", 3, 33)]),
    ("add_scalar", [(5, 9)]), ("rsub_scalar", [(5, 9)]), ("mul_scalar", [(5, 9)]), ("div_scalar", [(6, 6)]),
    ("neg", [(7, 17)]),
    ("exp", [(7, 17)]), ("log", [("pos", 7, 17)]), ("tanh", [(7, 17)]), ("sqrt", [("pos", 7, 17)]),
    ("sigmoid", [(7, 17)]), ("relu", [(7, 17)]), ("pow2", [(7, 17)]), ("pow3", [(7, 17)]),
    ("gelu", [(7, 17)]), ("gelu_tanh", [(7, 17)]), ("silu", [(7, 17)]),
    ("sum", [(7, 17)]), ("sum_dim", [(3, 40)]), ("sum_dim0_keep", [(9, 17)]), ("mean", [(7, 17)]),
    ("mean_dim", [(3, 40)]),
    ("softmax", [(4, 7)]), ("softmax", [(3, 17)]), ("softmax", [(2, 5, 33)]), ("softmax", [(6, 64)]),
    ("softmax_dim0", [(6, 5)]),
    ("matmul", [(5, 7), (7, 3)]), ("matmul", [(33, 65), (65, 17)]), ("matmul", [(2, 6, 3), (3, 2)]),
    ("matmul", [(2, 6, 5), (2, 5, 6)]), ("matmul", [(2, 2, 6, 3), (2, 2, 3, 6)]), ("matmul", [(9,), (9,)]),
    ("matmul", [(5, 9), (9,)]), ("matmul", [(9,), (9, 4)]), ("matmul", [(2, 6, 3), (2, 3, 6)]),
    ("mm", [(17, 33), (33, 9)]), ("bmm", [(3, 8, 16), (3, 16, 5)]),
    ("linear", [(6, 3), (2, 3), (2,)]), ("linear", [(2, 6, 3), (4, 3), (4,)]), ("linear", [(4, 65), (33, 65), (33,)]),
    ("linear_nobias", [(6, 3), (2, 3)]), ("linear_nobias", [(2, 6, 8), (16, 8)]),
    ("view", [(3, 4)]), ("transpose", [(3, 5)]), ("permute", [(2, 3, 4)]), ("T", [(6, 3)]), ("narrow", [(3, 5)]),
    ("select", [(3, 5)]), ("expand", [(1, 5)]), ("unsqueeze", [(3, 5)]), ("cat", [(3, 2), (3, 4)]),
    ("stack", [(3, 4), (3, 4)]), ("masked_fill", [(6, 6)]), ("masked_fill", [(2, 2, 5, 5)]),
    ("layer_norm", [(2, 3, 8), (8,), (8,)]), ("layer_norm", [(4, 33), (33,), (33,)]),
    ("layer_norm", [(3, 5), (5,), (5,)]), ("layer_norm", [(2, 768), (768,), (768,)]),
    ("layer_norm_plain", [(2, 3, 8)]), ("layer_norm_plain", [(3, 7)]), ("layer_norm_plain", [(2, 130)]),
    ("x_times_x", [(5, 17)]),
    ("attention", [(6, 2), (6, 2), (6, 2)]), ("attention", [(2, 6, 4), (2, 6, 4), (2, 6, 3)]),
    ("attention", [(2, 2, 9, 8), (2, 2, 9, 8), (2, 2, 9, 8)]),
]


# The ops whose backward came later (src/lua/autograd/ops_pointwise.lua, topk in ops_learn.lua), drawn from
# their own generator after the others, so that adding them left every earlier case's numbers as they were.
OPS.update({
    "sin": lambda a: torch.sin(a),
    "cos": lambda a: a.cos(),
    "erf": lambda a: torch.erf(a),
    "where": lambda a, b: torch.where(a > 0, a, b),
    "where_scalar": lambda a: torch.where(a > 0, a, 0.0),
    "where_method": lambda a, b: a.where(a < b, b),
    "maximum": lambda a, b: torch.maximum(a, b),
    "minimum": lambda a, b: torch.minimum(a, b),
    # the first two rows equal: PyTorch shares a tie's gradient half and half
    "maximum_tie": lambda a, b: torch.maximum(a, torch.cat((a[:2], b), dim=0)),
    "minimum_tie": lambda a, b: a.minimum(torch.cat((a[:2], b), dim=0)),
    "max_other": lambda a, b: a.max(b),
    "topk": lambda a: torch.topk(a, 3)[0],
    "topk_smallest": lambda a: torch.topk(a, 2, dim=-1, largest=False)[0],
    "addcmul": lambda x, a, b: torch.addcmul(x, a, b),
    "addcmul_value": lambda x, a, b: x.addcmul(a, b, value=0.37),
    "addcdiv": lambda x, a, b: torch.addcdiv(x, a, b),
    "addcdiv_value": lambda x, a, b: x.addcdiv(a, b, value=-1.3),
    "rope": lambda x, a: x * a.cos() + x.flip(-1) * a.sin(),
})
LATER_CASES = [
    ("sin", [(7, 17)]), ("sin", [(3, 40)]), ("cos", [(7, 17)]), ("cos", [(3, 40)]),
    ("erf", [(7, 17)]), ("erf", [(3, 40)]),
    ("where", [(4, 17), (17,)]), ("where", [(3, 33), (3, 33)]), ("where_scalar", [(5, 9)]),
    ("where_method", [(4, 17), (4, 1)]),
    ("maximum", [(4, 17), (17,)]), ("maximum", [(3, 33), (3, 33)]), ("minimum", [(4, 17), (4, 1)]),
    ("maximum_tie", [(5, 9), (3, 9)]), ("minimum_tie", [(5, 9), (3, 9)]), ("max_other", [(3, 17), (3, 17)]),
    ("topk", [(5, 17)]), ("topk_smallest", [(6, 9)]),
    ("addcmul", [(4, 17), (4, 17), (17,)]), ("addcmul_value", [(3, 33), (3, 33), (3, 33)]),
    ("addcdiv", [(4, 17), (4, 17), ("pos", 17)]), ("addcdiv_value", [(3, 33), (3, 1), ("pos", 3, 33)]),
    ("rope", [(6, 16), (6, 16)]),
]


def gen_ops(g, cases=CASES, first=0):
    for i, (op, shapes) in enumerate(cases, first):
        case = "%s_%d" % (op, i)
        inputs = []
        for s in shapes:
            pos = s[0] == "pos"
            dims = s[1:] if pos else s
            t = torch.randn(*dims, generator=g)
            inputs.append(positive(t) if pos else t)
        inputs = [t.clone().requires_grad_() for t in inputs]
        out = OPS[op](*inputs)
        grad_out = torch.randn(tuple(out.shape), generator=g)
        out.backward(grad_out)
        LINES.append("case name=%s op=%s grad_fn=%s : -" % (case, op, type(out.grad_fn).__name__))
        for k, t in enumerate(inputs):
            tensor_line(case, "in.%d" % (k + 1), t)
        tensor_line(case, "grad_out", grad_out)
        tensor_line(case, "out", out)
        for k, t in enumerate(inputs):
            tensor_line(case, "grad.%d" % (k + 1), t.grad)


# ---- the book's classes (ch. 3), as the book writes them ----------------------------------------------------

class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return attn_weights @ values


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return attn_weights @ values


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        return attn_weights @ values


from torch_reference_gpt2 import MultiHeadAttention  # noqa: E402  (the book's, as written in ch. 3)

INPUTS = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])


def gen_module(g, case, seed, make, x, extra=""):
    torch.manual_seed(seed)
    m = make()
    out = m(x)
    w = torch.randn(tuple(out.shape), generator=g)
    loss = (out * w).sum()
    loss.backward()
    LINES.append("case name=%s op=module seed=%d%s : -" % (case, seed, extra))
    tensor_line(case, "x", x)
    tensor_line(case, "grad_out", w)
    tensor_line(case, "out", out)
    for name, p in m.named_parameters():
        tensor_line(case, "grad." + name, p.grad)


def gen_classes(g):
    batch = torch.stack((INPUTS, INPUTS), dim=0)
    gen_module(g, "sa_v1", 123, lambda: SelfAttention_v1(3, 2), INPUTS)
    gen_module(g, "sa_v2", 789, lambda: SelfAttention_v2(3, 2), INPUTS)
    gen_module(g, "causal", 123, lambda: CausalAttention(3, 2, 6, 0.0), batch)
    gen_module(g, "mha", 123, lambda: MultiHeadAttention(3, 2, 6, 0.0, num_heads=2), batch)
    gen_module(g, "mha_wide", 123, lambda: MultiHeadAttention(24, 24, 16, 0.0, num_heads=3),
               torch.randn(2, 16, 24, generator=g))
    cfg = {"vocab_size": 50, "context_length": 8, "emb_dim": 16, "n_heads": 2, "n_layers": 2,
           "drop_rate": 0.0, "qkv_bias": False}
    ids = torch.randint(0, 50, (2, 8), generator=g)
    torch.manual_seed(123)
    model = GPTModel(cfg)
    logits = model(ids)
    w = torch.randn(tuple(logits.shape), generator=g)
    (logits * w).sum().backward()
    LINES.append("case name=gpt op=gpt seed=123 vocab_size=50 context_length=8 emb_dim=16 n_heads=2 n_layers=2 : -")
    tensor_line("gpt", "ids", ids)
    tensor_line("gpt", "grad_out", w)
    tensor_line("gpt", "out", logits)
    for name, p in model.named_parameters():
        tensor_line("gpt", "grad." + name, p.grad)


# ---- printing: tests/data/torch/autograd_print.txt --------------------------------------------------------------
# Each tensor is made from exact float32 values attn makes the same way: ((arange(n) % 7) - 3) * step, reshaped.
PRINT_SHAPES = [(), (3,), (6,), (8,), (10,), (20,), (1, 12), (3, 4), (6, 6), (2, 3, 4), (2, 1, 7), (0,), (0, 3),
                (40, 40), (5, 13)]
PRINT_STEPS = [0.25, 0.1234567, 1e6, 1e-5]
PRINT_OPS = [("leaf", lambda x: x), ("mul", lambda x: x * 1.5), ("sum_last", lambda x: x.sum(-1) if x.dim() else x * 1),
             ("softmax", lambda x: torch.softmax(x, -1) if x.dim() else x / 2), ("param", None)]


def base_tensor(shape, step):
    n = 1
    for d in shape:
        n *= d
    return ((torch.arange(n) % 7).float() - 3).mul(step).reshape(shape)


def gen_print(write):
    lines = []
    k = 0
    for shape in PRINT_SHAPES:
        for step in PRINT_STEPS:
            for op, f in PRINT_OPS:
                x = base_tensor(shape, step).requires_grad_()
                text = repr(nn.Parameter(base_tensor(shape, step))) if op == "param" else repr(f(x))
                k += 1
                lines.append("=== %d shape=%s step=%s op=%s" % (k, ",".join(map(str, shape)) or "-", float.hex(step), op))
                lines.append(text)
    write("autograd_print.txt", "print: autograd suffixes (grad_fn=<...>, requires_grad=True) and Parameter "
          "containing:, as PyTorch's _tensor_str lays them out", lines)


def main(out_dir):
    g = torch.Generator().manual_seed(23)
    gen_ops(g)
    gen_classes(g)
    gen_ops(torch.Generator().manual_seed(29), LATER_CASES, len(CASES))
    write = fmt.writer(out_dir)
    write("autograd.txt", "autograd: inputs, upstream gradient, forward result and PyTorch's gradients per op; the "
          "book's classes' parameter gradients of (out * grad_out).sum()", LINES)
    gen_print(write)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch"))
