-- Build a Large Language Model (From Scratch), ch. 3 §3.5.1: the causal attention mask — the weights of
-- SelfAttention_v2 (seed 789), a tril mask, renormalisation, why no information leaks, the -inf trick,
-- the ✓/✗ table of the notes on chapter 3, and the book's context vectors of In [40] with the book's own
-- quirk (they use the seed-123 values of §3.4). Every number the book prints is checked against the
-- book's text.
--   ./attn lessons/03_causal_attention.lua           straight through
--   ./attn --step lessons/03_causal_attention.lua    one step at a time

lesson.title("Causal attention: hiding future words",
             {source = "Build a Large Language Model (From Scratch), ch. 3 §3.5.1 (In [34]–[40]); notes on chapter 3, §3.4.1"})

lesson.section("3.5  Hiding future words with causal attention")

lesson.say[[
A language model writes text one token at a time, so when it computes the context vector z^(i)
of token i it must not look at the tokens after i — those are the words it is supposed to
predict. Causal (masked) attention keeps, in row i of the attention weights, only α_ij for
j ≤ i. We start where §3.4 ended: the six inputs x^(1) … x^(6) and the SelfAttention_v2 module
made with the seed 789 (the class exactly as in lesson 02).]]

lesson.step("where §3.4 ended: inputs and sa_v2 (seed 789)", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^(1))
        {0.55, 0.87, 0.66}, -- journey  (x^(2))
        {0.57, 0.85, 0.64}, -- starts   (x^(3))
        {0.22, 0.58, 0.33}, -- with     (x^(4))
        {0.77, 0.25, 0.10}, -- one      (x^(5))
        {0.05, 0.80, 0.55}} -- step     (x^(6))
    tokens = {"Your", "journey", "starts", "with", "one", "step"}
    d_in, d_out = inputs.shape[2], 2 -- Python: d_in = inputs.shape[1]

    SelfAttention_v2 = nn.Module:extend("SelfAttention_v2")
    function SelfAttention_v2:__init(d_in, d_out, qkv_bias)
        self.W_query = nn.Linear(d_in, d_out, {bias = qkv_bias or false}) -- Python: nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
        self.W_value = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
    end
    function SelfAttention_v2:forward(x)
        local keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        local attn_weights = torch.softmax(queries:matmul(keys.T) / keys.shape[-1] ^ 0.5, -1)
        return attn_weights:matmul(values)
    end

    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(d_in, d_out)
    lesson.show("sa_v2", sa_v2)
end)

lesson.section("3.5.1  Applying a causal attention mask")

lesson.say[[
Step 1: the ordinary attention weights, as inside SelfAttention_v2: queries Q = X W_q and keys
K = X W_k from sa_v2's own layers, scores ω = Q Kᵀ, weights α = softmax(ω / √d_k) row by row.
Every row still spreads its weight over all six tokens, future ones included.]]

lesson.step("the unmasked weights α (In [34])", function()
    queries = sa_v2.W_query(inputs)
    keys = sa_v2.W_key(inputs)
    attn_scores = queries:matmul(keys.T)                                    -- Python: queries @ keys.T
    attn_weights = torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1) -- Python: torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
    lesson.show("attn_weights", attn_weights)
    lesson.check("α (In [34])", attn_weights, [=[
tensor([[0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510],
        [0.2041, 0.1659, 0.1662, 0.1496, 0.1665, 0.1477],
        [0.2036, 0.1659, 0.1662, 0.1498, 0.1664, 0.1480],
        [0.1869, 0.1667, 0.1668, 0.1571, 0.1661, 0.1564],
        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.1585],
        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],
       grad_fn=<SoftmaxBackward0>)]=])
end)

lesson.say[[
These weights come from sa_v2's layers, whose weights are trainable (they require grad), so
PyTorch records how each result was made and prints it: grad_fn=<SoftmaxBackward0>. The book's
In [57] ("All row sums"), which its notebook ran at this point, shows the same on the row sums.]]

lesson.step("the row sums of α, as the book's In [57] printed them", function()
    lesson.show("All row sums", attn_weights:sum{dim = -1})  -- Python: attn_weights.sum(dim=-1)
    lesson.check("all row sums (In [57], with grad_fn)", attn_weights:sum{dim = -1}, [=[
tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000],
       grad_fn=<SumBackward1>)]=])
end)

lesson.say[[
Step 2: a mask that says which weights a row may keep. torch.tril keeps the lower triangle of a
matrix of ones: 1 on and below the diagonal (j ≤ i: the token itself and the ones before it), 0
above it (j > i: the future).]]

lesson.step("the mask: tril of ones (In [35])", function()
    context_length = attn_scores.shape[1] -- Python: context_length = attn_scores.shape[0]
    mask_simple = torch.tril(torch.ones(context_length, context_length))
    lesson.show("mask_simple", mask_simple)
    lesson.check("tril mask (In [35])", mask_simple, [=[
tensor([[1., 0., 0., 0., 0., 0.],
        [1., 1., 0., 0., 0., 0.],
        [1., 1., 1., 0., 0., 0.],
        [1., 1., 1., 1., 0., 0.],
        [1., 1., 1., 1., 1., 0.],
        [1., 1., 1., 1., 1., 1.]])]=])
end)

