-- Build a Large Language Model (From Scratch), ch. 3: every printed output that depends on random numbers —
-- torch.manual_seed(123) / (789), torch.rand, nn.Linear's initialisation and nn.Dropout. The book's
-- classes are written in Lua exactly as the book writes them in Python (tests/lua/book_classes.lua);
-- each expected text is the book's, with grad_fn=... dropped (attn has no autograd).
local nn, torch = nn, torch

local inputs, d_in, d_out

local function fresh_inputs()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^1)
        {0.55, 0.87, 0.66}, -- journey  (x^2)
        {0.57, 0.85, 0.64}, -- starts   (x^3)
        {0.22, 0.58, 0.33}, -- with     (x^4)
        {0.77, 0.25, 0.10}, -- one      (x^5)
        {0.05, 0.80, 0.55}} -- step     (x^6)
    d_in = inputs.shape[2] -- Python: inputs.shape[1]
    d_out = 2
end

-- In [27], [30], [46], [48], [50]: the book's classes (tests/lua/book_classes.lua)
local book = dofile("tests/lua/book_classes.lua")
local SelfAttention_v1, SelfAttention_v2 = book.SelfAttention_v1, book.SelfAttention_v2
local CausalAttention, MultiHeadAttentionWrapper = book.CausalAttention, book.MultiHeadAttentionWrapper
local MultiHeadAttention = book.MultiHeadAttention

before_each(function()
    fresh_inputs()
    torch.set_bernoulli_flavor("mkl")
end)

describe("ch. 3 §3.4.1 (trainable weights, step by step, seed 123)", function()
    local x_2, W_query, W_key, W_value, query_2, keys, values
    before_each(function()
        x_2 = inputs[2] -- second input element (Python: inputs[1])
        torch.manual_seed(123)
        W_query = torch.nn.Parameter(torch.rand(d_in, d_out), {requires_grad = false})
        W_key   = torch.nn.Parameter(torch.rand(d_in, d_out), {requires_grad = false})
        W_value = torch.nn.Parameter(torch.rand(d_in, d_out), {requires_grad = false})
        query_2 = x_2:matmul(W_query)
        keys = inputs:matmul(W_key)
        values = inputs:matmul(W_value)
    end)

    it("In [18]: query_2", function()
        assert.are.equal("tensor([0.4306, 1.4551])", tostring(query_2))
    end)
    it("In [19]: keys and values shapes", function()
        assert.are.equal("keys.shape: torch.Size([6, 2])", "keys.shape: " .. tostring(keys.shape))
        assert.are.equal("values.shape: torch.Size([6, 2])", "values.shape: " .. tostring(values.shape))
    end)
    it("In [20]: the score omega_22", function()
        assert.are.equal("tensor(1.8524)", tostring(query_2:dot(keys[2])))
    end)
    it("In [21]: all scores for query 2", function()
        assert.are.equal("tensor([1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440])", tostring(query_2:matmul(keys.T)))
    end)
    it("In [25] and In [26]: scaled softmax weights and the context vector z^(2)", function()
        local d_k = keys.shape[2]
        local attn_weights_2 = torch.softmax(query_2:matmul(keys.T) / d_k ^ 0.5, -1)
        assert.are.equal("tensor([0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])", tostring(attn_weights_2))
        assert.are.equal("tensor([0.3061, 0.8210])", tostring(attn_weights_2:matmul(values)))
    end)
end)

describe("ch. 3 §3.4.2 (compact self-attention classes)", function()
    it("In [28]: SelfAttention_v1 with seed 123", function()
        torch.manual_seed(123)
        local sa_v1 = SelfAttention_v1(d_in, d_out)
        assert.are.equal([=[
tensor([[0.2996, 0.8053],
        [0.3061, 0.8210],
        [0.3058, 0.8203],
        [0.2948, 0.7939],
        [0.2927, 0.7891],
        [0.2990, 0.8040]], grad_fn=<MmBackward0>)]=], tostring(sa_v1(inputs)))
    end)
    it("In [33]: SelfAttention_v2 with seed 789", function()
        torch.manual_seed(789)
        local sa_v2 = SelfAttention_v2(d_in, d_out)
        assert.are.equal([=[
tensor([[-0.0739,  0.0713],
        [-0.0748,  0.0703],
        [-0.0749,  0.0702],
        [-0.0760,  0.0685],
        [-0.0763,  0.0679],
        [-0.0754,  0.0693]], grad_fn=<MmBackward0>)]=], tostring(sa_v2(inputs)))
    end)
end)

