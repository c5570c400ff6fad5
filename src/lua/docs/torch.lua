-- torch.lua — help for torch's creation functions, random numbers, printing and constants (module
-- attn.docs.torch; see docs/init.lua for how an entry is written).

local torch = require("attn.bind").torch
local D = require("attn.docs.define")
local def, fn, method = D.def, D.fn, D.method

-- ---- creation -------------------------------------------------------------------------------

fn("tensor", "torch.tensor(data [, {dtype = torch.int64}])", [=[
Makes a new tensor from data: a number (a 0-d tensor), a boolean, a nested table of numbers in which
each level of braces is one dim ({{...}, {...}} is a matrix), or another tensor, which is copied.
Python's brackets become braces, and a call whose only argument is a table needs no parentheses:
torch.tensor{1, 2}. The dtype follows the numbers as in PyTorch: Lua integers (1, 2) make an int64
tensor as Python ints do, one float (1.0, 0.43) makes the whole tensor float32, a table of booleans
makes a bool tensor. All rows must have the same length. {dtype = torch.float32} (or torch.int64,
torch.bool) converts.]=], [=[
inputs = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
                      {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}
inputs.shape
--> torch.Size([6, 3])
torch.tensor{1, 2, 3}, torch.tensor{1.0, 2.0}
--> tensor([1, 2, 3])	tensor([1., 2.])
torch.tensor{true, false}
--> tensor([ True, False])]=])

local size_note = [=[The sizes are numbers or one table (or a torch.Size such as x.shape):
torch.%s(2, 3) and torch.%s{2, 3} are the same. A trailing {dtype = torch.int64} or
{dtype = torch.bool} picks the dtype; the default is float32.]=]

fn("zeros", "torch.zeros(size... [, {dtype = ...}])", [=[
A new tensor of the given shape filled with 0. ]=] .. size_note:format("zeros", "zeros"), [=[
query = inputs[2]                    -- inputs: see ?torch.tensor
torch.zeros(query.shape)
--> tensor([0., 0., 0.])]=])

fn("ones", "torch.ones(size... [, {dtype = ...}])", [=[
A new tensor of the given shape filled with 1. ]=] .. size_note:format("ones", "ones"), [=[
torch.ones(2, 3)
--> tensor([[1., 1., 1.],
-->         [1., 1., 1.]])]=])

fn("empty", "torch.empty(size... [, {dtype = ...}])", [=[
A new tensor of the given shape, for code that fills it in afterwards (the book's
attn_scores = torch.empty(6, 6) before a loop). Unlike PyTorch, whose empty tensors hold whatever
was in memory, attn's are filled with 0, so printing one shows zeros, not garbage. ]=] ..
size_note:format("empty", "empty"), [=[
-- inputs: see ?torch.tensor
scores = torch.empty(inputs.shape[1])   -- Python: torch.empty(inputs.shape[0])
for i = 1, #inputs do scores[i] = torch.dot(inputs[i], inputs[2]) end
scores
--> tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])]=])

fn("full", "torch.full(size, value [, {dtype = ...}])", [=[
A new tensor of shape size (a table such as {2, 3}, as PyTorch wants a tuple) with every element
equal to value. The dtype follows the value as in PyTorch (an integer makes int64, a float float32,
a boolean bool) unless {dtype = ...} says otherwise.]=], [=[
torch.full({2, 2}, 7)
--> tensor([[7, 7],
-->         [7, 7]])
torch.full({2}, 0.5)
--> tensor([0.5000, 0.5000])]=])

fn("zeros_like", "torch.zeros_like(x)", [=[
A new tensor of zeros with the shape and dtype of x.]=], [=[
torch.zeros_like(inputs[1])          -- inputs: see ?torch.tensor
--> tensor([0., 0., 0.])]=])