lesson.say[[
Read as a table, the mask is the picture in the notes on chapter 3: "Your" sees only itself;
"journey" sees "Your" and itself; "starts" sees both earlier words and itself; every later
column is a spoiler (✗). The table below is printed from mask_simple, row i = the token asking,
column j = the token looked at.]]

lesson.step("the notes' ✓/✗ table, read off the mask", function()
    local function cell(s, width) return s .. string.rep(" ", width - utf8.len(s)) end
    local lines = {cell("", 10)}
    for j = 1, context_length do lines[1] = lines[1] .. cell(tokens[j], 9) end
    for i = 1, context_length do
        local row = cell(tokens[i], 10)
        for j = 1, context_length do
            row = row .. cell(mask_simple[i][j] == 1 and "✓" or "✗", 9)
        end
        lines[#lines + 1] = row
    end
    lesson.show("who sees whom (row: the token asking, column: the token looked at)", table.concat(lines, "\n"))

    local seen = {} -- the 3×3 corner for "Your journey starts", as the notes draw it
    for i = 1, 3 do
        local row = {}
        for j = 1, 3 do row[j] = mask_simple[i][j] == 1 and "✓" or "✗" end
        seen[i] = tokens[i] .. " " .. table.concat(row)
    end
    lesson.check("the notes' table for \"Your journey starts\"", table.concat(seen, " / "),
        "Your ✓✗✗ / journey ✓✓✗ / starts ✓✓✓")
end)

lesson.say[[
Multiplying the weights by the mask, element by element, zeroes every weight above the diagonal.]]

lesson.step("masked weights α ⊙ mask (In [36])", function()
    masked_simple = attn_weights * mask_simple -- Python: masked_simple = attn_weights*mask_simple
    lesson.show("masked_simple", masked_simple)
    lesson.check("masked weights (In [36])", masked_simple, [=[
tensor([[0.1921, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.2041, 0.1659, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.2036, 0.1659, 0.1662, 0.0000, 0.0000, 0.0000],
        [0.1869, 0.1667, 0.1668, 0.1571, 0.0000, 0.0000],
        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.0000],
        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],
       grad_fn=<MulBackward0>)]=])
end)

lesson.say[[
Step 3: the rows no longer sum to 1 (row_sums below: only the last row kept all its weight).
Dividing each row by its own sum makes them weights again.]]

lesson.step("renormalised: each row divided by its sum (In [37])", function()
    row_sums = masked_simple:sum{dim = -1, keepdim = true} -- Python: masked_simple.sum(dim=-1, keepdim=True)
    masked_simple_norm = masked_simple / row_sums
    lesson.show("row_sums", row_sums)
    lesson.show("masked_simple_norm", masked_simple_norm)
    lesson.check("renormalised weights (In [37])", masked_simple_norm, [=[
tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],
        [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],
        [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],
        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],
       grad_fn=<DivBackward0>)]=])
end)

lesson.say[[
Information leakage? The softmax of step 1 had the future scores in its denominator, so one
might fear that they still shape the weights. They do not: row i of α is e^(ω_ij/√d_k) / S with
S the sum over all j, and dividing the kept entries by their own sum cancels S. What remains is
exactly a softmax over the scores ω_i1 … ω_ii alone. Two computations show it: (a) a softmax of
only the first i scores of each row gives the renormalised row; (b) adding random amounts of up
to 5 to every future score (more than any real score, so the first softmax changes a lot) and
redoing steps 1–3 changes nothing but the last bit of rounding. (float32 keeps about 7 digits,
so "equal" below means within 1e-7, a few units of the last bit.)]]

lesson.step("no leak: the renormalised weights ignore the future scores", function()
    local d_k = keys.shape[-1]
    past_alone = torch.zeros(context_length, context_length)      -- (a)
    for i = 1, context_length do
        local past = attn_scores[i][{{1, i}}]                    -- Python: attn_scores[i-1, :i]
        past_alone[i][{{1, i}}] = torch.softmax(past / d_k ^ 0.5, -1):detach() -- the numbers only (t[i] = v is not recorded)
    end
    lesson.show("(a) row i: softmax of the first i scores alone", past_alone)
    lesson.agree("(a) renormalising = softmax over the past only", past_alone, masked_simple_norm, {tol = 1e-7})

    torch.manual_seed(1)                                         -- (b)
    local future = torch.triu(torch.ones(context_length, context_length), {diagonal = 1})
    local tampered = attn_scores + future * torch.rand(context_length, context_length) * 5
    lesson.show("(b) scores with the future scores changed", tampered)
    local before = torch.softmax(tampered / d_k ^ 0.5, -1)
    lesson.show("(b) their softmax, before masking", before)
    local w = before * mask_simple
    local tampered_norm = w / w:sum{dim = -1, keepdim = true}
    lesson.show("(b) renormalised weights", tampered_norm)
    lesson.agree("(b) future scores do not change the weights", tampered_norm, masked_simple_norm, {tol = 1e-7})
end)

