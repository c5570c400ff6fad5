-- The Transformer's layers (src/lua/nn/transformer.lua) against PyTorch running Python Deep Learning's classes on the same
-- seeds: tests/data/torch/transformer.txt, made by scripts/gen-torch-reference.sh (Debian's python3-torch;
-- scripts/torch_reference_layers.py has the Python classes). PyTorch's numbers are the expected side; the
-- inputs come from the file or from the same seeded generator (then they are checked equal to the file's).
--
-- Tolerances (absolute):
--   LayerNorm, gelu, silu, relu, the embedding lookup           0: bit for bit
--   the positional encoding matrix and module                   0 on AVX2 (SLEEF's sin/cos), else 1e-6
--   nn.Embedding's initial weights                              0 on AVX2 (PyTorch's vectorised normal_,
--                                                               src/core/boxmuller.c), else 1e-6
--   FFN, encoder/decoder blocks, Encoder, Decoder, BERT input   0 on AVX2 (products added as PyTorch adds
--                                                               them, nn.Linear as addmm, the attention by
--                                                               its stages), else 1e-5
-- nn.Linear's initial weights are bit for bit (the same generator), so every parameter list is compared
-- exactly, names included (PyTorch's "fc_layers.0" is attn's "fc_layers.1": lists count from 1).
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn

local AVX2 = torch.backends.cpu.get_cpu_capability() == "AVX2" -- attn follows PyTorch's AVX2 kernels here
local TOL = AVX2 and 0 or 1e-5
local TOL_PE = AVX2 and 0 or 1e-6
local TOL_NORMAL = AVX2 and 0 or 1e-6

-- The cases: name -> {key = value (strings), t = {tensor name -> case line}, order = {tensor names}}.
local cases = {}
for _, line in ipairs(support.reference("transformer")) do
    if line.kind == "case" then
        cases[line.name] = line
        line.t, line.order = {}, {}
    else
        local c = assert(cases[line.case], "tensor before its case: " .. tostring(line.case))
        c.t[line.name] = line
        c.order[#c.order + 1] = line.name
    end
end

local function num(c, key)
    local v = assert(tonumber(c[key]), "case " .. c.name .. " has no " .. key)
    return v
end

-- A tensor of the file, as attn's float32 tensor (the values are float32 already: exact).
local function load(c, name)
    local line = assert(c.t[name], "case " .. c.name .. " has no tensor " .. name)
    local flat = {}
    for i, hex in ipairs(line.values) do
        flat[i] = support.from_bits(hex)
    end
    return torch.tensor(flat):view(support.shape(line.shape))
end

local function max_diff(t, line)
    local got = support.flat(t)
    assert.are.equal(#line.values, #got, "element count of " .. line.name)
    local worst = 0
    for i, hex in ipairs(line.values) do
        local want = support.from_bits(hex)
        local d = math.abs(got[i] - want)
        if d ~= d and want ~= want then d = 0 end -- nan where PyTorch has nan
        worst = math.max(worst, d ~= d and math.huge or d)
    end
    return worst
end

-- got must equal the case's tensor `name` within tol (0: bit for bit).
local function check(c, name, got, tol)
    local line = assert(c.t[name], "case " .. c.name .. " has no tensor " .. name)
    assert.are.same(support.shape(line.shape), support.shape(tostring(got.shape)), "shape of " .. name)
    if tol == 0 then
        assert.is_nil(support.same_bits(got, line.values), name)
    else
        local d = max_diff(got, line)
        assert(d <= tol, string.format("%s: max |attn - torch| = %.3g > %g", name, d, tol))
    end
end

-- PyTorch's parameter name -> attn's: ModuleList entries count from 1.
local function attn_name(py)
    local parts = {}
    for part in py:gmatch("[^.]+") do
        parts[#parts + 1] = part:match("^%d+$") and tostring(tonumber(part) + 1) or part
    end
    return table.concat(parts, ".")
end

-- Every parameter of the module, in order, by name, bit for bit (tol > 0: within tol).
local function check_params(c, module, tol, prefix)
    local want = {}
    for _, name in ipairs(c.order) do
        if name:find("^param%.") then
            want[#want + 1] = name
        end
    end
    local got = module:named_parameters()
    assert.are.equal(#want, #got, "number of parameters")
    for i, pair in ipairs(got) do
        assert.are.equal(attn_name(want[i]:sub(7)), (prefix or "") .. pair[1], "parameter " .. i)
        check(c, want[i], pair[2], tol or 0)
    end
end

describe("nn.LayerNorm and torch.layer_norm against PyTorch (bit for bit)", function()
    for _, name in ipairs({"ln1", "ln2", "ln3"}) do
        it(name, function()
            local c = cases[name]
            local shape = support.shape(c.normalized_shape)
            local ln = nn.LayerNorm(#shape == 1 and shape[1] or shape)
            assert.is_true(torch.equal(ln.weight, torch.ones(shape)) and torch.equal(ln.bias, torch.zeros(shape)))
            torch.no_grad(function() -- parameters require grad: copied into under no_grad, as in PyTorch
                ln.weight:copy_(load(c, "param.weight"))
                ln.bias:copy_(load(c, "param.bias"))
            end)
            local x = load(c, "x")
            check(c, "y", ln(x), 0)
            check(c, "y", torch.layer_norm(x, shape, ln.weight, ln.bias), 0)
            check(c, "y", nn.functional.layer_norm(x, shape, {weight = ln.weight, bias = ln.bias, eps = 1e-5}), 0)
            check_params(c, ln)
        end)
    end

    it("without weight and bias is (x - mean) / sqrt(var + eps), biased variance", function()
        local y = torch.layer_norm(torch.tensor{{1.0, 2.0, 3.0, 4.0}}, 4)
        local s = math.sqrt(1.25 + 1e-5)
        for i, v in ipairs({-1.5, -0.5, 0.5, 1.5}) do
            assert(math.abs(y[1][i] - v / s) < 1e-6)
        end
        local ln = nn.LayerNorm(4, {elementwise_affine = false})
        assert.are.equal(0, #ln:parameters())
        assert.is_true(torch.equal(ln(torch.tensor{{1.0, 2.0, 3.0, 4.0}}), y))
    end)

    it("prints as PyTorch prints it", function()
        assert.are.equal("LayerNorm((8,), eps=1e-05, elementwise_affine=True)", tostring(nn.LayerNorm(8)))
        assert.are.equal("LayerNorm((3, 4), eps=1e-06, elementwise_affine=True)",
                         tostring(nn.LayerNorm({3, 4}, {eps = 1e-6})))
    end)
end)

describe("gelu, silu and relu against PyTorch (bit for bit)", function()
    local c = cases.act
    it("nn.functional", function()
        local x = load(c, "x")
        check(c, "gelu", nn.functional.gelu(x), 0)
        check(c, "gelu_tanh", nn.functional.gelu(x, {approximate = "tanh"}), 0)
        check(c, "silu", nn.functional.silu(x), 0)
        check(c, "relu", nn.functional.relu(x), 0)
    end)
    it("modules", function()
        local x = load(c, "x")
        check(c, "gelu", nn.GELU()(x), 0)
        check(c, "gelu_tanh", nn.GELU({approximate = "tanh"})(x), 0)
        check(c, "silu", nn.SiLU()(x), 0)
        check(c, "relu", nn.ReLU()(x), 0)
        assert.are.equal("GELU(approximate='none')", tostring(nn.GELU()))
    end)
end)

describe("nn.Embedding against PyTorch", function()
    it("initial weights (normal_ from the generator) within 1e-6; the lookup bit for bit", function()
        local c = cases.emb
        torch.manual_seed(num(c, "seed"))
        local emb = nn.Embedding(num(c, "num"), num(c, "dim"))
        check_params(c, emb, TOL_NORMAL)
        torch.no_grad(function() emb.weight:copy_(load(c, "param.weight")) end)
        -- Python: emb(ids) with PyTorch's 0-based int64 ids (the file holds them as floats); attn's are 1-based
        check(c, "y", emb(load(c, "ids"):long() + 1), 0)
        check(c, "y", nn.functional.embedding(load(c, "ids"):long() + 1, emb.weight), 0)
    end)
    it("padding_idx: the padding row is zeros (attn's id 1 is PyTorch's padding_idx=0)", function()
        local c = cases.emb_pad
        torch.manual_seed(num(c, "seed"))
        local emb = nn.Embedding(num(c, "num"), num(c, "dim"), {padding_idx = 1})
        check_params(c, emb, TOL_NORMAL)
        assert.is_true(torch.equal(emb.weight[1], torch.zeros(3)))
        assert.are.equal("Embedding(6, 3, padding_idx=1)", tostring(emb))
    end)
    it("takes a table of ids too", function()
        local emb = nn.Embedding(5, 2)
        assert.is_true(torch.equal(emb({{1, 5}}), emb(torch.tensor{{1, 5}})))
        assert.are.same({1, 2, 2}, support.shape(tostring(emb({{1, 5}}).shape)))
    end)
end)

describe("positional encoding against PyTorch (within 1e-6)", function()
    for _, name in ipairs({"pe1", "pe2", "pe3"}) do
        it(name .. ": nn.positional_encoding", function()
            local c = cases[name]
            check(c, "pe", nn.positional_encoding(num(c, "max_len"), num(c, "d_model")), TOL_PE)
        end)
    end
    it("nn.PositionalEncoding adds the rows to the input (eval mode)", function()
        local c = cases.pe_mod
        torch.manual_seed(num(c, "seed"))
        local pe = nn.PositionalEncoding(num(c, "d_model"), num(c, "dropout"), num(c, "max_len")):eval()
        local x = torch.rand(2, 5, 8)
        check(c, "x", x, 0)
        check(c, "y", pe(x), TOL_PE)
        assert.are.equal(0, #pe:parameters())
        assert.are.same({"pe"}, {pe:named_buffers()[1][1]})
    end)
    it("nn.Embeddings (times sqrt(d_model)) then nn.PositionalEncoding, as the seed's source_embeddings", function()
        local c = cases.src_emb
        torch.manual_seed(num(c, "seed"))
        local d, vocab = num(c, "d_model"), num(c, "vocab")
        local embed = nn.Embeddings(d, vocab)
        local position = nn.PositionalEncoding(d, num(c, "dropout"), num(c, "max_len")):eval()
        check_params(c, embed, TOL_NORMAL, "1.") -- Python: Sequential(Embeddings, PositionalEncoding)
        check(c, "y", position(embed(load(c, "ids"):long() + 1)), TOL)
    end)
end)

-- A model of case c, made after torch.manual_seed(seed), as the Python code makes it.
local function mha(c)
    return nn.MultiHeadedAttention(num(c, "heads"), num(c, "d_model"), num(c, "dropout"))
end

local function ffn_of(c)
    return nn.PositionwiseFFN(num(c, "d_model"), num(c, "d_ff"), num(c, "dropout"))
end

local function norm_first(c)
    return {norm_first = c.post_ln ~= "1"}
end

local function bool(c, name)
    return c.t[name] and load(c, name):bool() or nil
end

describe("Python Deep Learning's Transformer classes against PyTorch (bit for bit on AVX2, else within 1e-5)", function()
    local previous
    setup(function() previous = torch.set_bernoulli_flavor("default") end) -- Debian's torch has no MKL
    teardown(function() torch.set_bernoulli_flavor(previous) end)

    for _, name in ipairs({"ffn", "ffn_train"}) do
        it(name .. ": nn.PositionwiseFFN (Linear, SiLU, dropout, Linear)", function()
            local c = cases[name]
            torch.manual_seed(num(c, "seed"))
            local ffn = ffn_of(c):train(c.train == "1")
            local x = torch.rand(num(c, "batch"), num(c, "n"), num(c, "d_model"))
            check(c, "x", x, 0)
            check_params(c, ffn)
            check(c, "y", ffn(x), TOL)
        end)
    end

    for _, name in ipairs({"enc_pre", "enc_post", "enc_pre_nomask", "enc_pre_train", "enc_post_train"}) do
        it(name .. ": nn.EncoderBlock", function()
            local c = cases[name]
            torch.manual_seed(num(c, "seed"))
            local block = nn.EncoderBlock(num(c, "d_model"), mha(c), ffn_of(c), num(c, "dropout"), norm_first(c))
            block:train(c.train == "1")
            local x = torch.rand(num(c, "batch"), num(c, "n"), num(c, "d_model"))
            check(c, "x", x, 0)
            check_params(c, block)
            check(c, "y", block(x, bool(c, "mask")), TOL)
        end)
    end

    for _, name in ipairs({"encoder", "encoder_post"}) do
        it(name .. ": nn.Encoder, N = 2 copies of one block and a LayerNorm", function()
            local c = cases[name]
            torch.manual_seed(num(c, "seed"))
            local block = nn.EncoderBlock(num(c, "d_model"), mha(c), ffn_of(c), num(c, "dropout"), norm_first(c))
            local encoder = nn.Encoder(block, num(c, "N")):eval()
            local x = torch.rand(num(c, "batch"), num(c, "n"), num(c, "d_model"))
            check(c, "x", x, 0)
            check_params(c, encoder)
            check(c, "y", encoder(x, bool(c, "mask")), TOL)
        end)
    end

    for _, name in ipairs({"dec_pre", "dec_post", "dec_pre_train"}) do
        it(name .. ": nn.DecoderBlock, causal self-attention and cross-attention", function()
            local c = cases[name]
            torch.manual_seed(num(c, "seed"))
            local block = nn.DecoderBlock(num(c, "d_model"), mha(c), mha(c), ffn_of(c), num(c, "dropout"),
                                          norm_first(c))
            block:train(c.train == "1")
            local x = torch.rand(num(c, "batch"), num(c, "n"), num(c, "d_model"))
            local memory = torch.rand(num(c, "batch"), num(c, "m"), num(c, "d_model"))
            check(c, "x", x, 0)
            check(c, "memory", memory, 0)
            check_params(c, block)
            local target_mask = bool(c, "target_mask")
            -- the causal part of the file's mask is nn.subsequent_mask's
            assert.is_true(torch.equal(target_mask:logical_and(nn.subsequent_mask(num(c, "n"))), target_mask))
            check(c, "y", block(x, memory, bool(c, "source_mask"), target_mask), TOL)
        end)
    end

    it("decoder: nn.Decoder, N = 2, projection and log_softmax", function()
        local c = cases.decoder
        torch.manual_seed(num(c, "seed"))
        local block = nn.DecoderBlock(num(c, "d_model"), mha(c), mha(c), ffn_of(c), num(c, "dropout"))
        local decoder = nn.Decoder(block, num(c, "N"), num(c, "vocab")):eval()
        local x = torch.rand(num(c, "batch"), num(c, "n"), num(c, "d_model"))
        local memory = torch.rand(num(c, "batch"), num(c, "m"), num(c, "d_model"))
        check(c, "x", x, 0)
        check_params(c, decoder)
        assert.is_true(torch.equal(bool(c, "target_mask"), nn.subsequent_mask(num(c, "n"))))
        check(c, "y", decoder(x, memory, bool(c, "source_mask"), nn.subsequent_mask(num(c, "n"))), TOL)
    end)

    it("bert: nn.BERTEmbedding, token + segment + position", function()
        local c = cases.bert
        torch.manual_seed(num(c, "seed"))
        local bert = nn.BERTEmbedding(num(c, "vocab"), num(c, "d_model"), {max_len = num(c, "max_len")})
        check_params(c, bert, TOL_NORMAL)
        -- [CLS] my dog [SEP] he likes [SEP]: PyTorch's ids + 1; segments A = 1, B = 2
        check(c, "y", bert(load(c, "tokens"):long() + 1, load(c, "segments"):long() + 1), TOL)
        -- with the file's weights the sum is PyTorch's, bit for bit
        torch.no_grad(function()
            for _, p in ipairs(bert:named_parameters()) do
                p[2]:copy_(load(c, "param." .. p[1]))
            end
        end)
        check(c, "y", bert(load(c, "tokens"):long() + 1, load(c, "segments"):long() + 1), 0)
    end)
end)

describe("the blocks' structure", function()
    it("nn.clones makes deep copies with equal values", function()
        torch.manual_seed(1)
        local l = nn.Linear(3, 2)
        local list = nn.clones(l, 3)
        assert.are.equal(3, #list)
        for _, m in ipairs(list) do
            assert.is_true(torch.equal(m.weight, l.weight) and m.weight ~= l.weight)
            assert.is_true(nn.is_parameter(m.weight))
            -- a leaf that requires grad, as PyTorch's deepcopy of a Parameter (even under no_grad)
            assert.is_true(m.weight.requires_grad and m.weight.is_leaf)
        end
        -- in place on a parameter: under no_grad, as PyTorch requires
        torch.no_grad(function() list[1].weight:fill_(0) end)
        assert.is_false(torch.equal(list[2].weight, list[1].weight))
    end)
    it("the copies nn.clones makes inside a block's constructor are parameters that require grad", function()
        -- the constructors run with gradients off; the copies must still be leaves that train
        local block = nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4, 0), nn.PositionwiseFFN(4, 8, 0), 0)
        local encoder = nn.Encoder(block, 2)
        for _, m in ipairs({block, encoder}) do
            for _, p in ipairs(m:named_parameters()) do
                assert.is_true(p[2].requires_grad and p[2].is_leaf, p[1])
            end
        end
        encoder(torch.rand(1, 3, 4)):sum():backward()
        assert.is_not_nil(encoder.blocks[2].sublayers[1].norm.weight.grad)
    end)
    it("pre-LN: x + Sublayer(LayerNorm(x)); post-LN: LayerNorm(x + Sublayer(x))", function()
        local x = torch.tensor{{1.0, 2.0, 3.0, 4.0}, {4.0, 0.0, 0.0, 1.0}}
        local double = function(y) return 2 * y end
        local pre = nn.SublayerConnection(4, 0)
        local post = nn.SublayerConnection(4, 0, {norm_first = false})
        assert.is_true(torch.equal(pre(x, double), x + 2 * torch.layer_norm(x, 4)))
        assert.is_true(torch.equal(post(x, double), torch.layer_norm(x + 2 * x, 4)))
        assert.are.equal("norm_first=False", post:extra_repr())
    end)
    it("an EncoderBlock's children are registered in the seed's order", function()
        local block = nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8))
        local names = {}
        for name in block:named_children() do names[#names + 1] = name end
        assert.are.same({"self_attn", "ffn", "sublayers"}, names)
        assert.are.equal(4, block.size)
    end)
    it("nn.subsequent_mask(3) is the Annotated Transformer's", function()
        assert.are.equal([=[
tensor([[[ True, False, False],
         [ True,  True, False],
         [ True,  True,  True]]])]=], tostring(nn.subsequent_mask(3)))
    end)
end)

describe("bad input gives clear errors", function()
    local function err(f, ...)
        local ok, msg = pcall(f, ...)
        assert.is_false(ok)
        return tostring(msg)
    end
    it("LayerNorm with the wrong last dim", function()
        local ln = nn.LayerNorm(4)
        assert.matches("LayerNorm: expected an input whose last dim is 4, got shape [2, 3]",
                       err(ln, torch.ones(2, 3)), 1, true)
        assert.matches("layer_norm: expected an input of shape [*, 4] (normalized_shape [4]), got [2, 3]",
                       err(torch.layer_norm, torch.ones(2, 3), 4), 1, true)
        assert.matches("layer_norm: weight has shape [3] but normalized_shape is [4]",
                       err(torch.layer_norm, torch.ones(2, 4), 4, torch.ones(3)), 1, true)
        assert.matches("layer_norm: normalized_shape is missing", err(torch.layer_norm, torch.ones(2, 4)), 1, true)
        assert.matches("LayerNorm: normalized_shape must be a size", err(nn.LayerNorm, "4"), 1, true)
        assert.matches("LayerNorm: eps must be", err(nn.LayerNorm, 4, {eps = -1}), 1, true)
    end)
    it("Embedding with an id out of range names the id and the size", function()
        local emb = nn.Embedding(6, 3)
        assert.matches("Embedding: index 7 is out of range for an embedding of 6 rows (ids 1 to 6)",
                       err(emb, torch.tensor{1, 7}), 1, true)
        assert.matches("Embedding: index 0 is out of range for an embedding of 6 rows (ids 1 to 6)",
                       err(emb, torch.tensor{0}), 1, true)
        assert.matches("Embedding: ids must be an int64 tensor, got torch.float32", err(emb, torch.tensor{1.5}), 1, true)
        assert.matches("Embedding: index -9223372036854775808 is out of range",
                       err(emb, torch.tensor{math.mininteger}), 1, true)
        assert.matches("Embedding: input (a tensor of ids) must be a tensor", err(emb, "cat"), 1, true)
        assert.matches("Embedding: padding_idx must be an id from 1 to 6", err(nn.Embedding, 6, 3, {padding_idx = 0}),
                       1, true)
        assert.matches("embedding: weight must be 2-D", err(torch.embedding, torch.ones(3), torch.tensor{1}), 1, true)
    end)
    it("activations, positional encoding and blocks", function()
        assert.matches("gelu: approximate must be \"none\" or \"tanh\", got string \"fast\"",
                       err(nn.functional.gelu, torch.ones(2), {approximate = "fast"}), 1, true)
        assert.matches("silu: input must be a tensor, got 3", err(nn.functional.silu, 3), 1, true)
        assert.matches("positional_encoding: d_model must be even", err(nn.positional_encoding, 10, 5), 1, true)
        local pe = nn.PositionalEncoding(4, 0, 3)
        assert.matches("PositionalEncoding: expected an input [..., n, 4] with n <= max_len = 3, got shape [1, 5, 4]",
                       err(pe, torch.ones(1, 5, 4)), 1, true)
        assert.matches("EncoderBlock: self_attn must be a module, got a tensor",
                       err(nn.EncoderBlock, 4, torch.ones(2), nn.PositionwiseFFN(4, 8)), 1, true)
        assert.matches("SublayerConnection: the second argument must be the sublayer",
                       err(nn.SublayerConnection(4, 0), torch.ones(1, 4), 5), 1, true)
        assert.matches("PositionwiseFFN: activation must be", err(nn.PositionwiseFFN, 4, 8, 0, {activation = "tanh"}),
                       1, true)
        assert.matches("deepcopy: expected a module, got a tensor", err(nn.deepcopy, torch.ones(2)), 1, true)
        assert.matches("BERTEmbedding: 5 tokens, but max_len is 4",
                       err(nn.BERTEmbedding(10, 4, {max_len = 4}), torch.tensor{{1, 2, 3, 4, 5}}), 1, true)
    end)
end)

-- Nothing a user types may crash attn: the new functions and classes with random arguments (each call may
-- raise a Lua error; a crash would kill the suite). fuzz_spec.lua covers torch.* and nn.* functions; this
-- adds nn.functional and the classes (constructors and forward), which it does not reach.
describe("random calls to the layers never crash", function()
    it("2000 calls", function()
        math.randomseed(6)
        local function shape()
            local s = {}
            for i = 1, math.random(0, 4) do s[i] = math.random(0, 5) end
            return s
        end
        local values = {
            function() return torch.rand(shape()) end,
            function() return torch.rand(shape()):gt(0.5) end,
            function() return torch.rand(2, 3, 4):transpose(1, 3) end,
            function() return torch.randint(0, 8, shape()) end,
            function() return ({0 / 0, math.huge, -1, 0, 1, 2, 3, 4, 8, 1e300, 0.5, -0.0})[math.random(1, 12)] end,
            function() return ({"x", "tanh", "none", true, {}, {4}, {2, 3}})[math.random(1, 7)] end,
            function() return {approximate = "tanh", eps = math.random() < 0.5 and -1 or 1e-3, norm_first = false,
                               padding_idx = math.random(-3, 3), activation = "relu", max_len = math.random(0, 9)} end,
            function() return nn.Linear(4, 4) end,
            function() return function(x) return x end end,
            function() return nil end,
        }
        local function arg() return values[math.random(1, #values)]() end
        local targets = {}
        for _, k in ipairs({"gelu", "silu", "relu", "layer_norm", "embedding"}) do
            targets[#targets + 1] = nn.functional[k]
        end
        for _, k in ipairs({"positional_encoding", "clones", "subsequent_mask", "deepcopy"}) do
            targets[#targets + 1] = nn[k]
        end
        local classes = {"LayerNorm", "Embedding", "ReLU", "SiLU", "GELU", "PositionalEncoding", "Embeddings",
                         "PositionwiseFFN", "SublayerConnection", "EncoderBlock", "Encoder", "DecoderBlock", "Decoder",
                         "BERTEmbedding"}
        local errors = 0
        for i = 1, 2000 do
            local a = {arg(), arg(), arg(), arg()}
            if i % 2 == 0 then
                local ok = pcall(targets[math.random(1, #targets)], a[1], a[2], a[3], a[4])
                errors = errors + (ok and 0 or 1)
            else
                local ok, m = pcall(nn[classes[math.random(1, #classes)]], a[1], a[2], a[3], a[4])
                if ok then
                    ok = pcall(m, arg(), arg(), arg(), arg())
                end
                errors = errors + (ok and 0 or 1)
            end
        end
        assert(errors > 0) -- most random calls are errors; what matters is that we got here
    end)
end)