fn("ones_like", "torch.ones_like(x)", [=[
A new tensor of ones with the shape and dtype of x.]=], [=[
torch.ones_like(torch.zeros(2))
--> tensor([1., 1.])]=])

fn("empty_like", "torch.empty_like(x)", [=[
A new tensor with the shape and dtype of x, filled with 0 (PyTorch leaves it uninitialised).]=], [=[
torch.empty_like(torch.ones(2))
--> tensor([0., 0.])]=])

fn("full_like", "torch.full_like(x, value)", [=[
A new tensor with the shape and dtype of x, every element equal to value.]=], [=[
torch.full_like(torch.zeros(3), 0.5)
--> tensor([0.5000, 0.5000, 0.5000])]=])

fn("arange", "torch.arange(end) / torch.arange(start, end [, step])", [=[
The numbers start, start + step, ... up to but not including end (start defaults to 0, step to 1),
as a 1-D tensor. It makes values, not indices, so it counts from 0 as in PyTorch: arange(3) is
0, 1, 2. With integers only the tensor is int64 (as in PyTorch); with any float it is float32. A
trailing {dtype = torch.float32} (or torch.int64, torch.bool) picks the dtype. A step of 0, or one
that points away from end, is an error.]=], [=[
torch.arange(5)
--> tensor([0, 1, 2, 3, 4])
torch.arange(0, 1, 0.25)
--> tensor([0.0000, 0.2500, 0.5000, 0.7500])
torch.arange(3, {dtype = torch.float32})
--> tensor([0., 1., 2.])]=])

fn("eye", "torch.eye(n [, m])", [=[
The n x m identity matrix (m defaults to n): ones on the diagonal, zeros elsewhere.]=], [=[
torch.eye(2, 3)
--> tensor([[1., 0., 0.],
-->         [0., 1., 0.]])]=])

fn("stack", "torch.stack(tensors, dim)", [=[
Joins a list of tensors of the same shape along a new dim, which is put at position dim (1-based;
negative counts from the end of the result). The book's torch.stack((inputs, inputs), dim=0) is
torch.stack({inputs, inputs}, 1) here: Python's tuple becomes a Lua table and dim=0 becomes 1.
dim may also be given as {dim = 1}. See torch.cat to join along an existing dim.]=], [=[
batch = torch.stack({inputs, inputs}, 1)   -- inputs: see ?torch.tensor
batch.shape
--> torch.Size([2, 6, 3])]=])

fn("cat", "torch.cat(tensors, dim)", [=[
Concatenates a list of tensors along the existing dim (1-based, -1 for the last); their other sizes
must agree. The book's torch.cat([head(x) for head in self.heads], dim=-1) becomes a loop that
fills a Lua table, then torch.cat(outs, -1). dim may also be given as {dim = -1}.]=], [=[
torch.cat({inputs, inputs}, -1).shape      -- inputs: see ?torch.tensor
--> torch.Size([6, 6])
torch.cat({torch.ones(1), torch.zeros(2)}, 1)
--> tensor([1., 0., 0.])]=])

