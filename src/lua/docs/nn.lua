-- nn.lua — help for nn (nn/init.lua, nn/module.lua, nn/layers.lua): nn.Module and its methods, nn.Parameter, nn.Linear,
-- nn.Dropout, nn.ModuleList and nn.functional. Loaded by attn.docs (docs/init.lua).

local D = require("attn.docs.define")
local def, mdef = D.def, D.mdef
local nn = require("attn.nn")
local Module = nn.Module

local method_names = {}
for k, v in pairs(Module) do
    if type(v) == "function" and (k == "__init" or not k:find("^__")) then
        method_names[#method_names + 1] = k
    end
end
table.sort(method_names)

-- ---- nn.Module ------------------------------------------------------------------------------------

def("nn.Module", "nn.Module", [=[
The base class of layers and models, PyTorch's nn.Module. Lua has no class statement, so
class SelfAttention_v1(nn.Module) becomes SelfAttention_v1 = nn.Module:extend("SelfAttention_v1");
def __init__(self, ...) becomes function SelfAttention_v1:__init(...) (no super().__init__() to
call); def forward(self, x) becomes function SelfAttention_v1:forward(x); calling the class makes
an instance, and calling the instance, m(x), calls forward. Fields assigned in __init that hold
modules or nn.Parameter tensors are the module's children and parameters, in the order they were
first assigned, so printing, parameters() and named_parameters() list them as PyTorch does.
Modules start in training mode. Methods: ]=] .. table.concat(method_names, ", ") ..
[=[ (?nn.Module:parameters and so on).]=], [=[
SelfAttention_v1 = nn.Module:extend("SelfAttention_v1")
function SelfAttention_v1:__init(d_in, d_out)
    self.W_query = nn.Parameter(torch.rand(d_in, d_out))
    self.W_key = nn.Parameter(torch.rand(d_in, d_out))
    self.W_value = nn.Parameter(torch.rand(d_in, d_out))
end
function SelfAttention_v1:forward(x)
    local keys, queries, values = x:matmul(self.W_key), x:matmul(self.W_query), x:matmul(self.W_value)
    local attn_weights = torch.softmax(queries:matmul(keys.T) / keys.shape[-1]^0.5, -1)
    return attn_weights:matmul(values)
end
torch.manual_seed(123)
sa_v1 = SelfAttention_v1(3, 2)
sa_v1(inputs)[2]                      -- the book's z^(2); inputs: see ?torch.tensor
--> tensor([0.3061, 0.8210], grad_fn=<SelectBackward0>)]=], Module)

mdef("Module", "extend", "nn.Module:extend(name)", [=[
Makes a subclass of the class it is called on, named name (the name printed for its instances):
Python's class CausalAttention(nn.Module) is CausalAttention = nn.Module:extend("CausalAttention").
Any module class can be extended, e.g. nn.Linear:extend("MyLinear"); the parent is Class.super,
so a method can call the parent's version as Class.super.forward(self, x).]=], [=[
MyLinear = nn.Linear:extend("MyLinear")
function MyLinear:forward(x) return MyLinear.super.forward(self, x) * 2 end
MyLinear, MyLinear(3, 2)
--> class MyLinear	MyLinear(in_features=3, out_features=2, bias=True)]=])

mdef("Module", "__init", "function Class:__init(...) ... end", [=[
Sets up a new instance: Class(...) makes the instance and calls __init with the same arguments,
Python's __init__. Assign child modules (self.W_query = nn.Linear(...)), parameters
(self.W = nn.Parameter(...)), buffers (self:register_buffer(...)) and plain settings here. The
base version does nothing, and there is no super().__init__() to call.]=], [=[
Pair = nn.Module:extend("Pair")
function Pair:__init(d_in, d_out)
    self.a = nn.Linear(d_in, d_out)
    self.b = nn.Linear(d_in, d_out)
end
Pair(3, 2):num_parameters()
--> 16]=])

mdef("Module", "forward", "function Class:forward(...) ... end", [=[
The computation of a module: calling an instance, m(x), calls m:forward(x), as in PyTorch. Every
class you write defines it; the base version raises an error that says so.]=], [=[
Double = nn.Module:extend("Double")
function Double:forward(x) return 2 * x end
Double()(torch.ones(2))
--> tensor([2., 2.])]=])

mdef("Module", "extra_repr", "m:extra_repr()", [=[
The text printed inside the parentheses after the class name (nn.Linear prints its sizes); the base
version returns "". Define it in a class to describe its settings when the module is printed.]=], [=[
nn.Linear(3, 2):extra_repr()
--> in_features=3, out_features=2, bias=True]=])

mdef("Module", "named_children", "m:named_children()", [=[
An iterator over the direct child modules, giving (name, module) in the order they were assigned,
for use in a for loop: for name, child in m:named_children() do ... end.]=], [=[
m = nn.ModuleList{nn.Linear(3, 2), nn.Dropout(0.1)}
for name, child in m:named_children() do print(name, child) end
--> 1	Linear(in_features=3, out_features=2, bias=True)
--> 2	Dropout(p=0.1, inplace=False)]=])

mdef("Module", "children", "m:children()", [=[
The direct child modules, as a Lua list in the order they were assigned (PyTorch returns an
iterator).]=], [=[
#nn.ModuleList{nn.Linear(3, 2), nn.Linear(2, 2)}:children()
--> 2]=])

mdef("Module", "named_parameters", "m:named_parameters()", [=[
Every parameter of m and of its children, each once, as a list of {name, tensor} pairs with dotted
names such as "W_query.weight", in registration order. PyTorch returns an iterator of
(name, param) tuples: Python's for name, p in m.named_parameters() is
for _, pair in ipairs(m:named_parameters()) do local name, p = pair[1], pair[2] ... end.]=], [=[
lin = nn.Linear(3, 2)
for _, pair in ipairs(lin:named_parameters()) do print(pair[1], pair[2].shape) end
--> weight	torch.Size([2, 3])
--> bias	torch.Size([2])]=])

mdef("Module", "parameters", "m:parameters()", [=[
Every parameter tensor of m and of its children, each once, as a Lua list in registration order
(PyTorch returns an iterator). Count the numbers in them with m:num_parameters().]=], [=[
#nn.Linear(3, 2):parameters(), #nn.Linear(3, 2, {bias = false}):parameters()
--> 2	1]=])

mdef("Module", "named_buffers", "m:named_buffers()", [=[
Every buffer (see register_buffer) of m and of its children, as a list of {name, tensor} pairs.]=], [=[
m = nn.Module:extend("Masked")()
m:register_buffer("mask", torch.ones(2))
m:named_buffers()[1][1]
--> mask]=])

mdef("Module", "buffers", "m:buffers()", [=[
Every buffer tensor of m and of its children, as a Lua list.]=], [=[
m = nn.Module:extend("Masked")()
m:register_buffer("mask", torch.triu(torch.ones(2, 2), 1))
m:buffers()[1]
--> tensor([[0., 1.],
-->         [0., 0.]])]=])

mdef("Module", "register_buffer", "m:register_buffer(name, tensor [, {persistent = true}])", [=[
Stores tensor as the field name of m and marks it as a buffer: state that belongs to the module
but is not trained, such as the causal mask. The book's self.register_buffer('mask',
torch.triu(torch.ones(context_length, context_length), diagonal=1)) is
self:register_buffer("mask", torch.triu(torch.ones(context_length, context_length), 1)); later
code reads it as self.mask. Buffers are listed by buffers(), not by parameters(). A persistent buffer
(the default) is part of m:state_dict(); {persistent = false} (PyTorch's persistent=False, as the
Qwen3 notebook registers its RoPE cos and sin) leaves it out.]=], [=[
m = nn.Module:extend("Causal")()
m:register_buffer("mask", torch.triu(torch.ones(3, 3), 1))
m.mask:bool()
--> tensor([[False,  True,  True],
-->         [False, False,  True],
-->         [False, False, False]])]=])

