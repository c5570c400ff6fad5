-- 01_simple_attention.lua — Build a Large Language Model (From Scratch), ch. 3, §3.3.1–3.3.2:
-- self-attention without trainable weights, for one query and then for all of them.
--   ./attn lessons/01_simple_attention.lua           straight through
--   ./attn --step lessons/01_simple_attention.lua    one step at a time
-- Every tensor the book prints in these sections is printed here, computed by attn, and checked
-- against the book's text (the [=[ ]=] strings are the book's output, the expected side only).

lesson.title("Simple self-attention without trainable weights", {source = "Build a Large Language Model (From Scratch), ch. 3 §3.3.1–3.3.2"})

lesson.section("3.3.1  A simple self-attention mechanism without trainable weights")

lesson.say[[
Self-attention turns every input vector x^(i) into a context vector z^(i): a mix of all the
inputs, weighted by how relevant each one is to x^(i). The book's example is the sentence
"Your journey starts with one step", six tokens already embedded as 3-dimensional vectors,
one row per token. Row i is x^(i).
]]

lesson.step("the inputs x^(1) … x^(6)", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89},   -- Your     (x^(1))
        {0.55, 0.87, 0.66},   -- journey  (x^(2))
        {0.57, 0.85, 0.64},   -- starts   (x^(3))
        {0.22, 0.58, 0.33},   -- with     (x^(4))
        {0.77, 0.25, 0.10},   -- one      (x^(5))
        {0.05, 0.80, 0.55},   -- step     (x^(6))
    }
    lesson.show("inputs.shape", inputs.shape)
    lesson.check("6 tokens, 3 dimensions each (the book's numbers)", inputs.shape, {6, 3}, {tol = 0})
end)

lesson.say[[
We compute the context vector z^(2) of the second token, "journey", so x^(2) is the query.
Lua counts from 1 like the book's math: x^(2) is inputs[2]. The book's Python counts from 0
and writes inputs[1] for the same row.

First, how similar is each x^(j) to the query? The attention score ω2j is the dot product
x^(2) · x^(j). The book computes the six scores in a loop (Python's enumerate is Lua's ipairs).
]]

lesson.step("attention scores ω2j = x^(2) · x^(j), by a loop", function()
    query = inputs[2]                                -- Python: query = inputs[1]
    attn_scores_2 = torch.empty(inputs.shape[1])     -- Python: torch.empty(inputs.shape[0])
    for i, x_i in ipairs(inputs) do                  -- Python: for i, x_i in enumerate(inputs):
        attn_scores_2[i] = torch.dot(x_i, query)
    end
    lesson.show("attn_scores_2", attn_scores_2)
    lesson.check("ω2 by the loop (In [3])", attn_scores_2,
        [=[tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])]=])
end)

lesson.say[[
A dot product multiplies two vectors element by element and adds up the products. Here is ω21
= x^(2) · x^(1) by hand, next to torch.dot. (Of a 1-D tensor, x[i] is a Lua number; select
gives the 0-d tensor PyTorch's x[i] is, so the sum is made in float32, as in the book.)
]]

lesson.step("the dot product by hand", function()
    res = torch.tensor(0.0)                          -- Python: res = 0.
    for idx = 1, #query do                           -- Python: for idx, element in enumerate(inputs[0]):
        res = res + inputs[1]:select(1, idx) * query:select(1, idx)   -- Python: inputs[0][idx] * query[idx]
    end
    dot = torch.dot(inputs[1], query)                -- Python: torch.dot(inputs[0], query)
    lesson.show("res", res)
    lesson.show("dot", dot)
    lesson.check("ω21 by hand (In [4])", res, [=[tensor(0.9544)]=])
    lesson.check("ω21 by torch.dot (In [4])", dot, [=[tensor(0.9544)]=])
end)

lesson.say[[
The loop is a matrix-vector product: stacking the x^(j) as rows, all six scores are
inputs · x^(2) at once. Lua has no @ operator; attn writes a:matmul(b).
]]

lesson.say[[
inputs:matmul(query) is BLAS's matrix-vector product (gemv), in PyTorch as in attn. OpenBLAS's
AVX2 kernels add each row's three products in the loop's order, so the scores equal the loop's bit
for bit; on a CPU with AVX-512, OpenBLAS's kernels add and round in another order, and a score may
differ from the loop's in its last bit (PyTorch's too). The identity below allows one rounding:
1.2e-7, one unit in the last place for numbers between 1 and 2.
]]

lesson.step("the same scores by matmul", function()
    scores_by_matmul = inputs:matmul(query)          -- Python: inputs @ query
    lesson.show("scores_by_matmul", scores_by_matmul)
    lesson.check("ω2 by matmul (In [3]'s values)", scores_by_matmul,
        [=[tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])]=])
    lesson.agree("matmul gives the loop's scores (to the last bit, or one rounding apart)",
        scores_by_matmul, attn_scores_2, {tol = 1.2e-7})
end)

lesson.say[[
Scores become attention weights α2j by normalising them to sum to 1. The simplest way divides
each score by their sum. (The book's sum prints as 1.0000, not 1.: added up in float32 it is not
exactly 1, as its nine significant digits below show. attn adds in float32, in order, as
PyTorch does.)
]]

