-- attention_spec.lua — the global table `attention` from Lua: the stages on the book's 6-token example
-- (ch. 3 §3.3.1–3.3.2, compared with the text the book prints), their arguments and errors, and
-- attention.forward against the same stages written out by hand as the book's classes do.
-- Run inside attn: ./attn /usr/bin/busted -o TAP tests/lua/attention_spec.lua

local inputs
before_each(function()
    inputs = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
                          {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}
end)

-- A tensor's shape as a Lua list.
local function dims(t)
    local r = {}
    for i = 1, #t.shape do r[i] = t.shape[i] end
    return r
end

-- The message of the error f(...) raises (the call must fail).
local function error_of(f, ...)
    local ok, err = pcall(f, ...)
    assert(not ok, "expected an error")
    return tostring(err)
end

describe("attention stages on the book's 6-token example (ch. 3)", function()
    it("scores equal In [9]/[10]'s attn_scores", function()
        assert.are.equal([=[
tensor([[0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310],
        [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],
        [0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605],
        [0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565],
        [0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935],
        [0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450]])]=], tostring(attention.scores(inputs, inputs)))
    end)

    it("softmax of the scores equals In [11]'s attn_weights", function()
        local w = attention.softmax(attention.scores(inputs, inputs))
        assert.are.equal([=[
tensor([[0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452],
        [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581],
        [0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565],
        [0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720],
        [0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295],
        [0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896]])]=], tostring(w))
        -- and the same bits as torch.softmax over dim -1 (attention.softmax's default)
        assert.is_true(torch.equal(w, torch.softmax(inputs:matmul(inputs.T), -1)))
    end)

    it("the weighted sum equals In [13]'s all_context_vecs", function()
        local w = attention.softmax(attention.scores(inputs, inputs))
        assert.are.equal([=[
tensor([[0.4421, 0.5931, 0.5790],
        [0.4419, 0.6515, 0.5683],
        [0.4431, 0.6496, 0.5671],
        [0.4304, 0.6298, 0.5510],
        [0.4671, 0.5910, 0.5266],
        [0.4177, 0.6503, 0.5645]])]=], tostring(attention.weighted_sum(w, inputs)))
    end)

    it("attention.dot is the scores; attention.general with W = I is too", function()
        local s = attention.scores(inputs, inputs)
        assert.is_true(torch.equal(attention.dot(inputs, inputs), s))
        assert.is_true(torch.allclose(attention.general(inputs, torch.eye(3), inputs), s, 0, 1e-7))
    end)

    it("dropout of ones(6, 6) with seed 123 equals In [43] (the \"mkl\" flavour)", function()
        local saved = torch.set_bernoulli_flavor("mkl")
        torch.manual_seed(123)
        local d = attention.dropout(torch.ones(6, 6), 0.5)
        torch.set_bernoulli_flavor(saved)
        assert.are.equal([=[
tensor([[2., 2., 2., 2., 2., 2.],
        [0., 2., 0., 0., 0., 0.],
        [0., 0., 2., 0., 2., 0.],
        [2., 2., 0., 0., 0., 2.],
        [2., 0., 0., 0., 0., 2.],
        [0., 2., 0., 0., 0., 0.]])]=], tostring(d))
    end)
end)

describe("attention stages", function()
    it("scale divides by sqrt(d_k) exactly as s / d_k^0.5", function()
        local s = attention.scores(inputs, inputs)
        assert.is_true(torch.equal(attention.scale(s, 3), s / 3 ^ 0.5))
        assert.are.equal("tensor([1., 2.])", tostring(attention.scale(torch.tensor{2.0, 4.0}, 4)))
    end)

    it("causal_mask is triu(ones, 1) as bool, square or not", function()
        assert.is_true(torch.equal(attention.causal_mask(6), torch.triu(torch.ones(6, 6), 1):bool()))
        assert.is_true(torch.equal(attention.causal_mask(2, 4), torch.triu(torch.ones(2, 4), 1):bool()))
        assert.are.equal(torch.bool, attention.causal_mask(3).dtype)
    end)

    it("mask fills hidden scores with -inf, or a given value; softmax then ignores them", function()
        local s = attention.scores(inputs, inputs)
        local m = attention.mask(s, attention.causal_mask(6))
        assert.are.equal("tensor([0.9544, 1.4950,   -inf,   -inf,   -inf,   -inf])", tostring(m[2]))
        local m9 = attention.mask(s, attention.causal_mask(6), -1e9)
        assert.are.equal(s[2][2], m9[2][2])
        assert.are.equal(-1e9, m9[2][3]) -- -1e9 is a float32 exactly
        -- two keys: e^a / (e^a + e^b) with a - b = 0.9544 - 1.4950 = -0.5406
        local w = attention.softmax(m)
        local want = 1 / (1 + math.exp(1.4950 - 0.9544))
        assert.is_true(math.abs(w[2][1] - want) < 1e-4) -- the printed scores are rounded to 1e-4
        assert.are.equal(0, w[2][3])
        assert.is_false(torch.equal(s, m)) -- s itself is unchanged
    end)

    it("valid_len_mask: 1-D lengths per batch and 2-D per query", function()
        assert.are.equal([=[
tensor([[[False, False,  True,  True]],

        [[False, False, False, False]]])]=], tostring(attention.valid_len_mask(4, {2, 4})))
        assert.are.equal([=[
tensor([[[False,  True,  True],
         [False, False, False]]])]=], tostring(attention.valid_len_mask(3, torch.tensor{{1, 3}})))
    end)

    it("d2l's toy: valid lengths [2, 6] and fill -1e6 give uniform weights over the valid keys", function()
        local s = torch.zeros(2, 1, 10)
        local w = attention.softmax(attention.mask(s, attention.valid_len_mask(10, {2, 6}), -1e6))
        local v = torch.arange(40, {dtype = torch.float32}):reshape(1, 10, 4):expand(2, 10, 4)
        -- d2l: [[[2, 3, 4, 5]], [[10, 11, 12, 13]]], the means of rows 1-2 and 1-6 of v; the weights 1/6
        -- are not exact in float32, so within 1e-5
        local want = torch.tensor{{{2, 3, 4, 5}}, {{10, 11, 12, 13}}}
        assert.is_true(torch.allclose(attention.weighted_sum(w, v), want, 0, 1e-5))
    end)

    it("an all-hidden row gives nan with -inf (as PyTorch) and uniform weights with a finite fill", function()
        local s = torch.tensor{{1.0, 2.0}}
        local all = torch.tensor{{true, true}}
        assert.are.equal("tensor([[nan, nan]])", tostring(attention.softmax(attention.mask(s, all))))
        assert.are.equal("tensor([[0.5000, 0.5000]])", tostring(attention.softmax(attention.mask(s, all, -1e9))))
        assert.are.equal("tensor([[nan, nan]])", tostring(attention.softmax(torch.tensor{{0 / 0, 1}})))
    end)

    it("softmax takes a dim, 1-based or negative, positionally or by name", function()
        local s = attention.scores(inputs, inputs)
        assert.is_true(torch.equal(attention.softmax(s, 1), torch.softmax(s, 1)))
        assert.is_true(torch.equal(attention.softmax(s, {dim = 1}), torch.softmax(s, 1)))
        assert.is_true(torch.equal(attention.softmax(s, -1), torch.softmax(s, -1)))
    end)

    it("split_heads is the book's view + transpose, merge_heads undoes it", function()
        torch.manual_seed(1)
        local x = torch.rand(2, 5, 6)
        local h = attention.split_heads(x, 3)
        assert.are.same({2, 3, 5, 2}, dims(h))
        assert.is_true(torch.equal(h, x:view(2, 5, 3, 2):transpose(2, 3)))
        assert.is_true(torch.equal(attention.merge_heads(h), x))
        assert.is_true(torch.equal(attention.merge_heads(h), h:transpose(2, 3):contiguous():view(2, 5, 6)))
    end)

    it("batched scores broadcast leading dims as matmul", function()
        torch.manual_seed(2)
        local q, k = torch.rand(2, 3, 4, 5), torch.rand(4, 5)
        assert.is_true(torch.equal(attention.scores(q, k), q:matmul(k.T)))
        local k2 = torch.rand(2, 3, 7, 5)
        assert.is_true(torch.equal(attention.scores(q, k2), q:matmul(k2:transpose(3, 4))))
    end)

    it("additive is vᵀ tanh(W_q q + W_k k), as d2l's MLPAttention computes it", function()
        torch.manual_seed(3)
        local q, k = torch.rand(2, 1, 20), torch.rand(2, 10, 2)
        local Wq, Wk, v = torch.rand(8, 20), torch.rand(8, 2), torch.rand(1, 8)
        local features = torch.tanh(q:matmul(Wq.T):unsqueeze(3) + k:matmul(Wk.T):unsqueeze(2))
        local want = features:matmul(v.T):squeeze(-1)
        assert.is_true(torch.equal(attention.additive(q, k, Wq, Wk, v), want))
        assert.is_true(torch.equal(attention.additive(q, k, Wq, Wk, v[1]), want))
    end)
end)

describe("attention.forward", function()
    it("equals the stages written out, as the book's SelfAttention computes them", function()
        torch.manual_seed(4)
        local q, k, v = torch.rand(6, 2), torch.rand(6, 2), torch.rand(6, 2)
        local w = torch.softmax(q:matmul(k.T) / 2 ^ 0.5, -1)
        local context, weights = attention.forward{q = q, k = k, v = v}
        assert.is_true(torch.equal(weights, w))
        assert.is_true(torch.equal(context, w:matmul(v)))
    end)

    it("causal, unscaled and scaled by a number", function()
        local c, w = attention.forward{q = inputs, k = inputs, v = inputs, mask = "causal", scale = false}
        local s = inputs:matmul(inputs.T):masked_fill(torch.triu(torch.ones(6, 6), 1):bool(), -math.huge)
        assert.is_true(torch.equal(w, torch.softmax(s, -1)))
        assert.is_true(torch.equal(c, torch.softmax(s, -1):matmul(inputs)))
        local _, w2 = attention.forward{q = inputs, k = inputs, v = inputs, scale = 0.5}
        assert.is_true(torch.equal(w2, torch.softmax(inputs:matmul(inputs.T) * 0.5, -1)))
    end)

    it("heads: the book's MultiHeadAttention body, without the projections", function()
        torch.manual_seed(5)
        local b, n, d, h = 2, 6, 4, 2
        local q, k, v = torch.rand(b, n, d), torch.rand(b, n, d), torch.rand(b, n, d)
        local function split(x) return x:view(b, n, h, d / h):transpose(2, 3) end
        local s = split(q):matmul(split(k):transpose(3, 4))
        s = s:masked_fill(torch.triu(torch.ones(n, n), 1):bool(), -math.huge)
        local w = torch.softmax(s / (d / h) ^ 0.5, -1)
        local want = w:matmul(split(v)):transpose(2, 3):contiguous():view(b, n, d)
        local context, weights = attention.forward{q = q, k = k, v = v, heads = h, mask = "causal"}
        assert.is_true(torch.equal(weights, w))
        assert.is_true(torch.equal(context, want))
    end)

    it("dropout: the weights returned are the dropped ones the context used", function()
        torch.manual_seed(6)
        local c, w = attention.forward{q = inputs, k = inputs, v = inputs, dropout = 0.5}
        assert.is_true(torch.equal(c, w:matmul(inputs)))
        assert.is_true(w:eq(0):sum():item() > 0)
    end)

    it("rejects bad arguments with messages that say what is wrong", function()
        assert.matches("expected a table", error_of(attention.forward, inputs))
        assert.matches("v must be a tensor", error_of(attention.forward, {q = inputs, k = inputs}))
        assert.matches("heads must be a whole number", error_of(attention.forward,
            {q = inputs, k = inputs, v = inputs, heads = 1.5}))
        assert.matches("not divisible by 2 heads", error_of(attention.forward,
            {q = inputs:view(1, 6, 3), k = inputs:view(1, 6, 3), v = inputs:view(1, 6, 3), heads = 2}))
        assert.matches('mask must be a bool tensor %(true = hidden%) or "causal"', error_of(attention.forward,
            {q = inputs, k = inputs, v = inputs, mask = "upper"}))
        assert.matches("scale must be true", error_of(attention.forward,
            {q = inputs, k = inputs, v = inputs, scale = "yes"}))
        assert.matches("attention.mask: the mask %[3, 3%] does not fit the scores %[6, 6%]", error_of(
            attention.forward, {q = inputs, k = inputs, v = inputs, mask = attention.causal_mask(3)}))
    end)
end)

describe("attention stages reject bad input", function()
    it("names the function and the shapes", function()
        local cases = {
            {"attention.scores: q %[6, 3%] and k %[2, 2%] must have the same last dim d %(3 ≠ 2%)",
             attention.scores, inputs, torch.ones(2, 2)},
            {"attention.scores: k must be a tensor, got table", attention.scores, inputs, {1, 2}},
            {"attention.scale: d_k is required", attention.scale, inputs},
            {"attention.scale: d_k must be a positive number", attention.scale, inputs, -1},
            {"attention.causal_mask: sizes must be non%-negative", attention.causal_mask, -2},
            {"attention.causal_mask: n must be an integer", attention.causal_mask, 2.5},
            {"attention.valid_len_mask: valid length 7 %(entry 2 of lens %[2%]%) must be a whole number from 0 "
             .. "to the sequence length 6", attention.valid_len_mask, 6, {2, 7}},
            {"attention.valid_len_mask: valid length %-1", attention.valid_len_mask, 6, {-1}},
            {"attention.valid_len_mask: lens must be 1%-D", attention.valid_len_mask, 6, torch.ones(1, 1, 1)},
            {"attention.valid_len_mask: lens: tensor: element 1 is a string", attention.valid_len_mask, 6, {"2"}},
            {"attention.mask: hidden must be a bool tensor", attention.mask, inputs, torch.ones(6, 3)},
            {"attention.mask: the mask %[2, 2%] does not fit the scores %[6, 3%]", attention.mask, inputs,
             attention.causal_mask(2)},
            {"attention.softmax: dim 3 is out of range", attention.softmax, inputs, 3},
            {"attention.weighted_sum: weights %[6, 3%] are over 3 keys but values %[6, 3%] have 6 rows",
             attention.weighted_sum, inputs, inputs},
            {"attention.dropout: p must be between 0 and 1, got 2", attention.dropout, inputs, 2},
            {"attention.dropout: p .* is required", attention.dropout, inputs},
            {"attention.split_heads: d = 3 %(x %[6, 3%]%) is not divisible by 2 heads",
             attention.split_heads, inputs, 2},
            {"attention.split_heads: the number of heads must be at least 1", attention.split_heads, inputs, 0},
            {"attention.merge_heads: expected x %[..., h, n, dh%] %(at least 3%-D%), got %[6, 3%]",
             attention.merge_heads, inputs},
            {"attention.general: W %[2, 2%] must be %[ds, dh%]", attention.general, inputs, torch.eye(2), inputs},
            {"attention.additive: shapes do not fit", attention.additive, inputs, inputs, torch.ones(4, 2),
             torch.ones(4, 3), torch.ones(4)},
        }
        for _, c in ipairs(cases) do
            local msg = error_of(table.unpack(c, 2))
            assert.matches(c[1], msg)
        end
    end)

    it("NaN scores are not an error: their row of weights is nan, the others are unaffected", function()
        local s = attention.scores(inputs, inputs)
        s[2][3] = 0 / 0
        local w = attention.softmax(s)
        assert.are.equal("tensor([nan, nan, nan, nan, nan, nan])", tostring(w[2]))
        assert.are.equal("tensor([0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452])", tostring(w[1]))
    end)

    it("empty and huge inputs give results or errors, never a crash", function()
        assert.are.same({0, 0}, dims(attention.scores(torch.zeros(0, 3), torch.zeros(0, 3))))
        assert.are.same({0, 0}, dims(attention.causal_mask(0)))
        assert.matches("attention.causal_mask", error_of(attention.causal_mask, 2 ^ 40))
        assert.are.same({0, 1, 3}, dims(attention.valid_len_mask(3, torch.zeros(0))))
    end)

    -- An empty tensor may have a dim as large as an int64: nothing is computed row by row for it (these
    -- calls used to loop 2^63 times over the rows of an empty mask, and 2^40 times over empty batches).
    it("empty results with huge dims come back at once", function()
        local huge = math.maxinteger
        assert.are.same({huge, 0}, dims(attention.causal_mask(huge, 0)))
        local q = torch.ones(2 ^ 40, 0, 2 ^ 20)
        assert.are.same({2 ^ 40, 0, 0}, dims(attention.scores(q, q)))
        assert.are.same({2 ^ 40, 0, 0}, dims(q:matmul(q:transpose(2, 3))))
    end)
end)