mdef("Module", "state_dict", "m:state_dict([{keep_vars = false}])", [=[
Every parameter and persistent buffer of m and its children, by name, as PyTorch names and orders
them: each module's parameters, then its buffers, then its children, with the entries of a
ModuleList or Sequential counted from 0 ("trf_blocks.0.att.W_query.weight", PyTorch's names, so
files move between the two; m:named_parameters() counts from 1, as Lua indexes). An ordered table:
pairs() goes through it in that order. The tensors share memory with the model's, detached
(keep_vars = true: the parameters themselves). Save it with torch.save(model:state_dict(), path).]=], [=[
for k, v in pairs(nn.Linear(3, 2):state_dict()) do print(k, v.shape) end
--> weight	torch.Size([2, 3])
--> bias	torch.Size([2])]=])

mdef("Module", "load_state_dict", "m:load_state_dict(state_dict [, {strict = true}])", [=[
Copies each tensor of state_dict (m:state_dict()'s, or torch.load(path)'s) into the parameter or
buffer of the same name, without recording it for autograd. As PyTorch's: keys the model lacks and
keys it has that state_dict lacks are errors (strict = false: listed in the result instead), a tensor
of another shape always is, and the message lists them all in PyTorch's words. Unlike PyTorch nothing
is copied when there is an error. Returns {missing_keys = {...}, unexpected_keys = {...}}, shown as
<All keys matched successfully> when both are empty.]=], [=[
a, b = nn.Linear(3, 2), nn.Linear(3, 2)
b:load_state_dict(a:state_dict())
--> <All keys matched successfully>
torch.equal(a.weight, b.weight)
--> true]=])