fn("Size", "torch.Size{size...} / torch.Size(size...)", [=[
A shape, as x.shape and x:size() return it: a Lua table of integers that prints as
torch.Size([6, 3]). Indices are 1-based (Python's x.shape[0] is x.shape[1]) and negative ones count
from the end (x.shape[-1] is the last size); #s is the number of dims; s:numel() the product;
two sizes compare with ==. A Size can be passed wherever a shape is expected, e.g. torch.zeros(x.shape).]=], [=[
s = torch.Size{6, 3}
s[1], s[-1], #s, s:numel()
--> 6	3	2	18
s == inputs.shape                          -- inputs: see ?torch.tensor
--> true]=])

fn("is_tensor", "torch.is_tensor(v)", [=[
true if v is a tensor, false for anything else (numbers, tables, torch.Size).]=], [=[
torch.is_tensor(torch.ones(1)), torch.is_tensor({1})
--> true	false]=])

fn("set_printoptions", "torch.set_printoptions{precision = 4, threshold = 1000, edgeitems = 3, linewidth = 80}", [=[
Changes how tensors print, as PyTorch's function of that name (the options go in one table):
precision is the number of digits after the point, threshold the number of elements above which
only edgeitems rows and columns at each end are shown, linewidth where lines wrap, and sci_mode
true/false (another key) forces or forbids scientific notation, which attn otherwise chooses as PyTorch does.
{profile = "default"} puts everything back. It changes printing only, never the numbers.]=], [=[
torch.set_printoptions{precision = 2}
torch.tensor{1/3, 2/3}
--> tensor([0.33, 0.67])
torch.set_printoptions{profile = "default"}]=])

fn("memory_allocated", "torch.memory_allocated()", [=[
The number of bytes of tensor data currently alive in attn (float32: 4 bytes an element). Tensors
are freed by Lua's garbage collector once nothing refers to them. PyTorch's function of this name
reports GPU memory; attn has only the CPU.]=], [=[
x = torch.zeros(1000)
torch.memory_allocated() >= 4000
--> true]=])

-- ---- threads and kernels ------------------------------------------------------------------------

fn("set_num_threads", "torch.set_num_threads(n)", [=[
Computes with n threads from now on (1 <= n <= 64). As in PyTorch it changes the time only; unlike
PyTorch, attn's numbers are the same bits on any number of threads, because each number of a product
or a sum is computed by one thread in one fixed order (threads share out the numbers, never a sum).
The default is the environment's OPENBLAS_NUM_THREADS when set (what attn used before it had kernels of
its own), else ATTN_NUM_THREADS, else one thread per online CPU.]=], [=[
torch.set_num_threads(2)
torch.get_num_threads()
--> 2]=])

fn("get_num_threads", "torch.get_num_threads()", [=[
The number of threads attn computes with (see torch.set_num_threads).]=], [=[
torch.get_num_threads() >= 1
--> true]=])

