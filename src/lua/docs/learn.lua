-- learn.lua — help for what training needs (module attn.docs.learn): the losses, gather and lists of
-- indices, scatter, addcmul/addcdiv, randperm, linspace, torch.Generator, DataLoader and torch.optim.
-- Loaded by attn.docs (docs/init.lua).
local torch = require("attn.bind").torch
local nn = require("attn.nn")
local D = require("attn.docs.define")
local def, fn, both, method, mdef = D.def, D.fn, D.both, D.method, D.mdef

-- ---- losses ------------------------------------------------------------------------------------

local loss_opts = [=[Options go in a trailing table: reduction = "mean" (the default: the average over the
targets not ignored), "sum" or "none" (one loss per target); ignore_index (default -100): a target
equal to it counts for nothing, as padding does in chapter 7. Class ids are 1-based: the target 1 is
the first class (PyTorch's 0); ignore_index is compared with the targets as you wrote them, so -100
means -100 in both.]=]

def("nn.functional.cross_entropy", 'nn.functional.cross_entropy(logits, targets [, {ignore_index = -100, reduction = "mean"}])', [=[
The cross-entropy loss of chapter 5: log_softmax of the logits over the class dim (the last of [N, C];
dim 2 of [N, C, d...]; the only one of [C]), then nll_loss: minus the log-probability of each target,
averaged. Computed in C as PyTorch 1.13 computes it, bit for bit: the book's loss over GPT-2's 50,257
classes for 2 × 256 tokens is logits:flatten(1, 2) against targets:flatten(). ]=] .. loss_opts, [=[
logits = torch.tensor{{2.0, 1.0, 0.1}, {0.5, 2.5, 0.3}}
targets = torch.tensor{1, 2}              -- Python: torch.tensor([0, 1])
nn.functional.cross_entropy(logits, targets)
--> tensor(0.3185)
nn.functional.cross_entropy(logits, targets, {reduction = "none"})
--> tensor([0.4170, 0.2200])]=], nn.functional.cross_entropy)

def("nn.functional.nll_loss", 'nn.functional.nll_loss(log_probs, targets [, {ignore_index = -100, reduction = "mean"}])', [=[
The negative log-likelihood loss: minus log_probs at each target's class, averaged (PyTorch's sum
order, bit for bit). cross_entropy is nll_loss of log_softmax. ]=] .. loss_opts, [=[
logp = torch.log_softmax(torch.tensor{{2.0, 1.0, 0.1}, {0.5, 2.5, 0.3}}, -1)
nn.functional.nll_loss(logp, torch.tensor{1, 2})
--> tensor(0.3185)]=], nn.functional.nll_loss)

def("nn.functional.mse_loss", 'nn.functional.mse_loss(input, target [, {reduction = "mean"}])', [=[
The mean squared error: (input - target)² averaged ("mean"), summed ("sum") or element by element
("none"), added in PyTorch's order.]=], [=[
nn.functional.mse_loss(torch.tensor{1.0, 2.0, 4.0}, torch.tensor{1.0, 3.0, 2.0})
--> tensor(1.6667)]=], nn.functional.mse_loss)

def("nn.functional.log_softmax", "nn.functional.log_softmax(x, dim)", [=[
torch.log_softmax(x, dim): log(softmax(x)) computed as PyTorch does (x - max - log(sum(exp(x - max)))),
which stays finite where log(softmax(x)) would give -inf.]=], [=[
nn.functional.log_softmax(torch.tensor{1.0, 2.0, 3.0}, 1)
--> tensor([-2.4076, -1.4076, -0.4076])]=], nn.functional.log_softmax)