describe("ch. 3 §3.5 (causal attention and dropout)", function()
    local sa_v2, attn_scores, keys
    before_each(function()
        torch.manual_seed(789)
        sa_v2 = SelfAttention_v2(d_in, d_out)
        local queries = sa_v2.W_query(inputs)
        keys = sa_v2.W_key(inputs)
        attn_scores = queries:matmul(keys.T)
    end)

    it("In [34]: the unmasked weights from sa_v2's queries and keys", function()
        assert.are.equal([=[
tensor([[0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510],
        [0.2041, 0.1659, 0.1662, 0.1496, 0.1665, 0.1477],
        [0.2036, 0.1659, 0.1662, 0.1498, 0.1664, 0.1480],
        [0.1869, 0.1667, 0.1668, 0.1571, 0.1661, 0.1564],
        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.1585],
        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],
       grad_fn=<SoftmaxBackward0>)]=],
            tostring(torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1)))
    end)

    it("In [36] and In [37]: masking the weights with tril and renormalising", function()
        local attn_weights = torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1)
        local context_length = attn_scores.shape[1]
        local mask_simple = torch.tril(torch.ones(context_length, context_length))
        local masked_simple = attn_weights * mask_simple
        assert.are.equal([=[
tensor([[0.1921, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.2041, 0.1659, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.2036, 0.1659, 0.1662, 0.0000, 0.0000, 0.0000],
        [0.1869, 0.1667, 0.1668, 0.1571, 0.0000, 0.0000],
        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.0000],
        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],
       grad_fn=<MulBackward0>)]=], tostring(masked_simple))
        local row_sums = masked_simple:sum{dim = -1, keepdim = true}
        assert.are.equal([=[
tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],
        [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],
        [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],
        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],
       grad_fn=<DivBackward0>)]=], tostring(masked_simple / row_sums))
    end)

    local MASKED_WEIGHTS = [=[
tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],
        [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],
        [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],
        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],
       grad_fn=<DivBackward0>)]=]

    it("In [38] and In [39]: the -inf mask before softmax", function()
        local context_length = attn_scores.shape[1]
        local mask = torch.triu(torch.ones(context_length, context_length), {diagonal = 1})
        local masked = attn_scores:masked_fill(mask:bool(), -torch.inf)
        assert.are.equal([=[
tensor([[0.2899,   -inf,   -inf,   -inf,   -inf,   -inf],
        [0.4656, 0.1723,   -inf,   -inf,   -inf,   -inf],
        [0.4594, 0.1703, 0.1731,   -inf,   -inf,   -inf],
        [0.2642, 0.1024, 0.1036, 0.0186,   -inf,   -inf],
        [0.2183, 0.0874, 0.0882, 0.0177, 0.0786,   -inf],
        [0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078]],
       grad_fn=<MaskedFillBackward0>)]=], tostring(masked))
        -- the same numbers as In [37]'s renormalised weights, made by a softmax (In [39])
        assert.are.equal((MASKED_WEIGHTS:gsub("DivBackward0", "SoftmaxBackward0")),
                         tostring(torch.softmax(masked / keys.shape[-1] ^ 0.5, 2)))
    end)

    it("In [40]: the book multiplies by the seed-123 values of §3.4 (worked-examples quirk 1)", function()
        local context_length = attn_scores.shape[1]
        local mask = torch.triu(torch.ones(context_length, context_length), {diagonal = 1})
        local attn_weights = torch.softmax(attn_scores:masked_fill(mask:bool(), -torch.inf) / keys.shape[-1] ^ 0.5, 2)
        torch.manual_seed(123)
        torch.rand(d_in, d_out) -- W_query
        torch.rand(d_in, d_out) -- W_key
        local W_value = torch.rand(d_in, d_out)
        local values = inputs:matmul(W_value)
        assert.are.equal([=[
tensor([[0.1855, 0.8812],
        [0.2795, 0.9361],
        [0.3133, 0.9508],
        [0.2994, 0.8595],
        [0.2702, 0.7554],
        [0.2772, 0.7618]], grad_fn=<MmBackward0>)]=], tostring(attn_weights:matmul(values)))
    end)

    it("In [43] and In [42]: dropout of ones and of the weights, \"mkl\" flavour (ch. 3)", function()
        torch.manual_seed(123)
        local dropout = torch.nn.Dropout(0.5) -- dropout rate of 50%
        local example = torch.ones(6, 6) -- create a matrix of ones
        assert.are.equal([=[
tensor([[2., 2., 2., 2., 2., 2.],
        [0., 2., 0., 0., 0., 0.],
        [0., 0., 2., 0., 2., 0.],
        [2., 2., 0., 0., 0., 2.],
        [2., 0., 0., 0., 0., 2.],
        [0., 2., 0., 0., 0., 0.]])]=], tostring(dropout(example)))
        local context_length = attn_scores.shape[1]
        local mask = torch.triu(torch.ones(context_length, context_length), {diagonal = 1})
        local attn_weights = torch.softmax(attn_scores:masked_fill(mask:bool(), -torch.inf) / keys.shape[-1] ^ 0.5, 2)
        torch.manual_seed(123)
        assert.are.equal([=[
tensor([[2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.0000, 0.8966, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.0000, 0.0000, 0.6206, 0.0000, 0.0000, 0.0000],
        [0.5517, 0.4921, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.4350, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.0000, 0.3327, 0.0000, 0.0000, 0.0000, 0.0000]],
       grad_fn=<MulBackward0>)]=], tostring(dropout(attn_weights)))
    end)

    it("In [43], \"default\" flavour: the English edition's mask", function()
        assert.are.equal("mkl", torch.set_bernoulli_flavor("default"))
        torch.manual_seed(123)
        local mask = torch.nn.Dropout(0.5)(torch.ones(6, 6)) / 2
        local rows = {}
        for i = 1, 6 do
            local r = {}
            for j = 1, 6 do r[j] = string.format("%d", 2 * mask[i][j]) end
            rows[i] = table.concat(r)
        end
        assert.are.same({"220220", "000202", "222202", "022002", "020202", "022220"}, rows)
        assert.are.equal("default", torch.set_bernoulli_flavor("mkl"))
    end)