fn("kernels", "torch.kernels()", [=[
The instruction set attn's exact kernels run with on this machine: "avx512", "avx2", "neon",
"simd128" (WebAssembly's, in a browser) or "portable" (plain C: what an older CPU runs). Every one of them gives the same bits; the
environment variable ATTN_ISA=portable (or avx2) asks for a narrower one, to compare. Not in PyTorch.]=], [=[
type(torch.kernels())
--> string]=])

-- ---- random numbers ---------------------------------------------------------------------------

fn("manual_seed", "torch.manual_seed(seed)", [=[
Seeds the random number generator with a non-negative integer. attn's generator is PyTorch's
(CPU) bit for bit, so after the same seed torch.rand, torch.randn, torch.randint, nn.Linear's
initial weights and dropout give the numbers the book prints. Returns nothing (PyTorch returns the
generator).]=], [=[
torch.manual_seed(123)
torch.rand(3, 2)          -- the book's W_query (section 3.4.1)
--> tensor([[0.2961, 0.5166],
-->         [0.2517, 0.6886],
-->         [0.0740, 0.8665]])]=])

fn("initial_seed", "torch.initial_seed()", [=[
The seed the generator was last seeded with (PyTorch's default seed until torch.manual_seed is
called).]=], [=[
torch.manual_seed(42)
torch.initial_seed()
--> 42]=])

fn("rand", "torch.rand(size...)", [=[
A float32 tensor of the given shape (numbers or one table, as torch.zeros) filled with numbers drawn
uniformly from [0, 1), the same stream as PyTorch's: seed with torch.manual_seed for repeatable
numbers.]=], [=[
torch.manual_seed(123)
torch.rand(3)
--> tensor([0.2961, 0.5166, 0.2517])]=])

fn("randn", "torch.randn(size...)", [=[
A float32 tensor of the given shape filled with numbers from the standard normal distribution
(mean 0, standard deviation 1), the same stream as PyTorch's. From 16 numbers up PyTorch transforms
them 16 at a time with its own vectorised log, sin and cos (avx_mathfun); attn computes them the same
way, bit for bit, on every machine (see torch.backends.cpu.get_cpu_capability).]=], [=[
torch.manual_seed(0)
torch.randn(3)
--> tensor([ 1.5410, -0.2934, -2.1788])]=])

fn("randint", "torch.randint(high, size) / torch.randint(low, high, size)", [=[
An int64 tensor of shape size (a table such as {5}, as PyTorch wants a tuple) filled with random
integers from low (default 0) up to but not including high, the same stream as PyTorch's.]=], [=[
torch.manual_seed(0)
torch.randint(1, 7, {5})
--> tensor([3, 4, 6, 1, 2])]=])

fn("dropout", "torch.dropout(x, p, train)", [=[
Functional dropout, what nn.Dropout calls: when train is true (the default) each element is zeroed
with probability p (default 0.5) and the survivors are multiplied by 1/(1 - p), so the expected sum
is unchanged; with train false or p = 0 it returns x itself and draws no random numbers; p = 1
gives zeros. The random mask follows PyTorch's, in the Bernoulli flavour chosen with
torch.set_bernoulli_flavor.]=], [=[
torch.manual_seed(123)
torch.dropout(torch.ones(2, 6), 0.5, true)
--> tensor([[2., 2., 2., 2., 2., 2.],
-->         [0., 2., 0., 0., 0., 0.]])]=])

fn("get_rng_state", "torch.get_rng_state()", [=[
A snapshot of the random number generator (a Lua string), to give to torch.set_rng_state later so
the same random numbers come again.]=], [=[
s = torch.get_rng_state()
a = torch.rand(2)
torch.set_rng_state(s)
torch.equal(a, torch.rand(2))
--> true]=])

fn("set_rng_state", "torch.set_rng_state(state)", [=[
Restores the generator to a snapshot taken with torch.get_rng_state(); anything else is an
error.]=], [=[
s = torch.get_rng_state()
a = torch.randn(3)
torch.set_rng_state(s)
torch.equal(a, torch.randn(3))
--> true]=])

fn("set_bernoulli_flavor", "torch.set_bernoulli_flavor(\"mkl\" | \"default\")", [=[
Chooses how bernoulli_ and dropout turn random numbers into a keep/drop mask. PyTorch itself does
this two ways depending on how it was built: "mkl" (the default here) matches PyTorch built with
MKL, which is what the book's Chinese edition prints; "default" matches PyTorch without MKL, as
the English edition prints. rand, randn and nn.Linear are not affected. Returns the previous
flavour.]=], [=[
old = torch.set_bernoulli_flavor("default")
old, torch.get_bernoulli_flavor()
--> mkl	default
torch.set_bernoulli_flavor(old)
--> default]=])

def("torch.backends.cpu.get_cpu_capability", "torch.backends.cpu.get_cpu_capability()", [=[
"AVX2": attn follows PyTorch's AVX2 kernels bit for bit on every machine, also where their results
differ from PyTorch's scalar ones (randn's vectorised Box-Muller, sin and cos in groups of 8). PyTorch
itself runs its scalar kernels ("DEFAULT") on a CPU without AVX2 and FMA. (PyTorch 2's function of
that name.)]=], [=[
torch.backends.cpu.get_cpu_capability()
--> AVX2]=], torch.backends.cpu.get_cpu_capability)

fn("get_bernoulli_flavor", "torch.get_bernoulli_flavor()", [=[
The current Bernoulli flavour, "mkl" or "default" (see torch.set_bernoulli_flavor).]=], [=[
torch.get_bernoulli_flavor()
--> mkl]=])

