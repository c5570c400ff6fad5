-- transformer.lua — help for the Transformer's layers: torch.layer_norm, torch.embedding, torch.erf/sin/cos
-- (src/bind/layers.c) and nn/transformer.lua's nn.LayerNorm, nn.Embedding, the activations and the
-- positional encoding. Python Deep Learning's blocks and BERT's input are in docs/blocks.lua.
-- Loaded by attn.docs (docs/init.lua).

local D = require("attn.docs.define")
local def, class, mdef = D.def, D.class, D.mdef
local nn = require("attn.nn")

local function fdef(name, sig, doc, example)
    def("nn.functional." .. name, sig, doc, example, nn.functional[name])
end

local ids = D.ids_note

-- ---- torch functions ------------------------------------------------------------------------------

D.fn("layer_norm", "torch.layer_norm(x, normalized_shape [, weight [, bias [, eps]]])", [=[
Layer normalization over the last dims of x named by normalized_shape (a size, or a list of sizes
that must equal x's last dims): each group of numbers becomes (x - mean) / sqrt(var + eps), with the
biased variance (divided by N, not N - 1), then times weight plus bias when given (both of the
normalized shape). eps defaults to 1e-5. The arguments after x may also be given by name in an
options table: {weight = w, bias = b, eps = 1e-6}. The result is PyTorch's bit for bit (its
Welford moments, in its order).]=], [=[
x = torch.tensor{{1.0, 2.0, 3.0, 4.0}, {2.0, 2.0, 2.0, 6.0}}
torch.layer_norm(x, 4)
--> tensor([[-1.3416, -0.4472,  0.4472,  1.3416],
-->         [-0.5773, -0.5773, -0.5773,  1.7320]])
torch.layer_norm(x, {4}, {weight = torch.tensor{1.0, 1.0, 2.0, 2.0}, eps = 0.1})
--> tensor([[-1.2910, -0.4303,  0.8607,  2.5820],
-->         [-0.5680, -0.5680, -1.1359,  3.4078]])]=])

D.fn("embedding", "torch.embedding(weight, indices)", [=[
The rows of weight [num_embeddings, embedding_dim] picked by the ids in indices (an int64 tensor of
any shape S, as PyTorch requires): the result has shape S + [embedding_dim]. ]=] .. ids .. [=[ An id
outside 1..num_embeddings is an error that names it. nn.Embedding is the layer that holds the
weight.]=], [=[
weight = torch.tensor{{0.0, 0.0}, {1.0, 10.0}, {2.0, 20.0}}
torch.embedding(weight, torch.tensor{{3, 1}, {2, 2}})
--> tensor([[[ 2., 20.],
-->          [ 0.,  0.]],
--> 
-->         [[ 1., 10.],
-->          [ 1., 10.]]])]=])

D.both("erf", "torch.erf(x)", "x:erf()", [=[
The error function, element-wise: erf(x) = 2/sqrt(pi) * integral of exp(-t^2) from 0 to x.
gelu is x/2 * (1 + erf(x/sqrt(2))). Computed as PyTorch's CPU kernel (SLEEF), bit for bit.]=], [=[
torch.erf(torch.tensor{-1, 0, 0.5, 2})
--> tensor([-0.8427,  0.0000,  0.5205,  0.9953])]=])

D.both("sin", "torch.sin(x)", "x:sin()", [=[
The sine, element-wise (x in radians), as PyTorch's CPU kernel computes it (SLEEF, in groups of 8
the way PyTorch vectorises, which matters in the last bit for |x| >= 125).]=], [=[
torch.sin(torch.tensor{0, math.pi / 6, math.pi / 2})
--> tensor([0.0000, 0.5000, 1.0000])]=])

D.both("cos", "torch.cos(x)", "x:cos()", [=[
The cosine, element-wise (x in radians), as PyTorch's CPU kernel computes it (see torch.sin).]=], [=[
torch.tensor{0, math.pi / 3, math.pi}:cos()
--> tensor([ 1.0000,  0.5000, -1.0000])]=])

-- ---- nn.functional ---------------------------------------------------------------------------------

fdef("relu", "nn.functional.relu(x)", [=[
max(x, 0) element-wise, the original Transformer's activation: the same as torch.relu(x).]=], [=[
nn.functional.relu(torch.tensor{-2, -0.5, 0, 1.5})
--> tensor([0.0000, 0.0000, 0.0000, 1.5000])]=])

