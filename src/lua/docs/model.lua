-- model.lua — help for nn.init (nn/weight_init.lua), nn.Sequential and m:clone() (nn/layers.lua,
-- nn/module.lua), and the whole Transformer (nn/model.lua): nn.EncoderDecoder, nn.build_model and greedy
-- decoding. Loaded by attn.docs (docs/init.lua).

local D = require("attn.docs.define")
local def, class, mdef = D.def, D.class, D.mdef
local nn = require("attn.nn")

-- ---- nn.init ---------------------------------------------------------------------------------------

def("nn.init", "nn.init  (torch.nn.init)", [=[
Fills a tensor in place with the numbers a layer starts from, as PyTorch's torch.nn.init does:
xavier_uniform_, kaiming_uniform_, uniform_, normal_, zeros_, ones_ and calculate_gain. They draw from
the same random stream as PyTorch with bounds computed the same way, so after the same
torch.manual_seed the uniform fills are PyTorch's numbers bit for bit (normal_ as torch.randn: bit for
bit on fewer than 16 numbers, within 1e-6 on more). Python's torch.nn.init.xavier_uniform_(p) is
nn.init.xavier_uniform_(p).]=], [=[
torch.manual_seed(0)
nn.init.xavier_uniform_(torch.empty(2, 3))
--> tensor([[-0.0082,  0.5876, -0.9016],
-->         [-0.8062, -0.4219,  0.2938]])]=], nn.init)

def("nn.init.xavier_uniform_", "nn.init.xavier_uniform_(tensor [, gain = 1])", [=[
Glorot's initialisation: uniform in ±gain·√(6 / (fan_in + fan_out)), where fan_in is the size of dim 2
(the inputs of a Linear weight) and fan_out that of dim 1 (times the size of any further dims). The
book's build_model applies it to every parameter with more than one dim. Returns the tensor.]=], [=[
torch.manual_seed(0)
w = nn.init.xavier_uniform_(torch.empty(512, 512))
w:abs():max():item() <= math.sqrt(6 / 1024)
--> true]=], nn.init.xavier_uniform_)

def("nn.init.kaiming_uniform_", "nn.init.kaiming_uniform_(tensor [, a = 0 [, mode = \"fan_in\" [, nonlinearity = \"leaky_relu\"]]])", [=[
He's initialisation: uniform in ±√3·gain/√fan, with gain = calculate_gain(nonlinearity, a) and fan the
tensor's fan_in (or fan_out). nn.Linear starts its weight with kaiming_uniform_(weight, √5). The
keyword arguments may also go in a table: {mode = "fan_out", nonlinearity = "relu"}.]=], [=[
torch.manual_seed(123)
w = nn.init.kaiming_uniform_(torch.empty(2, 3), math.sqrt(5))
torch.manual_seed(123)
torch.equal(w, nn.Linear(3, 2, {bias = false}).weight)    -- what nn.Linear does
--> true]=], nn.init.kaiming_uniform_)

def("nn.init.uniform_", "nn.init.uniform_(tensor [, a = 0 [, b = 1]])", [=[
Uniform numbers in [a, b), tensor:uniform_(a, b). The recurrent layers start every weight with
uniform_(w, -1/√hidden, 1/√hidden).]=], [=[
torch.manual_seed(0)
nn.init.uniform_(torch.empty(3), -1, 1)
--> tensor([-0.0075,  0.5364, -0.8230])]=], nn.init.uniform_)

def("nn.init.normal_", "nn.init.normal_(tensor [, mean = 0 [, std = 1]])", [=[
Normal numbers with the given mean and standard deviation, tensor:normal_(mean, std); nn.Embedding
starts its table with normal_(weight).]=], [=[
torch.manual_seed(0)
nn.init.normal_(torch.empty(3), 0, 0.02)
--> tensor([ 0.0308, -0.0059, -0.0436])]=], nn.init.normal_)

def("nn.init.zeros_", "nn.init.zeros_(tensor)", [=[
Fills the tensor with 0 (tensor:zero_()) and draws nothing.]=], [=[
nn.init.zeros_(torch.ones(2))
--> tensor([0., 0.])]=], nn.init.zeros_)

def("nn.init.ones_", "nn.init.ones_(tensor)", [=[
Fills the tensor with 1 (tensor:fill_(1)), as LayerNorm's weight starts.]=], [=[
nn.init.ones_(torch.zeros(2))
--> tensor([1., 1.])]=], nn.init.ones_)

