-- rnn.lua — help for the recurrent layers (src/lua/nn/rnn.lua): nn.GRUCell, nn.GRU, nn.LSTMCell, nn.LSTM.
-- Loaded by attn.docs (docs/init.lua).

local D = require("attn.docs.define")
local class, mdef = D.class, D.mdef

local exact = [=[ Initialised and computed as PyTorch 1.13 does on the CPU, so after the same torch.manual_seed
the weights and every output are PyTorch's, bit for bit.]=]

-- ---- GRU -------------------------------------------------------------------------------------------

class("GRUCell", "nn.GRUCell(input_size, hidden_size [, {bias = true}])", [=[
One step of a gated recurrent unit: h' = cell(x, h). From the input x and the state h it computes a
reset gate r = σ(W_ir x + b_ir + W_hr h + b_hr), an update gate z (the same with W_iz, W_hz), a
candidate n = tanh(W_in x + b_in + r * (W_hn h + b_hn)) and the new state h' = (1 - z) * n + z * h.
x is [batch, input_size] (or [input_size], one example); h is [batch, hidden_size], zeros when left
out. The three gates' weights are stacked in weight_ih [3·hidden, input] and weight_hh
[3·hidden, hidden], in the order r, z, n.]=] .. exact, [=[
torch.manual_seed(0)
cell = nn.GRUCell(3, 2)
h = cell(torch.ones(1, 3))            -- from h = 0
h, cell(torch.ones(1, 3), h)          -- the next step
--> tensor([[-0.3980, -0.0892]], grad_fn=<AddBackward0>)	tensor([[-0.6312, -0.0612]], grad_fn=<AddBackward0>)]=])

mdef("GRUCell", "__init", "GRUCell:__init(input_size, hidden_size [, {bias = true}])", [=[
What nn.GRUCell(...) runs: makes weight_ih, weight_hh, bias_ih and bias_hh (in PyTorch's order) and
draws them all uniform in ±1/√hidden_size.]=], [=[
for _, p in ipairs(nn.GRUCell(3, 2):named_parameters()) do print(p[1], p[2].shape) end
--> weight_ih	torch.Size([6, 3])
--> weight_hh	torch.Size([6, 2])
--> bias_ih	torch.Size([6])
--> bias_hh	torch.Size([6])]=])

mdef("GRUCell", "forward", "cell:forward(x [, h])", [=[
The new state h' from x and h (zeros when left out): what calling the cell does.]=], [=[
cell = nn.GRUCell(3, 2)
cell:forward(torch.ones(4, 3)).shape
--> torch.Size([4, 2])]=])

mdef("GRUCell", "extra_repr", "cell:extra_repr()", [=[
The sizes (and bias=False), as PyTorch prints them inside GRUCell(...) and LSTMCell(...).]=], [=[
nn.GRUCell(3, 2, {bias = false})
--> GRUCell(3, 2, bias=False)]=])

class("GRU", "nn.GRU(input_size, hidden_size [, {num_layers = 1, bias = true, batch_first = false, dropout = 0}])", [=[
A GRU over a whole sequence: output, h_n = gru(x [, h_0]). x is [T, batch, input_size], or
[batch, T, input_size] with batch_first = true, or [T, input_size] for one sequence. output holds
the last layer's state after every step ([T, batch, hidden], batch first if so made); h_n the final
state of every layer, [num_layers, batch, hidden]: the encoder's summary of the whole sequence, the
"thought vector" of a seq2seq model. Every step is nn.GRUCell's computation; the inputs of all steps
are projected at once, as PyTorch does. The weights are named as PyTorch names them, weight_ih_l0,
weight_hh_l0, bias_ih_l0, bias_hh_l0, then _l1 for a second layer. dropout (in training mode) acts
between layers. bidirectional is not supported.]=] .. exact, [=[
torch.manual_seed(0)
gru = nn.GRU(3, 2, {batch_first = true})
output, h_n = gru(torch.ones(1, 4, 3))   -- one sequence of 4 steps
output, h_n
--> tensor([[[-0.3980, -0.0892],
-->          [-0.6312, -0.0612],
-->          [-0.7660, -0.0162],
-->          [-0.8458,  0.0213]]], grad_fn=<TransposeBackward0>)
--> tensor([[[-0.8458,  0.0213]]], grad_fn=<StackBackward0>)]=])

mdef("GRU", "__init", "GRU:__init(input_size, hidden_size [, {num_layers, bias, batch_first, dropout}])", [=[
What nn.GRU(...) runs: checks the options, makes the weights of every layer (weight_ih_l0, weight_hh_l0,
bias_ih_l0, bias_hh_l0, ...) and draws them all uniform in ±1/√hidden_size, in that order.]=], [=[
#nn.GRU(3, 2, {num_layers = 2}):parameters()
--> 8]=])

mdef("GRU", "forward", "gru:forward(x [, h_0])", [=[
Runs the layers over the sequence: returns output and h_n. h_0 is [num_layers, batch, hidden] (zeros
when left out).]=], [=[
gru = nn.GRU(3, 2)
output, h_n = gru:forward(torch.rand(5, 4, 3))   -- 5 steps, a batch of 4
output.shape, h_n.shape, torch.equal(output[5], h_n[1])
--> torch.Size([5, 4, 2])	torch.Size([1, 4, 2])	true]=])

mdef("GRU", "extra_repr", "gru:extra_repr()", [=[
The sizes and the settings that differ from the defaults, as PyTorch prints them inside GRU(...) and
LSTM(...).]=], [=[
nn.GRU(3, 2, {num_layers = 2, batch_first = true})
--> GRU(3, 2, num_layers=2, batch_first=True)]=])

-- ---- LSTM ------------------------------------------------------------------------------------------

class("LSTMCell", "nn.LSTMCell(input_size, hidden_size [, {bias = true}])", [=[
One step of a long short-term memory: h', c' = cell(x, {h, c}). Its state is two vectors, h and the
cell c. From g = W_ih x + b_ih + W_hh h + b_hh, cut into four, come the input gate i = σ(g_i), the forget
gate f = σ(g_f), the candidate tanh(g_g) and the output gate o = σ(g_o); then c' = f * c + i * tanh(g_g)
and h' = o * tanh(c'). The state defaults to zeros; PyTorch's tuple (h, c) is the Lua table {h, c},
and the cell returns two values.]=] .. exact, [=[
torch.manual_seed(0)
cell = nn.LSTMCell(3, 2)
h, c = cell(torch.ones(1, 3))
h, c
--> tensor([[-0.2031,  0.0842]], grad_fn=<MulBackward0>)	tensor([[-0.3549,  0.1166]], grad_fn=<AddBackward0>)]=])

mdef("LSTMCell", "__init", "LSTMCell:__init(input_size, hidden_size [, {bias = true}])", [=[
What nn.LSTMCell(...) runs: makes weight_ih [4·hidden, input], weight_hh [4·hidden, hidden], bias_ih
and bias_hh (gates in the order i, f, g, o) and draws them uniform in ±1/√hidden_size.]=], [=[
nn.LSTMCell(3, 2).weight_ih.shape
--> torch.Size([8, 3])]=])

mdef("LSTMCell", "forward", "cell:forward(x [, {h, c}])", [=[
The new h and c from x and the state {h, c} (zeros when left out), as two values.]=], [=[
cell = nn.LSTMCell(3, 2)
h, c = cell:forward(torch.ones(3))       -- one example: [input_size] in, [hidden_size] out
h.shape, c.shape
--> torch.Size([2])	torch.Size([2])]=])

class("LSTM", "nn.LSTM(input_size, hidden_size [, {num_layers = 1, bias = true, batch_first = false, dropout = 0}])", [=[
An LSTM over a whole sequence: output, {h_n, c_n} = lstm(x [, {h_0, c_0}]) (PyTorch's output,
(h_n, c_n)). Shapes, options and parameter names as nn.GRU's; each step is nn.LSTMCell's computation.
The final state table can be passed back in to continue the sequence.]=] .. exact, [=[
torch.manual_seed(0)
lstm = nn.LSTM(3, 2)
output, state = lstm(torch.ones(4, 1, 3))   -- 4 steps, a batch of 1
output[4], state[1], state[2]
--> tensor([[-0.5034,  0.1454]], grad_fn=<SelectBackward0>)	tensor([[[-0.5034,  0.1454]]], grad_fn=<StackBackward0>)	tensor([[[-1.0073,  0.2090]]], grad_fn=<StackBackward0>)]=])

mdef("LSTM", "__init", "LSTM:__init(input_size, hidden_size [, {num_layers, bias, batch_first, dropout}])", [=[
What nn.LSTM(...) runs: as GRU:__init, with four gates per weight instead of three.]=], [=[
nn.LSTM(3, 2).weight_hh_l0.shape
--> torch.Size([8, 2])]=])

mdef("LSTM", "forward", "lstm:forward(x [, {h_0, c_0}])", [=[
Runs the layers over the sequence: returns output and the table {h_n, c_n}.]=], [=[
lstm = nn.LSTM(3, 2)
x = torch.rand(6, 3)                              -- one sequence of 6 steps
out_all = lstm:forward(x)
out_a, state = lstm:forward(x:narrow(1, 1, 4))    -- the first 4 steps,
out_b = lstm:forward(x:narrow(1, 5, 2), state)    -- then the last 2, from where it stopped
torch.equal(out_b, out_all:narrow(1, 5, 2))
--> true]=])
