-- 07_d2l_attention_layers.lua — Dive into Deep Learning §10.1, "Attention Mechanisms" (the 2020 Chinese
-- translation of d2l): masked softmax with valid lengths, batch_dot, dot-product attention and
-- multilayer-perceptron attention, and the exercise comparing the two.
--   ./attn lessons/07_d2l_attention_layers.lua           straight through
--   ./attn --step lessons/07_d2l_attention_layers.lua    one step at a time
-- The translation lost d2l's code and printed outputs; the toy's output is checked against the numbers the
-- original d2l prints, and appears here only as the expected side of checks.

lesson.title("Attention layers: masked softmax, dot-product and MLP attention",
             {source = "Dive into Deep Learning §10.1 (2020 Chinese translation); outputs as the original d2l prints them"})

lesson.section("10.1  Attention mechanisms")

lesson.say[[
An attention layer holds a memory of n key-value pairs (k_i, v_i). Given a query q it scores
every key with a score function a(q, k_i), turns the scores into weights with softmax, and
returns the weighted sum of the values, o = Σ softmax(a(q, k_i)) v_i. Different score functions
give different attention layers; d2l builds two of them from two helpers: a masked softmax and
batch_dot.

The masked softmax takes a 3-D input and a valid length for each example: only the first
valid_len entries of the last dimension take part, everything past it gets weight 0 (sequences
in a batch are padded to one length, and the padding must not be attended to). The text's
example is two 2×4 matrices with random entries, valid lengths 2 and 3. (d2l draws them without
a seed; we seed the generator so that every run, and every repeat of the step, shows the same X.)
]]

lesson.step("the input X: two examples of 2×4 random scores", function()
    torch.manual_seed(0)
    X = torch.rand(2, 2, 4)                      -- Python: torch.rand(2, 2, 4)
    valid_len = torch.tensor{2, 3}               -- Python: torch.tensor([2, 3])
    lesson.show("X", X)
end)

lesson.say[[
Which entries are past the valid length? attention.valid_len_mask(n, lens) answers with a bool
mask, true = hidden: key position j of example i is hidden when j > lens[i]. One row per example
([2, 1, 4]), so it broadcasts over both rows of that example. d2l then overwrites the hidden
scores with -1e6 (its sequence_mask(..., value=-1e6)), a number so negative that exp of it is 0
in float32.
]]

lesson.step("the hidden positions, filled with -1e6", function()
    hidden = attention.valid_len_mask(4, valid_len)
    filled = attention.mask(X, hidden, -1e6)     -- Python: sequence_mask(X, valid_len, value=-1e6)
    lesson.show("hidden", hidden)
    lesson.show("filled", filled)
end)

lesson.say[[
Softmax over the last dimension then gives the masked entries exactly 0, and each row's weights
are shared out among its valid entries only, so every row still sums to 1. Here is d2l's
masked_softmax written with attn's stages (the Python reshapes X to 2-D, repeats the lengths per
row and reshapes back; the broadcasting mask does the same in one go).
]]

lesson.step("masked_softmax(X, valid_len)", function()
    function masked_softmax(X, valid_len)            -- Python: def masked_softmax(X, valid_len):
        if valid_len == nil then return attention.softmax(X, -1) end
        local hidden = attention.valid_len_mask(X.shape[-1], valid_len)
        return attention.softmax(attention.mask(X, hidden, -1e6), -1) -- Python: value=-1e6; softmax(dim=-1)
    end
    weights = masked_softmax(X, valid_len)
    lesson.show("masked_softmax(X, valid_len)", weights)
    lesson.show("row sums", weights:sum(-1))
    -- the text: "values beyond the valid length are masked to zero"
    lesson.check("example 1: entries 3 and 4 (past length 2) are 0",
        weights[1]:narrow(2, 3, 2):abs():sum(), 0)
    lesson.check("example 2: entry 4 (past length 3) is 0", weights[2]:narrow(2, 4, 1):abs():sum(), 0)
    lesson.agree("every row still sums to 1", weights:sum(-1), torch.ones(2, 2), {tol = 1e-6})
end)