local function loss_class(name, fname, example)
    D.class(name, "nn." .. name .. '([{reduction = "mean"' .. (name == "MSELoss" and "" or ", ignore_index = -100") .. '}])', [=[
The loss as a module: nn.]=] .. name .. [=[(opts)(input, target) is nn.functional.]=] .. fname .. [=[(input, target,
opts). The options become fields (loss.reduction), as PyTorch's attributes.]=], example)
    mdef(name, "__init", name .. ":__init([opts])", [=[
What nn.]=] .. name .. [=[(opts) runs: checks the option names and keeps each as a field.]=], [=[
nn.]=] .. name .. [=[{reduction = "sum"}.reduction
--> sum]=])
    mdef(name, "forward", "loss:forward(input, target)", [=[
nn.functional.]=] .. fname .. [=[ with the module's options: what calling the module does.]=], example)
    mdef(name, "extra_repr", "loss:extra_repr()", [=[
Nothing: PyTorch prints a loss module as its name and ().]=], [=[
nn.]=] .. name .. [=[()
--> ]=] .. name .. "()")
end

loss_class("CrossEntropyLoss", "cross_entropy", [=[
loss_fn = nn.CrossEntropyLoss()
loss_fn(torch.tensor{{2.0, 1.0, 0.1}, {0.5, 2.5, 0.3}}, torch.tensor{1, 2})
--> tensor(0.3185)]=])
loss_class("NLLLoss", "nll_loss", [=[
nn.NLLLoss{reduction = "sum"}(torch.tensor{{-1.0, -2.0}, {-3.0, -0.5}}, torch.tensor{1, 2})
--> tensor(1.5000)]=])
loss_class("MSELoss", "mse_loss", [=[
nn.MSELoss()(torch.tensor{1.0, 2.0}, torch.tensor{0.0, 0.0})
--> tensor(2.5000)]=])

-- ---- indexing with indices ---------------------------------------------------------------------

both("gather", "torch.gather(x, dim, index)", "x:gather(dim, index)", [=[
Picks along dim the elements that index (an int64 tensor of 1-based indices, as many dims as x) names:
for a matrix and dim 2, out[i][j] = x[i][index[i][j]]. The book picks each target's probability
this way, or with a list of indices in an index table (?Tensor.indexing).]=], [=[
probas = torch.tensor{{0.1, 0.7, 0.2}, {0.5, 0.2, 0.3}}
probas:gather(2, torch.tensor{{2}, {1}})      -- Python: probas.gather(1, torch.tensor([[1], [0]]))
--> tensor([[0.7000],
-->         [0.5000]])]=])

both("scatter", "torch.scatter(x, dim, index, src)", "x:scatter(dim, index, src)", [=[
A copy of x with the elements of src written where index (1-based, int64) says along dim: the
reverse of gather. (PyTorch's x.scatter(dim, index, src), out of place.)]=], [=[
torch.zeros(2, 3):scatter(2, torch.tensor{{3}, {1}}, torch.ones(2, 1))
--> tensor([[0., 0., 1.],
-->         [1., 0., 0.]])]=])

both("scatter_add", "torch.scatter_add(x, dim, index, src)", "x:scatter_add(dim, index, src)", [=[
Like scatter, but adding src's elements to what is there (in order along dim, as PyTorch): gather's
gradient.]=], [=[
torch.zeros(3):scatter_add(1, torch.tensor{1, 3, 1}, torch.tensor{1.0, 2.0, 4.0})
--> tensor([5., 0., 2.])]=])

both("bincount", "torch.bincount(input [, {weights =, minlength = 0}])", "input:bincount([{weights =, minlength = 0}])", [=[
Counts how often each bin number occurs in input, a 1-D int64 tensor: out[i] is the number of i's
(with weights, a float32 tensor as long as input: the sum of their weights, added in input's order
as PyTorch adds them). Bins count from 1, as ids do in attn (torch.multinomial's, argmax's), so
PyTorch's torch.bincount(x) is torch.bincount(x + 1) here and the book's
for i, freq in enumerate(sampled_ids) is for i = 1, #vocab do ... sampled_ids[i] ... end. The result
has max(input) bins, or minlength if that is more; int64 counts, or float32 sums (PyTorch gives
float64 for weights of another dtype; attn asks for float32 ones).]=], [=[
torch.bincount(torch.tensor{1, 2, 2, 4})
--> tensor([1, 2, 0, 1])
torch.bincount(torch.tensor{2, 2}, {weights = torch.tensor{0.5, 0.25}, minlength = 3})
--> tensor([0.0000, 0.7500, 0.0000])]=])

-- ---- the optimizers' element-wise operations -----------------------------------------------------

both("addcmul", "torch.addcmul(x, t1, t2 [, {value = 1}])", "x:addcmul(t1, t2 [, {value = 1}])", [=[
x + value * t1 * t2, rounded as PyTorch's kernel rounds it (value * t1 first, then one fused
multiply-add), so that Adam's moments are PyTorch's to the last bit. x:add(y, {alpha = a}) is
x + a * y the same way.]=], [=[
torch.addcmul(torch.ones(2), torch.tensor{1.0, 2.0}, torch.tensor{3.0, 4.0}, {value = 0.5})
--> tensor([2.5000, 5.0000])]=])

both("addcdiv", "torch.addcdiv(x, t1, t2 [, {value = 1}])", "x:addcdiv(t1, t2 [, {value = 1}])", [=[
x + value * t1 / t2, as PyTorch computes it: Adam's update of the weights.]=], [=[
torch.addcdiv(torch.ones(2), torch.tensor{1.0, 2.0}, torch.tensor{4.0, 4.0}, {value = -1})
--> tensor([0.7500, 0.5000])]=])

method("addcmul_", "x:addcmul_(t1, t2 [, {value = 1}])", [=[
addcmul in place: x becomes x + value * t1 * t2.]=], [=[
x = torch.zeros(2)
x:addcmul_(torch.tensor{1.0, 2.0}, torch.tensor{1.0, 2.0})
--> tensor([1., 4.])]=])

method("addcdiv_", "x:addcdiv_(t1, t2 [, {value = 1}])", [=[
addcdiv in place: x becomes x + value * t1 / t2.]=], [=[
x = torch.zeros(2)
x:addcdiv_(torch.tensor{1.0, 2.0}, torch.tensor{2.0, 2.0})
--> tensor([0.5000, 1.0000])]=])

-- ---- random order, ranges ----------------------------------------------------------------------

fn("randperm", "torch.randperm(n [, {generator = g}])", [=[
The numbers 1 to n in a random order (int64), the order PyTorch's torch.randperm(n) gives 0 to n-1 for
the same seed, plus one (ids are 1-based in attn). A torch.Generator given as generator draws from it
and leaves the default generator's stream as it was.]=], [=[
torch.manual_seed(0)
torch.randperm(5)
--> tensor([5, 1, 2, 4, 3])]=])

fn("linspace", "torch.linspace(start, end, steps)", [=[
steps evenly spaced float32 numbers from start to end, both included, bit for bit as PyTorch's CPU kernel
computes them (the first half counted up from start, the second down from end).]=], [=[
torch.linspace(0, 1, 5)
--> tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])]=])

fn("Generator", "torch.Generator()", [=[
A random generator of its own, seeded with g:manual_seed(seed) (which returns g), as PyTorch's
torch.Generator: torch.randperm(n, {generator = g}) and DataLoader{generator = g} draw from it and not from
the default generator that torch.manual_seed seeds. A new one starts from PyTorch's default seed
(g:initial_seed() is 67280421310721).]=], [=[
g = torch.Generator():manual_seed(42)
torch.randperm(4, {generator = g})
--> tensor([3, 4, 1, 2])]=])

def("torch.utils.data.DataLoader", "torch.utils.data.DataLoader(dataset, {batch_size = 1, shuffle = false, drop_last = false, generator = nil})", [=[
Batches of a dataset, in PyTorch's order for a seed: a loop over the loader draws what PyTorch's
DataLoader draws from the default generator (a seed for its workers, then, when shuffling, a seed for
a fresh generator whose randperm is the order), so chapter 5's loaders after torch.manual_seed(123)
give the book's batches. The dataset is anything with #dataset and dataset[i] (a Lua list, or a class
with __len and __index). Tensor items are stacked into one tensor, numbers into a tensor, and an item
that is a list such as {x, y} gives one value per position: for x, y in loader do ... end, as
Python's for x, y in loader. #loader is the number of batches; loader() gives a fresh pass's
iterator. One process only (num_workers = 0).]=], [=[
data = {torch.tensor{1, 2}, torch.tensor{3, 4}, torch.tensor{5, 6}}
for batch in torch.utils.data.DataLoader(data, {batch_size = 2}) do print(batch) end
--> tensor([[1, 2],
-->         [3, 4]])
--> tensor([[5, 6]])]=], torch.utils.data.DataLoader)

-- ---- optimizers --------------------------------------------------------------------------------

local optim_methods = [=[opt:step() updates every parameter that has a gradient (p.grad) in place;
opt:zero_grad() forgets the gradients (p.grad = nil: set_to_none = true, PyTorch 2.x's default —
PyTorch 1.13's was false, which zeroes them; opt:zero_grad{set_to_none = false} does that);
opt:state_dict() gives {state = {[i] = {...}}, param_groups = {...}} with the parameters numbered from 1,
and opt:load_state_dict(sd) takes one back, as PyTorch's: the saved options (lr, betas, ...) and a copy
of each parameter's state, matched by position, after the same checks (as many groups, each as long);
with torch.save and torch.load, training resumes where it stopped, bit for bit. Unknown options are
errors.]=]

def("torch.optim", "torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW", [=[
The optimizers of chapter 5, written as PyTorch 1.13's single-tensor CPU code writes them, operation
for operation, so that after the same gradients every weight and every moment is PyTorch's to the last
bit. Make one from a list of tensors (model:parameters()) and options: torch.optim.AdamW(model:parameters(),
{lr = 0.0004, weight_decay = 0.1}). ]=] .. optim_methods .. [=[ Each class also has
.step_tensors(params, grads, states, group): the update itself on explicit gradients.]=], [=[
p = torch.tensor{1.0, 2.0}
opt = torch.optim.SGD({p}, {lr = 0.1})
torch.optim.SGD.step_tensors({p}, {torch.tensor{1.0, -1.0}}, {{}}, opt.param_groups[1])
p
--> tensor([0.9000, 2.1000])]=], torch.optim)

def("torch.optim.SGD", "torch.optim.SGD(params, {lr =, momentum = 0, dampening = 0, weight_decay = 0, nesterov = false, maximize = false})", [=[
Stochastic gradient descent, with momentum (a buffer per parameter, state.momentum_buffer), dampening,
Nesterov momentum and weight decay as PyTorch's SGD. lr is required. ]=] .. optim_methods, [=[
p = torch.tensor{1.0}
opt = torch.optim.SGD({p}, {lr = 0.5, momentum = 0.9})
opt.param_groups[1].momentum
--> 0.9]=], torch.optim.SGD)

def("torch.optim.Adam", "torch.optim.Adam(params, {lr = 0.001, betas = {0.9, 0.999}, eps = 1e-08, weight_decay = 0, amsgrad = false, maximize = false})", [=[
Adam: moving averages of the gradient (state.exp_avg) and of its square (state.exp_avg_sq), corrected
for their start at zero, and a step of lr times their ratio; weight_decay adds weight_decay * p to the
gradient. state.step counts the steps (a float32 tensor, as PyTorch's). ]=] .. optim_methods, [=[
p = torch.tensor{1.0, 2.0}
opt = torch.optim.Adam({p}, {lr = 0.1})
states = {{}}
torch.optim.Adam.step_tensors({p}, {torch.tensor{0.5, -0.5}}, states, opt.param_groups[1])
p, states[1].exp_avg
--> tensor([0.9000, 2.1000])	tensor([ 0.0500, -0.0500])]=], torch.optim.Adam.class or torch.optim.Adam)

def("torch.optim.AdamW", "torch.optim.AdamW(params, {lr = 0.001, betas = {0.9, 0.999}, eps = 1e-08, weight_decay = 0.01, amsgrad = false, maximize = false})", [=[
Adam with decoupled weight decay: each step first multiplies p by 1 - lr * weight_decay, then takes
Adam's step without weight decay in the gradient. What chapter 5 trains GPT with
(lr = 0.0004, weight_decay = 0.1). ]=] .. optim_methods, [=[
p = torch.tensor{1.0, 2.0}
opt = torch.optim.AdamW({p}, {lr = 0.1})
torch.optim.AdamW.step_tensors({p}, {torch.tensor{0.5, -0.5}}, {{}}, opt.param_groups[1])
p
--> tensor([0.8990, 2.0980])]=], torch.optim.AdamW)

return {torch = torch}