method("uniform_", "x:uniform_([from [, to]])", [=[
Fills x in place with numbers drawn uniformly from [from, to) (default [0, 1)) and returns x. The
trailing underscore means in place, as in PyTorch. nn.Linear initialises its weights this way. Like
PyTorch, a tensor that is not contiguous (a transposed view) gets the numbers in the order of its
memory, not of its rows.]=], [=[
torch.manual_seed(123)
torch.empty(3):uniform_(-1, 1)
--> tensor([-0.4078,  0.0331, -0.4967])]=])

method("normal_", "x:normal_([mean [, std]])", [=[
Fills x in place with numbers from the normal distribution with the given mean (default 0) and
standard deviation (default 1), and returns x. A contiguous x of 16 or more elements takes PyTorch's
vectorised path (as torch.randn); any other x one draw per element, in the order of its memory.]=], [=[
torch.manual_seed(0)
torch.empty(3):normal_(0, 0.1)
--> tensor([ 0.1541, -0.0293, -0.2179])]=])

method("bernoulli_", "x:bernoulli_([p])", [=[
Fills x in place with 1 (probability p, default 0.5) or 0 and returns x: the keep mask inside
dropout. The flavour of the draw is chosen with torch.set_bernoulli_flavor.]=], [=[
torch.manual_seed(0)
torch.empty(8):bernoulli_(0.5)
--> tensor([1., 0., 0., 1., 1., 0., 0., 1.])]=])

-- ---- constants and dtypes ------------------------------------------------------------------------

def("torch.inf", "torch.inf", [=[
Positive infinity (Lua's math.huge), as in PyTorch; -torch.inf is what the causal mask writes
above the diagonal so that softmax gives those positions weight 0.]=], [=[
torch.tensor{1, -torch.inf}
--> tensor([1., -inf])]=], torch.inf)

def("torch.nan", "torch.nan", [=[
Not a number (0/0). It is not equal to anything, itself included, so test for it with x ~= x.
softmax of a row that is all -inf gives nan, as in PyTorch.]=], [=[
torch.nan ~= torch.nan
--> true]=])

def("torch.float32", "torch.float32", [=[
The dtype of ordinary tensors: 32-bit floats, PyTorch's default. attn has the three dtypes the books
use: this one, torch.int64 (ids and indices) and torch.bool (masks); torch.float is another name for
it. A Lua float makes a float32 tensor, as a Python float does; arithmetic that mixes dtypes
promotes as PyTorch does (bool < int64 < float32; / always gives floats).]=], [=[
torch.ones(1).dtype == torch.float32, torch.tensor{0.5}.dtype
--> true	torch.float32]=], torch.float32)

def("torch.int64", "torch.int64", [=[
The dtype of integer tensors: 64-bit integers, stored exactly (2^53 + 1 stays 9007199254740993).
A Lua integer makes one (torch.tensor{1, 2}), as a Python int does; so do torch.arange with
integers, torch.randint, argmax and the indices of max and min, and the sum of a bool tensor.
Token ids for nn.Embedding are int64. torch.long is another name for it.]=], [=[
torch.tensor{1, 2, 3}.dtype, torch.tensor{1, 2} / 2
--> torch.int64	tensor([0.5000, 1.0000])]=], torch.int64)

def("torch.long", "torch.long", [=[
Another name for torch.int64, as in PyTorch.]=], [=[
torch.long
--> torch.int64]=])

def("torch.float", "torch.float", [=[
Another name for torch.float32, as in PyTorch.]=], [=[
torch.float
--> torch.float32]=])

def("torch.bool", "torch.bool", [=[
The dtype of masks and comparison results: each element is true or false. Make one with
x:bool(), a comparison such as x:gt(0), or torch.tensor{true, false}. masked_fill wants one.]=], [=[
torch.ones(2, {dtype = torch.bool})
--> tensor([True, True])]=], torch.bool)

def("torch.__version__", "torch.__version__", [=[
attn's version, as a string.]=], [=[
type(torch.__version__)
--> string]=])
