-- The library's attention classes (src/lua/nn/attention.lua): nn.SelfAttention_v1 ... nn.MLPAttention.
--   * seeded outputs of the ch. 3 classes against the book's printed text (ch. 3; grad_fn dropped),
--     on the default path (the stages, at these sizes) and on the fused one;
--   * the d2l toy (d2l §10.1) for DotProductAttention and MLPAttention;
--   * every class against PyTorch running the books' Python classes on the same seeds
--     (tests/data/torch/attention.txt, made by scripts/gen-torch-reference.sh): bit for bit on the
--     stages (where this CPU runs PyTorch's AVX2 kernels), within 1e-6 on the fused path;
--   * the choice of path, keyword options, and errors for bad input.
-- tests/lua/book_random_spec.lua keeps the book's own classes written out in Lua.
local support = dofile("tests/lua/support.lua")
local torch, nn = torch, nn

-- The stages compute what PyTorch computes; the fused pass adds in another order
local TOL = torch.backends.cpu.get_cpu_capability() == "AVX2" and 0 or 1e-6
local TOL_FUSED = 1e-6
local HAS_FUSED = type(rawget(_G, "attention")) == "table" and attention.fused ~= nil

local inputs, batch

before_each(function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^1)
        {0.55, 0.87, 0.66}, -- journey  (x^2)
        {0.57, 0.85, 0.64}, -- starts   (x^3)
        {0.22, 0.58, 0.33}, -- with     (x^4)
        {0.77, 0.25, 0.10}, -- one      (x^5)
        {0.05, 0.80, 0.55}} -- step     (x^6)
    batch = torch.stack({inputs, inputs}, 1)
end)

-- Runs make() and the module it returns on x twice, on the default path and staged, from the same
-- seed each time; returns both outputs and the two modules.
local function both_paths(seed, make, ...)
    torch.manual_seed(seed)
    local m1 = make()
    local default = m1(...)
    torch.manual_seed(seed)
    local m2 = make()
    m2.use_fused = false
    local staged = m2(...)
    return default, staged, m1, m2
end

