-- nn.init, nn.Sequential, m:clone(), nn.EncoderDecoder, nn.build_model and greedy decoding
-- (src/lua/nn/weight_init.lua, layers.lua, model.lua) against PyTorch: tests/data/torch/models.txt, made by
-- scripts/gen-torch-reference.sh (scripts/torch_reference_models.py, the book's build_model line for line).
--
-- Tolerances (absolute):
--   the uniform fills (xavier_uniform_, kaiming_uniform_, uniform_), zeros_, and every
--   parameter of a model build_model made, at the small size and at the book's        0: bit for bit
--   normal_ on 16 numbers or more                                                      1e-6 (torch.randn's)
--   the model's forward pass and each greedy step's log-probabilities                  1e-6 (the issue's bound;
--                                                                                      BLAS sums, fused attention)
--   the random stream after every fill (the next torch.rand(4)), the decoded ids       exact
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn
local R = support.case_file("models", assert)
local cases = R.cases

describe("nn.init against PyTorch's torch.nn.init", function()
    local calls = {
        xavier1 = function(t) return nn.init.xavier_uniform_(t) end,
        xavier2 = function(t) return nn.init.xavier_uniform_(t, 2.0) end,
        xavier3 = function(t) return nn.init.xavier_uniform_(t) end,
        xavier4 = function(t) return nn.init.xavier_uniform_(t) end,
        kaiming1 = function(t) return nn.init.kaiming_uniform_(t) end,
        kaiming2 = function(t) return nn.init.kaiming_uniform_(t, math.sqrt(5)) end,
        kaiming3 = function(t) return nn.init.kaiming_uniform_(t, {mode = "fan_out", nonlinearity = "relu"}) end,
        normal1 = function(t) return nn.init.normal_(t) end,
        normal2 = function(t) return nn.init.normal_(t, 1.0, 0.02) end,
        uniform1 = function(t) return nn.init.uniform_(t, -2.0, 3.0) end,
        zeros1 = function(t) return nn.init.zeros_(t) end,
    }
    for _, name in ipairs({"xavier1", "xavier2", "xavier3", "xavier4", "kaiming1", "kaiming2", "kaiming3",
                           "normal1", "normal2", "uniform1", "zeros1"}) do
        it(name, function()
            local c = cases[name]
            torch.manual_seed(tonumber(c.seed))
            local t = torch.empty(support.shape(c.shape))
            local filled = calls[name](t)
            assert.are.equal(t, filled, "fills in place and returns the tensor")
            local n = t:numel()
            R.check(c, "t", t, (c.fn == "normal" and n >= 16) and 1e-6 or 0)
            R.check(c, "next", torch.rand(4), 0) -- the fill drew as many numbers as PyTorch's
        end)
    end

    it("refuses what PyTorch refuses, naming the function", function()
        local ok, err = pcall(nn.init.xavier_uniform_, torch.empty(4))
        assert.is_false(ok)
        assert.matches("xavier_uniform_: fan in and fan out can not be computed for a tensor with fewer than 2", err)
        ok, err = pcall(nn.init.kaiming_uniform_, torch.empty(2, 2), {mode = "fan_middle"})
        assert.matches("kaiming_uniform_: mode must be \"fan_in\" or \"fan_out\", got \"fan_middle\"", err)
        ok, err = pcall(nn.init.normal_, "x")
        assert.matches("normal_: tensor must be a tensor, got \"x\"", err)
        ok, err = pcall(nn.init.calculate_gain, "swish")
        assert.matches("calculate_gain: unsupported nonlinearity \"swish\"", err)
        assert.are.equal(5 / 3, nn.init.calculate_gain("tanh"))
    end)
end)

describe("nn.Sequential and m:clone()", function()
    it("calls its modules in turn and lists them from 1", function()
        local a, b = nn.Linear(3, 4), nn.ReLU()
        local seq = nn.Sequential(a, b)
        local x = torch.rand(2, 3)
        assert.is_true(torch.equal(seq(x), b(a(x))))
        assert.are.equal(a, seq[1])
        assert.are.equal("1.weight", seq:named_parameters()[1][1])
        assert.are.equal(tostring(nn.Sequential{a, b}), tostring(seq))
        local ok, err = pcall(nn.Sequential, a, 3)
        assert.matches("Sequential: module 2 is not a module, got 3", err)
    end)
    it("clone is a deep copy: equal values, separate storage", function()
        local m = nn.Linear(3, 2)
        local c = m:clone()
        assert.is_true(torch.equal(m.weight, c.weight))
        assert.is_true(c.weight.requires_grad and c.weight.is_leaf) -- a parameter, as PyTorch's deepcopy gives
        torch.no_grad(function() c.weight:fill_(0) end) -- in place on a parameter: under no_grad, as in PyTorch
        assert.is_false(torch.equal(m.weight, c.weight))
        assert.are.equal(getmetatable(m), getmetatable(c))
    end)
end)

describe("nn.build_model against the book's build_model in PyTorch", function()
    local c = cases.small
    local function small()
        torch.manual_seed(tonumber(c.seed))
        return nn.build_model(11, 13, {N = 2, d_model = 16, d_ff = 32, h = 2, dropout = 0.1})
    end

    it("every parameter, by name and in order, bit for bit", function()
        local m = small()
        R.check_params(c, m)
        assert.are.equal(tonumber(c.parameters), m:num_parameters())
    end)

    it("a forward pass within 1e-6 (ids are PyTorch's plus 1)", function()
        local m = small():eval()
        local src, tgt = R.load(c, "source") + 1, R.load(c, "target") + 1 -- padding is id 1 here
        local src_mask = src:ne(1):unsqueeze(-2)
        local tgt_mask = tgt:ne(1):unsqueeze(-2):logical_and(nn.subsequent_mask(tgt.shape[2]))
        R.check(c, "log_probs", m(src, tgt, src_mask, tgt_mask), 1e-6)
    end)

    it("greedy decoding, and each step's log-probabilities within 1e-6", function()
        local m = small():eval()
        local src = (R.load(c, "source") + 1)[{{1}}]
        local src_mask = src:ne(1):unsqueeze(-2)
        local want = R.load(c, "greedy") + 1
        local ys = nn.greedy_decode(m, src, src_mask, 6, 2) -- PyTorch's start symbol 1
        assert.is_true(torch.equal(ys, want), tostring(ys) .. " vs " .. tostring(want))
        local d = nn.GreedyDecoder(m, src, src_mask, 2)
        for i = 1, 5 do
            local id = d:step()
            R.check(c, "greedy.step" .. i, d.log_probs, 1e-6)
            assert.are.equal(want[1][i + 1], id)
            assert.is_true(torch.equal(d.target_mask, nn.subsequent_mask(i)), "the mask grows a row a step")
        end
    end)

    it("at the book's size (N = 6, d_model = 512, d_ff = 2048, h = 8): PyTorch's count, and every parameter's "
       .. "first and last numbers bit for bit", function()
        local b = cases.book
        torch.manual_seed(tonumber(b.seed))
        local m = nn.build_model(11, 11)
        assert.are.equal(tonumber(b.parameters), m:num_parameters())
        local got = m:named_parameters()
        assert.are.equal(tonumber(b.tensors), #got)
        for i, pair in ipairs(got) do
            local want = b.order[i]
            assert.are.equal(R.attn_name(want:sub(6)), pair[1])
            local flat = pair[2]:reshape(-1)
            R.check(b, want, torch.cat({flat:narrow(1, 1, 4), flat:narrow(1, flat:numel() - 3, 4)}), 0)
        end
    end)

    it("refuses bad arguments, naming itself", function()
        local ok, err = pcall(nn.build_model, 11)
        assert.matches("build_model: missing argument target_vocabulary", err)
        ok, err = pcall(nn.build_model, 11, 11, {d_model = 10, h = 4})
        assert.matches("build_model: d_model = 10 must be divisible by h = 4", err)
        ok, err = pcall(nn.build_model, 11, 11, {heads = 4})
        assert.matches("build_model: unknown option heads", err)
        ok, err = pcall(nn.EncoderDecoder, nn.Linear(2, 2), 3)
        assert.matches("EncoderDecoder: decoder must be a module, got 3", err)
        ok, err = pcall(nn.greedy_decode, nn.Linear(2, 2), torch.tensor{{1}}, torch.ones(1, 1, 1), 3, 1)
        assert.matches("greedy_decode: model must have encode and decode methods", err)
    end)
end)
