-- ops.lua — help for what is computed on tensors: operators, element-wise arithmetic and
-- comparisons, reductions, matrix products and the attention stages (the functions of
-- src/bind/ops.c). Loaded by attn.docs (docs/init.lua).

local D = require("attn.docs.define")
local def, both, method = D.def, D.both, D.method

local broadcast = [=[Shapes broadcast as in PyTorch (sizes are matched from the last dim; a size of 1
stretches), and either side may be a plain number.]=]

def("Tensor.operators", "a + b   a - b   a * b   a / b   a ^ p   -a   a .. s", [=[
The arithmetic operators work element-wise on tensors, with PyTorch's broadcasting, and a number
may stand on either side (1 - x, 2 * x). * is the element-wise product as in PyTorch; Lua has no
@, so the matrix product inputs @ inputs.T is inputs:matmul(inputs.T). Python's ** is Lua's ^, so
d_k**0.5 is d_k^0.5. Dtypes promote as in PyTorch: an int64 tensor times a float is float32, /
always divides as floats. // is an error (there is no floor division of tensors). Lua's == on two
tensors asks whether they are the same object; compare values with torch.equal(a, b) or a:eq(b).
< and <= raise an error, because Lua wants a single true/false from them: use a:lt(b), a:le(b),
a:gt(b), a:ge(b). .. joins a tensor's printed text to a string.]=], [=[
a = torch.tensor{1, 2, 3}                  -- Lua integers: an int64 tensor, as in Python
a * 2 + 1, a ^ 2, 1 / a
--> tensor([3, 5, 7])	tensor([1, 4, 9])	tensor([1.0000, 0.5000, 0.3333])
"a = " .. a * 1.5
--> a = tensor([1.5000, 3.0000, 4.5000])]=])

-- ---- element-wise arithmetic ------------------------------------------------------------------------

both("add", "torch.add(a, b [, {alpha = s}])", "a:add(b [, {alpha = s}])", [=[
The element-wise sum, the same as a + b. ]=] .. broadcast .. [=[ With {alpha = s}, a + s·b rounded once,
as PyTorch's alpha (an int64 result takes an integer s only).]=], [=[
inputs[1] + inputs[2]                 -- inputs: see ?torch.tensor
--> tensor([0.9800, 1.0200, 1.5500])
torch.tensor{1, 2}:add(torch.tensor{10, 20}, {alpha = 2})
--> tensor([21, 42])]=])

both("sub", "torch.sub(a, b [, {alpha = s}])", "a:sub(b [, {alpha = s}])", [=[
The element-wise difference, the same as a - b. ]=] .. broadcast .. [=[ With {alpha = s}, a - s·b.]=], [=[
torch.sub(1, torch.tensor{0.25, 1})
--> tensor([0.7500, 0.0000])]=])

both("mul", "torch.mul(a, b)", "a:mul(b)", [=[
The element-wise product, the same as a * b (not the matrix product: that is a:matmul(b)). ]=] ..
broadcast, [=[
torch.tensor{1, 2} * torch.tensor{3, 4}
--> tensor([3, 8])]=])