-- Largest absolute difference between a tensor and a list of float32 bit patterns.
local function max_diff(t, expected_hex)
    local got = support.flat(t)
    assert.are.equal(#expected_hex, #got, "element count")
    local worst = 0
    for i, hex in ipairs(expected_hex) do
        worst = math.max(worst, math.abs(got[i] - support.from_bits(hex)))
    end
    return worst
end

describe("ch. 3: the library classes print the book's numbers", function()
    it("In [28]: nn.SelfAttention_v1 with seed 123", function()
        local default, staged = both_paths(123, function() return nn.SelfAttention_v1(3, 2) end, inputs)
        local book = support.book_tensor(28)
        assert.are.equal(book, tostring(default))
        assert.are.equal(book, tostring(staged))
    end)

    it("In [33]: nn.SelfAttention_v2 with seed 789", function()
        local default, staged = both_paths(789, function() return nn.SelfAttention_v2(3, 2) end, inputs)
        local book = support.book_tensor(33)
        assert.are.equal(book, tostring(default))
        assert.are.equal(book, tostring(staged))
    end)

    it("In [58]: nn.CausalAttention", function()
        local default, staged = both_paths(123, function() return nn.CausalAttention(3, 2, 6, 0.0) end, batch)
        local book = support.book_tensor(58)
        assert.are.equal(book, tostring(default))
        assert.are.equal(book, tostring(staged))
        assert.are.equal("context_vecs.shape: torch.Size([2, 6, 2])", "context_vecs.shape: " .. tostring(default.shape))
    end)

    it("In [49]: nn.MultiHeadAttentionWrapper with num_heads = 2 (a keyword: an option)", function()
        local default = both_paths(123, function()
            return nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0, {num_heads = 2})
        end, batch)
        torch.manual_seed(123)
        local staged_mha = nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2)
        for _, head in ipairs(staged_mha.heads) do head.use_fused = false end
        local book = support.book_tensor(49)
        assert.are.equal(book, tostring(default))
        assert.are.equal(book, tostring(staged_mha(batch)))
        assert.are.equal("context_vecs.shape: torch.Size([2, 6, 4])", "context_vecs.shape: " .. tostring(default.shape))
    end)

    it("In [54]: nn.MultiHeadAttention with weight splits", function()
        local default, staged = both_paths(123, function()
            return nn.MultiHeadAttention(3, 2, 6, 0.0, {num_heads = 2})
        end, batch)
        local book = support.book_tensor(54)
        assert.are.equal(book, tostring(default))
        assert.are.equal(book, tostring(staged))
        assert.are.equal("context_vecs.shape: torch.Size([2, 6, 2])", "context_vecs.shape: " .. tostring(default.shape))
    end)

    it("Exercise 3.2: d_out = 1 with two heads gives 2-dim context vectors", function()
        torch.manual_seed(123)
        local mha = nn.MultiHeadAttentionWrapper(3, 1, 6, 0.0, {num_heads = 2})
        assert.are.equal("torch.Size([2, 6, 2])", tostring(mha(batch).shape))
    end)

    it("Exercise 3.3: a GPT-2-sized nn.MultiHeadAttention has 2,360,064 parameters", function()
        assert.are.equal(2360064, nn.MultiHeadAttention(768, 768, 1024, 0.0, 12):num_parameters())
    end)

    it("registers parameters and buffers in the book's order, with the book's field names", function()
        local function names(m)
            local out = {}
            for _, pair in ipairs(m:named_parameters()) do out[#out + 1] = pair[1] end
            return table.concat(out, " ")
        end
        assert.are.equal("W_query W_key W_value", names(nn.SelfAttention_v1(3, 2)))
        assert.are.equal("W_query.weight W_key.weight W_value.weight", names(nn.SelfAttention_v2(3, 2)))
        assert.are.equal("W_query.weight W_query.bias W_key.weight W_key.bias W_value.weight W_value.bias",
                         names(nn.SelfAttention_v2(3, 2, true)))
        local mha = nn.MultiHeadAttention(3, 4, 6, 0.1, 2, {qkv_bias = true})
        assert.are.equal("W_query.weight W_query.bias W_key.weight W_key.bias W_value.weight W_value.bias "
                         .. "out_proj.weight out_proj.bias", names(mha))
        assert.are.same({4, 2, 2}, {mha.d_out, mha.num_heads, mha.head_dim})
        assert.are.equal("mask", mha:named_buffers()[1][1])
        assert.is_true(torch.equal(torch.triu(torch.ones(6, 6), 1), mha.mask))
        assert.are.equal(0.1, mha.dropout.p)
        assert.are.equal("heads.1.W_query.weight heads.1.W_key.weight heads.1.W_value.weight "
                         .. "heads.2.W_query.weight heads.2.W_key.weight heads.2.W_value.weight",
                         names(nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2)))
        assert.are.equal("fc_layers.1.weight fc_layers.1.bias fc_layers.2.weight fc_layers.2.bias "
                         .. "fc_layers.3.weight fc_layers.3.bias fc_layers.4.weight fc_layers.4.bias",
                         names(nn.MultiHeadedAttention(2, 8)))
        assert.are.equal("W_k.weight W_q.weight v.weight", names(nn.MLPAttention(2, 3, 8, 0.1)))
        assert.are.equal("", names(nn.DotProductAttention(0.5)))
    end)

    it("draws the weights the book's classes draw (nn.Linear in the book's order)", function()
        torch.manual_seed(789)
        local sa = nn.SelfAttention_v2(3, 2)
        torch.manual_seed(789)
        local wq, wk, wv = nn.Linear(3, 2, {bias = false}), nn.Linear(3, 2, {bias = false}), nn.Linear(3, 2, {bias = false})
        assert.is_true(torch.equal(wq.weight, sa.W_query.weight))
        assert.is_true(torch.equal(wk.weight, sa.W_key.weight))
        assert.is_true(torch.equal(wv.weight, sa.W_value.weight))
    end)
end)