lesson.step("naive normalisation α2j = ω2j / Σ ω2j", function()
    attn_weights_2_tmp = attn_scores_2 / attn_scores_2:sum()
    lesson.show("Attention weights", attn_weights_2_tmp)
    lesson.show(lesson.tr("Sum"), attn_weights_2_tmp:sum())
    lesson.show("Sum to 9 significant digits", string.format("%.9g", attn_weights_2_tmp:sum():item()))
    lesson.check("weights by the sum (In [5])", attn_weights_2_tmp,
        [=[tensor([0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656])]=])
    lesson.check("their sum (In [5])", attn_weights_2_tmp:sum(), [=[tensor(1.0000)]=])
end)

lesson.say[[
In practice the weights come from softmax: α2j = exp(ω2j) / Σ exp(ω2k). Every weight is
positive, and large scores stand out more. A direct transcription of the formula:
]]

lesson.step("softmax_naive", function()
    function softmax_naive(x)                                -- Python: def softmax_naive(x):
        return torch.exp(x) / torch.exp(x):sum(1)            -- Python: .sum(dim=0)
    end
    attn_weights_2_naive = softmax_naive(attn_scores_2)
    lesson.show("Attention weights", attn_weights_2_naive)
    lesson.show(lesson.tr("Sum"), attn_weights_2_naive:sum())
    lesson.check("softmax_naive weights (In [6])", attn_weights_2_naive,
        [=[tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])]=])
    lesson.check("their sum (In [6])", attn_weights_2_naive:sum(), [=[tensor(1.)]=])
end)

lesson.say[[
PyTorch's own softmax gives the same weights here. Dimensions are 1-based in attn, so the
book's dim=0 is dim 1 (dim -1, the last, is the same in both).
]]

lesson.step("torch.softmax", function()
    attn_weights_2 = torch.softmax(attn_scores_2, 1)         -- Python: dim=0
    lesson.show("Attention weights", attn_weights_2)
    lesson.show(lesson.tr("Sum"), attn_weights_2:sum())
    lesson.check("torch.softmax weights (In [7])", attn_weights_2,
        [=[tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])]=])
    lesson.check("their sum (In [7])", attn_weights_2:sum(), [=[tensor(1.)]=])
end)

lesson.say[[
Why not keep softmax_naive? The book warns that it overflows and underflows. float32 has a
largest number, and exp of a score not far above 88 is already beyond it (both are printed
below): for scores around 1000, every exp(ω) is inf and inf / inf is nan. For scores around
-1000 every exp(ω) is 0 and 0 / 0 is nan. A stable softmax subtracts the largest score first,
which changes nothing mathematically (the factor exp(-max) cancels) but keeps every exp between
0 and 1. The weights of (1000, 999, 998) are then those of (0, -1, -2): 1, e^-1 and e^-2,
divided by their sum. The book prints no numbers here; each result below is compared with the
same formula computed apart, in Lua's double precision (math.exp).
]]

lesson.step("why the naive softmax fails: scores of 1000", function()
    largest_float32 = string.unpack("<f", string.pack("<I4", 0x7f7fffff))   -- bits of the largest float32
    big = torch.tensor{1000.0, 999.0, 998.0}     -- floats: softmax wants a float tensor, as in PyTorch
    exp_big = torch.exp(big)
    naive_big = softmax_naive(big)
    naive_small = softmax_naive(-big)
    stable = torch.softmax(big, 1)
    lesson.show("largest float32", string.format("%.4e", largest_float32))
    lesson.show("torch.exp(torch.tensor{88, 89})", torch.exp(torch.tensor{88, 89}))
    lesson.show("torch.exp(big)", exp_big)
    lesson.show("softmax_naive(big)", naive_big)
    lesson.show("softmax_naive(-big)", naive_small)
    lesson.show("torch.softmax(big, 1)", stable)
    -- the same formulas in double precision, apart from attn's tensors
    local e = {math.exp(1000), math.exp(999), math.exp(998)}       -- inf in double precision too
    local z = {math.exp(-1000), math.exp(-999), math.exp(-998)}    -- 0
    local s = {1, math.exp(-1), math.exp(-2)}                      -- the stable form's exps
    local total = s[1] + s[2] + s[3]
    lesson.agree("exp(1000) overflows to inf, as in double precision", exp_big, e)
    lesson.agree("so softmax_naive gives nan: inf / inf", naive_big,
        {e[1] / (e[1] + e[2] + e[3]), e[2] / (e[1] + e[2] + e[3]), e[3] / (e[1] + e[2] + e[3])})
    lesson.agree("exp(-1000) underflows to 0: nan again, 0 / 0", naive_small,
        {z[1] / (z[1] + z[2] + z[3]), z[2] / (z[1] + z[2] + z[3]), z[3] / (z[1] + z[2] + z[3])})
    lesson.agree("torch.softmax is fine: 1, e^-1, e^-2 over their sum", stable,
        {s[1] / total, s[2] / total, s[3] / total}, {tol = 1e-7})
end)

