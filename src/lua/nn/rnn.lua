-- rnn.lua — PyTorch's recurrent layers nn.GRUCell, nn.GRU, nn.LSTMCell and nn.LSTM (module attn.nn.rnn),
-- the encoder and decoder of the seq2seq models that attention was invented for. They are computed as
-- PyTorch 1.13 computes them on the CPU (aten/src/ATen/native/RNN.cpp), so that after the same
-- torch.manual_seed a layer holds PyTorch's weights and returns PyTorch's numbers, bit for bit.
--
-- The cells, with x of shape [B, input_size] and h of shape [B, H] (RNN.cpp's GRUCell and LSTMCell):
--   GRU   gi = W_ih x + b_ih and gh = W_hh h + b_hh, each cut into three [r | z | n]:
--         r = σ(gh_r + gi_r), z = σ(gh_z + gi_z), n = tanh(gi_n + gh_n * r), h' = (h - n) * z + n
--   LSTM  g = (W_hh h + b_hh) + (W_ih x + b_ih), cut into four [i | f | g | o]:
--         c' = σ(f) * c + σ(i) * tanh(g), h' = σ(o) * tanh(c')
-- A whole sequence (nn.GRU, nn.LSTM) first projects the inputs of every step at once (W_ih x for all T
-- steps in one product, as PyTorch's FullLayer does on the CPU), then runs the cell step by step.
local torch = require("attn.bind").torch
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local py_float = require("attn.text.pyrepr").float
local Module = require("attn.nn.module").Module
local Parameter = require("attn.nn.module").Parameter
local linear = require("attn.nn.functional").linear
local rnn = {} -- this file's part of the table nn (nn/init.lua)

-- σ of a gate [B, H]. PyTorch computes each row of a gate (a strided view of the gates) with its vector
-- formula, and the row's last H % 16 elements with its scalar one (see src/core/vmath.h); attn's
-- torch.sigmoid does that for a contiguous tensor as a whole, so a batch is done row by row.
local function sigmoid_rows(x)
    local B, H = x.shape[1], x.shape[2]
    if B == 1 or H % 16 == 0 then
        return torch.sigmoid(x:contiguous())
    end
    local rows = {}
    for b = 1, B do rows[b] = torch.sigmoid(x[b]) end
    return torch.stack(rows, 1)
end

-- gate k (1-based) of gates [B, n * H]
local function gate(g, k, H)
    return g:narrow(2, (k - 1) * H + 1, H)
end

-- One GRU step from the projected input gi = W_ih x + b_ih.
local function gru_step(gi, h, w_hh, b_hh, H)
    local gh = linear(h, w_hh, b_hh)
    local r = sigmoid_rows(gate(gh, 1, H) + gate(gi, 1, H))
    local z = sigmoid_rows(gate(gh, 2, H) + gate(gi, 2, H))
    local n = torch.tanh(gate(gi, 3, H) + gate(gh, 3, H) * r)
    return (h - n) * z + n
end

-- One LSTM step from the projected input gi; returns h', c'.
local function lstm_step(gi, h, c, w_hh, b_hh, H)
    local g = linear(h, w_hh, b_hh) + gi
    local i, f = sigmoid_rows(gate(g, 1, H)), sigmoid_rows(gate(g, 2, H))
    local cell, o = torch.tanh(gate(g, 3, H)), sigmoid_rows(gate(g, 4, H))
    local c1 = f * c + i * cell
    return o * torch.tanh(c1), c1
end

-- PyTorch's RNNBase/RNNCellBase.reset_parameters: every parameter uniform in ±1/√hidden_size, in order.
local function reset_values(self)
    local stdv = 1.0 / math.sqrt(self.hidden_size)
    for _, p in ipairs(self:parameters()) do
        p:uniform_(-stdv, stdv)
    end
end
local reset = require("attn.autograd.grad_mode").without_grad(reset_values) -- an initialiser: no graph

-- An input's size must be input_size (PyTorch's wording).
local function check_input(fn, x, input_size, dims)
    check.tensor(fn, "input", x)
    if x.ndim ~= dims and x.ndim ~= dims - 1 then
        errors.raisef("%s: expected input to be %d-D or %d-D, got %d-D (shape %s)", fn, dims - 1, dims, x.ndim,
                      check.shape(x))
    end
    if x.dtype ~= torch.float32 then
        errors.raisef("%s: expected a float input, got %s (convert with :float())", fn, tostring(x.dtype))
    end
    if x.shape[-1] ~= input_size then
        errors.raisef("%s: input.size(-1) must be equal to input_size. Expected %d, got %d", fn, input_size,
                      x.shape[-1])
    end
end

-- A given hidden state must have the shape the layer makes by default.
local function check_state(fn, what, t, shape)
    check.tensor(fn, what, t)
    local same = t.ndim == #shape
    for i = 1, #shape do same = same and t.shape[i] == shape[i] end
    if not same then
        errors.raisef("%s: expected %s of shape [%s], got %s", fn, what, table.concat(shape, ", "), check.describe(t))
    end
    return t
end

-- ---- the cells -----------------------------------------------------------------------------------

local function cell_init(self, fn, gates, ...)
    local a = check.args(fn, fn .. "(input_size, hidden_size [, bias])", {"input_size", "hidden_size", "bias"},
                         {bias = true}, ...)
    self.input_size = check.size(fn, "input_size", a.input_size)
    self.hidden_size = check.size(fn, "hidden_size", a.hidden_size)
    self.bias = check.boolean(fn, "bias", a.bias)
    local H = self.hidden_size
    self.weight_ih = Parameter(torch.empty(gates * H, self.input_size))
    self.weight_hh = Parameter(torch.empty(gates * H, H))
    if self.bias then
        self.bias_ih = Parameter(torch.empty(gates * H))
        self.bias_hh = Parameter(torch.empty(gates * H))
    end
    reset(self)
end

local function cell_repr(self)
    return string.format("%d, %d", self.input_size, self.hidden_size) .. (self.bias and "" or ", bias=False")
end

-- x [B, in] or [in] (one example: PyTorch's unbatched input); a state [B, H] or [H] to match.
local function cell_inputs(fn, self, x, state, what)
    check_input(fn, x, self.input_size, 2)
    local batched = x.ndim == 2
    if not batched then x = x:unsqueeze(1) end
    local shape = {x.shape[1], self.hidden_size}
    if state == nil then return x, nil, batched, shape end
    check_state(fn, what, state, batched and shape or {self.hidden_size})
    return x, batched and state or state:unsqueeze(1), batched, shape
end

local GRUCell = Module:extend("GRUCell")

--- nn.GRUCell(input_size, hidden_size [, {bias = true}]) — one GRU step: h' = cell(x, h).
function GRUCell:__init(...)
    cell_init(self, "GRUCell", 3, ...)
end

function GRUCell:forward(x, h)
    local batched, shape
    x, h, batched, shape = cell_inputs("GRUCell", self, x, h, "hx")
    h = h or torch.zeros(shape)
    local gi = linear(x, self.weight_ih, self.bias_ih)
    local h1 = gru_step(gi, h, self.weight_hh, self.bias_hh, self.hidden_size)
    return batched and h1 or h1[1]
end

GRUCell.extra_repr = cell_repr
rnn.GRUCell = GRUCell

local LSTMCell = Module:extend("LSTMCell")

--- nn.LSTMCell(input_size, hidden_size [, {bias = true}]) — one LSTM step: h', c' = cell(x, {h, c}).
function LSTMCell:__init(...)
    cell_init(self, "LSTMCell", 4, ...)
end

function LSTMCell:forward(x, state)
    if state ~= nil and (type(state) ~= "table" or torch.is_tensor(state) or #state ~= 2) then
        errors.raisef("LSTMCell: the state must be a table {h, c}, got %s", check.describe(state))
    end
    local x1, h, batched, shape = cell_inputs("LSTMCell", self, x, state and state[1], "h")
    local _, c = cell_inputs("LSTMCell", self, x, state and state[2], "c")
    x = x1
    h, c = h or torch.zeros(shape), c or torch.zeros(shape)
    local gi = linear(x, self.weight_ih, self.bias_ih)
    local h1, c1 = lstm_step(gi, h, c, self.weight_hh, self.bias_hh, self.hidden_size)
    if batched then return h1, c1 end
    return h1[1], c1[1]
end

LSTMCell.extra_repr = cell_repr
rnn.LSTMCell = LSTMCell

-- ---- whole sequences -----------------------------------------------------------------------------

local SEQ_NAMES = {"input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional"}
local SEQ_DEFAULTS = {num_layers = 1, bias = true, batch_first = false, dropout = 0, bidirectional = false}

local function seq_init(self, fn, gates, ...)
    local usage = fn .. "(input_size, hidden_size [, {num_layers = 1, bias = true, batch_first = false, "
        .. "dropout = 0}])"
    local a = check.args(fn, usage, SEQ_NAMES, SEQ_DEFAULTS, ...)
    self.input_size = check.size(fn, "input_size", a.input_size)
    self.hidden_size = check.size(fn, "hidden_size", a.hidden_size)
    self.num_layers = check.size(fn, "num_layers", a.num_layers)
    self.bias = check.boolean(fn, "bias", a.bias)
    self.batch_first = check.boolean(fn, "batch_first", a.batch_first)
    self.dropout = check.probability(fn, "dropout", a.dropout)
    self.bidirectional = check.boolean(fn, "bidirectional", a.bidirectional)
    if self.bidirectional then
        errors.raisef("%s: bidirectional = true is not supported by attn (one direction only)", fn)
    end
    local H = self.hidden_size
    for l = 0, self.num_layers - 1 do -- PyTorch's names and order: weight_ih_l0, weight_hh_l0, bias_ih_l0, ...
        local n_in = l == 0 and self.input_size or H
        self["weight_ih_l" .. l] = Parameter(torch.empty(gates * H, n_in))
        self["weight_hh_l" .. l] = Parameter(torch.empty(gates * H, H))
        if self.bias then
            self["bias_ih_l" .. l] = Parameter(torch.empty(gates * H))
            self["bias_hh_l" .. l] = Parameter(torch.empty(gates * H))
        end
    end
    reset(self)
end

local function seq_repr(self)
    local s = string.format("%d, %d", self.input_size, self.hidden_size)
    if self.num_layers ~= 1 then s = s .. ", num_layers=" .. self.num_layers end
    if not self.bias then s = s .. ", bias=False" end
    if self.batch_first then s = s .. ", batch_first=True" end
    if self.dropout ~= 0 then s = s .. ", dropout=" .. py_float(self.dropout) end
    return s
end

-- Runs the layers over x [T, B, in] (time first) from the states `init` (one per layer: h, or {h, c});
-- returns the last layer's outputs [T, B, H] and the final state of every layer.
local function run_layers(self, x, init, step)
    local finals, H = {}, self.hidden_size
    for l = 0, self.num_layers - 1 do
        local gi = linear(x, self["weight_ih_l" .. l], self["bias_ih_l" .. l]) -- every step's W_ih x at once
        local w_hh, b_hh = self["weight_hh_l" .. l], self["bias_hh_l" .. l]
        local state, outs = init[l + 1], {}
        for t = 1, x.shape[1] do
            state = step(gi[t], state, w_hh, b_hh, H)
            outs[t] = type(state) == "table" and state[1] or state
        end
        finals[l + 1] = state
        x = torch.stack(outs, 1)
        if self.dropout > 0 and self.training and l < self.num_layers - 1 then
            x = torch.dropout(x, self.dropout, true) -- between layers, in training mode only
        end
    end
    return x, finals
end

-- Checks the input and makes it [T, B, in]; returns it, B and how to give the output back.
local function seq_input(fn, self, input)
    check_input(fn, input, self.input_size, 3)
    local batched = input.ndim == 3
    local batch_dim = self.batch_first and 1 or 2
    local x = batched and input or input:unsqueeze(batch_dim)
    if self.batch_first then x = x:transpose(1, 2) end
    return x, x.shape[2], batched, batch_dim
end

local function seq_output(self, out, batched, batch_dim)
    if self.batch_first then out = out:transpose(1, 2) end
    return batched and out or out:squeeze(batch_dim)
end

-- the initial states, one per layer: zeros, or the layers of a given [num_layers, B, H] tensor
local function initial(fn, self, t, what, B, batched)
    local shape = {self.num_layers, B, self.hidden_size}
    if t == nil then t = torch.zeros(shape)
    else
        check_state(fn, what, t, batched and shape or {self.num_layers, self.hidden_size})
        if not batched then t = t:unsqueeze(2) end
    end
    local out = {}
    for l = 1, self.num_layers do out[l] = t[l] end
    return out
end

local GRU = Module:extend("GRU")

--- nn.GRU(input_size, hidden_size [, {num_layers, bias, batch_first, dropout}]) — output, h_n = gru(x [, h_0]).
function GRU:__init(...)
    seq_init(self, "GRU", 3, ...)
end

function GRU:forward(input, hx)
    local x, B, batched, batch_dim = seq_input("GRU", self, input)
    local init = initial("GRU", self, hx, "hx", B, batched)
    local out, finals = run_layers(self, x, init, function(gi, h, w_hh, b_hh, H)
        return gru_step(gi, h, w_hh, b_hh, H)
    end)
    local h_n = torch.stack(finals, 1)
    return seq_output(self, out, batched, batch_dim), batched and h_n or h_n:squeeze(2)
end

GRU.extra_repr = seq_repr
rnn.GRU = GRU

local LSTM = Module:extend("LSTM")

--- nn.LSTM(input_size, hidden_size [, {num_layers, bias, batch_first, dropout}]) — output, {h_n, c_n} =
--- lstm(x [, {h_0, c_0}]).
function LSTM:__init(...)
    seq_init(self, "LSTM", 4, ...)
end

function LSTM:forward(input, state)
    if state ~= nil and (type(state) ~= "table" or torch.is_tensor(state) or #state ~= 2) then
        errors.raisef("LSTM: the state must be a table {h_0, c_0}, got %s", check.describe(state))
    end
    local x, B, batched, batch_dim = seq_input("LSTM", self, input)
    local h0 = initial("LSTM", self, state and state[1], "h_0", B, batched)
    local c0 = initial("LSTM", self, state and state[2], "c_0", B, batched)
    local init = {}
    for l = 1, self.num_layers do init[l] = {h0[l], c0[l]} end
    local out, finals = run_layers(self, x, init, function(gi, s, w_hh, b_hh, H)
        return {lstm_step(gi, s[1], s[2], w_hh, b_hh, H)}
    end)
    local hs, cs = {}, {}
    for l, s in ipairs(finals) do hs[l], cs[l] = s[1], s[2] end
    local h_n, c_n = torch.stack(hs, 1), torch.stack(cs, 1)
    if not batched then h_n, c_n = h_n:squeeze(2), c_n:squeeze(2) end
    return seq_output(self, out, batched, batch_dim), {h_n, c_n}
end

LSTM.extra_repr = seq_repr
rnn.LSTM = LSTM

return rnn