lesson.say[[
A cheaper way to the same weights, shown in the book's Figure 3-21: hide the future before the
softmax. torch.triu(…, diagonal = 1) marks the entries above the diagonal, and masked_fill puts
−∞ there. Since e^(−∞) = 0, the softmax gives those positions weight exactly 0 and its
denominator only sums over j ≤ i — no second normalisation needed.]]

lesson.step("the -inf trick: scores with the future set to −∞ (In [38])", function()
    mask = torch.triu(torch.ones(context_length, context_length), {diagonal = 1}) -- Python: torch.triu(torch.ones(context_length, context_length), diagonal=1)
    masked = attn_scores:masked_fill(mask:bool(), -torch.inf)
    lesson.show("mask", mask)
    lesson.show("masked", masked)
    lesson.check("scores masked with -inf (In [38])", masked, [=[
tensor([[0.2899,   -inf,   -inf,   -inf,   -inf,   -inf],
        [0.4656, 0.1723,   -inf,   -inf,   -inf,   -inf],
        [0.4594, 0.1703, 0.1731,   -inf,   -inf,   -inf],
        [0.2642, 0.1024, 0.1036, 0.0186,   -inf,   -inf],
        [0.2183, 0.0874, 0.0882, 0.0177, 0.0786,   -inf],
        [0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078]],
       grad_fn=<MaskedFillBackward0>)]=])
    lesson.show("e^(−∞), e^0", torch.exp(torch.tensor{-torch.inf, 0}))
    lesson.agree("e^(−∞) is exactly 0, as Lua's math.exp(-math.huge)", torch.exp(torch.tensor{-torch.inf}),
        {math.exp(-math.huge)})
end)

lesson.step("softmax of the masked scores (In [39])", function()
    attn_weights = torch.softmax(masked / keys.shape[-1] ^ 0.5, 2) -- Python: torch.softmax(masked / keys.shape[-1]**0.5, dim=1)
    lesson.show("attn_weights", attn_weights)
    lesson.check("causal weights (In [39])", attn_weights, [=[
tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],
        [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],
        [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],
        [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],
        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],
       grad_fn=<SoftmaxBackward0>)]=])
    lesson.agree("-inf before softmax = mask after softmax and renormalise", attn_weights, masked_simple_norm,
        {tol = 1e-7})
end)

lesson.say[[
The context vectors are z^(i) = Σ_j α_ij v^(j) as before. A quirk of the book: In [40]
multiplies by `values`, and the last `values` its notebook defined is the one of §3.4.1
(In [19]): inputs · W_value with the seed-123 torch.rand matrices — not sa_v2's value layer.
That is where the book's numbers come from; sa_v2's values cannot give them. To reproduce the
book we rebuild those seed-123 values exactly as In [17] and In [19] did (W_query and W_key are
drawn first, so the stream reaches W_value in the same place).]]

lesson.step("the book's context vectors, with the seed-123 values of §3.4.1 (In [40])", function()
    torch.manual_seed(123)                                                   -- as In [17]
    W_query = nn.Parameter(torch.rand(d_in, d_out), {requires_grad = false}) -- Python: torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    W_key   = nn.Parameter(torch.rand(d_in, d_out), {requires_grad = false})
    W_value = nn.Parameter(torch.rand(d_in, d_out), {requires_grad = false})
    values = inputs:matmul(W_value)                                          -- In [19]  -- Python: values = inputs @ W_value
    context_vec = attn_weights:matmul(values)                                -- In [40]  -- Python: context_vec = attn_weights @ values
    lesson.show("context_vec", context_vec)
    lesson.check("context vectors (In [40], with the book's quirk)", context_vec, [=[
tensor([[0.1855, 0.8812],
        [0.2795, 0.9361],
        [0.3133, 0.9508],
        [0.2994, 0.8595],
        [0.2702, 0.7554],
        [0.2772, 0.7618]], grad_fn=<MmBackward0>)]=])
    lesson.agree("z^(1) = v^(1): the first token sees only itself", context_vec[1], values[1])
end)

lesson.say[[
The consistent computation uses sa_v2's own value layer, V = X W_v with the seed-789 nn.Linear
weights, the same module that gave the queries and keys. The book never prints these context
vectors, but two rows can still be checked: z^(1) is exactly v^(1), and the last token, "step",
may look at every token, so the mask changes nothing for it and z^(6) is the last row of sa_v2's
unmasked output (In [33]).]]

lesson.step("the consistent context vectors, with sa_v2's values", function()
    values_v2 = sa_v2.W_value(inputs)
    context_vec_v2 = attn_weights:matmul(values_v2) -- Python: attn_weights @ sa_v2.W_value(inputs)
    lesson.show("context_vec_v2", context_vec_v2)
    lesson.agree("z^(1) = v^(1) with sa_v2's values", context_vec_v2[1], values_v2[1])
    lesson.check("z^(6) = the last row of sa_v2(inputs) (In [33])", context_vec_v2[6], {-0.0754, 0.0693}, {tol = 5e-5})
end)