lesson.say[[
Chapter 3 of the LLM book masks with -inf instead of -1e6 (attention.mask's default). exp(-inf)
is exactly 0 too, so on this input the two give the same weights, bit for bit.
]]

lesson.step("the same with -inf", function()
    weights_inf = attention.softmax(attention.mask(X, hidden), -1)   -- fill defaults to -inf
    lesson.show("with -inf", weights_inf)
    lesson.agree("-1e6 and -inf give identical weights here", weights_inf, weights)
end)

lesson.say[[
They differ when a valid length is 0, so that a whole row is hidden. With -inf every exp is 0 and
softmax divides 0 by 0: nan (PyTorch does the same). With -1e6 the row's scores all become the
same number, so softmax spreads the weight evenly over all four entries: useless, but finite, so
one empty sequence in a batch does not turn the whole computation into nan. That is why d2l
fills with a large finite number.
]]

lesson.step("a valid length of 0: -1e6 versus -inf", function()
    empty = attention.valid_len_mask(4, {0, 3})
    w_1e6 = attention.softmax(attention.mask(X, empty, -1e6), -1)
    w_inf = attention.softmax(attention.mask(X, empty), -1)
    lesson.show("-1e6, example 1", w_1e6[1])
    lesson.show("-inf, example 1", w_inf[1])
    -- not the text's numbers: four equal scores share the weight evenly; 0 / 0 in Lua is nan too
    lesson.agree("-1e6: a row of four equal scores gives 1/4 each", w_1e6[1], torch.ones(2, 4) / 4, {tol = 1e-7})
    lesson.agree("-inf: 0 / 0 is nan", w_inf[{1, 1, 1}], 0 / 0)
end)

lesson.say[[
The second helper, batch_dot, multiplies b pairs of matrices at once: X of shape (b, n, m) and Y
of shape (b, m, k) give (b, n, k), the i-th result being X[i]·Y[i]. d2l's PyTorch code uses
torch.bmm for it. Each entry below is the dot product of a row of ones with a column of ones, so
it counts the shared size m.
]]

lesson.step("batch_dot: (b, n, m) × (b, m, k) → (b, n, k)", function()
    A, B = torch.ones(2, 1, 3), torch.ones(2, 3, 2)
    Y = torch.bmm(A, B)
    lesson.show("torch.bmm(ones(2, 1, 3), ones(2, 3, 2))", Y)
    lesson.show("shape", Y.shape)
    local b, n, m, k = A.shape[1], A.shape[2], A.shape[3], B.shape[3]
    lesson.agree("(b, n, m) × (b, m, k) → (b, n, k), the text's rule", Y.shape, {b, n, k})
    lesson.agree("every entry counts the shared size m", Y, torch.ones(b, n, k) * m)
end)

lesson.say[[
The inner sizes must agree, as in any matrix product; attn says which ones do not.
]]

lesson.step("batch_dot with mismatched inner sizes", function()
    ok, err = pcall(torch.bmm, torch.ones(2, 1, 3), torch.ones(2, 2, 2))
    lesson.show("ok", ok)
    lesson.show("err", err)
    lesson.agree("(2, 1, 3) × (2, 2, 2) is refused", ok, false)
end)

lesson.section("10.1.1  Dot product attention")

lesson.say[[
Dot-product attention assumes queries and keys have the same size d and scores a query q
against a key k by their dot product, divided by √d so that the size of d does not blow up the
scores: a(q, k) = q·k / √d. For a batch of queries Q and keys K that is bmm(Q, Kᵀ) / √d; then
the masked softmax and a second bmm with the values.

The text's toy: two examples, each with one query and ten key-value pairs. Every query and every
key is a vector of ones; the values are the numbers 0 … 39 as ten rows of four, the same in both
examples. The valid lengths differ: the first example may only look at its first 2 pairs, the
second at its first 6. (The translation says the first "22" key-value pairs of the first example:
there are only ten, and the valid length is 2.)
]]

lesson.step("the toy: queries, keys, values, valid lengths", function()
    queries = torch.ones(2, 1, 2)                                -- Python: torch.ones(2, 1, 2)
    keys = torch.ones(2, 10, 2)                                  -- Python: torch.ones(2, 10, 2)
    values = torch.arange(40, {dtype = torch.float32}):reshape(1, 10, 4):expand(2, 10, 4)
    -- Python: torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
    valid_lens = torch.tensor{2, 6}                              -- Python: torch.tensor([2, 6])
    lesson.show("values[1]", values[1])
    lesson.show("values.shape", values.shape)
    lesson.check("values is (2, 10, 4)", values.shape, "torch.Size([2, 10, 4])")
end)

lesson.say[[
Here is DotProductAttention's forward pass, one stage at a time. Since every key equals every
other key, every score is the same number: q·k / √2 with q and k all ones. Equal scores share the
weight equally among the keys that are not masked: 1/valid_len each.
]]

lesson.step("the forward pass by stages", function()
    d = queries.shape[-1]
    scores = torch.bmm(queries, keys:transpose(2, 3)) / math.sqrt(d)   -- Python: key.transpose(1,2)
    attention_weights = masked_softmax(scores, valid_lens)
    out_by_stages = torch.bmm(attention_weights, values)
    lesson.show("scores", scores)
    lesson.show("attention_weights", attention_weights)
    lesson.show("out_by_stages", out_by_stages)
end)

lesson.say[[
d2l packs these stages in a class, DotProductAttention, with a dropout layer on the weights for
regularisation. Here it is written out with the masked_softmax above and torch.bmm (the
translation lost the code; this is the class as the text describes it). Dropout acts in training
mode only; eval() switches it off, as d2l does before the toy. The two examples give different
outputs although they have the same query, keys and values: only the valid length differs.
]]

lesson.step("class DotProductAttention, on the toy", function()
    DotProductAttention = nn.Module:extend("DotProductAttention")   -- Python: class DotProductAttention(nn.Module):
    function DotProductAttention:__init(dropout)
        self.dropout = nn.Dropout(dropout)
    end
    function DotProductAttention:forward(query, key, value, valid_len)
        local d = query.shape[-1]
        local scores = torch.bmm(query, key:transpose(2, 3)) / math.sqrt(d)   -- Python: key.transpose(1, 2)
        local attention_weights = self.dropout(masked_softmax(scores, valid_len))
        return torch.bmm(attention_weights, value)
    end
    dot_class = DotProductAttention(0.5)                     -- Python: DotProductAttention(dropout=0.5)
    dot_class:eval()
    out_dot_class = dot_class(queries, keys, values, valid_lens)
    lesson.show("out_dot_class", out_dot_class)
    lesson.check("the toy's output, as the original d2l prints it", out_dot_class,
        {{{2, 3, 4, 5}}, {{10, 11, 12, 13}}}, {tol = 1e-5})
end)

lesson.say[[
attn has the class ready-made as nn.DotProductAttention(dropout), with the same arguments.
]]

lesson.step("nn.DotProductAttention on the toy", function()
    atten = nn.DotProductAttention(0.5)                      -- Python: DotProductAttention(dropout=0.5)
    atten:eval()
    out_dot = atten(queries, keys, values, valid_lens)
    lesson.show("atten(queries, keys, values, valid_lens)", out_dot)
    lesson.check("the toy's output, as the original d2l prints it", out_dot,
        {{{2, 3, 4, 5}}, {{10, 11, 12, 13}}}, {tol = 1e-5})
    lesson.agree("the library's class computes the lesson's", out_dot, out_dot_class, {tol = 1e-6})
end)

lesson.say[[
Why those numbers: with equal weights over the first valid_len values, the output is their
mean, value rows 1–2 for the first example and rows 1–6 for the second. Computed directly, the
two means match the layer's output.
]]

lesson.step("equal keys: the output is the mean of the first valid_len values", function()
    mean_2 = values[1]:narrow(1, 1, 2):mean(1)      -- Python: values[0, :2].mean(dim=0)
    mean_6 = values[2]:narrow(1, 1, 6):mean(1)      -- Python: values[1, :6].mean(dim=0)
    lesson.show("mean of the first 2 values", mean_2)
    lesson.show("mean of the first 6 values", mean_6)
    lesson.agree("example 1's output is the mean of the first 2 values", out_dot[1][1], mean_2, {tol = 2e-6})
    lesson.agree("example 2's output is the mean of the first 6 values", out_dot[2][1], mean_6, {tol = 2e-6})
end)

lesson.section("10.1.2  Multilayer perceptron attention")

lesson.say[[
Multilayer-perceptron (additive) attention projects the query and the key into a hidden space
of size h with learnable W_q (h × d_q) and W_k (h × d_k), adds them, applies tanh and reduces to
one number with a learnable v: a(q, k) = vᵀ tanh(W_q q + W_k k). It is a one-hidden-layer
network with no bias, and q and k may have different sizes. Written out as a class, as the text
describes it: W_k, W_q and v are nn.Linear layers without bias, drawn from the random generator
(so we seed it). The query's and the key's projections are added for every pair at once by
broadcasting, [b, n, 1, h] + [b, 1, m, h].
]]

lesson.step("class MLPAttention, on the same toy", function()
    MLPAttention = nn.Module:extend("MLPAttention")         -- Python: class MLPAttention(nn.Module):
    function MLPAttention:__init(key_size, query_size, units, dropout)
        self.W_k = nn.Linear(key_size, units, {bias = false})
        self.W_q = nn.Linear(query_size, units, {bias = false})
        self.v = nn.Linear(units, 1, {bias = false})
        self.dropout = nn.Dropout(dropout)
    end
    function MLPAttention:forward(query, key, value, valid_len)
        query, key = self.W_q(query), self.W_k(key)
        local features = torch.tanh(query:unsqueeze(3) + key:unsqueeze(2))   -- Python: unsqueeze(2), unsqueeze(1)
        local scores = self.v(features):squeeze(-1)
        local attention_weights = self.dropout(masked_softmax(scores, valid_len))
        return torch.bmm(attention_weights, value)
    end
    torch.manual_seed(0)
    mlp_class = MLPAttention(2, 2, 8, 0.1)                  -- Python: MLPAttention(2, 2, 8, 0.1)
    mlp_class:eval()
    out_mlp_class = mlp_class(queries, keys, values, valid_lens)
    lesson.show("out_mlp_class", out_mlp_class)
    lesson.check("the same output as DotProductAttention, as the text says (the original d2l's numbers)",
        out_mlp_class, {{{2, 3, 4, 5}}, {{10, 11, 12, 13}}}, {tol = 1e-5})
end)

lesson.say[[
attention.additive computes exactly this score; nn.MLPAttention(key_size, query_size, units,
dropout) is the class ready-made. Made from the same seed, it draws the same weights.
]]

lesson.step("nn.MLPAttention on the same toy", function()
    torch.manual_seed(0)
    mlp_atten = nn.MLPAttention(2, 2, 8, 0.1)                -- Python: MLPAttention(2, 2, 8, 0.1)
    mlp_atten:eval()
    out_mlp = mlp_atten(queries, keys, values, valid_lens)
    lesson.show("mlp_atten", mlp_atten)
    lesson.show("mlp_atten(queries, keys, values, valid_lens)", out_mlp)
    lesson.check("the same output as DotProductAttention, as the text says (the original d2l's numbers)", out_mlp,
        {{{2, 3, 4, 5}}, {{10, 11, 12, 13}}}, {tol = 1e-5})
    lesson.agree("the same weights as the lesson's class", mlp_atten:parameters(), mlp_class:parameters())
    lesson.agree("the library's class computes the lesson's", out_mlp, out_mlp_class, {tol = 1e-6})
end)

lesson.say[[
The text: "although MLPAttention contains an extra MLP model, we get the same output as
DotProductAttention". The reason is the toy, not the layer: all keys are equal, so whatever the
weights, every key gets the same score, and equal scores mean equal weights. The scores below
are not those of the dot product, but within each example they are all alike.
]]

lesson.step("MLP scores: different numbers, still all equal", function()
    mlp_scores = attention.additive(queries, keys, mlp_atten.W_q.weight, mlp_atten.W_k.weight,
                                    mlp_atten.v.weight)
    lesson.show("vᵀ tanh(W_q q + W_k k), example 1", mlp_scores[1])
    lesson.show("weights, example 1", mlp_atten.last_weights[1])
end)

lesson.section("10.1.4  Exercises")

lesson.say[[
Exercise 1 asks for the strengths and weaknesses of dot-product and MLP attention. Two of them
can be measured.

First, sizes. The dot product needs the query and the key to have the same length. Give the toy
queries of size 3 while the keys stay of size 2: DotProductAttention refuses, MLPAttention (made
with query_size 3) projects both into its hidden space and works. Its output is the toy's
output again, for the same reason as before: the keys are still all equal.
]]

lesson.step("queries of size 3, keys of size 2", function()
    queries_3 = torch.ones(2, 1, 3)
    ok, err = pcall(atten, queries_3, keys, values, valid_lens)
    lesson.show("DotProductAttention ok", ok)
    lesson.show("err", err)
    torch.manual_seed(0)
    mlp_3 = nn.MLPAttention(2, 3, 8, 0)                      -- key_size 2, query_size 3
    mlp_3:eval()
    out_3 = mlp_3(queries_3, keys, values, valid_lens)
    lesson.show("MLPAttention(2, 3, 8, 0)", out_3)
    lesson.agree("dot-product attention cannot compare sizes 3 and 2", ok, false)
    lesson.check("MLP attention can, and the toy still gives the original d2l's output", out_3,
        {{{2, 3, 4, 5}}, {{10, 11, 12, 13}}}, {tol = 1e-5})
end)

lesson.say[[
Second, cost. The dot product has no parameters and computes all n·m scores with one matrix
product, which BLAS does very fast. MLP attention has (d_q + d_k + 1)·h parameters to learn, and
for every query-key pair it forms an h-long hidden vector and a tanh of it: the intermediate
tensor has b·n·m·h numbers where the dot product's score matrix has b·n·m. Below, both layers on
a batch of 2 with 128 queries and 128 keys of size 32 (h = 32). The times are CPU time (of all
threads) measured by os.clock on this machine: they vary from run to run and are not checked.
]]

lesson.step("parameters, memory and time on a larger input", function()
    torch.manual_seed(0)
    local b, n, m, d, h = 2, 128, 128, 32, 32
    local q, k, v = torch.randn(b, n, d), torch.randn(b, m, d), torch.randn(b, m, d)
    local dot_layer = nn.DotProductAttention(0)
    local mlp_layer = nn.MLPAttention(d, d, h, 0)
    dot_layer:eval()
    mlp_layer:eval()
    local function count(layer)
        local total = 0
        for _, p in ipairs(layer:parameters()) do total = total + p:numel() end
        return total
    end
    local function cpu_ms(layer, reps)                     -- the mean CPU time of one call
        local t0 = os.clock()
        for _ = 1, reps do layer(q, k, v) end
        return (os.clock() - t0) / reps * 1000
    end
    local t_dot, t_mlp = cpu_ms(dot_layer, 10), cpu_ms(mlp_layer, 3)
    lesson.show(lesson.tr("parameters"), lesson.tr("dot %d, MLP %d", count(dot_layer), count(mlp_layer)))
    lesson.agree("dot-product attention has no parameters, MLP attention (d_q + d_k + 1)·h",
        {count(dot_layer), count(mlp_layer)}, {0, (d + d + 1) * h})
    lesson.show("scores held per call", lesson.tr("dot %d (b·n·m), MLP %d hidden values (b·n·m·h)",
        b * n * m, b * n * m * h))
    lesson.show("CPU time per call", lesson.tr("dot %.2f ms, MLP %.2f ms (%.0f× the dot product)",
        t_dot, t_mlp, t_mlp / t_dot))
end)

lesson.say[[
So: dot-product attention is cheap, parameter-free and fast, but needs queries and keys of one
size and can only measure similarity as alignment of the raw vectors. MLP attention can compare
vectors of different sizes and learns what "similar" should mean, at the price of parameters and
of an h-times larger intermediate, which on long sequences costs far more time and memory.
]]