fdef("gelu", "nn.functional.gelu(x [, {approximate = \"none\"}])", [=[
The Gaussian error linear unit, x * Phi(x) = x/2 * (1 + erf(x/sqrt(2))) (BERT's and GPT's activation).
{approximate = "tanh"} uses x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) instead, as Python's
F.gelu(x, approximate='tanh'). Both are PyTorch's numbers bit for bit (for the erf form PyTorch runs
oneDNN's kernel on contiguous tensors, and so does attn).]=], [=[
x = torch.tensor{-2, -0.5, 0, 1.5}
nn.functional.gelu(x)
--> tensor([-0.0455, -0.1543,  0.0000,  1.3998])
nn.functional.gelu(x, {approximate = "tanh"})
--> tensor([-0.0454, -0.1543,  0.0000,  1.3996])]=])

fdef("silu", "nn.functional.silu(x)", [=[
The sigmoid linear unit (also called swish), x * sigmoid(x) = x / (1 + exp(-x)): the activation of
Python Deep Learning's PositionwiseFFN. PyTorch's numbers bit for bit.]=], [=[
nn.functional.silu(torch.tensor{-2, -0.5, 0, 1.5})
--> tensor([-0.2384, -0.1888,  0.0000,  1.2264])]=])

fdef("layer_norm", "nn.functional.layer_norm(x, normalized_shape [, weight [, bias [, eps]]])", [=[
The same as torch.layer_norm, under PyTorch's F.layer_norm name.]=], [=[
nn.functional.layer_norm(torch.tensor{{1.0, 2.0, 3.0}}, 3)
--> tensor([[-1.2247,  0.0000,  1.2247]])]=])

