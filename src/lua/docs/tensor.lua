-- tensor.lua — help for tensors themselves: properties, indexing, shapes and views, conversion
-- (the functions of src/bind/tensor.c). Loaded by attn.docs (docs/init.lua).

local D = require("attn.docs.define")
local def, both, method = D.def, D.both, D.method
local methods = require("attn.bind").methods

-- ---- the tensor type ------------------------------------------------------------------------------

local names = {}
for k in pairs(methods) do names[#names + 1] = k end
table.sort(names)

def("Tensor", "Tensor", [=[
A tensor is an n-dimensional array of float32 numbers, int64 integers (ids, indices) or booleans
(masks), made by torch.tensor, torch.zeros, torch.rand and friends. Methods are called with a colon, x:sum(),
and most also exist as torch.f(x, ...); properties use a dot: x.shape, x.T, x.ndim, x.dtype (see
?Tensor.shape). Indices and dims are 1-based, so Python's dim=0 is dim=1 here and -1 is still the
last (?Tensor.indexing); keyword arguments go in a trailing table, x:sum{dim = -1, keepdim = true};
operators are element-wise and Lua has no @, so a matrix product is a:matmul(b)
(?Tensor.operators). Methods: ]=] .. table.concat(names, ", ") .. ".", [=[
x = torch.tensor{{1.0, 2.0}, {3.0, 4.0}}
x:sum(), x.shape, x.T:matmul(x)[1]
--> tensor(10.)	torch.Size([2, 2])	tensor([10., 14.])]=])

def("Tensor.indexing", "x[i]   x[{i, j}]   x[{i, {first, last}}]   x[{{}, j}]   x[{i, torch.tensor{j, k}}]   x[...] = v", [=[
Indices are 1-based, as in the book's math (x^(2) is inputs[2]; Python's inputs[1]), and negative
ones count from the end. x[i] is row i (a view that shares x's storage); of a 1-D tensor it is a
Lua number, where PyTorch gives a 0-d tensor (a 0-d tensor here too when x requires grad, so that the
graph is kept: x[i]:item() is the number). A table selects in several dims at once: a number
picks one index (that dim goes away), {first, last} a range with both ends included (Python's
first-1:last), and {} or ":" the whole dim, so Python's x[:, 0] is x[{{}, 1}] and x[0, 1] is
x[{1, 2}]. An index out of range, 0 and #x + 1 included, is an error (PyTorch's IndexError).
Assigning, x[i] = v or x[{...}] = v, writes a number or a tensor (broadcast to the slot) into x. #x
is the size of dim 1, and ipairs(x) (attn's, see ?ipairs) and pairs(x) walk the rows. A Python list
of indices is an int64 tensor of 1-based indices here, because {a, b} is already a range: Python's
probas[0, [0, 1, 2], targets[0]] is probas[{1, torch.tensor{1, 2, 3}, targets[1]}]. Such an index
picks those elements (PyTorch's advanced indexing: the index tensors broadcast together) into a new
tensor, not a view, so assigning through it is refused.]=], [=[
inputs[2]                        -- "journey"; inputs: see ?torch.tensor
--> tensor([0.5500, 0.8700, 0.6600])
inputs[{{1, 2}, -1}]             -- Python: inputs[0:2, -1]
--> tensor([0.8900, 0.6600])
inputs[{torch.tensor{1, 3}, 1}]  -- Python: inputs[[0, 2], 0]
--> tensor([0.4300, 0.5700])
x = torch.zeros(2, 3)
x[{{}, 1}] = 1                   -- Python: x[:, 0] = 1
x
--> tensor([[1., 0., 0.],
-->         [1., 0., 0.]])]=])

def("ipairs", "for i, row in ipairs(x) do ... end   for i, x, y in ipairs(loader) do ... end", [=[
Python's enumerate. attn's ipairs is Lua's, which also walks the rows of a tensor (i from 1 to #x,
each row as x[i] gives it; a 0-d tensor is an error, as in PyTorch) and the batches of a
torch.utils.data.DataLoader (i, then the batch's values: one pass, as for x, y in loader do).
Lua's own ipairs stops at the first nil, and a tensor has none: x[#x + 1] is an error (PyTorch's
IndexError). On a Lua list it is Lua's ipairs (src/lua/ipairs.lua).]=], [=[
for i, x_i in ipairs(torch.tensor{{1, 2}, {3, 4}}) do print(i, x_i) end  -- Python: enumerate(inputs)
--> 1	tensor([1, 2])
--> 2	tensor([3, 4])]=], require("attn.ipairs"))

-- ---- properties -----------------------------------------------------------------------------------

def("Tensor.shape", "x.shape", [=[
The sizes of x, as a torch.Size: x.shape[1] is the size of the first dim (Python's x.shape[0]) and
x.shape[-1] the last, as in the book's keys.shape[-1]. The same as x:size(). It is a new table each
time, so changing it does not change x; use x:view or x:reshape for that.]=], [=[
inputs.shape, inputs.shape[-1]        -- inputs: see ?torch.tensor
--> torch.Size([6, 3])	3]=])

def("Tensor.T", "x.T", [=[
The transpose of a matrix: rows become columns. It is a view (no copy: it shares x's storage), so
the book's inputs @ inputs.T is inputs:matmul(inputs.T). Its layout is not row-major, so view()
on it fails; use reshape() or contiguous(). On a tensor with more than 2 dims x.T reverses all
dims, as PyTorch does; to transpose each matrix of a batch use x:transpose(2, 3) or x.mT.]=], [=[
torch.tensor{{1, 2}, {3, 4}}.T
--> tensor([[1, 3],
-->         [2, 4]])]=])

def("Tensor.mT", "x.mT", [=[
x with its last two dims swapped (a view): the transpose of every matrix in a batch, PyTorch's
x.mT. The same as x:transpose(-2, -1). x needs at least 2 dims.]=], [=[
torch.ones(2, 6, 3).mT.shape
--> torch.Size([2, 3, 6])]=])

def("Tensor.ndim", "x.ndim", [=[
The number of dims of x (0 for a scalar tensor), the same as x:dim() and #x.shape.]=], [=[
inputs.ndim, torch.tensor(5).ndim     -- inputs: see ?torch.tensor
--> 2	0]=])

def("Tensor.dtype", "x.dtype", [=[
The element type of x: torch.float32 for numbers, torch.int64 for integers (ids, indices), torch.bool
for masks. attn has no other dtypes.]=], [=[
torch.ones(2).dtype, torch.tensor{1, 2}.dtype, torch.ones(2):bool().dtype
--> torch.float32	torch.int64	torch.bool]=])

-- ---- shapes and sizes ------------------------------------------------------------------------------

method("size", "x:size([dim])", [=[
Without dim, the shape of x as a torch.Size (the same as x.shape); with dim (1-based, -1 for the
last), the size of that dim as an integer. Python's x.size(0) is x:size(1).]=], [=[
inputs:size(), inputs:size(-1)        -- inputs: see ?torch.tensor
--> torch.Size([6, 3])	3]=])

method("dim", "x:dim()", [=[
The number of dims of x, the same as x.ndim.]=], [=[
torch.ones(2, 6, 3):dim()
--> 3]=])

both("numel", "torch.numel(x)", "x:numel()", [=[
The number of elements of x (the product of its sizes), as a Lua integer.]=], [=[
inputs:numel()                        -- inputs: see ?torch.tensor
--> 18]=])

-- ---- views: new shapes over the same storage ---------------------------------------------------------

method("view", "x:view(size...)", [=[
The same elements with a new shape, sharing x's storage (no copy: writing through the view changes
x). The sizes are numbers or one table, and one of them may be -1 to be worked out from the
others; their product must equal x:numel(). As in PyTorch, view needs a layout it can describe
without copying: on a transposed or otherwise non-contiguous tensor it fails with an error that
suggests x:contiguous():view(...) or x:reshape(...). The book's keys.view(b, num_tokens,
self.num_heads, self.head_dim) is keys:view(b, num_tokens, self.num_heads, self.head_dim).]=], [=[
inputs:view(2, -1).shape              -- inputs: see ?torch.tensor
--> torch.Size([2, 9])
y = torch.zeros(2, 2)
y:view(4)[1] = 7                      -- writes into y
y
--> tensor([[7., 0.],
-->         [0., 0.]])]=])

both("reshape", "torch.reshape(x, size...)", "x:reshape(size...)", [=[
The same elements in row-major order with a new shape; one size may be -1 to be worked out. Like
view, but when the layout does not allow a view (after a transpose) it copies instead of failing,
so it works on any tensor. Whether the result shares x's storage therefore depends on x.]=], [=[
torch.tensor{{1, 2}, {3, 4}}.T:reshape(4)     -- view(4) would fail here
--> tensor([1, 3, 2, 4])]=])

both("flatten", "torch.flatten(x [, start_dim [, end_dim]])", "x:flatten([start_dim [, end_dim]])", [=[
Merges the dims from start_dim to end_dim (1-based, both included; by default all of them, 1 to -1)
into one. Python's x.flatten(1) (keep the batch dim) is x:flatten(2) here. A view when possible,
otherwise a copy, as reshape.]=], [=[
torch.ones(2, 3, 4):flatten(2).shape
--> torch.Size([2, 12])]=])

both("transpose", "torch.transpose(x, dim1, dim2)", "x:transpose(dim1, dim2)", [=[
Swaps two dims (a view, no copy). Dims are 1-based, so the book's keys.transpose(1, 2) (swap the
token and head dims) is keys:transpose(2, 3) here, and queries @ keys.transpose(2, 3) is
queries:matmul(keys:transpose(3, 4)). -1 and -2 are the last two dims in both. Both dims must be
given.]=], [=[
torch.ones(2, 6, 3):transpose(2, 3).shape
--> torch.Size([2, 3, 6])]=])

both("t", "torch.t(x)", "x:t()", [=[
The transpose of a matrix (x.T for 2 dims); a 1-D or 0-d tensor is returned as it is. For more than
2 dims it is an error: use x:transpose(a, b).]=], [=[
torch.tensor{{1, 2}, {3, 4}}:t()
--> tensor([[1, 3],
-->         [2, 4]])]=])

both("permute", "torch.permute(x, dims...)", "x:permute(dims...)", [=[
Reorders the dims (a view): dim i of the result is dim dims[i] of x. Dims are 1-based and given as
numbers or one table, so Python's x.permute(2, 0, 1) is x:permute(3, 1, 2).]=], [=[
torch.ones(2, 6, 3):permute(3, 1, 2).shape
--> torch.Size([3, 2, 6])]=])

both("unsqueeze", "torch.unsqueeze(x, dim)", "x:unsqueeze(dim)", [=[
Inserts a dim of size 1 at position dim (a view). Python's x.unsqueeze(0) is x:unsqueeze(1);
-1 adds one at the end.]=], [=[
inputs[2]:unsqueeze(1).shape          -- inputs: see ?torch.tensor
--> torch.Size([1, 3])]=])

both("squeeze", "torch.squeeze(x [, dim])", "x:squeeze([dim])", [=[
Removes dim (1-based) if its size is 1 and leaves x's shape as it is otherwise; without dim, removes
every dim of size 1. A view.]=], [=[
x = torch.ones(2, 1, 3)
x:squeeze().shape, x:squeeze(1).shape
--> torch.Size([2, 3])	torch.Size([2, 1, 3])]=])

method("expand", "x:expand(size...)", [=[
A view of x repeated along its dims of size 1 to the given sizes, without copying (the repeats share
one element). New leading dims may be added. The sizes are numbers or one table; unlike PyTorch, -1
("keep this size") is not accepted: write the size.]=], [=[
torch.tensor{{1}, {2}}:expand(2, 3)
--> tensor([[1, 1, 1],
-->         [2, 2, 2]])]=])

both("narrow", "torch.narrow(x, dim, start, length)", "x:narrow(dim, start, length)", [=[
A view of length elements along dim, starting at start (1-based; negative counts from the end).
Python's x.narrow(0, 1, 3) is x:narrow(1, 2, 3). The same as x[{{start, start + length - 1}}] in
dim 1.]=], [=[
inputs:narrow(1, 2, 2)                -- inputs: see ?torch.tensor
--> tensor([[0.5500, 0.8700, 0.6600],
-->         [0.5700, 0.8500, 0.6400]])]=])

both("flip", "torch.flip(x, dims)", "x:flip(dims)", [=[
A copy of x with the order of its elements reversed along each of dims (a dim, several, or a table of
them; attn's dims, 1-based: Python's x.flip(1) is x:flip(2)). Differentiable: the gradient is flipped
back along the same dims (FlipBackward0, as PyTorch's).]=], [=[
torch.tensor{{1, 2, 3}, {4, 5, 6}}:flip(2)      -- Python: .flip(1), the columns reversed
--> tensor([[3, 2, 1],
-->         [6, 5, 4]])]=])

both("select", "torch.select(x, dim, index)", "x:select(dim, index)", [=[
The slice at index along dim, with that dim removed (a view). Both are 1-based: x:select(1, i) is
x[i], and Python's x[:, 0] is x:select(2, 1).]=], [=[
inputs:select(2, 1)                   -- inputs: see ?torch.tensor
--> tensor([0.4300, 0.5500, 0.5700, 0.2200, 0.7700, 0.0500])]=])

method("is_contiguous", "x:is_contiguous()", [=[
true if x's elements lie in memory in row-major order without gaps, as in a freshly made tensor;
false after a transpose, x.T, expand or a column slice. view needs a contiguous layout.]=], [=[
inputs:is_contiguous(), inputs.T:is_contiguous()    -- inputs: see ?torch.tensor
--> true	false]=])

method("contiguous", "x:contiguous()", [=[
x's values in row-major layout: a new handle on the same storage when x already is contiguous, a
copy otherwise. The usual fix before view: x.T:contiguous():view(-1).]=], [=[
inputs.T:contiguous():view(-1)[2]     -- inputs: see ?torch.tensor
--> 0.55000001192093]=])

-- ---- copies, conversion, filling ------------------------------------------------------------------

both("clone", "torch.clone(x)", "x:clone()", [=[
A copy of x with its own storage (contiguous), so changing one does not change the other.]=], [=[
a = torch.ones(2); b = a:clone(); b[1] = 5
a, b
--> tensor([1., 1.])	tensor([5., 1.])]=])

method("item", "x:item()", [=[
The only element of a one-element tensor, as a Lua number (an integer for an int64 tensor, a boolean
for a bool tensor). Any other number of elements is an error. The float32 value is widened to a Lua double, so 0.1 shows as
0.10000000149012 (PyTorch's item() prints the same double as 0.10000000149011612).]=], [=[
inputs:sum():item()                   -- inputs: see ?torch.tensor
--> 9.2599992752075]=])

method("tolist", "x:tolist()", [=[
x as nested Lua tables of numbers (integers for an int64 tensor, booleans for a bool tensor), one
level per dim, 1-based; a 0-d tensor gives a number.]=], [=[
torch.eye(2):tolist()[2][2]
--> 1.0]=])

method("bool", "x:bool()", [=[
x as a bool tensor: true where x is nonzero. The book's mask.bool() is mask:bool(), the form
masked_fill wants. As in PyTorch, a tensor that already is bool is not copied: the result shares
its storage.]=], [=[
torch.tensor{0, 1, 2}:bool()
--> tensor([False,  True,  True])]=])

method("float", "x:float()", [=[
x as float32: true becomes 1 and false 0, for arithmetic with a mask; an int64 value becomes the
nearest float32. As in PyTorch, a tensor that already is float32 is not copied: the result shares
its storage.]=], [=[
torch.tensor{true, false}:float(), torch.tensor{1, 2}:float()
--> tensor([1., 0.])	tensor([1., 2.])]=])

method("long", "x:long()", [=[
x as int64: a float is cut toward zero (2.7 becomes 2, -2.7 becomes -2), true becomes 1. NaN and
values beyond int64's range become -9223372036854775808, as PyTorch's cast gives on x86-64. As in
PyTorch, a tensor that already is int64 is not copied.]=], [=[
torch.tensor{2.7, -2.7, 3.0}:long()
--> tensor([ 2, -2,  3])]=])

method("to", "x:to(dtype) / x:to(other)", [=[
x converted to dtype (torch.float32, torch.int64, torch.bool), or to the dtype of the tensor other,
as PyTorch's Tensor.to (there are no devices here). A tensor that already has the dtype is returned
without a copy.]=], [=[
torch.tensor{1, 2}:to(torch.float32)
--> tensor([1., 2.])]=])

method("fill_", "x:fill_(value)", [=[
Sets every element of x to value, in place (the trailing underscore, as in PyTorch), and returns x.
On a view it writes into the tensor viewed.]=], [=[
torch.empty(3):fill_(0.5)
--> tensor([0.5000, 0.5000, 0.5000])]=])

method("zero_", "x:zero_()", [=[
Sets every element of x to 0, in place, and returns x.]=], [=[
torch.ones(2):zero_()
--> tensor([0., 0.])]=])

method("copy_", "x:copy_(src)", [=[
Copies the values of src into x in place and returns x. src is broadcast to x's shape; x's shape
never changes.]=], [=[
torch.zeros(3):copy_(torch.tensor{5})          -- cast to x's dtype
--> tensor([5., 5., 5.])]=])
