-- Build a Large Language Model (From Scratch), ch. 3, the computations that need no random numbers: §3.3.1–3.3.2
-- (scores by loop and by matmul, naive normalisation, softmax, context vectors, row sums),
-- torch.Size (§3.5.3) and the batched a @ a.transpose(2, 3) of §3.6.2. Each test types the book's
-- Python lines in their Lua form into the REPL evaluator and compares everything printed with the
-- text the book prints (its grad_fn=... suffixes dropped, as attn has no autograd).
local support = dofile("tests/lua/support.lua")
local session = support.session

local INPUTS = {
    "inputs = torch.tensor{",
    "  {0.43, 0.15, 0.89}, -- Your     (x^1)",
    "  {0.55, 0.87, 0.66}, -- journey  (x^2)",
    "  {0.57, 0.85, 0.64}, -- starts   (x^3)",
    "  {0.22, 0.58, 0.33}, -- with     (x^4)",
    "  {0.77, 0.25, 0.10}, -- one      (x^5)",
    "  {0.05, 0.80, 0.55}} -- step     (x^6)",
}

local function with_inputs(lines)
    local all = {}
    for _, l in ipairs(INPUTS) do all[#all + 1] = l end
    for _, l in ipairs(lines) do all[#all + 1] = l end
    return all
end

local SCORES_LOOP = {
    "query = inputs[2]  -- 2nd input token is the query (Python: inputs[1])",
    "attn_scores_2 = torch.empty(inputs.shape[1])",
    "for i, x_i in ipairs(inputs) do",
    "  attn_scores_2[i] = torch.dot(x_i, query)",
    "end",
}

local ATTN_SCORES = [=[
tensor([[0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310],
        [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],
        [0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605],
        [0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565],
        [0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935],
        [0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450]])
]=]

describe("ch. 3 §3.3.1 (a simple self-attention without trainable weights)", function()
    it("In [3]: attention scores of the query x^(2) by a loop of dot products", function()
        local lines = with_inputs(SCORES_LOOP)
        lines[#lines + 1] = "print(attn_scores_2)"
        assert.are.equal("tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])\n", session(lines))
    end)

    it("In [4]: the dot product as a sum of products, and torch.dot", function()
        local lines = with_inputs(SCORES_LOOP)
        for _, l in ipairs {
            "res = 0",
            "for idx = 1, #inputs[1] do res = res + inputs[1][idx] * query[idx] end",
            "print(torch.tensor(res))",
            "print(torch.dot(inputs[1], query))",
        } do lines[#lines + 1] = l end
        assert.are.equal("tensor(0.9544)\ntensor(0.9544)\n", session(lines))
    end)

    it("In [5]: naive normalisation; its sum prints 1.0000 (float32 gives 1.0000001)", function()
        local lines = with_inputs(SCORES_LOOP)
        lines[#lines + 1] = "attn_weights_2_tmp = attn_scores_2 / attn_scores_2:sum()"
        lines[#lines + 1] = 'print("Attention weights: " .. attn_weights_2_tmp)'
        lines[#lines + 1] = 'print("Sum: " .. attn_weights_2_tmp:sum())'
        assert.are.equal("Attention weights: tensor([0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656])\n" ..
                         "Sum: tensor(1.0000)\n", session(lines))
    end)

    it("In [6]: softmax_naive; its sum prints 1.", function()
        local lines = with_inputs(SCORES_LOOP)
        for _, l in ipairs {
            "local function softmax_naive(x)",
            "  return torch.exp(x) / torch.exp(x):sum(1)  -- Python: sum(dim=0)",
            "end",
            "attn_weights_2_naive = softmax_naive(attn_scores_2)",
            'print("Attention weights: " .. attn_weights_2_naive)',
            'print("Sum: " .. attn_weights_2_naive:sum())',
        } do lines[#lines + 1] = l end
        assert.are.equal("Attention weights: tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])\n" ..
                         "Sum: tensor(1.)\n", session(lines))
    end)

    it("In [7]: torch.softmax; its sum prints 1.", function()
        local lines = with_inputs(SCORES_LOOP)
        lines[#lines + 1] = "attn_weights_2 = torch.softmax(attn_scores_2, 1)  -- Python: dim=0"
        lines[#lines + 1] = 'print("Attention weights: " .. attn_weights_2)'
        lines[#lines + 1] = 'print("Sum: " .. attn_weights_2:sum())'
        assert.are.equal("Attention weights: tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])\n" ..
                         "Sum: tensor(1.)\n", session(lines))
    end)

    it("In [8]: the context vector z^(2) as a weighted sum", function()
        local lines = with_inputs(SCORES_LOOP)
        for _, l in ipairs {
            "attn_weights_2 = torch.softmax(attn_scores_2, 1)",
            "context_vec_2 = torch.zeros(query.shape)",
            "for i, x_i in ipairs(inputs) do",
            "  context_vec_2 = context_vec_2 + attn_weights_2[i] * x_i",
            "end",
            "print(context_vec_2)",
        } do lines[#lines + 1] = l end
        assert.are.equal("tensor([0.4419, 0.6515, 0.5683])\n", session(lines))
    end)
end)

describe("ch. 3 §3.3.2 (attention weights for all inputs)", function()
    it("In [9]: all scores by two loops", function()
        assert.are.equal(ATTN_SCORES, session(with_inputs {
            "attn_scores = torch.empty(6, 6)",
            "for i, x_i in ipairs(inputs) do",
            "  for j, x_j in ipairs(inputs) do",
            "    attn_scores[i][j] = torch.dot(x_i, x_j)",
            "  end",
            "end",
            "print(attn_scores)",
        }))
    end)

    it("In [10]: all scores by one matrix product (auto-printed at the prompt)", function()
        assert.are.equal(ATTN_SCORES, session(with_inputs {
            "attn_scores = inputs:matmul(inputs.T)  -- Python: inputs @ inputs.T",
            "attn_scores",
        }))
    end)

    local WEIGHTS = {
        "attn_scores = inputs:matmul(inputs.T)",
        "attn_weights = torch.softmax(attn_scores, -1)",
    }

    it("In [11]: softmax along the last dim", function()
        local lines = with_inputs(WEIGHTS)
        lines[#lines + 1] = "print(attn_weights)"
        assert.are.equal([=[
tensor([[0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452],
        [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581],
        [0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565],
        [0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720],
        [0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295],
        [0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896]])
]=], session(lines))
    end)

    it("In [57]: every row sums to one", function()
        local lines = with_inputs(WEIGHTS)
        lines[#lines + 1] = 'print("All row sums: " .. attn_weights:sum(-1))'
        assert.are.equal("All row sums: tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000])\n",
                         session(lines))
    end)

    it("In [13] and In [14]: all context vectors at once; row 2 is z^(2) from before", function()
        local lines = with_inputs(WEIGHTS)
        for _, l in ipairs(SCORES_LOOP) do lines[#lines + 1] = l end
        for _, l in ipairs {
            "all_context_vecs = attn_weights:matmul(inputs)",
            "print(all_context_vecs)",
            "attn_weights_2 = torch.softmax(attn_scores_2, 1)",
            "context_vec_2 = torch.zeros(query.shape)",
            "for i, x_i in ipairs(inputs) do context_vec_2 = context_vec_2 + attn_weights_2[i] * x_i end",
            'print("Previous 2nd context vector: " .. context_vec_2)',
        } do lines[#lines + 1] = l end
        assert.are.equal([=[
tensor([[0.4421, 0.5931, 0.5790],
        [0.4419, 0.6515, 0.5683],
        [0.4431, 0.6496, 0.5671],
        [0.4304, 0.6298, 0.5510],
        [0.4671, 0.5910, 0.5266],
        [0.4177, 0.6503, 0.5645]])
Previous 2nd context vector: tensor([0.4419, 0.6515, 0.5683])
]=], session(lines))
    end)
end)

describe("ch. 3's shapes and §3.6.2 (batched matrix products)", function()
    it("In [44]: a batch of two inputs has torch.Size([2, 6, 3])", function()
        assert.are.equal("torch.Size([2, 6, 3])\n", session(with_inputs {
            "batch = torch.stack({inputs, inputs}, 1)  -- Python: dim=0",
            "print(batch.shape)",
        }))
    end)

    local A = {
        "a = torch.tensor{{{{0.2745, 0.6584, 0.2775, 0.8573},",
        "                   {0.8993, 0.0390, 0.9268, 0.7388},",
        "                   {0.7179, 0.7058, 0.9156, 0.4340}},",
        "",
        "                  {{0.0772, 0.3565, 0.1479, 0.5331},",
        "                   {0.4066, 0.2318, 0.4545, 0.9737},",
        "                   {0.4606, 0.5159, 0.4220, 0.5786}}}}",
    }

    it("In [52]: a @ a.transpose(2, 3) on a (1, 2, 3, 4) tensor", function()
        local lines = {}
        for _, l in ipairs(A) do lines[#lines + 1] = l end
        lines[#lines + 1] = "print(a:matmul(a:transpose(3, 4)))  -- Python: a @ a.transpose(2, 3)"
        assert.are.equal([=[
tensor([[[[1.3208, 1.1631, 1.2879],
          [1.1631, 2.2150, 1.8424],
          [1.2879, 1.8424, 2.0402]],

         [[0.4391, 0.7003, 0.5903],
          [0.7003, 1.3737, 1.0620],
          [0.5903, 1.0620, 0.9912]]]])
]=], session(lines))
    end)

    it("In [53]: the same, one head at a time", function()
        local lines = {}
        for _, l in ipairs(A) do lines[#lines + 1] = l end
        for _, l in ipairs {
            "first_head = a[{1, 1, {}, {}}]  -- Python: a[0, 0, :, :]",
            "first_res = first_head:matmul(first_head.T)",
            'print("First head:\\n " .. first_res)',
            "second_head = a[1][2]  -- Python: a[0, 1, :, :]",
            "second_res = second_head:matmul(second_head.T)",
            'print("\\nSecond head:\\n " .. second_res)',
        } do lines[#lines + 1] = l end
        assert.are.equal([=[
First head:
 tensor([[1.3208, 1.1631, 1.2879],
        [1.1631, 2.2150, 1.8424],
        [1.2879, 1.8424, 2.0402]])

Second head:
 tensor([[0.4391, 0.7003, 0.5903],
        [0.7003, 1.3737, 1.0620],
        [0.5903, 1.0620, 0.9912]])
]=], session(lines))
    end)
end)