def("nn.init.calculate_gain", "nn.init.calculate_gain(nonlinearity [, param])", [=[
PyTorch's recommended gain for an activation: 1 for "linear" and "sigmoid", 5/3 for "tanh", √2 for
"relu", √(2 / (1 + slope²)) for "leaky_relu" (slope param, 0.01 by default), 3/4 for "selu".]=], [=[
nn.init.calculate_gain("relu") == math.sqrt(2), nn.init.calculate_gain("tanh")
--> true	1.6666666666667]=], nn.init.calculate_gain)

-- ---- nn.Sequential and clone ------------------------------------------------------------------------

class("Sequential", "nn.Sequential(module, ...)", [=[
Its modules one after the other: seq(x) is module2(module1(x)). The book's source_embeddings are
torch.nn.Sequential(Embeddings(d_model, vocab), c(position)): embed the tokens, then add the
positional encoding. Index it from 1 (seq[1] is PyTorch's seq[0]); nn.Sequential{a, b} also works.]=], [=[
torch.manual_seed(0)
embed = nn.Sequential(nn.Embeddings(4, 10), nn.PositionalEncoding(4, 0))
embed(torch.tensor{{1, 2}})
--> tensor([[[-2.2517, -1.3047, -0.5012,  0.1322],
-->          [ 2.5389,  1.9243, -0.6220, -3.2305]]], grad_fn=<AddBackward0>)]=])

mdef("Sequential", "__init", "Sequential:__init(module, ...)", [=[
What nn.Sequential(...) runs: keeps the modules, in order, checking that each one is a module.]=], [=[
nn.Sequential(nn.Linear(3, 2), nn.ReLU())
--> Sequential(
-->   (1): Linear(in_features=3, out_features=2, bias=True)
-->   (2): ReLU()
--> )]=])

mdef("Sequential", "forward", "seq:forward(x)", [=[
Calls each module on the output of the one before: what calling the Sequential does.]=], [=[
seq = nn.Sequential(nn.ReLU(), nn.ReLU())
seq:forward(torch.tensor{-1.0, 2.0})
--> tensor([0., 2.])]=])

mdef("Module", "clone", "m:clone()", [=[
A deep copy of the module: new parameters and buffers with the same values, the same class and
children (nn.deepcopy(m)). Python's copy.deepcopy(m), which the book calls c(attn) in build_model:
every block gets its own copy of one attention module.]=], [=[
attn = nn.MultiHeadedAttention(2, 4)
copy = attn:clone()
torch.equal(copy.fc_layers[1].weight, attn.fc_layers[1].weight), copy.fc_layers[1].weight == attn.fc_layers[1].weight
--> true	false]=])

-- ---- the whole Transformer --------------------------------------------------------------------------

class("EncoderDecoder", "nn.EncoderDecoder(encoder, decoder, source_embeddings, target_embeddings)", [=[
The whole encoder-decoder Transformer of Python Deep Learning, ch. 7: model(source, target,
source_mask, target_mask) embeds the source ids and runs the encoder, then embeds the target ids and
runs the decoder on them and the encoder's output; it returns the decoder's log-probabilities of the
next token at every target position, [batch, target length, target vocabulary]. encode and decode
(the Annotated Transformer's) do the two halves, so decoding can encode once. nn.build_model makes one.]=], [=[
torch.manual_seed(0)
model = nn.build_model(10, 12, {N = 1, d_model = 8, d_ff = 16, h = 2}):eval()
source, target = torch.tensor{{2, 5, 7, 3}}, torch.tensor{{2, 9}}
model(source, target, torch.ones(1, 1, 4), nn.subsequent_mask(2)).shape
--> torch.Size([1, 2, 12])]=])

mdef("EncoderDecoder", "__init", "EncoderDecoder:__init(encoder, decoder, source_embeddings, target_embeddings)", [=[
What nn.EncoderDecoder(...) runs: keeps the four modules under those names, in that order.]=], [=[
model = nn.build_model(10, 12, {N = 1, d_model = 8, d_ff = 16, h = 2})
model.source_embeddings[1]
--> Embeddings(
-->   (lut): Embedding(10, 8)
--> )]=])

mdef("EncoderDecoder", "encode", "model:encode(source, source_mask)", [=[
encoder(source_embeddings(source), source_mask): the encoder's output, [batch, source length, d_model],
which decode attends to.]=], [=[
model = nn.build_model(10, 12, {N = 1, d_model = 8, d_ff = 16, h = 2})
model:encode(torch.tensor{{2, 5, 7}}, torch.ones(1, 1, 3)).shape
--> torch.Size([1, 3, 8])]=])

mdef("EncoderDecoder", "decode", "model:decode(encoder_states, source_mask, target, target_mask)", [=[
decoder(target_embeddings(target), encoder_states, source_mask, target_mask): log-probabilities of
the next token after each target position.]=], [=[
model = nn.build_model(10, 12, {N = 1, d_model = 8, d_ff = 16, h = 2}):eval()
memory = model:encode(torch.tensor{{2, 5, 7}}, torch.ones(1, 1, 3))
log_probs = model:decode(memory, torch.ones(1, 1, 3), torch.tensor{{2}}, nn.subsequent_mask(1))
log_probs:exp():sum():item() > 0.9999
--> true]=])

mdef("EncoderDecoder", "forward", "model:forward(source, target, source_mask, target_mask)", [=[
decode(encode(source, source_mask), source_mask, target, target_mask): what calling the model does.]=], [=[
model = nn.build_model(10, 12, {N = 1, d_model = 8, d_ff = 16, h = 2}):eval()
s, t, m = torch.tensor{{2, 5}}, torch.tensor{{2, 4, 6}}, torch.ones(1, 1, 2)
torch.equal(model:forward(s, t, m, nn.subsequent_mask(3)), model:decode(model:encode(s, m), m, t, nn.subsequent_mask(3)))
--> true]=])

def("nn.build_model", "nn.build_model(source_vocabulary, target_vocabulary [, N = 6, d_model = 512, d_ff = 2048, h = 8, dropout = 0.1])", [=[
The book's build_model, line for line: one MultiHeadedAttention(h, d_model), one PositionwiseFFN and one
PositionalEncoding, deep-copied (m:clone(), the book's c = copy.deepcopy) into an Encoder of N
EncoderBlocks, a Decoder of N DecoderBlocks ending in a projection to the target vocabulary, and two
Sequential(Embeddings, PositionalEncoding) stacks; then xavier_uniform_ on every parameter with more
than one dim. The modules are made in the book's order, so after the same torch.manual_seed every
weight is PyTorch's, bit for bit. Keyword arguments go by position or in a trailing table.]=], [=[
torch.manual_seed(0)
nn.build_model(11, 11):num_parameters()      -- the book's sizes
--> 44157451]=], nn.build_model)

class("GreedyDecoder", "nn.GreedyDecoder(model, source, source_mask, start_symbol [, {end_symbol = id}])", [=[
Autoregressive decoding to step through: encodes the source once (d.memory) and starts the target
d.ys = [[start_symbol]]. Each d:step() feeds the target so far to the decoder with the causal mask
nn.subsequent_mask(n) (d.target_mask, one row longer than the step before), takes the most probable
next token from the last position's log-probabilities (d.log_probs) and appends it to d.ys; it returns
the token's id. After end_symbol, d.done is true. source is an int64 [1, n] tensor of ids.]=], [=[
torch.manual_seed(0)
model = nn.build_model(10, 12, {N = 1, d_model = 8, d_ff = 16, h = 2}):eval()
d = nn.GreedyDecoder(model, torch.tensor{{2, 5, 7, 3}}, torch.ones(1, 1, 4), 1)
d:step(), d:step()
--> 6	6]=])

mdef("GreedyDecoder", "step", "d:step()", [=[
One step of greedy decoding (see nn.GreedyDecoder): the next token's id, appended to d.ys; d.log_probs
and d.target_mask are those of this step.]=], [=[
model = nn.build_model(10, 12, {N = 1, d_model = 8, d_ff = 16, h = 2}):eval()
d = nn.GreedyDecoder(model, torch.tensor{{2, 5}}, torch.ones(1, 1, 2), 1)
d:step()
d.ys.shape, d.target_mask.shape
--> torch.Size([1, 2])	torch.Size([1, 1, 1])]=])

def("nn.greedy_decode", "nn.greedy_decode(model, source, source_mask, max_len, start_symbol [, {end_symbol = id}])", [=[
The Annotated Transformer's greedy_decode: nn.GreedyDecoder's steps until the target holds max_len
tokens (or end_symbol came); returns the target ids, [1, n], start symbol first.]=], [=[
torch.manual_seed(0)
model = nn.build_model(10, 12, {N = 1, d_model = 8, d_ff = 16, h = 2}):eval()
nn.greedy_decode(model, torch.tensor{{2, 5, 7, 3}}, torch.ones(1, 1, 4), 5, 1)
--> tensor([[1, 6, 6, 6, 6]])]=], nn.greedy_decode)
