-- autograd.lua — the help of attn's autograd (src/lua/autograd): backward, grad, no_grad and the fields
-- a tensor has for it. Loaded by attn.docs with its helpers.
local D = require("attn.docs.define")
local def, method, fn = D.def, D.method, D.fn
local torch = require("attn.bind").torch

def("torch.autograd", "torch.autograd", [=[
attn records how every result is made from tensors that require grad (parameters, or x:requires_grad_()),
as PyTorch does, and x:backward() walks that record back: each leaf that requires grad gets its gradient
in x.grad, the same numbers PyTorch computes (bit for bit for the ops of the book's classes). A result
prints its last step, grad_fn=<MmBackward0>, as PyTorch prints it. torch.no_grad() turns recording off
(for an optimizer's step, or to look at numbers). One element of a tensor that requires grad is a 0-d
tensor (x[i]:item() gives the number), so indexing never drops the graph. Differences from PyTorch: no
create_graph (no gradients of gradients); t[i] = v with a value in a graph is recorded (CopySlices) into
a whole tensor but refused into a view of one, as are in-place ops on a view of a tensor in a graph;
scatter, scatter_add, addcmul_ and addcdiv_ have no backward: called in grad mode on a tensor that
requires grad, they say so. See ?Tensor:backward, ?torch.no_grad.]=], [=[
x = torch.tensor({1.0, 2.0, 3.0}, {requires_grad = true})
y = (x * x):sum()
y
--> tensor(14., grad_fn=<SumBackward0>)
y:backward()
x.grad
--> tensor([2., 4., 6.])]=])

method("backward", "x:backward([gradient] [, {retain_graph = false}])", [=[
Computes the gradient of x with respect to every leaf that requires grad and adds it to that leaf's
.grad (PyTorch's loss.backward()). x must hold one number, or gradient (a tensor of x's shape) says
what to start from. The graph's saved tensors are freed afterwards: a second backward through it is an
error unless the first had {retain_graph = true}. If Ctrl-C stops a backward, no .grad has changed.]=], [=[
w = torch.tensor({{1.0, 2.0}, {3.0, 4.0}}, {requires_grad = true})
loss = w:matmul(torch.ones(2)):sum()
loss:backward()
w.grad
--> tensor([[1., 1.],
-->         [1., 1.]])]=])

method("requires_grad_", "x:requires_grad_([flag = true])", [=[
Makes x, a leaf, require grad (or not): the ops on it are recorded and a backward gives it a .grad.
Only float32 tensors can. Returns x. Also: torch.tensor(data, {requires_grad = true}), and the same
option of torch.zeros, ones, rand, randn, full, arange, eye.]=], [=[
x = torch.ones(2):requires_grad_()
x.requires_grad, x.is_leaf
--> true	true]=])

method("retain_grad", "x:retain_grad()", [=[
Keeps the gradient of x, a result (not a leaf), in x.grad at the next backward; PyTorch keeps only the
leaves' gradients otherwise.]=], [=[
x = torch.ones(2):requires_grad_()
y = x * 3
y:retain_grad()
z = (y * y):sum()
z:backward()
y.grad
--> tensor([6., 6.])]=])

method("detach", "x:detach()", [=[
The same numbers (the same storage) outside the graph: a leaf that does not require grad.]=], [=[
x = torch.ones(2):requires_grad_()
(x * 2):detach()
--> tensor([2., 2.])]=])

method("detach_", "x:detach_()", [=[
Makes x itself a leaf that does not require grad (its numbers unchanged). Returns x.]=], [=[
y = torch.ones(2):requires_grad_() * 2
y:detach_()
--> tensor([2., 2.])]=])

fn("no_grad", "torch.no_grad(f, ...)   or   local _ <close> = torch.no_grad()", [=[
Runs f (or the rest of the block) without recording: results do not require grad, and in-place ops on
parameters are allowed (an optimizer's step, filling weights). PyTorch's with torch.no_grad():.]=], [=[
w = torch.ones(2):requires_grad_()
torch.no_grad(function() w:mul_(0.5) end)
w
--> tensor([0.5000, 0.5000], requires_grad=True)]=])

fn("enable_grad", "torch.enable_grad(f, ...)   or   local _ <close> = torch.enable_grad()", [=[
Runs f (or the rest of the block) with recording on, inside a torch.no_grad().]=], [=[
torch.no_grad(function() return torch.enable_grad(torch.is_grad_enabled) end)
--> true]=])

fn("set_grad_enabled", "local _ <close> = torch.set_grad_enabled(flag)", [=[
Turns recording on or off; the value returned, closed (a <close> variable), restores the mode before.]=], [=[
do local _ <close> = torch.set_grad_enabled(false); print(torch.is_grad_enabled()) end
--> false]=])

fn("is_grad_enabled", "torch.is_grad_enabled()", [=[
Whether ops are being recorded (true unless inside torch.no_grad()).]=], [=[
torch.is_grad_enabled()
--> true]=])

def("torch.autograd.grad", "torch.autograd.grad(outputs, inputs [, grad_outputs] [, {retain_graph =, allow_unused =}])", [=[
The gradients of outputs (a tensor or a list) with respect to inputs (a tensor or a list), returned
instead of added to .grad. create_graph = true (gradients of gradients) is not supported.]=], [=[
x = torch.tensor({1.0, 2.0}, {requires_grad = true})
torch.autograd.grad((x * x * x):sum(), x)
--> tensor([ 3., 12.])]=], torch.autograd.grad)

def("Tensor.grad", "x.grad", [=[
The gradient a backward left in x (a leaf that requires grad, or a result after x:retain_grad()), nil
until one reaches it. Backwards add to it; x.grad = nil forgets it (what m:zero_grad() does).]=], [=[
x = torch.ones(2):requires_grad_()
x.grad
--> nil]=])

def("Tensor.grad_fn", "x.grad_fn", [=[
The step that made x, a result: grad_fn:name() is PyTorch's name for it (MmBackward0, SoftmaxBackward0,
...), grad_fn.next_functions the steps before, as {node, 0} pairs (AccumulateGrad for a leaf). nil for
a leaf.]=], [=[
x = torch.ones(2, 2):requires_grad_()
x:matmul(x).grad_fn:name()
--> MmBackward0]=])

def("Tensor.requires_grad", "x.requires_grad", [=[
Whether ops on x are recorded: true for a leaf made to (x:requires_grad_(), parameters) and for every
result of one. x.requires_grad = true is x:requires_grad_().]=], [=[
torch.ones(2).requires_grad
--> false]=])

def("Tensor.is_leaf", "x.is_leaf", [=[
Whether x was made directly (not the result of a recorded op): only leaves get a .grad by default.]=], [=[
x = torch.ones(2):requires_grad_()
x.is_leaf, (x * 2).is_leaf
--> true	false]=])

D.mdef("Module", "zero_grad", "m:zero_grad([{set_to_none = true}])", [=[
Forgets the gradients of every parameter of m (p.grad = nil, PyTorch 2.x's default), before the next
backward adds new ones; {set_to_none = false} fills them with zeros instead (PyTorch 1.13's default).]=], [=[
lin = nn.Linear(2, 1)
lin(torch.ones(2)):sum():backward()
lin:zero_grad()
lin.weight.grad
--> nil]=])
