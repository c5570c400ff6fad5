-- 11_transformer_attention.lua — Python Deep Learning (3rd ed.), ch. 7 §Transformer attention and
-- §Implementing TA: scaled dot-product attention step by step, why it divides by √d_k, the chapter's
-- attention() with its mask against ch. 3's, and MultiHeadedAttention with its four Linear layers.
--   ./attn lessons/11_transformer_attention.lua           straight through
--   ./attn --step lessons/11_transformer_attention.lua    one step at a time
-- The chapter prints no numbers here, so every input is seeded and every seeded result is checked
-- against PyTorch's own, computed by scripts/gen_lesson_reference.py with the same seeds and stored in
-- tests/data/torch/lessons_pdl_ch7.txt (the expected side of the checks only).

lesson.title("Transformer attention: scaled dot-product and multi-head attention",
             {source = "Python Deep Learning (3rd ed.), ch. 7: Transformer attention, Implementing TA"})

-- What PyTorch computed for this lesson (scripts/gen_lesson_reference.py).
local function pytorch(name)
    return lesson.reference("lessons_pdl_ch7.txt", "attention." .. name)
end

lesson.section("Transformer attention")

lesson.say[[
Transformer attention (TA) is the general attention procedure with dot-product similarity:

    Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V

m queries of length d_k are the rows of Q (m × d_k); the "database" holds n keys, the rows of K
(n × d_k), and n values, the rows of V (n × d_v). The chapter prints no numbers for it, so we make a
small example from a seeded generator: m = 3 queries, n = 5 keys, d_k = 4 and d_v = 3. torch.rand
draws the same numbers as PyTorch after the same torch.manual_seed.
]]

lesson.step("Q, K and V", function()
    torch.manual_seed(10)
    Q = torch.rand(3, 4)     -- m = 3 queries, d_k = 4
    K = torch.rand(5, 4)     -- n = 5 keys
    V = torch.rand(5, 3)     -- n = 5 values, d_v = 3
    lesson.show("Q", Q)
    lesson.show("K", K)
    lesson.show("V", V)
end)

lesson.say[[
Step 1 of the formula matches every query with every key in one matrix product: Q·Kᵀ is m × n,
and its entry e_ij is the dot product of query i with key j, the alignment score. Kᵀ is
K:transpose(-2, -1), the last two dims swapped, as the chapter writes it.
]]

lesson.step("1. alignment scores Q·Kᵀ", function()
    scores = Q:matmul(K:transpose(-2, -1))          -- Python: Q @ K.transpose(-2, -1)
    e_12 = torch.dot(Q[1], K[2])                    -- Python: torch.dot(Q[0], K[1])
    lesson.show("scores", scores)
    lesson.show("e_12 = q_1 · k_2", e_12)
    lesson.agree("Q·Kᵀ is m × n", scores.shape, {Q.shape[1], K.shape[1]})
    lesson.check("Q·Kᵀ as PyTorch computes it", scores, pytorch("scores"), {tol = 1e-5})
    lesson.agree("entry (1, 2) is the dot product of query 1 and key 2", scores[1][2], e_12:item(), {tol = 1e-6})
end)

lesson.say[[
Step 2 divides every score by √d_k, the square root of the key length (here √4 = 2). Why this
matters is the subject of the last steps of this section.
]]

lesson.step("2. scaled by 1/√d_k", function()
    d_k = K:size(-1)                                -- Python: d_k = K.size(-1)
    scaled = scores / math.sqrt(d_k)
    lesson.show("d_k", d_k)
    lesson.show("scaled", scaled)
    lesson.check("scores / √d_k as PyTorch computes them", scaled, pytorch("scaled"), {tol = 1e-5})
end)

lesson.say[[
Step 3 applies softmax to each row: query i's scores become attention weights that are positive
and sum to 1.
]]