mdef("Module", "modules", "m:modules()", [=[
m itself and every module below it, depth first, as a Lua list (PyTorch returns an iterator).]=], [=[
#nn.ModuleList{nn.Linear(3, 2), nn.Linear(2, 2)}:modules()
--> 3]=])

mdef("Module", "train", "m:train([mode])", [=[
Sets training mode (mode true, the default) or evaluation mode (false) on m and all the modules
below it, and returns m. Only dropout behaves differently: it drops elements in training mode and
passes its input through in evaluation mode. Each module's mode is its field m.training.]=], [=[
d = nn.Dropout(0.5):eval()
d.training, d:train().training
--> false	true]=])

mdef("Module", "eval", "m:eval()", [=[
Puts m and every module below it in evaluation mode (m:train(false)) and returns m: dropout then
passes its input through unchanged. Python's model.eval() is model:eval().]=], [=[
nn.Dropout(0.5):eval()(torch.ones(3))
--> tensor([1., 1., 1.])]=])

mdef("Module", "num_parameters", "m:num_parameters()", [=[
The total number of trainable numbers in m: the sum of numel() over m:parameters(). Python's
sum(p.numel() for p in model.parameters()).]=], [=[
nn.Linear(3, 2):num_parameters()      -- a 2x3 weight and 2 biases
--> 8]=])

def("nn.Module.training", "m.training", [=[
true when m is in training mode (as every module starts), false after m:eval(). Set it with
m:train(mode) or m:eval(), which also set it on the modules below m.]=], [=[
nn.Linear(3, 2).training
--> true]=])

-- ---- nn.Parameter ---------------------------------------------------------------------------------

def("nn.Parameter", "nn.Parameter(tensor [, {requires_grad = false}])", [=[
Marks tensor as a trainable parameter and returns it (the same tensor, not a copy): assigned to a
field of a module, it is then listed by parameters() and counted by num_parameters(). attn has no
autograd, so requires_grad is accepted and ignored; Python's requires_grad=False is written
{requires_grad = false}. A parameter prints as a plain tensor, without PyTorch's
"Parameter containing:" line.]=], [=[
torch.manual_seed(123)
W_query = nn.Parameter(torch.rand(3, 2), {requires_grad = false})
inputs[2]:matmul(W_query)             -- the book's query_2; inputs: see ?torch.tensor
--> tensor([0.4306, 1.4551])]=], nn.Parameter)