describe("d2l: the toy with valid lengths [2, 6]", function()
    local queries, keys, values
    before_each(function()
        queries = torch.ones(2, 1, 2)
        keys = torch.ones(2, 10, 2)
        -- Python: torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
        values = torch.arange(40, {dtype = torch.float32}):reshape(1, 10, 4):expand(2, 10, 4):contiguous()
    end)
    -- every key is the same, so each output is the mean of the first valid_len value rows
    local EXPECTED = {{{2, 3, 4, 5}}, {{10, 11, 12, 13}}}

    local function close(t)
        local got = t:tolist()
        for i = 1, 2 do
            for j = 1, 4 do
                assert.is_true(math.abs(got[i][1][j] - EXPECTED[i][1][j]) <= 1e-5, -- float32 of numbers ~10
                               string.format("[%d][1][%d]: %.9g", i, j, got[i][1][j]))
            end
        end
    end

    it("nn.DotProductAttention (eval mode), valid_lens as a tensor and as a table", function()
        local attention_layer = nn.DotProductAttention(0.5)
        attention_layer:eval()
        close(attention_layer(queries, keys, values, torch.tensor{2, 6}))
        close(attention_layer(queries, keys, values, {2, 6}))
        assert.are.equal("torch.Size([2, 1, 10])", tostring(attention_layer.last_weights.shape))
    end)

    it("nn.MLPAttention(2, 2, 8, 0.1), seeded, eval mode", function()
        for _, seed in ipairs({0, 123}) do
            torch.manual_seed(seed)
            local atten = nn.MLPAttention(2, 2, 8, 0.1)
            atten:eval()
            close(atten(queries, keys, values, torch.tensor{2, 6}))
        end
    end)

    it("valid lengths per query (2-D) hide different keys for each query", function()
        local attention_layer = nn.DotProductAttention(0):eval()
        attention_layer.use_fused = false
        local q = torch.ones(2, 2, 2)
        attention_layer(q, keys, values, {{1, 3}, {10, 0}})
        local w = attention_layer.last_weights
        assert.are.equal(1, w[1][1][1])
        assert.are.equal(0, w[1][1][2])
        assert.are.equal(0, w[1][2][4])
        assert.is_true(math.abs(w[2][1][10] - 0.1) < 1e-7)
        -- a valid length of 0 hides every key: all scores are -1e6, so the weights are uniform (d2l's -1e6)
        assert.is_true(math.abs(w[2][2][1] - 0.1) < 1e-7)
    end)
end)

describe("against PyTorch running the books' Python classes (tests/data/torch/attention.txt)", function()
    local previous
    setup(function() previous = torch.set_bernoulli_flavor("default") end) -- Debian's torch has no MKL
    teardown(function() torch.set_bernoulli_flavor(previous) end)

    local cases = support.reference("attention")

    local function list(s)
        if s == "none" then return nil end
        local rows = {}
        for row in s:gmatch("[^;]+") do
            local r = {}
            for v in row:gmatch("[^,]+") do r[#r + 1] = tonumber(v) end
            rows[#rows + 1] = r
        end
        return s:find(";") and rows or rows[1]
    end

    local function int(case, key) return math.tointeger(tonumber(case[key])) end

    -- Builds the case's module and inputs in PyTorch's order and runs forward; returns output, weights.
    local function run(case, use_fused)
        torch.manual_seed(int(case, "seed"))
        local p = tonumber(case.p)
        local m, out
        if case.kind == "multiheaded" then
            local b, n, mm, d = int(case, "b"), int(case, "n"), int(case, "m"), int(case, "d_model")
            m = nn.MultiHeadedAttention(int(case, "h"), d, p)
            m:train(case.mode == "train")
            m.use_fused = use_fused
            local q = torch.rand(b, n, d)
            local k, v = q, q
            if mm ~= n then k, v = torch.rand(b, mm, d), torch.rand(b, mm, d) end
            local mask
            if case.mask == "causal" then
                mask = torch.triu(torch.ones(1, n, n), 1):eq(0) -- the annotated transformer's subsequent_mask
            elseif case.mask == "pad" then
                mask = torch.arange(1, mm + 1):le(torch.tensor(list(case.lens)):view(b, 1, 1))
            end
            out = m(q, k, v, mask)
            return out, m.attn
        elseif case.kind == "mha" then
            m = nn.MultiHeadAttention(int(case, "d_in"), int(case, "d_out"), int(case, "context_length"), p,
                                      int(case, "num_heads"), {qkv_bias = case.qkv_bias == "true"})
            m:train(case.mode == "train")
            m.use_fused = use_fused
            out = m(torch.rand(int(case, "b"), int(case, "n"), int(case, "d_in")))
            return out, m.last_weights
        else
            local b, n, mm = int(case, "b"), int(case, "n"), int(case, "m")
            local dq, dk, dv = int(case, "dq"), int(case, "dk"), int(case, "dv")
            if case.kind == "dot" then
                m = nn.DotProductAttention(p)
            else
                m = nn.MLPAttention(dk, dq, 8, p)
            end
            m:train(case.mode == "train")
            m.use_fused = use_fused
            local q, k, v = torch.rand(b, n, dq), torch.rand(b, mm, dk), torch.rand(b, mm, dv)
            out = m(q, k, v, list(case.lens))
            return out, m.last_weights
        end
    end

    for _, case in ipairs(cases) do
        local label = string.format("%s seed %s mask %s lens %s mode %s: %s", case.kind, case.seed,
                                    case.mask or "-", case.lens or "-", case.mode, case.what)
        it(label .. " (staged), bit for bit", function()
            local out, weights = run(case, false)
            local t = case.what == "out" and out or weights
            local d = max_diff(t, case.values)
            assert.is_true(d <= TOL, string.format("largest difference %.3g", d))
        end)
        if case.what == "out" then
            it(label .. " (default path), bit for bit", function()
                local d = max_diff(run(case, nil), case.values)
                assert.is_true(d <= TOL, string.format("largest difference %.3g", d))
            end)
            it(label .. " (fused where it applies), within 1e-6", function()
                local d = max_diff(run(case, true), case.values)
                assert.is_true(d <= TOL_FUSED, string.format("largest difference %.3g", d))
            end)
        end
    end

    it("has the cases the generator writes", function()
        assert.is_true(#cases >= 30)
    end)
end)

describe("the path each forward takes", function()
    -- Counts the calls of attention.fused (the classes call it through the same table).
    local function fused_calls(f)
        local real, calls = attention.fused, 0
        attention.fused = function(...) calls = calls + 1 return real(...) end
        local ok, err = pcall(f)
        attention.fused = real
        assert(ok, err)
        return calls
    end

    local CLASSES = {"SelfAttention_v1", "SelfAttention_v2", "CausalAttention", "MultiHeadAttention",
                     "MultiHeadedAttention", "DotProductAttention", "MLPAttention"}

    it("with use_fused = true, uses attention.fused exactly when it computes the same thing", function()
        if not HAS_FUSED then return end
        for _, name in ipairs(CLASSES) do nn[name].use_fused = true end -- every instance, the heads too
        local x = torch.rand(2, 5, 8)
        local function mha(p) return nn.MultiHeadAttention(8, 8, 6, p, 2) end
        local function ann(p) return nn.MultiHeadedAttention(2, 8, p) end
        local CASES = {
            {"SelfAttention_v1", 1, function() nn.SelfAttention_v1(8, 4)(x) end},
            {"SelfAttention_v2", 1, function() nn.SelfAttention_v2(8, 4)(x[1]) end},
            {"CausalAttention, dropout 0, training mode", 1, function() nn.CausalAttention(8, 4, 5, 0.0)(x) end},
            {"CausalAttention, dropout 0.5, training mode", 0, function() nn.CausalAttention(8, 4, 5, 0.5)(x) end},
            {"CausalAttention, dropout 0.5, eval mode", 1, function() nn.CausalAttention(8, 4, 5, 0.5):eval()(x) end},
            {"MultiHeadAttentionWrapper: each head", 3, function() nn.MultiHeadAttentionWrapper(8, 4, 5, 0, 3)(x) end},
            {"MultiHeadAttention, eval", 1, function() mha(0.1):eval()(x) end},
            {"MultiHeadAttention, training", 0, function() mha(0.1)(x) end},
            {"MultiHeadAttention, use_fused = false", 0, function()
                local m = mha(0.0)
                m.use_fused = false
                m(x)
            end},
            {"MultiHeadedAttention, no mask", 1, function() ann(0.1):eval()(x, x, x) end},
            {"MultiHeadedAttention, the causal mask", 1, function()
                ann(0.1):eval()(x, x, x, torch.tril(torch.ones(1, 5, 5)))
            end},
            {"MultiHeadedAttention, a padding mask that hides nothing", 1, function()
                ann(0.1):eval()(x, x, x, torch.ones(2, 1, 5))
            end},
            {"MultiHeadedAttention, a padding mask", 0, function()
                ann(0.1):eval()(x, x, x, torch.tensor{{{1, 1, 1, 0, 0}}, {{1, 1, 1, 1, 1}}})
            end},
            {"MultiHeadedAttention, training with dropout", 0, function() ann(0.1)(x, x, x) end},
            {"DotProductAttention, no valid_lens", 1, function() nn.DotProductAttention(0.5):eval()(x, x, x) end},
            {"DotProductAttention, valid_lens", 0, function() nn.DotProductAttention(0.5):eval()(x, x, x, {2, 5}) end},
            {"MLPAttention: additive scores, never fused", 0, function() nn.MLPAttention(8, 8, 4, 0):eval()(x, x, x) end},
        }
        local wrong, unforced = {}, {}
        for _, case in ipairs(CASES) do
            local calls = fused_calls(case[3])
            if calls ~= case[2] then
                wrong[#wrong + 1] = string.format("%s: %d calls, expected %d", case[1], calls, case[2])
            end
        end
        for _, name in ipairs(CLASSES) do nn[name].use_fused = nil end
        for _, case in ipairs(CASES) do -- by default, at these sizes: the stages, always
            if fused_calls(case[3]) ~= 0 then unforced[#unforced + 1] = case[1] end
        end
        assert.are.same({}, wrong)
        assert.are.same({}, unforced)
    end)

    it("never takes the fused path by itself, whatever the size; use_fused = true asks for it", function()
        if not HAS_FUSED then return end
        local m = nn.MultiHeadAttention(8, 8, 1024, 0.0, 2):eval()
        -- 2 x 1024 x 1024 scores: above the 2^20 where attn once switched by itself (a change of bits)
        assert.are.equal(0, fused_calls(function() m(torch.rand(1, 1024, 8)) end))
        m.use_fused = true
        assert.are.equal(1, fused_calls(function() m(torch.rand(1, 1024, 8)) end))
        m.use_fused = false
        assert.are.equal(0, fused_calls(function() m(torch.rand(1, 1024, 8)) end))
    end)

    it("keeps the weights of the staged path in m.last_weights (training mode with dropout: staged)", function()
        torch.manual_seed(123)
        local mha = nn.MultiHeadAttention(3, 4, 6, 0.5, 2)
        mha(batch)
        assert.are.equal("torch.Size([2, 2, 6, 6])", tostring(mha.last_weights.shape))
        -- causal: nothing above the diagonal
        assert.are.equal(0, torch.triu(mha.last_weights, 1):abs():sum():item())
    end)

    it("at the book's sizes takes the stages in eval mode too; on the fused path it keeps no weights", function()
        torch.manual_seed(123)
        local mha = nn.MultiHeadAttention(3, 4, 6, 0.5, 2):eval()
        mha(batch)
        assert.is_not_nil(mha.last_weights)
        mha.use_fused = true
        mha(batch)
        if HAS_FUSED then
            assert.is_nil(mha.last_weights)
        else
            assert.is_not_nil(mha.last_weights)
        end
    end)

    it("staged weights of the book's CausalAttention rows sum to 1 and stay causal", function()
        torch.manual_seed(789)
        local ca = nn.CausalAttention(3, 2, 6, 0.0)
        ca.use_fused = false
        ca(batch)
        local sums = ca.last_weights:sum(-1)
        assert.is_true(torch.allclose(sums, torch.ones(2, 6), 0, 1e-6))
        assert.are.equal(0, torch.triu(ca.last_weights, 1):sum():item())
    end)

    it("nn.MultiHeadedAttention keeps its weights in m.attn, as the book's class does", function()
        torch.manual_seed(0)
        local m = nn.MultiHeadedAttention(2, 8, 0.0)
        m.use_fused = false
        local x = torch.rand(2, 5, 8)
        m(x, x, x)
        assert.are.equal("torch.Size([2, 2, 5, 5])", tostring(m.attn.shape))
    end)

    it("nn.MultiHeadedAttention: the four layers are copies of one (clones), one draw of the generator", function()
        torch.manual_seed(5)
        local m = nn.MultiHeadedAttention(2, 8)
        local after = torch.rand(1):item()
        for i = 2, 4 do
            assert.is_true(torch.equal(m.fc_layers[1].weight, m.fc_layers[i].weight))
            assert.is_true(torch.equal(m.fc_layers[1].bias, m.fc_layers[i].bias))
        end
        torch.manual_seed(5)
        nn.Linear(8, 8)
        assert.are.equal(torch.rand(1):item(), after)
    end)

    it("a mask given as the causal one gives what no mask gives on the staged path for row 1", function()
        torch.manual_seed(0)
        local m = nn.MultiHeadedAttention(2, 8, 0.0)
        local x = torch.rand(1, 4, 8)
        local causal = m(x, x, x, torch.tril(torch.ones(1, 4, 4)))
        m.use_fused = false
        local staged = m(x, x, x, torch.tril(torch.ones(1, 4, 4)))
        assert.is_true(torch.allclose(causal, staged, 0, 1e-6))
        -- the last query sees every key: the same as without a mask
        local free = m(x, x, x)
        assert.is_true(torch.allclose(free[1][4], staged[1][4], 0, 1e-6))
    end)
end)

describe("bad input raises an error naming the class and the shapes", function()
    local keys = torch.ones(2, 10, 2)
    local values = torch.ones(2, 10, 4)
    local CASES = {
        {function() return nn.MultiHeadAttention(3, 5, 6, 0.0, 2) end,
         "MultiHeadAttention: d_out (5) must be divisible by num_heads (2)"},
        {function() return nn.MultiHeadedAttention(3, 8) end,
         "MultiHeadedAttention: d_model (8) must be divisible by h (3)"},
        {function() return nn.MultiHeadAttention(3, 2, 6, 0.0) end,
         "MultiHeadAttention: missing argument num_heads (nn.MultiHeadAttention(d_in, d_out, context_length, "
         .. "dropout, num_heads [, {qkv_bias = false}]))"},
        {function() return nn.CausalAttention(3, 2, 6, 0.0, true, 5) end,
         "CausalAttention: expected at most 5 arguments, got 6"},
        {function() return nn.MultiHeadAttention(3, 2, 6, 0.0, 2, {heads = 2}) end,
         "MultiHeadAttention: unknown option heads"},
        {function() return nn.MultiHeadAttention(3, 2, 6, 0.0, 2, {num_heads = 2}) end,
         "MultiHeadAttention: num_heads is given twice, as an argument and as an option"},
        {function() return nn.SelfAttention_v2(3, 2, "yes") end,
         "SelfAttention_v2: qkv_bias must be true or false, got \"yes\""},
        {function() return nn.CausalAttention(3, 0, 6, 0.0) end,
         "CausalAttention: d_out must be a positive integer, got 0"},
        {function() return nn.SelfAttention_v1(2.5, 2) end,
         "SelfAttention_v1: d_in must be a positive integer, got 2.5"},
        {function() return nn.MultiHeadAttentionWrapper(3, 2, 6, -0.5, 2) end,
         "MultiHeadAttentionWrapper: dropout must be a probability between 0 and 1, got -0.5"},
        {function() return nn.DotProductAttention() end,
         "DotProductAttention: missing argument dropout"},
        {function() return nn.MLPAttention(2, 2, 8) end,
         "MLPAttention: missing argument dropout"},
        {function() return nn.SelfAttention_v2(3, 2)(torch.ones(6, 4)) end,
         "SelfAttention_v2: x's last dim must be d_in = 3, got shape [6, 4]"},
        {function() return nn.SelfAttention_v1(3, 2)(torch.ones(6)) end,
         "SelfAttention_v1: x must have shape [num_tokens, 3] or [batch, num_tokens, 3], got [6]"},
        {function() return nn.CausalAttention(3, 2, 6, 0.0)(torch.ones(6, 3)) end,
         "CausalAttention: x must have shape [batch, num_tokens, 3], got [6, 3]; for one text add the batch "
         .. "dim: x:unsqueeze(1)"},
        {function() return nn.MultiHeadAttention(3, 2, 4, 0.0, 2)(torch.ones(2, 6, 3)) end,
         "MultiHeadAttention: x has 6 tokens but context_length is 4 (shape [2, 6, 3])"},
        {function() return nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2)(torch.ones(2, 6, 5)) end,
         "MultiHeadAttentionWrapper: x's last dim must be d_in = 3, got shape [2, 6, 5]"},
        {function() return nn.MultiHeadAttention(3, 2, 6, 0.0, 2)("x") end,
         "MultiHeadAttention: x must be a tensor of shape [batch, num_tokens, 3], got \"x\""},
        {function() return nn.DotProductAttention(0)(torch.ones(2, 1, 2), keys, values, {2, 11}) end,
         "DotProductAttention: valid length 11 is longer than the sequence of 10 keys"},
        {function() return nn.DotProductAttention(0)(torch.ones(2, 1, 2), keys, values, {2, -1}) end,
         "DotProductAttention: valid lengths must be whole numbers >= 0, got -1"},
        {function() return nn.MLPAttention(2, 2, 4, 0)(torch.ones(2, 1, 2), keys, values, {2, 6, 1}) end,
         "MLPAttention: valid_lens must have shape [2] (one per batch) or [2, 1] (one per query), got [3]"},
        {function() return nn.DotProductAttention(0)(torch.ones(2, 1, 2), keys, values, "2") end,
         "DotProductAttention: valid_lens must be a tensor or a list of lengths, got \"2\""},
        {function() return nn.DotProductAttention(0)(torch.ones(2, 1, 3), keys, values) end,
         "DotProductAttention: queries [2, 1, 3] and keys [2, 10, 2] must have the same last dim"},
        {function() return nn.DotProductAttention(0)(torch.ones(2, 1, 2), keys, torch.ones(2, 9, 4)) end,
         "DotProductAttention: queries [2, 1, 2], keys [2, 10, 2] and values [2, 9, 4] must share the batch dim, "
         .. "and keys and values the count"},
        {function() return nn.MLPAttention(3, 2, 4, 0)(torch.ones(2, 1, 2), keys, values) end,
         "MLPAttention: keys' last dim must be 3, got shape [2, 10, 2]"},
        {function() return nn.MLPAttention(2, 2, 4, 0)(torch.ones(2, 2), keys, values) end,
         "MLPAttention: queries must be a 3-D tensor [batch, count, dim], got a tensor of shape [2, 2]"},
        {function() local x = torch.ones(2, 5, 8); return nn.MultiHeadedAttention(2, 8)(x, x, x, torch.ones(5, 5)) end,
         "MultiHeadedAttention: mask must have shape [2 or 1, 5 or 1, 5] (batch, queries, keys), got a tensor "
         .. "of shape [5, 5]"},
        {function() local x = torch.ones(2, 5, 6); return nn.MultiHeadedAttention(2, 8)(x, x, x) end,
         "MultiHeadedAttention: queries' last dim must be 8, got shape [2, 5, 6]"},
    }
    for _, case in ipairs(CASES) do
        it(case[2], function()
            local ok, err = pcall(case[1])
            assert.is_false(ok)
            assert.are.equal("string", type(err))
            err = err:gsub("^[^:]*:%d+: ", "") -- the position of the calling line, when there is one
            assert.are.equal(1, err:find(case[2], 1, true), "got: " .. err)
        end)
    end

    it("points at the user's line, not inside attn's library", function()
        local f = load("local m = nn.MultiHeadAttention(3, 5, 6, 0.0, 2)\nreturn m", "=user", "t")
        local ok, err = pcall(f)
        assert.is_false(ok)
        assert.are.equal("user:1: MultiHeadAttention: d_out (5) must be divisible by num_heads (2)", err)
    end)
end)

describe("random calls never crash, and every error names the class", function()
    -- Sizes stay small (a class that asks for a huge weight is nn.Linear's business, and tests memory).
    local function pick(list) return list[math.random(1, #list)] end
    local function size()
        return math.random() < 0.92 and math.random(1, 6) or pick({0, 2.5, -1, 0 / 0, "2", true})
    end
    local function prob()
        return math.random() < 0.9 and pick({0, 0.1, 0.5, 1}) or pick({1.5, -0.1, 0 / 0, "0.1"})
    end
    local function bias() return pick({true, false, nil, "yes", 1}) end
    local function tensor_near(want) -- mostly the right shape, sometimes not
        local shape = {}
        for i, d in ipairs(want) do
            shape[i] = math.random() < 0.8 and d or math.random(0, 5)
        end
        if math.random() < 0.1 then table.remove(shape) end
        if math.random() < 0.1 then shape[#shape + 1] = 2 end
        local t = torch.rand(shape)
        if math.random() < 0.05 then t = t:gt(0.5) end
        return pick({t, t, t, t, t, t, t, t, "x", 3, {}})
    end
    local CLASSES = {
        {"SelfAttention_v1", function() return nn.SelfAttention_v1(size(), size()) end,
         function(m) return m(tensor_near({math.random(1, 3), 6, m.W_query.shape[1]})) end},
        {"SelfAttention_v2", function() return nn.SelfAttention_v2(size(), size(), bias()) end,
         function(m) return m(tensor_near({6, m.W_query.in_features})) end},
        {"CausalAttention", function() return nn.CausalAttention(size(), size(), size(), prob(), bias()) end,
         function(m) return m(tensor_near({2, math.random(0, 7), m.W_query.in_features})) end},
        {"MultiHeadAttentionWrapper", function()
            return nn.MultiHeadAttentionWrapper(size(), size(), size(), prob(), size(), {qkv_bias = bias()})
        end, function(m) return m(tensor_near({2, math.random(0, 7), m.heads[1].W_query.in_features})) end},
        {"MultiHeadAttention", function() return nn.MultiHeadAttention(size(), size(), size(), prob(), size()) end,
         function(m) return m(tensor_near({2, math.random(0, 7), m.W_query.in_features})) end},
        {"MultiHeadedAttention", function() return nn.MultiHeadedAttention(size(), size(), prob()) end,
         function(m)
             local d, n, k = m.h * m.d_k, math.random(0, 4), math.random(0, 4)
             local mask = pick({nil, torch.ones(2, n, k), torch.ones(1, 1, k):bool(), torch.tril(torch.ones(1, n, n)), "m"})
             return m(tensor_near({2, n, d}), tensor_near({2, k, d}), tensor_near({2, k, d}), mask)
         end},
        {"DotProductAttention", function() return nn.DotProductAttention(prob()) end,
         function(m)
             local n, k = math.random(0, 4), math.random(0, 4)
             local lens = pick({nil, {1, k}, {k + 1, 0}, torch.tensor{2, 1}, {{1}, {2}}, "2", {0 / 0, 1}})
             return m(tensor_near({2, n, 3}), tensor_near({2, k, 3}), tensor_near({2, k, 2}), lens)
         end},
        {"MLPAttention", function() return nn.MLPAttention(size(), size(), size(), prob()) end,
         function(m)
             local n, k = math.random(0, 4), math.random(0, 4)
             local lens = pick({nil, {1, k}, {k + 1, 0}, torch.ones(2, n), {-1, 1}})
             return m(tensor_near({2, n, m.W_q.in_features}), tensor_near({2, k, m.W_k.in_features}),
                      tensor_near({2, k, 2}), lens)
         end},
    }
    it("3000 constructions and forwards", function()
        math.randomseed(42)
        local previous = torch.set_bernoulli_flavor("mkl")
        local stray = {}
        for _ = 1, 3000 do
            local c = pick(CLASSES)
            local ok, m = pcall(c[2])
            local err = not ok and m
            if ok then
                if math.random() < 0.5 then m:eval() end
                if math.random() < 0.3 then m.use_fused = false end
                local ok2, e2 = pcall(c[3], m)
                err = not ok2 and e2
            end
            if err then
                local msg = tostring(err):gsub("^[^:]*:%d+: ", "")
                if msg:find(c[1] .. ":", 1, true) ~= 1 and #stray < 5 then
                    stray[#stray + 1] = msg
                end
            end
        end
        torch.set_bernoulli_flavor(previous)
        assert.are.same({}, stray)
    end)
end)
