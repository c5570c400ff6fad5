-- nn.GRUCell, nn.GRU, nn.LSTMCell and nn.LSTM (src/lua/nn/rnn.lua) against PyTorch: tests/data/torch/models.txt,
-- made by scripts/gen-torch-reference.sh (scripts/torch_reference_models.py). Each case is made from a seed,
-- module first, then its inputs by torch.rand; attn does the same and must get PyTorch's weights, inputs,
-- outputs and final states bit for bit (tolerance 0): the same generator, the same products (addmm for
-- every projection), SLEEF's tanh and PyTorch's split of σ into vector and scalar parts.
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn
local R = support.case_file("models", assert)
local cases = R.cases

local function is_true(s) return s == "1" end

-- The module of a case, made as the script made it.
local function make(c)
    torch.manual_seed(tonumber(c.seed))
    local input, hidden = tonumber(c.input_size), tonumber(c.hidden_size)
    if c.cls == "GRUCell" or c.cls == "LSTMCell" then
        return nn[c.cls](input, hidden, {bias = is_true(c.bias)})
    end
    return nn[c.cls](input, hidden, {num_layers = tonumber(c.num_layers), bias = is_true(c.bias),
                                     batch_first = is_true(c.batch_first)})
end

local function rand_like(c, name)
    local line = assert(c.t[name], name)
    return torch.rand(support.shape(line.shape))
end

describe("the recurrent cells against PyTorch (bit for bit)", function()
    for _, name in ipairs({"grucell1", "grucell2", "grucell3", "grucell4",
                           "lstmcell1", "lstmcell2", "lstmcell3", "lstmcell4"}) do
        it(name, function()
            local c = cases[name]
            local cell = make(c)
            R.check_params(c, cell)
            local x = rand_like(c, "x")
            R.check(c, "x", x, 0)
            if c.cls == "GRUCell" then
                local h = c.state == "1" and rand_like(c, "h") or nil
                if h then R.check(c, "h", h, 0) end
                R.check(c, "h1", cell(x, h), 0)
            else
                local state = nil
                if c.state == "1" then
                    state = {rand_like(c, "h"), rand_like(c, "c")}
                    R.check(c, "h", state[1], 0)
                    R.check(c, "c", state[2], 0)
                end
                local h1, c1 = cell(x, state)
                R.check(c, "h1", h1, 0)
                R.check(c, "c1", c1, 0)
            end
        end)
    end
end)

describe("nn.GRU and nn.LSTM over sequences against PyTorch (bit for bit)", function()
    for _, name in ipairs({"gru1", "gru2", "gru3", "gru4", "gru5", "gru6", "lstm1", "lstm2", "lstm3", "lstm4",
                           "lstm5"}) do
        it(string.format("%s", name), function()
            local c = cases[name]
            local rnn = make(c)
            R.check_params(c, rnn)
            local x = rand_like(c, "x")
            R.check(c, "x", x, 0)
            local out, h_n
            if c.cls == "GRU" then
                local h0 = c.state == "1" and rand_like(c, "h0") or nil
                out, h_n = rnn(x, h0)
            else
                local state = c.state == "1" and {rand_like(c, "h0"), rand_like(c, "c0")} or nil
                local final
                out, final = rnn(x, state)
                h_n = final[1]
                R.check(c, "c_n", final[2], 0)
            end
            R.check(c, "output", out, 0)
            R.check(c, "h_n", h_n, 0)
        end)
    end

    it("the GRU is its cell run step by step (the same weights, the same numbers)", function()
        torch.manual_seed(5)
        local gru = nn.GRU(3, 6)
        local cell = nn.GRUCell(3, 6)
        torch.no_grad(function() -- parameters are leaves that require grad: copied into under no_grad
            for _, n in ipairs({"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) do cell[n]:copy_(gru[n .. "_l0"]) end
        end)
        local x = torch.rand(4, 2, 3)
        local out, h_n = gru(x)
        local h = torch.zeros(2, 6)
        for t = 1, 4 do
            h = cell(x[t], h)
            assert.is_true(torch.equal(out[t], h), "step " .. t)
        end
        assert.is_true(torch.equal(h_n[1], h))
    end)

    it("print as PyTorch prints them", function()
        assert.are.equal("GRU(4, 8, batch_first=True)", tostring(nn.GRU(4, 8, {batch_first = true})))
        assert.are.equal("LSTM(3, 5, num_layers=2, bias=False, dropout=0.1)",
                         tostring(nn.LSTM(3, 5, {num_layers = 2, bias = false, dropout = 0.1})))
        assert.are.equal("GRUCell(4, 8)", tostring(nn.GRUCell(4, 8)))
        assert.are.equal("LSTMCell(4, 8, bias=False)", tostring(nn.LSTMCell(4, 8, false)))
        local names = {}
        for _, pair in ipairs(nn.LSTM(2, 3, {num_layers = 2}):named_parameters()) do names[#names + 1] = pair[1] end
        assert.are.same({"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                         "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"}, names)
    end)
end)

describe("the recurrent layers refuse bad input, naming themselves", function()
    local function fails(pattern, f, ...)
        local ok, err = pcall(f, ...)
        assert.is_false(ok)
        assert.matches(pattern, tostring(err))
    end
    it("sizes and options", function()
        fails("GRU: hidden_size must be a positive integer, got 0", nn.GRU, 3, 0)
        fails("LSTM: unknown option batchfirst", nn.LSTM, 3, 4, {batchfirst = true})
        fails("GRU: bidirectional = true is not supported", nn.GRU, 3, 4, {bidirectional = true})
        fails("GRUCell: bias must be true or false, got 1", nn.GRUCell, 3, 4, 1)
        fails("LSTM: dropout must be a probability", nn.LSTM, 3, 4, {dropout = 2})
    end)
    it("inputs and states", function()
        local gru, lstm, cell = nn.GRU(3, 4), nn.LSTM(3, 4), nn.LSTMCell(3, 4)
        fails("GRU: input.size%(%-1%) must be equal to input_size. Expected 3, got 5", gru, torch.rand(2, 1, 5))
        fails("GRU: expected input to be 2%-D or 3%-D, got 4%-D", gru, torch.rand(2, 1, 1, 3))
        fails("GRU: input must be a tensor, got nil", gru)
        fails("GRU: expected a float input, got torch.int64", gru, torch.tensor{{{1, 2, 3}}})
        fails("GRU: expected hx of shape %[1, 2, 4%], got a tensor of shape %[2, 4%]", gru, torch.rand(5, 2, 3),
              torch.rand(2, 4))
        fails("LSTM: the state must be a table {h_0, c_0}, got a tensor", lstm, torch.rand(5, 2, 3), torch.rand(1, 2, 4))
        fails("LSTMCell: expected c of shape %[2, 4%]", cell, torch.rand(2, 3), {torch.rand(2, 4), torch.rand(4)})
    end)
end)