end)

describe("ch. 3 §3.5.3–3.6 (batched causal and multi-head attention, seed 123)", function()
    local batch
    before_each(function() batch = torch.stack({inputs, inputs}, 1) end)

    local TWO_BY_SIX_BY_TWO = [=[
tensor([[[-0.4519,  0.2216],
         [-0.5874,  0.0058],
         [-0.6300, -0.0632],
         [-0.5675, -0.0843],
         [-0.5526, -0.0981],
         [-0.5299, -0.1081]],

        [[-0.4519,  0.2216],
         [-0.5874,  0.0058],
         [-0.6300, -0.0632],
         [-0.5675, -0.0843],
         [-0.5526, -0.0981],
         [-0.5299, -0.1081]]], grad_fn=<UnsafeViewBackward0>)]=]

    it("In [58]: CausalAttention", function()
        torch.manual_seed(123)
        local context_length = batch.shape[2]
        local ca = CausalAttention(d_in, d_out, context_length, 0.0)
        local context_vecs = ca(batch)
        assert.are.equal(TWO_BY_SIX_BY_TWO, tostring(context_vecs))
        assert.are.equal("context_vecs.shape: torch.Size([2, 6, 2])", "context_vecs.shape: " .. tostring(context_vecs.shape))
    end)

    it("In [49]: MultiHeadAttentionWrapper with two heads", function()
        torch.manual_seed(123)
        local mha = MultiHeadAttentionWrapper(d_in, d_out, batch.shape[2], 0.0, 2)
        local context_vecs = mha(batch)
        assert.are.equal([=[
tensor([[[-0.4519,  0.2216,  0.4772,  0.1063],
         [-0.5874,  0.0058,  0.5891,  0.3257],
         [-0.6300, -0.0632,  0.6202,  0.3860],
         [-0.5675, -0.0843,  0.5478,  0.3589],
         [-0.5526, -0.0981,  0.5321,  0.3428],
         [-0.5299, -0.1081,  0.5077,  0.3493]],

        [[-0.4519,  0.2216,  0.4772,  0.1063],
         [-0.5874,  0.0058,  0.5891,  0.3257],
         [-0.6300, -0.0632,  0.6202,  0.3860],
         [-0.5675, -0.0843,  0.5478,  0.3589],
         [-0.5526, -0.0981,  0.5321,  0.3428],
         [-0.5299, -0.1081,  0.5077,  0.3493]]], grad_fn=<CatBackward0>)]=], tostring(context_vecs))
        assert.are.equal("torch.Size([2, 6, 4])", tostring(context_vecs.shape))
    end)

    it("In [54]: MultiHeadAttention with weight splits", function()
        torch.manual_seed(123)
        local batch_size, context_length = batch.shape[1], batch.shape[2]
        local mha = MultiHeadAttention(d_in, 2, context_length, 0.0, 2)
        local context_vecs = mha(batch)
        assert.are.equal([=[
tensor([[[0.3190, 0.4858],
         [0.2943, 0.3897],
         [0.2856, 0.3593],
         [0.2693, 0.3873],
         [0.2639, 0.3928],
         [0.2575, 0.4028]],

        [[0.3190, 0.4858],
         [0.2943, 0.3897],
         [0.2856, 0.3593],
         [0.2693, 0.3873],
         [0.2639, 0.3928],
         [0.2575, 0.4028]]], grad_fn=<ViewBackward0>)]=], tostring(context_vecs))
        assert.are.equal("torch.Size([2, 6, 2])", tostring(context_vecs.shape))
    end)

    it("Exercise 3.3: a GPT-2-sized MultiHeadAttention has 2,360,064 parameters", function()
        local mha = MultiHeadAttention(768, 768, 1024, 0.0, 12)
        assert.are.equal(2360064, mha:num_parameters())
    end)
end)