def("nn.is_parameter", "nn.is_parameter(tensor)", [=[
true if tensor was marked with nn.Parameter (an nn.Linear's weight and bias are). attn's own helper;
PyTorch checks isinstance(t, nn.Parameter).]=], [=[
nn.is_parameter(nn.Linear(3, 2).weight), nn.is_parameter(torch.ones(2))
--> true	false]=], nn.is_parameter)

-- ---- layers -------------------------------------------------------------------------------------------

def("nn.Linear", "nn.Linear(in_features, out_features [, {bias = true}])", [=[
A fully connected layer: y = x W^T + b, where weight W has shape [out_features, in_features] (the
transpose of the matrix in x @ W_query, as the book points out) and bias b has out_features
elements, or is false with {bias = false}: Python's nn.Linear(d_in, d_out, bias=qkv_bias) is
nn.Linear(d_in, d_out, {bias = qkv_bias}). The weights are initialised as PyTorch does
(kaiming_uniform_), so after the same torch.manual_seed they are the book's. The input may have any
number of leading dims; its last dim must be in_features.]=], [=[
torch.manual_seed(123)
W_query = nn.Linear(3, 2, {bias = false})
W_query.weight.shape, W_query(inputs[2])     -- inputs: see ?torch.tensor
--> torch.Size([2, 3])	tensor([-0.3021, -0.0289], grad_fn=<SqueezeBackward3>)]=], nn.Linear)

mdef("Linear", "__init", "Linear:__init(in_features, out_features [, {bias = true}])", [=[
What nn.Linear(...) runs on the new layer: checks the sizes, makes weight (and bias unless
{bias = false}) as parameters and calls reset_parameters. A subclass made with nn.Linear:extend can
call it from its own __init as Class.super.__init(self, in_features, out_features, opts).]=], [=[
lin = nn.Linear(3, 2, {bias = false})
lin.weight.shape, lin.bias
--> torch.Size([2, 3])	false]=])

mdef("Linear", "forward", "linear:forward(x)", [=[
x:matmul(weight.T) + bias, what calling the layer does. Checks that x's last dim is in_features.]=], [=[
lin = nn.Linear(3, 2)
torch.equal(lin:forward(torch.ones(3)), lin(torch.ones(3)))
--> true]=])

mdef("Linear", "reset_parameters", "linear:reset_parameters()", [=[
Draws new initial weights and bias from the random generator as PyTorch's Linear does: uniform in
[-1/sqrt(in_features), 1/sqrt(in_features)] (kaiming_uniform_ with a = sqrt(5)). nn.Linear(...)
calls it once.]=], [=[
torch.manual_seed(123)
lin = nn.Linear(3, 2)
w = lin.weight:clone()
torch.manual_seed(123)
lin:reset_parameters()
torch.equal(w, lin.weight)
--> true]=])

mdef("Linear", "extra_repr", "linear:extra_repr()", [=[
The sizes and bias setting, as printed inside Linear(...).]=], [=[
nn.Linear(3, 2, {bias = false})
--> Linear(in_features=3, out_features=2, bias=False)]=])

def("nn.Dropout", "nn.Dropout([p])", [=[
A dropout layer: in training mode each element of its input is zeroed with probability p (default
0.5) and the rest are scaled by 1/(1 - p); in evaluation mode (m:eval()) it returns its input
unchanged. It calls torch.dropout(x, p, self.training), so the mask is PyTorch's for the same seed
(see torch.set_bernoulli_flavor for the two flavours PyTorch itself has).]=], [=[
torch.manual_seed(123)
dropout = nn.Dropout(0.5)
dropout(torch.ones(6, 6))             -- the book's example
--> tensor([[2., 2., 2., 2., 2., 2.],
-->         [0., 2., 0., 0., 0., 0.],
-->         [0., 0., 2., 0., 2., 0.],
-->         [2., 2., 0., 0., 0., 2.],
-->         [2., 0., 0., 0., 0., 2.],
-->         [0., 2., 0., 0., 0., 0.]])]=], nn.Dropout)

mdef("Dropout", "__init", "Dropout:__init([p])", [=[
What nn.Dropout(p) runs on the new layer: checks that p is a probability (default 0.5) and stores
it as the field p.]=], [=[
nn.Dropout(0.1).p
--> 0.1]=])

mdef("Dropout", "forward", "dropout:forward(x)", [=[
torch.dropout(x, self.p, self.training): what calling the layer does.]=], [=[
nn.Dropout(0.5):eval():forward(torch.ones(2))
--> tensor([1., 1.])]=])

mdef("Dropout", "extra_repr", "dropout:extra_repr()", [=[
The settings printed inside Dropout(...), as PyTorch prints them.]=], [=[
nn.Dropout(0.1):extra_repr()
--> p=0.1, inplace=False]=])

def("nn.ModuleList", "nn.ModuleList{module, ...}", [=[
Holds modules in a list so that they are children of the module it is assigned to (printed, and
their parameters listed). Index it from 1, ml[1]; #ml is the count; ipairs(ml) walks it;
ml:append(m) adds one. It prints its modules as (1), (2), ... and names their parameters
"heads.1.W_query.weight": the indices that reach them here, where PyTorch prints (0), (1), ... and
"heads.0.W_query.weight", its own. Python's nn.ModuleList([CausalAttention(...) for _ in range(num_heads)])
is a loop filling a Lua table, then nn.ModuleList(heads). It has no forward: call its modules.]=], [=[
heads = {}
for i = 1, 2 do heads[i] = nn.Linear(3, 2) end
ml = nn.ModuleList(heads)
#ml, ml:num_parameters()
--> 2	16]=], nn.ModuleList)

mdef("ModuleList", "__init", "ModuleList:__init([modules])", [=[
What nn.ModuleList{...} runs on the new list: stores each module of the Lua list, checking that
each one is a module.]=], [=[
#nn.ModuleList{nn.Linear(3, 2), nn.Dropout(0.5)}
--> 2]=])

mdef("ModuleList", "append", "ml:append(module)", [=[
Adds module at the end of the list and returns the list.]=], [=[
nn.ModuleList{}:append(nn.Dropout(0.1))
--> ModuleList(
-->   (1): Dropout(p=0.1, inplace=False)
--> )]=])

mdef("ModuleList", "forward", "ml:forward()", [=[
An error: a ModuleList only holds modules. Call them, for _, m in ipairs(ml) do ... end, or write a
module whose forward does.]=], [=[
pcall(nn.ModuleList{}.forward, nn.ModuleList{})
--> false	ModuleList: a ModuleList has no forward; call its modules, e.g. for _, m in ipairs(list) do ... end]=])

-- ---- nn.functional ----------------------------------------------------------------------------------

def("nn.functional.linear", "nn.functional.linear(x, weight [, bias])", [=[
x·weightᵀ + bias, what nn.Linear computes, under PyTorch's F.linear name, and in PyTorch 1.13's way: for
a 2-D x, or a contiguous 3-D one, with a bias it is torch.addmm(bias, x, weight.T) (the bias in the
result before the product is added in), otherwise x:matmul(weight.T) + bias. The two differ in the
last bit for more than about 320 input features, so GPT-2's 768-wide layers need the first.]=], [=[
nn.functional.linear(torch.ones(1, 3), torch.ones(2, 3), torch.tensor{0.5, -0.5})
--> tensor([[3.5000, 2.5000]])]=], nn.functional.linear)

def("nn.functional.softmax", "nn.functional.softmax(x, dim)", [=[
The same as torch.softmax(x, dim), under PyTorch's F.softmax name. dim is required and 1-based.]=], [=[
nn.functional.softmax(torch.tensor{1.0, 2.0, 3.0}, -1)
--> tensor([0.0900, 0.2447, 0.6652])]=], nn.functional.softmax)

def("nn.functional.dropout", "nn.functional.dropout(x [, p [, training]])", [=[
The same as torch.dropout(x, p, training), under PyTorch's F.dropout name: p defaults to 0.5 and
training to true.]=], [=[
nn.functional.dropout(torch.ones(3), 0.5, false)
--> tensor([1., 1., 1.])]=], nn.functional.dropout)