lesson.say[[
The last step of §3.3.1: the context vector z^(2) is the sum of all inputs x^(i), each
weighted by its attention weight α2i.
]]

lesson.step("context vector z^(2) = Σ α2i x^(i)", function()
    context_vec_2 = torch.zeros(query.shape)
    for i, x_i in ipairs(inputs) do                  -- Python: for i, x_i in enumerate(inputs):
        context_vec_2 = context_vec_2 + attn_weights_2[i] * x_i   -- Python: +=
    end
    lesson.show("context_vec_2", context_vec_2)
    lesson.check("z^(2) (In [8])", context_vec_2, [=[tensor([0.4419, 0.6515, 0.5683])]=])
end)

lesson.section("3.3.2  Computing attention weights for all input tokens")

lesson.say[[
Now every token is a query in turn. Step 1 for all of them: the scores ωij = x^(i) · x^(j)
for every pair, a 6×6 matrix. Row 2 is the ω2 computed above. First with two loops:
]]

lesson.step("all attention scores ω, by two loops", function()
    attn_scores = torch.empty(6, 6)
    for i, x_i in ipairs(inputs) do
        for j, x_j in ipairs(inputs) do
            attn_scores[{i, j}] = torch.dot(x_i, x_j)       -- Python: attn_scores[i, j] = ...
        end
    end
    lesson.show("attn_scores", attn_scores)
    lesson.check("ω by loops (In [9])", attn_scores, [=[tensor([[0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310],
        [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],
        [0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605],
        [0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565],
        [0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935],
        [0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450]])]=])
end)

lesson.say[[
Loops are slow; the same matrix is one product of the inputs with their transpose: ω = X·Xᵀ.
]]

lesson.step("all attention scores ω = X·Xᵀ, by matmul", function()
    attn_scores = inputs:matmul(inputs.T)            -- Python: inputs @ inputs.T
    lesson.show("attn_scores", attn_scores)
    lesson.check("ω by matmul (In [10])", attn_scores, [=[tensor([[0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310],
        [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],
        [0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605],
        [0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565],
        [0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935],
        [0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450]])]=])
end)

lesson.say[[
Step 2: softmax along each row (dim -1, the last), so that each query's weights αij sum to 1.
Row 2 is α2 from before.
]]

lesson.step("all attention weights α = softmax(ω) by rows", function()
    attn_weights = torch.softmax(attn_scores, -1)    -- Python: dim=-1
    lesson.show("attn_weights", attn_weights)
    lesson.check("α (In [11])", attn_weights, [=[tensor([[0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452],
        [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581],
        [0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565],
        [0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720],
        [0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295],
        [0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896]])]=])
end)

lesson.say[[
A quick check that every row sums to 1. The book adds up row 2 as printed (4 decimals) in
plain Python floats, then sums every row of the tensor.
]]

lesson.step("row sums", function()
    row_2_sum = 0
    for _, w in ipairs(attn_weights[2]:tolist()) do  -- Python: sum([...row 2 as printed...])
        -- each weight with the 4 decimals the book printed
        row_2_sum = row_2_sum + tonumber(string.format("%.4f", w))
    end
    row_sums = attn_weights:sum(-1)                  -- Python: attn_weights.sum(dim=-1)
    lesson.show("Row 2 sum", row_2_sum)
    lesson.show("All row sums", row_sums)
    lesson.check("row 2, as printed, sums to 1.0 (In [57])", row_2_sum, 1.0)
    lesson.check("all row sums (In [57])", row_sums,
        [=[tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000])]=])
end)

lesson.say[[
Step 3: all context vectors at once. Row i of α·X is Σj αij x^(j), which is z^(i).
]]

lesson.step("all context vectors Z = α·X", function()
    all_context_vecs = attn_weights:matmul(inputs)   -- Python: attn_weights @ inputs
    lesson.show("all_context_vecs", all_context_vecs)
    lesson.check("Z (In [13])", all_context_vecs, [=[tensor([[0.4421, 0.5931, 0.5790],
        [0.4419, 0.6515, 0.5683],
        [0.4431, 0.6496, 0.5671],
        [0.4304, 0.6298, 0.5510],
        [0.4671, 0.5910, 0.5266],
        [0.4177, 0.6503, 0.5645]])]=])
end)

lesson.say[[
Row 2 of Z is the z^(2) computed one weight at a time in §3.3.1.
]]

lesson.step("row 2 of Z is z^(2)", function()
    z_2 = all_context_vecs[2]                        -- Python: all_context_vecs[1]
    lesson.show("Previous 2nd context vector", context_vec_2)
    lesson.show("all_context_vecs[2]", z_2)
    lesson.check("z^(2) again (In [14])", context_vec_2, [=[tensor([0.4419, 0.6515, 0.5683])]=])
    lesson.check("row 2 of Z prints as z^(2) (In [14]'s values)", z_2,
        [=[tensor([0.4419, 0.6515, 0.5683])]=])
    lesson.agree("row 2 of Z is the z^(2) of the loop", z_2, context_vec_2, {tol = 1e-7})
end)