lesson.step("3. softmax over each row", function()
    weights = scaled:softmax(-1)                    -- Python: scaled.softmax(dim=-1)
    lesson.show("weights", weights)
    lesson.show("row sums", weights:sum(-1))
    lesson.check("the weights as PyTorch computes them", weights, pytorch("weights"), {tol = 1e-5})
    lesson.agree("every row sums to 1", weights:sum(-1), torch.ones(Q.shape[1]), {tol = 1e-6})
end)

lesson.say[[
Step 4 mixes the values: row i of A = weights·V is Σ_j α_ij v_j, the attention vector of query i,
so A is m × d_v. attention.forward does the four steps in one call (the same stages attn's
tracer shows); it must give the same A.
]]

lesson.step("4. the attention vectors A = weights·V", function()
    A = weights:matmul(V)                           -- Python: weights @ V
    A_forward = attention.forward{q = Q, k = K, v = V}
    lesson.show("A", A)
    lesson.agree("A is m × d_v", A.shape, {Q.shape[1], V.shape[2]})
    lesson.check("A as PyTorch computes it", A, pytorch("A"), {tol = 1e-5})
    lesson.agree("attention.forward gives the same A", A_forward, A, {tol = 1e-7})
end)

lesson.say([[
Why 1/√d_k? The authors suspect that for large d_k the dot products grow large and push softmax
into regions where its gradient is tiny. If the components of q and k are independent with mean
0 and variance 1, then q·k is a sum of d_k products of variance 1: its variance is d_k, its
standard deviation √d_k. Dividing by √d_k brings it back to 1, whatever d_k is.

We measure it: for d_k = 4 … 1024, 200 random queries against 10 random keys (torch.randn), with
and without the scaling. For each we print the standard deviation of the scores, and averaged over
the 200 rows: the largest weight max α (1/10 if softmax were uniform, 1 if one-hot), the entropy
H(α) = −Σ α log α (ln 10 = %.4f for uniform weights, 0 for one-hot), and 1 − Σ α², the trace of
softmax's Jacobian ∂α/∂ω = diag(α) − α·αᵀ: how much the weights can still move when the scores
move. When it is near 0, so is every gradient that flows back through softmax.
]], math.log(10))

