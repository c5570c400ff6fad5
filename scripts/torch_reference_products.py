"""PyTorch's matrix products and Linear layers, bit for bit, for tests/lua/products_spec.lua.

products.txt, one case a line (see gen_torch_reference.py for the format):

    matmul seed=S a=2,3,4 at=0 b=4,5 bt=1 : <result, float32 bits, row-major>
        torch.manual_seed(S); A = rand(a) * 2 - 1; B = rand(b) * 2 - 1, where at=1 means A is made
        with its last two sizes swapped and then transposed (a view, not a copy), bt likewise; A @ B.
    linear seed=S in=K out=N bias=1 x=2,7,K xt=0 : <y>
        torch.manual_seed(S); lin = nn.Linear(K, N, bias); x = rand(x) * 2 - 1 (xt: transposed as
        above); lin(x). F.linear is addmm(bias, x, W.T) for a 2-D or contiguous 3-D x (the bias sits in
        the output before BLAS adds the product in: that differs from x @ W.T + b beyond ~320 inputs),
        else x @ W.T + b.
    addmm seed=S bias=5 a=3,K b=K,5 : <torch.addmm(bias, A, B)>
    expanded seed=S a=4,5 ae=0 b=5 be=1 : <A @ B>
        as matmul, where ae=1 means A is made with its first size 1 and expanded to a (stride 0: a
        vector of stride 0 makes PyTorch's mv run its own loop instead of sgemv; a matrix of stride 0
        is copied before BLAS reads it), be likewise.

The inputs come from torch.rand, which attn reproduces bit for bit, so only the results are stored.
"""
import torch

# (a, at, b, bt): matrix, vector and batched cases; the batched ones on both sides of PyTorch's
# bmm threshold (k * n * m < 400: its own loop; otherwise one BLAS product per batch).
MATMUL = [
    ((6, 3), 0, (3, 6), 0), ((6, 3), 0, (3, 6), 1), ((7, 5), 0, (5, 4), 0), ((64, 96), 0, (96, 33), 0),
    ((3, 700), 0, (700, 5), 0), ((5, 4), 1, (4, 3), 1),
    ((6, 3), 0, (3,), 0), ((40, 333), 0, (333,), 0), ((3,), 0, (3, 6), 0), ((333,), 0, (333, 40), 0),
    ((17,), 0, (17,), 0),
    ((2, 6, 3), 0, (3, 2), 0), ((2, 6, 3), 0, (3, 2), 1), ((2, 6, 768), 0, (768, 4), 0), ((2, 6, 3), 0, (3,), 0),
    ((2, 6, 3), 1, (3, 4), 0), ((2, 6, 30), 1, (30, 4), 0), ((2, 3, 6), 0, (6,), 0),
    ((2, 6, 3), 0, (2, 3, 6), 0), ((2, 6, 3), 0, (2, 3, 6), 1), ((2, 6, 2), 0, (2, 2, 6), 0),
    ((2, 6, 6), 0, (2, 6, 2), 0), ((2, 6, 6), 0, (2, 6, 3), 0), ((2, 12, 12), 0, (2, 12, 3), 0),
    ((3, 8, 7), 0, (3, 7, 7), 0), ((3, 8, 8), 0, (3, 8, 7), 0), ((2, 20, 20), 0, (2, 20, 20), 0),
    ((2, 2, 6, 1), 0, (2, 2, 1, 6), 1), ((2, 2, 6, 6), 0, (2, 2, 6, 1), 0), ((2, 3, 6, 2), 0, (2, 3, 2, 6), 1),
    ((2, 3, 6, 6), 0, (2, 3, 6, 2), 0), ((1, 2, 3, 4), 0, (1, 2, 4, 3), 1), ((2, 12, 10, 64), 0, (2, 12, 64, 10), 1),
    ((6, 3), 0, (2, 3, 4), 0), ((6, 3), 0, (2, 3, 40), 0), ((2, 1, 6, 3), 0, (4, 3, 5), 0),
    ((6, 3), 0, (2, 3, 4), 1), ((2, 6, 3), 1, (3, 4), 0), ((3,), 0, (2, 3, 6), 0), ((333,), 0, (2, 333, 6), 0),
    ((2, 6, 333), 0, (333,), 0), ((5, 768), 0, (768, 1), 0), ((1, 768), 0, (768, 5), 0), ((1, 768), 0, (768, 1), 0),
    ((5, 768), 1, (768, 1), 0), ((2, 1, 768), 0, (2, 768, 5), 0), ((2, 5, 768), 0, (2, 768, 1), 0),
]