both("div", "torch.div(a, b)", "a:div(b)", [=[
The element-wise quotient, the same as a / b; dividing by 0 gives inf or nan, as in PyTorch. The
book's scaling attn_scores / keys.shape[-1]**0.5 is attn_scores / keys.shape[-1]^0.5. ]=] ..
broadcast, [=[
x = torch.tensor{1, 3}
x / x:sum()
--> tensor([0.2500, 0.7500])]=])

both("pow", "torch.pow(x, p)", "x:pow(p)", [=[
Each element of x raised to the power p (a number or a tensor), the same as x ^ p; Python's x**p.
A number base works too: 2 ^ x. Integers to integer powers stay int64 (a negative power is an error,
as in PyTorch).]=], [=[
torch.tensor{2, 3} ^ 2, 2 ^ torch.tensor{2, 3}, torch.tensor{2.0, 3.0} ^ 2
--> tensor([4, 9])	tensor([4, 8])	tensor([4., 9.])]=])

method("add_", "x:add_(b)", [=[
Adds b to x in place and returns x (the trailing underscore means in place, as in PyTorch). b is
broadcast to x's shape; a result of another shape is an error, and so is one of a dtype x cannot
hold (a float result in an int64 x).]=], [=[
torch.ones(3):add_(1)
--> tensor([2., 2., 2.])]=])

method("sub_", "x:sub_(b)", [=[
Subtracts b from x in place and returns x.]=], [=[
torch.ones(3):sub_(torch.tensor{1, 2, 3})
--> tensor([ 0., -1., -2.])]=])

method("mul_", "x:mul_(b)", [=[
Multiplies x by b element-wise in place and returns x.]=], [=[
torch.ones(3):mul_(3)
--> tensor([3., 3., 3.])]=])

method("div_", "x:div_(b)", [=[
Divides x by b element-wise in place and returns x.]=], [=[
torch.ones(3):div_(4)
--> tensor([0.2500, 0.2500, 0.2500])]=])

both("maximum", "torch.maximum(a, b)", "a:maximum(b)", [=[
The element-wise larger of a and b (torch.max(a, b) does the same). ]=] .. broadcast, [=[
torch.maximum(torch.tensor{1, 5}, torch.tensor{3, 2})
--> tensor([3, 5])]=])

both("minimum", "torch.minimum(a, b)", "a:minimum(b)", [=[
The element-wise smaller of a and b (torch.min(a, b) does the same). ]=] .. broadcast, [=[
torch.minimum(torch.tensor{1, 5}, torch.tensor{3, 2})
--> tensor([1, 2])]=])

local unary = {
    {"neg", "-x, the negative of each element.", "torch.tensor{1, -2}:neg()", "tensor([-1,  2])"},
    {"exp", "e to the power of each element. The book's softmax_naive is torch.exp(x) / torch.exp(x):sum(1).",
     "torch.exp(torch.tensor{0, 1})", "tensor([1.0000, 2.7183])"},
    {"log", "The natural logarithm of each element; log(0) is -inf and a negative number gives nan.",
     "torch.log(torch.tensor{1, 2, 0})", "tensor([0.0000, 0.6931,   -inf])"},
    {"sqrt", "The square root of each element; a negative number gives nan.",
     "torch.sqrt(torch.tensor{4, 9})", "tensor([2., 3.])"},
    {"tanh", "The hyperbolic tangent of each element.", "torch.tanh(torch.tensor{0, 1})",
     "tensor([0.0000, 0.7616])"},
    {"abs", "The absolute value of each element.", "torch.abs(torch.tensor{-1.5, 2})", "tensor([1.5000, 2.0000])"},
    {"sigmoid", "1 / (1 + exp(-x)) for each element.", "torch.sigmoid(torch.tensor{0, 2})",
     "tensor([0.5000, 0.8808])"},
    {"relu", "max(x, 0) for each element: negatives become 0 (-0.0 stays -0.0, as in PyTorch).",
     "torch.relu(torch.tensor{-2.0, 0.0, 3.0})", "tensor([0., 0., 3.])"},
}
for _, u in ipairs(unary) do
    local keeps = u[1] == "neg" or u[1] == "abs" or u[1] == "relu"
    both(u[1], "torch." .. u[1] .. "(x)", "x:" .. u[1] .. "()",
         u[2] .. " Element-wise, returns a new tensor of the same shape" ..
         (keeps and " and dtype." or "; an int64 x gives float32, as in PyTorch."), u[3] .. "\n--> " .. u[4])
end

-- ---- comparisons and logic ----------------------------------------------------------------------------

local cmp = {
    eq = {"==", "torch.tensor{1, 2, 3}:eq(torch.tensor{1, 0, 3})", "tensor([ True, False,  True])"},
    ne = {"~=", "torch.tensor{1, 2, 3}:ne(2)", "tensor([ True, False,  True])"},
    lt = {"<", "torch.tensor{1, 2, 3}:lt(2)", "tensor([ True, False, False])"},
    le = {"<=", "torch.tensor{1, 2, 3}:le(2)", "tensor([ True,  True, False])"},
    gt = {">", "torch.tensor{1, 2, 3}:gt(2)", "tensor([False, False,  True])"},
    ge = {">=", "torch.tensor{1, 2, 3}:ge(2)", "tensor([False,  True,  True])"},
}
for _, name in ipairs({"eq", "ne", "lt", "le", "gt", "ge"}) do
    local c = cmp[name]
    both(name, "torch." .. name .. "(a, b)", "a:" .. name .. "(b)", [=[
The element-wise comparison a ]=] .. c[1] .. [=[ b, as a bool tensor (a mask). ]=] .. broadcast .. " " .. [=[
Lua's own comparison operators cannot do this: a == b asks whether a and b are the same object,
and a < b is an error.]=], c[2] .. "\n--> " .. c[3])
end

both("logical_and", "torch.logical_and(a, b)", "a:logical_and(b)", [=[
Element-wise and of two masks: true where both are true (nonzero). Lua's `and` cannot be overloaded,
so this is the way to combine masks.]=], [=[
torch.logical_and(torch.tensor{true, true}, torch.tensor{true, false})
--> tensor([ True, False])]=])

both("logical_or", "torch.logical_or(a, b)", "a:logical_or(b)", [=[
Element-wise or of two masks: true where either is true (nonzero).]=], [=[
torch.logical_or(torch.tensor{true, false}, torch.tensor{false, false})
--> tensor([ True, False])]=])

both("logical_not", "torch.logical_not(x)", "x:logical_not()", [=[
Element-wise not: true where x is false (zero). Flips a mask, e.g. turns the causal keep-mask into a
fill-mask.]=], [=[
torch.tril(torch.ones(2, 2)):logical_not()
--> tensor([[False,  True],
-->         [False, False]])]=])

D.fn("where", "torch.where(cond, a, b)", [=[
Element by element, a where cond is true and b where it is false; a and b may be tensors or
numbers, and all three broadcast together. cond should be a bool tensor (a comparison such as
x:gt(0)); a float cond counts nonzero as true, where PyTorch would refuse it. The method form
x:where(cond, y) is torch.where(cond, x, y), as in PyTorch.]=], [=[
x = torch.tensor{1, -1, 2}
torch.where(x:gt(0), x, 0)
--> tensor([1, 0, 2])]=])

method("where", "x:where(cond, y)", [=[
x where cond is true and y where it is false: PyTorch's x.where(cond, y), the same as
torch.where(cond, x, y). y may be a number; all three broadcast together.]=], [=[
x = torch.tensor{1, -1, 2}
x:where(x:gt(0), 0)
--> tensor([1, 0, 2])]=])

both("equal", "torch.equal(a, b)", "a:equal(b)", [=[
true if a and b have the same shape and the same elements, as a Lua boolean. nan never equals
nan.]=], [=[
torch.equal(torch.ones(2), torch.tensor{1, 1}), torch.equal(torch.ones(2), torch.ones(3))
--> true	false]=])

both("allclose", "torch.allclose(a, b [, rtol [, atol]])", "a:allclose(b [, rtol [, atol]])", [=[
true if every element satisfies |a - b| <= atol + rtol * |b| (rtol defaults to 1e-5, atol to
1e-8), after broadcasting, as PyTorch's allclose: the way to compare float32 results with
expected numbers. nan is never close to anything.]=], [=[
a, b = torch.tensor{1.0, 2.0}, torch.tensor{1, 2.0001}
torch.allclose(a, b), torch.allclose(a, b, 1e-3)
--> false	true]=])

-- ---- reductions ------------------------------------------------------------------------------------

local reduce_args = [=[Without dim it reduces over all elements and returns a 0-d tensor. With dim
(1-based: PyTorch's dim=0 is dim=1 here, -1 is the last) it reduces that dim away, or keeps it with
size 1 when keepdim is true. Keyword arguments go in a trailing table: Python's
x.sum(dim=-1, keepdim=True) is x:sum{dim = -1, keepdim = true}; x:sum(-1, true) also works.]=]

both("sum", "torch.sum(x [, dim [, keepdim]])", "x:sum([dim [, keepdim]])", [=[
The sum of the elements. ]=] .. reduce_args .. [=[ Sums accumulate in float32, in order, as PyTorch does
for small tensors, so the last digit can differ from a sum done in Lua numbers. An int64 tensor sums
exactly to int64, and a bool tensor's sum counts its true elements (an int64), as in PyTorch.]=], [=[
attn_weights = torch.softmax(inputs:matmul(inputs[2]), 1)   -- inputs: see ?torch.tensor
attn_weights:sum()
--> tensor(1.)
inputs:sum{dim = -1, keepdim = true}.T
--> tensor([[1.4700, 2.0800, 2.0600, 1.1300, 1.1200, 1.4000]])]=])

both("mean", "torch.mean(x [, dim [, keepdim]])", "x:mean([dim [, keepdim]])", [=[
The arithmetic mean of the elements. ]=] .. reduce_args .. [=[ The mean of no elements is nan. As
in PyTorch, x must be float32 (the mean of an int64 tensor is an error: x:float():mean()).]=], [=[
inputs:mean(1)                        -- column means; inputs: see ?torch.tensor
--> tensor([0.4317, 0.5833, 0.5283])]=])

both("var", "torch.var(x [, dim [, unbiased [, keepdim]]])", "x:var([dim [, unbiased [, keepdim]]])", [=[
The variance of the elements: the mean of the squared distances from the mean, divided by n - 1
(unbiased, PyTorch's default) or by n (unbiased = false); {correction = c} divides by n - c. dim and
keepdim as in sum; x:var(false) is the biased variance over everything; keyword arguments go in a
trailing table, x:var{dim = -1, unbiased = false, keepdim = true}. Computed as PyTorch computes it, in
double, bit for bit: two passes when there is one result, Welford's update along a dim. Too few
elements for the correction give nan (or inf), as in PyTorch.]=], [=[
x = torch.tensor{{1.0, 2.0, 4.0}, {3.0, 5.0, 9.0}}
x:var(), x:var(2), x:var{dim = 2, unbiased = false}
--> tensor(8.)	tensor([2.3333, 9.3333])	tensor([1.5556, 6.2222])]=])

both("std", "torch.std(x [, dim [, unbiased [, keepdim]]])", "x:std([dim [, unbiased [, keepdim]]])", [=[
The standard deviation, the square root of var with the same arguments (taken in double, as in
PyTorch).]=], [=[
torch.tensor{1.0, 2.0, 4.0}:std(), torch.tensor{1.0, 2.0, 4.0}:std(false)
--> tensor(1.5275)	tensor(1.2472)]=])

both("max", "torch.max(x [, dim [, keepdim]])", "x:max([dim [, keepdim]])", [=[
x:max() is the largest element, as a 0-d tensor. x:max(dim) returns two tensors, the largest values
along dim and their int64 indices, which are 1-based (attn counts from 1; PyTorch returns 0-based
indices in a (values, indices) pair): local values, indices = x:max(2).
keepdim works as in sum, and so does the options table, x:max{dim = -1, keepdim = true}. torch.max(a, b) with two tensors is the element-wise maximum. A nan
anywhere in a slice makes its maximum nan; an empty dim is an error.]=], [=[
values, indices = inputs:max(1)       -- inputs: see ?torch.tensor
values, indices
--> tensor([0.7700, 0.8700, 0.8900])	tensor([5, 2, 1])]=])

both("min", "torch.min(x [, dim [, keepdim]])", "x:min([dim [, keepdim]])", [=[
Like max, for the smallest: x:min() is a 0-d tensor; x:min(dim) returns the values and their 1-based
indices; torch.min(a, b) is the element-wise minimum.]=], [=[
values, indices = inputs:min(-1)      -- inputs: see ?torch.tensor
indices
--> tensor([2, 1, 1, 1, 3, 1])]=])

both("argmax", "torch.argmax(x [, dim [, keepdim]])", "x:argmax([dim [, keepdim]])", [=[
The index of the largest element, 1-based (PyTorch's are 0-based): along dim, a tensor of indices;
without dim, a 0-d tensor holding the position in x read row by row (1 is the first element). Ties
go to the first. The indices are int64, as in PyTorch; use :item() or :tolist() to get Lua integers.]=], [=[
torch.argmax(torch.tensor{0.1, 0.7, 0.2})
--> tensor(2)
inputs:argmax(-1)                     -- inputs: see ?torch.tensor
--> tensor([3, 2, 2, 2, 1, 2])]=])

both("argmin", "torch.argmin(x [, dim [, keepdim]])", "x:argmin([dim [, keepdim]])", [=[
The index of the smallest element, 1-based, as argmax.]=], [=[
torch.tensor{0.3, 0.1, 0.2}:argmin()
--> tensor(2)]=])

-- ---- products -------------------------------------------------------------------------------------

both("matmul", "torch.matmul(a, b)", "a:matmul(b)", [=[
The matrix product, Python's a @ b (Lua has no @). Two 1-D tensors give their dot product (0-d);
a matrix times a vector gives a vector; two matrices give a matrix; with more dims the leading dims
are batch dims and broadcast, so the book's queries @ keys.transpose(2, 3) is
queries:matmul(keys:transpose(3, 4)). The inner sizes must agree, else the error names both shapes:
matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2). Both must have the same dtype, as in PyTorch.
float32 products are computed as PyTorch computes them: BLAS, except small batched products
(k·n·m < 400), which PyTorch adds up in its own loop, in order. int64 products are exact.]=], [=[
inputs:matmul(inputs[2])    -- scores for "journey"; inputs: see ?torch.tensor
--> tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])]=])

both("addmm", "torch.addmm(input, mat1, mat2)", "input:addmm(mat1, mat2)", [=[
input + mat1 · mat2 for matrices mat1 [n, k] and mat2 [k, m], input broadcast to [n, m], computed as
PyTorch computes it: the result starts as input and BLAS adds the product into it. That is how
PyTorch's nn.Linear adds its bias (addmm(bias, x, W.T)), and it differs from mat1:matmul(mat2) + input
in the last bit when k is larger than BLAS's first block (about 320).]=], [=[
torch.addmm(torch.tensor{10.0, 20.0}, torch.ones(2, 3), torch.ones(3, 2))
--> tensor([[13., 23.],
-->         [13., 23.]])]=])

both("mm", "torch.mm(a, b)", "a:mm(b)", [=[
The product of two matrices (both exactly 2-D); matmul handles every other case.]=], [=[
x = inputs[{{1, 2}}]                  -- inputs: see ?torch.tensor
torch.mm(x, x.T)
--> tensor([[0.9995, 0.9544],
-->         [0.9544, 1.4950]])]=])

both("bmm", "torch.bmm(a, b)", "a:bmm(b)", [=[
Batched matrix product of two 3-D tensors with the same batch size: [b, n, m] times [b, m, p]
gives [b, n, p]. No broadcasting; matmul broadcasts.]=], [=[
torch.bmm(torch.ones(2, 6, 3), torch.ones(2, 3, 2)).shape
--> torch.Size([2, 6, 2])]=])

both("dot", "torch.dot(a, b)", "a:dot(b)", [=[
The dot product of two 1-D tensors of the same length, as a 0-d tensor: the book's attention score
torch.dot(x_i, query). For matrices use matmul.]=], [=[
torch.dot(inputs[1], inputs[2])       -- inputs: see ?torch.tensor
--> tensor(0.9544)]=])

-- ---- attention stages -----------------------------------------------------------------------------

both("tril", "torch.tril(x [, diagonal])", "x:tril([diagonal]) / x:tril{diagonal = k}", [=[
A copy of x keeping the elements on and below the diagonal and setting those above it to 0: the
book's mask_simple = torch.tril(torch.ones(context_length, context_length)). diagonal = k moves the
line k places up (k > 0) or down (k < 0). Works on the last two dims, so a batch of matrices is
fine; x needs at least 2 dims.]=], [=[
torch.tril(torch.ones(3, 3))
--> tensor([[1., 0., 0.],
-->         [1., 1., 0.],
-->         [1., 1., 1.]])]=])

both("triu", "torch.triu(x [, diagonal])", "x:triu([diagonal]) / x:triu{diagonal = k}", [=[
A copy of x keeping the elements on and above the diagonal and setting those below it to 0. The
book's causal mask torch.triu(torch.ones(n, n), diagonal=1), ones strictly above the diagonal, is
torch.triu(torch.ones(n, n), 1) or torch.triu(torch.ones(n, n), {diagonal = 1}).]=], [=[
torch.triu(torch.ones(3, 3), 1)
--> tensor([[0., 1., 1.],
-->         [0., 0., 1.],
-->         [0., 0., 0.]])]=])

both("masked_fill", "torch.masked_fill(x, mask, value)", "x:masked_fill(mask, value)", [=[
A copy of x with value written wherever mask is true. mask must be a bool tensor (a float mask is an
error that says to use mask:bool()) and broadcasts to x's shape. The book's
attn_scores.masked_fill(mask.bool(), -torch.inf) is attn_scores:masked_fill(mask:bool(), -torch.inf);
softmax then gives the masked positions weight 0.]=], [=[
mask = torch.triu(torch.ones(3, 3), 1)
torch.ones(3, 3):masked_fill(mask:bool(), -torch.inf)
--> tensor([[1., -inf, -inf],
-->         [1., 1., -inf],
-->         [1., 1., 1.]])]=])

method("masked_fill_", "x:masked_fill_(mask, value)", [=[
masked_fill in place: writes value into x wherever the bool mask is true and returns x. The book's
attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf) is
attn_scores:masked_fill_(self.mask:bool()[{{1, num_tokens}, {1, num_tokens}}], -torch.inf).]=], [=[
scores = torch.ones(2, 2)
mask = torch.triu(torch.ones(4, 4), 1)
scores:masked_fill_(mask:bool()[{{1, 2}, {1, 2}}], -torch.inf)
--> tensor([[1., -inf],
-->         [1., 1.]])]=])

both("softmax", "torch.softmax(x, dim)", "x:softmax(dim)", [=[
Normalises x along dim so that the values are positive and sum to 1: exp(x) / sum(exp(x)). dim is
required and 1-based, so the book's dim=0 is 1 here and dim=-1 (the last dim, one row of attention
weights) stays -1; {dim = -1} also works. The row maximum is subtracted first, so large scores do
not overflow. -inf scores get weight 0 (the causal mask); a row that is all -inf gives nan, as in
PyTorch.]=], [=[
scores = inputs:matmul(inputs[2])    -- inputs: see ?torch.tensor
torch.softmax(scores, 1)             -- attention weights for "journey"
--> tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])
torch.softmax(torch.tensor{{1, -torch.inf}, {-torch.inf, -torch.inf}}, -1)
--> tensor([[1., 0.],
-->         [nan, nan]])]=])

both("log_softmax", "torch.log_softmax(x, dim)", "x:log_softmax(dim)", [=[
The logarithm of softmax(x, dim), computed directly (more accurate than softmax(x, dim):log()).
dim is required and 1-based, as for softmax.]=], [=[
torch.log_softmax(torch.tensor{1.0, 2.0, 3.0}, -1)
--> tensor([-2.4076, -1.4076, -0.4076])]=])