lesson.step("the effect of 1/√d_k on softmax, for growing d_k", function()
    torch.manual_seed(11)
    rows = {}
    for _, d_k in ipairs({4, 16, 64, 256, 1024}) do
        local q, k = torch.randn(200, d_k), torch.randn(10, d_k)
        local s = q:matmul(k.T)                                  -- Python: q @ k.T
        local row = {}
        for _, t in ipairs({s, s / math.sqrt(d_k)}) do          -- unscaled, scaled
            local w = t:softmax(-1)
            local std = (t - t:mean()):pow(2):mean():sqrt()
            local max_w = w:max(-1):mean()                        -- Python: w.max(dim=-1).values.mean()
            local entropy = -(w * t:log_softmax(-1)):sum(-1):mean()
            local slope = (1 - (w * w):sum(-1)):mean()
            row[#row + 1] = torch.stack({std, max_w, entropy, slope})
        end
        rows[#rows + 1] = torch.stack(row)
    end
    sharpness = torch.stack(rows)                 -- [d_k, unscaled/scaled, measure]
    lesson.printf("        ------ ω = q·k, unscaled ------    ---------- ω / √d_k ----------")
    print("   d_k     std   max α    H(α)   1−Σα²       std   max α    H(α)   1−Σα²")
    for i, d_k in ipairs({4, 16, 64, 256, 1024}) do
        local u, c = sharpness[i][1]:tolist(), sharpness[i][2]:tolist()
        print(string.format("%6d %7.3f %7.4f %7.4f %7.4f   %7.3f %7.4f %7.4f %7.4f",
                            d_k, u[1], u[2], u[3], u[4], c[1], c[2], c[3], c[4]))
    end
    lesson.check("all 40 numbers as PyTorch computes them", sharpness, pytorch("sharpness"), {tol = 1e-5})
    -- the trend, from the table: unscaled, softmax sharpens with every larger d_k
    local columns = sharpness:select(2, 1).T:tolist()          -- unscaled: std, max α, H, 1−Σα² over d_k
    local rising, falling_h, falling_slope = {table.unpack(columns[2])}, {table.unpack(columns[3])},
                                             {table.unpack(columns[4])}
    table.sort(rising)
    table.sort(falling_h, function(a, b) return a > b end)
    table.sort(falling_slope, function(a, b) return a > b end)
    lesson.agree("unscaled: max α rises, H and 1−Σα² fall with d_k (each column is in order)",
        {columns[2], columns[3], columns[4]}, {rising, falling_h, falling_slope})
    lesson.agree("scaled: the std of the scores is 1 for every d_k, as var(q·k) = d_k predicts",
        sharpness:select(2, 2):select(2, 1), torch.ones(5), {tol = 0.2})
    lesson.agree("scaled: the entropy at d_k = 1024 is that at d_k = 4", sharpness[5][2][3], sharpness[1][2][3],
        {tol = 0.1})
end)

lesson.say([[
Without the scaling, the standard deviation of the scores grows as √d_k (measured %.1f, %.1f,
%.1f, %.1f, %.1f where √d_k is 2, 4, 8, 16, 32), the weights approach one-hot and 1 − Σα² falls
towards 0: the vanishing gradients the authors describe. Divided by √d_k, the scores keep a
standard deviation near 1 and softmax behaves the same for every d_k.
]], table.unpack(sharpness:select(2, 1):select(2, 1):tolist()))

lesson.say[[
When the queries come from the same sequence as the keys and values, attention is self-attention,
and the chapter explains what it buys with a word. word2vec gives "new" one embedding, the same in
"new shoes" and in "New York" (we write both in lower case: one token). Self-attention makes a
dynamic embedding instead: the word is the query, its context the keys and values, and its output
vector depends on the sentence. Two sentences, one small vocabulary, a random embedding table and
random projections W_q, W_k, W_v (seeded, as everything here):
]]

lesson.step("\"new\" in \"i bought new shoes\" and in \"i visited new york\"", function()
    words = {"i", "bought", "new", "shoes", "visited", "york"}
    local index = {}
    for i, w in ipairs(words) do index[w] = i end
    local function ids(s)
        local t = {}
        for w in s:gmatch("%S+") do t[#t + 1] = index[w] end
        return torch.tensor(t)
    end
    torch.manual_seed(14)
    embedding_table = nn.Embedding(#words, 8)
    W_q, W_k, W_v = nn.Linear(8, 8, {bias = false}), nn.Linear(8, 8, {bias = false}), nn.Linear(8, 8, {bias = false})
    local function self_attention(x)              -- softmax(Q·Kᵀ/√d_k)·V with Q, K, V from the same x
        return attention.forward{q = W_q(x), k = W_k(x), v = W_v(x)}
    end
    x_shoes, x_york = embedding_table(ids("i bought new shoes")), embedding_table(ids("i visited new york"))
    z_shoes, z_york = self_attention(x_shoes), self_attention(x_york)
    lesson.show("the embedding of \"new\", in both", x_shoes[3])
    lesson.show("its output in \"i bought new shoes\"", z_shoes[3])
    lesson.show("its output in \"i visited new york\"", z_york[3])
    lesson.show("distance between the two outputs", (z_shoes[3] - z_york[3]):pow(2):sum():sqrt())
    lesson.check("the outputs of \"i bought new shoes\", as PyTorch computes them", z_shoes, pytorch("dynamic.shoes"),
                 {tol = 1e-6})
    lesson.check("the outputs of \"i visited new york\", as PyTorch computes them", z_york, pytorch("dynamic.york"),
                 {tol = 1e-6})
    lesson.agree("one word, one input vector", x_shoes[3], x_york[3])
    lesson.agree("one word, two output vectors: they differ", torch.equal(z_shoes[3], z_york[3]), false)
end)

lesson.section("Implementing TA")

lesson.say[[
The chapter implements scaled dot-product attention as the function attention(query, key, value,
mask, dropout), after the Annotated Transformer. Here it is line for line in Lua. (attn already
has a global table named attention, its stages, so the chapter's function is called book_attention
here.) Note the mask convention: masked_fill(mask == 0, -1e9) hides the positions where the mask
is 0, so a 1 means "may attend".
]]

lesson.step("the chapter's attention()", function()
    function book_attention(query, key, value, mask, dropout)   -- Python: mask=None, dropout=None
        local d_k = query:size(-1)                              -- Python: d_k = query.size(-1)
        -- 1) and 2) Compute the alignment scores with scaling
        local scores = query:matmul(key:transpose(-2, -1)) / math.sqrt(d_k)
        if mask ~= nil then
            scores = scores:masked_fill(mask:eq(0), -1e9)       -- Python: scores.masked_fill(mask == 0, -1e9)
        end
        -- 3) Compute the attention scores (softmax)
        local p_attn = scores:softmax(-1)                       -- Python: scores.softmax(dim=-1)
        if dropout ~= nil then
            p_attn = dropout(p_attn)
        end
        -- 4) Apply the attention scores over the values
        return p_attn:matmul(value), p_attn                     -- Python: return p_attn @ value, p_attn
    end
    x_ta, p_ta = book_attention(Q, K, V)
    lesson.agree("without a mask it computes A of the steps above", x_ta, A, {tol = 1e-7})
end)