# (in, out, bias, x shape, xt)
LINEAR = [
    (3, 2, 1, (6, 3), 0), (3, 2, 0, (6, 3), 0), (3, 2, 1, (2, 6, 3), 0), (3, 2, 1, (3,), 0),
    (3, 6, 1, (2, 2, 6, 3), 0), (6, 6, 1, (2, 6, 6), 0),
    (320, 4, 1, (5, 320), 0), (321, 4, 1, (5, 321), 0), (768, 8, 1, (3, 768), 0), (768, 8, 1, (2, 5, 768), 0),
    (768, 8, 0, (2, 5, 768), 0), (768, 8, 1, (768,), 0), (768, 4, 1, (2, 2, 3, 768), 0),
    (768, 4, 1, (2, 7, 768), 1), (3, 4, 1, (2, 7, 3), 1), (1024, 3, 1, (4, 1024), 0), (3072, 5, 1, (2, 3072), 0),
    (768, 1, 1, (5, 768), 0), (768, 1, 0, (2, 5, 768), 0), (768, 3, 1, (1, 768), 0), (8, 1, 0, (2, 1, 4, 8), 0),
]

# (a, ae, b, be): operands expanded from a first size of 1
EXPANDED = [
    ((4, 5), 0, (5,), 1), ((40, 333), 0, (333,), 1), ((7, 768), 0, (768,), 1), ((4, 5), 1, (5,), 0),
    ((20, 30), 1, (30, 10), 0), ((6, 30), 0, (30, 8), 1),
]

ADDMM = [((5,), (3, 3), (3, 5)), ((5,), (3, 768), (768, 5)), ((3, 5), (3, 768), (768, 5)), ((5,), (2, 0), (0, 5))]


def operand(shape, transposed):
    x = torch.rand(*(shape[:-2] + (shape[-1], shape[-2]) if transposed else shape)) * 2 - 1
    return x.transpose(-2, -1) if transposed else x


def expanded(shape, e):
    if not e:
        return torch.rand(*shape) * 2 - 1
    return (torch.rand(*((1,) + shape[1:])) * 2 - 1).expand(*shape)


def gen_products(write, f32s):
    lines = []
    for seed, (a, at, b, bt) in enumerate(MATMUL):
        torch.manual_seed(seed)
        A = operand(a, at)  # a, b: the operands' shapes as multiplied (after the transpose)
        B = operand(b, bt)
        lines.append("matmul seed=%d a=%s at=%d b=%s bt=%d : %s"
                     % (seed, ",".join(map(str, a)), at, ",".join(map(str, b)), bt, f32s(A @ B)))
    for seed, (k, n, bias, x, xt) in enumerate(LINEAR):
        torch.manual_seed(100 + seed)
        lin = torch.nn.Linear(k, n, bias=bool(bias))
        X = operand(x, xt)
        with torch.no_grad():
            y = lin(X)
        lines.append("linear seed=%d in=%d out=%d bias=%d x=%s xt=%d : %s"
                     % (100 + seed, k, n, bias, ",".join(map(str, x)), xt, f32s(y)))
    for seed, (c, a, b) in enumerate(ADDMM):
        torch.manual_seed(200 + seed)
        C, A, B = operand(c, 0), operand(a, 0), operand(b, 0)
        lines.append("addmm seed=%d bias=%s a=%s b=%s : %s"
                     % (200 + seed, ",".join(map(str, c)), ",".join(map(str, a)), ",".join(map(str, b)),
                        f32s(torch.addmm(C, A, B))))
    for seed, (a, ae, b, be) in enumerate(EXPANDED):
        torch.manual_seed(300 + seed)
        A, B = expanded(a, ae), expanded(b, be)
        lines.append("expanded seed=%d a=%s ae=%d b=%s be=%d : %s"
                     % (300 + seed, ",".join(map(str, a)), ae, ",".join(map(str, b)), be, f32s(A @ B)))
    write("products.txt", "torch.matmul, nn.Linear and torch.addmm on torch.rand inputs (see "
          "scripts/torch_reference_products.py)", lines)