fdef("embedding", "nn.functional.embedding(indices, weight)", [=[
torch.embedding(weight, indices) with PyTorch's F.embedding argument order (ids first). ]=] .. ids,
[=[
nn.functional.embedding(torch.tensor{2}, torch.tensor{{1.0, 1.0}, {5.0, 7.0}})
--> tensor([[5., 7.]])]=])

-- ---- copying ----------------------------------------------------------------------------------------

def("nn.deepcopy", "nn.deepcopy(module)", [=[
Python's copy.deepcopy(module): a new module of the same class with copies of every child module,
parameter and buffer, in the same registration order. The copy starts with equal values but has its
own storage, so training one does not change the other. Used by nn.clones.]=], [=[
a = nn.Linear(2, 2)
b = nn.deepcopy(a)
torch.equal(a.weight, b.weight), a.weight == b.weight
--> true	false]=], nn.deepcopy)

def("nn.clones", "nn.clones(module, N)", [=[
The book's clones(): an nn.ModuleList of N deep copies of module. The copies start out identical,
which is why nn.Encoder's N blocks (and MultiHeadedAttention's four Linear layers) have equal weights
until training changes them, in PyTorch as here.]=], [=[
torch.manual_seed(0)
layers = nn.clones(nn.Linear(2, 2), 3)
#layers, torch.equal(layers[1].weight, layers[3].weight)
--> 3	true]=], nn.clones)

def("nn.subsequent_mask", "nn.subsequent_mask(n)", [=[
The decoder's causal mask as the Annotated Transformer makes it: bool [1, n, n], true where query
position i may attend to key position j (j <= i), false for the future. This is the book's
convention (0 hides), the opposite of chapter 3's torch.triu(..., 1) mask (1 hides).]=], [=[
nn.subsequent_mask(4)
--> tensor([[[ True, False, False, False],
-->          [ True,  True, False, False],
-->          [ True,  True,  True, False],
-->          [ True,  True,  True,  True]]])]=], nn.subsequent_mask)

-- ---- LayerNorm --------------------------------------------------------------------------------------

class("LayerNorm", "nn.LayerNorm(normalized_shape [, {eps = 1e-5, elementwise_affine = true, bias = true}])", [=[
Layer normalization as PyTorch's nn.LayerNorm: normalizes each token's last dims (normalized_shape, a
size or a list of sizes) to mean 0 and variance 1, then scales by weight and shifts by bias, both
parameters of the normalized shape that start as ones and zeros. Python's keyword arguments go in
the options table; {elementwise_affine = false} makes no parameters. Numbers are PyTorch's bit for
bit.]=], [=[
ln = nn.LayerNorm(4)
ln
--> LayerNorm((4,), eps=1e-05, elementwise_affine=True)
ln(torch.tensor{{1.0, 2.0, 3.0, 4.0}, {0.0, 0.0, 1.0, 5.0}})
--> tensor([[-1.3416, -0.4472,  0.4472,  1.3416],
-->         [-0.7276, -0.7276, -0.2425,  1.6977]],
-->        grad_fn=<NativeLayerNormBackward0>)]=])

mdef("LayerNorm", "__init", "LayerNorm:__init(normalized_shape [, opts])", [=[
What nn.LayerNorm(...) runs: checks the sizes and eps, and makes weight = ones and bias = zeros of
the normalized shape (unless {elementwise_affine = false}).]=], [=[
ln = nn.LayerNorm({2, 3})
ln.weight.shape, ln.eps
--> torch.Size([2, 3])	1e-05]=])

mdef("LayerNorm", "forward", "ln:forward(x)", [=[
torch.layer_norm(x, normalized_shape, weight, bias, eps): what calling the layer does. x's last dims
must be the normalized shape.]=], [=[
nn.LayerNorm(2):forward(torch.tensor{{1.0, 3.0}})
--> tensor([[-1.0000,  1.0000]], grad_fn=<NativeLayerNormBackward0>)]=])

mdef("LayerNorm", "extra_repr", "ln:extra_repr()", [=[
The settings printed inside LayerNorm(...), as PyTorch prints them.]=], [=[
nn.LayerNorm(8, {eps = 1e-6}):extra_repr()
--> (8,), eps=1e-06, elementwise_affine=True]=])

-- ---- Embedding --------------------------------------------------------------------------------------

class("Embedding", "nn.Embedding(num_embeddings, embedding_dim [, {padding_idx = id}])", [=[
A lookup table of num_embeddings vectors of embedding_dim numbers, the parameter weight, drawn from a
standard normal as PyTorch's nn.Embedding draws them (normal_, so after the same torch.manual_seed
the weights agree with PyTorch's within 1e-6). Calling it on a tensor (or table) of ids gives their
rows. ]=] .. ids .. [=[ {padding_idx = id} sets that row to zeros (PyTorch's padding_idx=0 is
{padding_idx = 1}).]=], [=[
torch.manual_seed(0)
emb = nn.Embedding(5, 3)
emb(torch.tensor{{1, 5, 5}})
--> tensor([[[ 1.5410, -0.2934, -2.1788],
-->          [-0.8567,  1.1006, -1.0712],
-->          [-0.8567,  1.1006, -1.0712]]], grad_fn=<EmbeddingBackward0>)]=])

mdef("Embedding", "__init", "Embedding:__init(num_embeddings, embedding_dim [, opts])", [=[
What nn.Embedding(...) runs: checks the sizes and padding_idx, makes weight [num_embeddings,
embedding_dim] and calls reset_parameters.]=], [=[
nn.Embedding(10, 4, {padding_idx = 1})
--> Embedding(10, 4, padding_idx=1)]=])

mdef("Embedding", "reset_parameters", "emb:reset_parameters()", [=[
Draws the weights again as PyTorch does: weight:normal_(0, 1), then the padding row (if any) set to
zeros.]=], [=[
emb = nn.Embedding(3, 2, {padding_idx = 3})
emb:reset_parameters()
emb.weight[3]
--> tensor([0., 0.], grad_fn=<SelectBackward0>)]=])

mdef("Embedding", "forward", "emb:forward(ids)", [=[
torch.embedding(weight, ids): the rows of the ids (an int64 tensor, or a table of integers). An id
outside 1..num_embeddings is an error that names it and the size.]=], [=[
emb = nn.Embedding(4, 2)
pcall(emb.forward, emb, torch.tensor{1, 5})
--> false	Embedding: index 5 is out of range for an embedding of 4 rows (ids 1 to 4)]=])

mdef("Embedding", "extra_repr", "emb:extra_repr()", [=[
The sizes (and padding_idx) printed inside Embedding(...).]=], [=[
nn.Embedding(30000, 768):extra_repr()
--> 30000, 768]=])

-- ---- activation modules -----------------------------------------------------------------------------

class("ReLU", "nn.ReLU()", [=[
The ReLU activation as a module: calling it is torch.relu(x).]=], [=[
nn.ReLU()(torch.tensor{-1.0, 2.0})
--> tensor([0., 2.])]=])

mdef("ReLU", "forward", "relu:forward(x)", [=[
torch.relu(x).]=], [=[
nn.ReLU():forward(torch.tensor{-3, 3})     -- an int64 tensor stays int64
--> tensor([0, 3])]=])

class("SiLU", "nn.SiLU()", [=[
The SiLU activation as a module: calling it is nn.functional.silu(x).]=], [=[
nn.SiLU()(torch.tensor{-1.0, 2.0})
--> tensor([-0.2689,  1.7616])]=])

mdef("SiLU", "forward", "silu:forward(x)", [=[
nn.functional.silu(x).]=], [=[
nn.SiLU():forward(torch.tensor{0.0, 1.0})
--> tensor([0.0000, 0.7311])]=])

class("GELU", "nn.GELU([{approximate = \"none\"}])", [=[
The GELU activation as a module: calling it is nn.functional.gelu(x, {approximate = ...}).]=], [=[
nn.GELU{approximate = "tanh"}
--> GELU(approximate='tanh')]=])

mdef("GELU", "__init", "GELU:__init([opts])", [=[
What nn.GELU(...) runs: stores approximate, "none" (default) or "tanh".]=], [=[
nn.GELU().approximate
--> none]=])

mdef("GELU", "forward", "gelu:forward(x)", [=[
nn.functional.gelu(x, {approximate = self.approximate}).]=], [=[
nn.GELU():forward(torch.tensor{1.0})
--> tensor([0.8413])]=])

mdef("GELU", "extra_repr", "gelu:extra_repr()", [=[
approximate='none' or approximate='tanh', as PyTorch prints it.]=], [=[
nn.GELU():extra_repr()
--> approximate='none']=])

-- ---- positional encoding ----------------------------------------------------------------------------

def("nn.positional_encoding", "nn.positional_encoding(max_len, d_model)", [=[
The static (sinusoidal) positional encoding of Attention Is All You Need as a [max_len, d_model]
matrix: row pos (1-based here, position pos - 1 in the formula) holds sin(p / 10000^(2i/d_model)) in
column 2i + 1 and cos(p / 10000^(2i/d_model)) in column 2i + 2. Computed with the Annotated
Transformer's operations (exp of arange times -log(10000)/d_model, then sin and cos), so the float32
numbers are PyTorch's. d_model must be even.]=], [=[
nn.positional_encoding(3, 4)
--> tensor([[ 0.0000,  1.0000,  0.0000,  1.0000],
-->         [ 0.8415,  0.5403,  0.0100,  0.9999],
-->         [ 0.9093, -0.4161,  0.0200,  0.9998]])]=], nn.positional_encoding)

class("PositionalEncoding", "nn.PositionalEncoding(d_model [, dropout = 0.1 [, max_len = 5000]])", [=[
The Annotated Transformer's PositionalEncoding module (the book's "static positional encoding"): it
keeps nn.positional_encoding(max_len, d_model) as the buffer pe [1, max_len, d_model] and adds its
first n rows to an input [b, n, d_model], then applies dropout.]=], [=[
pe = nn.PositionalEncoding(4, 0, 10)
pe(torch.zeros(1, 2, 4))
--> tensor([[[0.0000, 1.0000, 0.0000, 1.0000],
-->          [0.8415, 0.5403, 0.0100, 0.9999]]])]=])