lesson.say[[
Self-attention of 4 tokens, each of which may attend only to itself and the tokens before it
(the decoder's causal mask, which the chapter introduces later). In the chapter's convention that is
a lower triangle of ones: torch.tril(torch.ones(4, 4)).
]]

lesson.step("a causal mask in the chapter's convention (1 = visible, 0 → -1e9)", function()
    torch.manual_seed(12)
    tokens = {"I", "bought", "new", "shoes"}
    query, key, value = torch.rand(4, 4), torch.rand(4, 4), torch.rand(4, 4)
    mask = torch.tril(torch.ones(4, 4))
    x_book, p_book = book_attention(query, key, value, mask)
    lesson.show("mask", mask)
    lesson.show("p_attn", p_book)
    lesson.show("x", x_book)
    attention.heatmap(p_book, {rows = tokens, cols = tokens})
    lesson.check("p_attn as PyTorch's attention() computes it", p_book, pytorch("ta.p_attn"), {tol = 1e-5})
    lesson.check("x as PyTorch's attention() computes it", x_book, pytorch("ta.x"), {tol = 1e-5})
end)

lesson.say[[
Chapter 3 of LLMs from scratch writes the same mask the other way round: torch.triu(ones, 1), in
which a 1 (true) means "hidden", and fills the hidden scores with -inf. attn's stages take that
convention: attention.causal_mask(n) is the bool mask with true = hidden, and attention.mask fills
with -inf by default. The two masks are each other's complement, and the weights come out the
same, bit for bit: exp(-1e9 - max) underflows to exactly 0 in float32, as exp(-inf) is 0.
]]

lesson.step("ch. 3's convention (true = hidden, → -inf): the same weights", function()
    hidden = attention.causal_mask(4)                            -- Python: torch.triu(torch.ones(4, 4), 1).bool()
    masked = attention.mask(attention.scale(attention.scores(query, key), 4), hidden)
    w_ch3 = attention.softmax(masked, -1)
    lesson.show("hidden", hidden)
    lesson.show("masked scores", masked)
    lesson.show("weights", w_ch3)
    lesson.agree("the chapter's mask == 0 is exactly ch. 3's hidden", mask:eq(0), hidden)
    lesson.agree("the weights are equal, bit for bit", w_ch3, p_book)
end)

lesson.say[[
The conventions do differ when a query may see no key at all, as happens to a padding position
in a padding mask. With -1e9, every score in the row is -1e9, softmax of equal numbers is uniform,
and the row gets weights of 1/n: a harmless average. With -inf the row is -inf - (-inf) = nan,
and the nan spreads through every later layer.
]]

lesson.step("a row with every key hidden: 1/n with -1e9, nan with -inf", function()
    mask_pad = mask:clone()
    mask_pad[4]:fill_(0)                                       -- Python: mask_pad[3] = 0
    _, p_pad = book_attention(query, key, value, mask_pad)
    scaled_pad = attention.scale(attention.scores(query, key), 4)
    w_pad = attention.softmax(attention.mask(scaled_pad, mask_pad:eq(0)), -1)
    lesson.show("mask_pad", mask_pad)
    lesson.show("-1e9 (the chapter)", p_pad)
    lesson.show("-inf (ch. 3)", w_pad)
    lesson.agree("-1e9: row 4 is uniform, 1/n = 1/4 each", p_pad[4], torch.ones(4) / 4)
    lesson.agree("-inf: row 4 is nan, as 0 / 0 in Lua", w_pad[4], {0 / 0, 0 / 0, 0 / 0, 0 / 0})
end)

lesson.say[[
The full TA is multi-head attention (MHA): h heads, each attending over its own linear projection
of Q, K and V, their outputs concatenated and projected once more:

    MultiHead(Q, K, V) = Concat(head_1, …, head_h)·W^O
    head_i = Attention(Q·W_i^Q, K·W_i^K, V·W_i^V)

The chapter's class MultiHeadedAttention(h, d_model) creates 4 fully connected layers with clones:
three for the query, key and value projections (all h heads at once, d_model → h × d_k) and one
for W^O. attn has the class as nn.MultiHeadedAttention. We take h = 2 heads and d_model = 6, so
d_k = 6 / 2 = 3, and put it in evaluation mode (no dropout). Then 4 tokens of 6 dimensions, drawn
right after the layers, as PyTorch would draw them.
]]

lesson.step("MultiHeadedAttention(2, 6): 4 Linear layers", function()
    torch.manual_seed(13)
    mha = nn.MultiHeadedAttention(2, 6, 0.1)        -- Python: MultiHeadedAttention(2, 6, dropout=0.1)
    mha:eval()
    x = torch.rand(1, 4, 6)                         -- 1 sequence, 4 tokens, d_model = 6
    print(mha)
    lesson.show("d_k", mha.d_k)
    lesson.check("4 Linear layers", #mha.fc_layers, 4)
    lesson.check("fc_layers[1] as PyTorch initialises it (weight)", mha.fc_layers[1].weight, pytorch("mha.fc1.weight"), {tol = 0})
    lesson.check("fc_layers[4] as PyTorch initialises it (bias)", mha.fc_layers[4].bias, pytorch("mha.fc4.bias"), {tol = 0})
end)

lesson.say[[
The list prints its layers as (1) to (4), the indices that reach them in Lua (mha.fc_layers[1] is the
first); PyTorch prints the same list as (0) to (3), its own indices.

PyTorch agrees with the weights bit for bit. It also shows something the chapter does not say:
clones deep-copies one Linear layer, so the four layers start out equal. (The chapter's build_model
re-initialises every weight matrix with xavier_uniform_ afterwards, so in a whole model they
differ.) Here, then, the query, key and value projections of a token are the same vector.
]]

lesson.step("clones: the four layers start out equal", function()
    same_w = torch.equal(mha.fc_layers[1].weight, mha.fc_layers[4].weight)
    lesson.show("fc_layers[1].weight == fc_layers[4].weight", same_w)
    lesson.agree("weights of layers 1 and 4 equal", mha.fc_layers[1].weight, mha.fc_layers[4].weight)
    lesson.agree("biases of layers 2 and 3 equal", mha.fc_layers[2].bias, mha.fc_layers[3].bias)
end)

lesson.say[[
Now the module's forward pass, one stage at a time, with attn's tracer: the three projections,
the split into h = 2 heads of d_k = 3 (a view and a transpose, [1, 4, 6] → [1, 2, 4, 3]), the
scores, the scaling by √3, softmax, the weighted sum, the heads merged back to [1, 4, 6], and
fc_layers[4], which is W^O.
]]

lesson.step("MultiHeadedAttention stage by stage (attention.trace)", function()
    tr = attention.trace{module = mha, x = x, tokens = tokens}
    tr:run()
    out = mha(x, x, x)                              -- Python: mha(x, x, x)
    lesson.check("the queries split into heads, as PyTorch computes them", tr.split, pytorch("mha.query"), {tol = 1e-5})
    lesson.check("the weights of both heads, as PyTorch's mha.attn", tr.weights, pytorch("mha.attn"), {tol = 1e-5})
    lesson.check("the output, as PyTorch computes it", tr.output, pytorch("mha.out"), {tol = 1e-5})
    lesson.agree("mha(x, x, x) gives the tracer's output", out, tr.output, {tol = 1e-6})
    lesson.agree("Q, K and V projections are equal (the cloned layers)", {tr.queries, tr.keys}, {tr.keys, tr.values})
end)

lesson.say[[
The same forward pass written as the chapter's MultiHeadedAttention.forward, with the chapter's
attention() from above. (The chapter's last line reads `return self.fc_layers-1`, a loss in its
conversion of `return self.fc_layers[-1](x)`: the last layer, fc_layers[4] in Lua.) view(b, -1,
h, d_k) cuts each token's 6 numbers into 2 heads of 3; transpose(2, 3) puts the head dim before
the tokens (Python's transpose(1, 2): dims count from 1 in attn).
]]

lesson.step("the chapter's forward, by hand", function()
    batch_samples = x:size(1)                                       -- Python: query.size(0)
    projections = {}
    for i, t in ipairs({x, x, x}) do                  -- Python: zip(self.fc_layers, (query, key, value))
        projections[i] = mha.fc_layers[i](t):view(batch_samples, -1, mha.h, mha.d_k):transpose(2, 3)
    end
    heads, p_heads = book_attention(projections[1], projections[2], projections[3], nil, mha.dropout)
    concat = heads:transpose(2, 3):contiguous():view(batch_samples, -1, mha.h * mha.d_k)
    by_hand = mha.fc_layers[4](concat)                              -- Python: self.fc_layers[-1](x)
    lesson.show("heads (one [4, 3] matrix per head)", heads)
    lesson.show("by_hand", by_hand)
    lesson.agree("the same output as the module", by_hand, out, {tol = 1e-6})
    lesson.check("the same output as PyTorch", by_hand, pytorch("mha.out"), {tol = 1e-5})
end)

lesson.say[[
A mask passed to the module is unsqueezed to [b, 1, n, m], the same mask for all h heads. With
the causal mask nn.subsequent_mask(4) (bool, true = visible: the chapter's convention), each head's
weights form a lower triangle. attn computes attention by its stages, as PyTorch does, and keeps
the weights in mha.attn; mha.use_fused = true would ask for a single fused pass that never stores
them, so the lesson says use_fused = false to be plain about it.
]]

lesson.step("the same mask for every head", function()
    mha.use_fused = false
    out_causal = mha(x, x, x, nn.subsequent_mask(4))
    lesson.show("mha.attn.shape", mha.attn.shape)
    lesson.heatmaps{{lesson.tr("head 1"), mha.attn[1][1], {rows = tokens, cols = tokens}},
                    {lesson.tr("head 2"), mha.attn[1][2], {rows = tokens, cols = tokens}}}
    lesson.agree("[b, h, n, n] weights", mha.attn.shape, {x.shape[1], mha.h, x.shape[2], x.shape[2]})
    lesson.check("both heads' causal weights, as PyTorch computes them", mha.attn, pytorch("mha.causal.attn"), {tol = 1e-5})
    lesson.check("the causal output, as PyTorch computes it", out_causal, pytorch("mha.causal.out"), {tol = 1e-5})
end)