mdef("PositionalEncoding", "__init", "PositionalEncoding:__init(d_model [, dropout [, max_len]])", [=[
What nn.PositionalEncoding(...) runs: makes the dropout layer, then registers the buffer pe.]=], [=[
nn.PositionalEncoding(8, 0.1, 50).pe.shape
--> torch.Size([1, 50, 8])]=])

mdef("PositionalEncoding", "forward", "pe:forward(x)", [=[
dropout(x + pe[:, :n]) for x [..., n, d_model] with n <= max_len.]=], [=[
nn.PositionalEncoding(2, 0, 5):forward(torch.ones(1, 3, 2))
--> tensor([[[1.0000, 2.0000],
-->          [1.8415, 1.5403],
-->          [1.9093, 0.5839]]])]=])

class("Embeddings", "nn.Embeddings(d_model, vocab)", [=[
The Annotated Transformer's Embeddings class, which the book describes and leaves out: an
nn.Embedding(vocab, d_model) named lut whose output is multiplied by sqrt(d_model). Note the argument
order, d_model first, as in the book's build_model.]=], [=[
torch.manual_seed(0)
e = nn.Embeddings(4, 10)
e(torch.tensor{{1}})
--> tensor([[[-2.2517, -2.3047, -0.5012, -0.8678]]], grad_fn=<MulBackward0>)]=])

mdef("Embeddings", "__init", "Embeddings:__init(d_model, vocab)", [=[
What nn.Embeddings(...) runs: makes lut = nn.Embedding(vocab, d_model) and keeps d_model.]=], [=[
nn.Embeddings(4, 10)
--> Embeddings(
-->   (lut): Embedding(10, 4)
--> )]=])

mdef("Embeddings", "forward", "e:forward(ids)", [=[
lut(ids) * sqrt(d_model).]=], [=[
e = nn.Embeddings(4, 10)
torch.equal(e:forward(torch.tensor{3}), e.lut(torch.tensor{3}) * 2)
--> true]=])
