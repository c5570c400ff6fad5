-- Build a Large Language Model (From Scratch), ch. 3 §3.4: self-attention with trainable weights W_q,
-- W_k, W_v, step by step for the query x^(2), then as the book's classes SelfAttention_v1 and _v2,
-- exercise 3.1, and the "game character" picture of a projection from the notes on chapter 3. Every
-- number the book prints is checked against the book's text (grad_fn=... dropped: attn has no autograd).
--   ./attn lessons/02_trainable_weights.lua           straight through
--   ./attn --step lessons/02_trainable_weights.lua    one step at a time

lesson.title("Self-attention with trainable weights",
             {source = "Build a Large Language Model (From Scratch), ch. 3 §3.4 (In [15]–[33]); notes on chapter 3, §3.4"})

lesson.section("3.4  Implementing self-attention with trainable weights")

lesson.say[[
In §3.3 the attention scores were plain dot products of the inputs, ω_ij = x^(i) · x^(j):
nothing in them could be learned. Scaled dot-product attention first projects every input x^(i)
three times, with three trainable matrices: the query q^(i) = x^(i) W_q, the key
k^(i) = x^(i) W_k and the value v^(i) = x^(i) W_v. What does a projection do? The notes on
chapter 3 have a picture: a game character has the raw features strength 100, agility 50,
intelligence 10. The fight system only cares about attack and dodge, and a 3×2 matrix W says
how much each raw feature contributes to each:
    attack = 0.8·strength + 0.2·agility + 0·intelligence
    dodge  = 0·strength + 0.9·agility + 0.1·intelligence
The notes give the weights, not the results; one matrix product computes both, and Lua's own
double-precision arithmetic, apart from any tensor, works the two formulas out to compare.]]

lesson.step("a projection: [strength, agility, intelligence] · W → [attack, dodge]", function()
    character = torch.tensor{100.0, 50.0, 10.0} -- strength, agility, intelligence
    W = torch.tensor{{0.8, 0.0},                -- strength     → attack, dodge
                     {0.2, 0.9},                -- agility
                     {0.0, 0.1}}                -- intelligence
    features = character:matmul(W)              -- Python: character @ W
    lesson.show("[attack, dodge]", features)
    local attack = 0.8 * 100 + 0.2 * 50 + 0 * 10                  -- the notes' formulas, in doubles
    local dodge = 0 * 100 + 0.9 * 50 + 0.1 * 10
    lesson.agree("the matrix product is the notes' two formulas", features, {attack, dodge}, {tol = 1e-5})
end)

lesson.say[[
W_q, W_k and W_v do the same to the 3-dimensional token embeddings: each turns x^(i) into a new
2-dimensional vector, "read for a purpose" — a query to ask with, a key to be found by, a value
to hand over. In a model the entries of W are learned; here they are random, as in the book.]]

lesson.section("3.4.1  Computing the attention weights step by step")

lesson.say[[
The six tokens of "Your journey starts with one step", each embedded in 3 dimensions (rows x^(1)
… x^(6)). As in the book, the second token, x^(2) = "journey", is the query. Lua counts from 1
like the book's mathematics, so x^(2) is inputs[2]; the book's Python writes inputs[1].]]

lesson.step("the inputs and the sizes d_in = 3, d_out = 2 (In [15])", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^(1))
        {0.55, 0.87, 0.66}, -- journey  (x^(2))
        {0.57, 0.85, 0.64}, -- starts   (x^(3))
        {0.22, 0.58, 0.33}, -- with     (x^(4))
        {0.77, 0.25, 0.10}, -- one      (x^(5))
        {0.05, 0.80, 0.55}} -- step     (x^(6))
    x_2 = inputs[2]         -- second input element     -- Python: x_2 = inputs[1]
    d_in = inputs.shape[2]  -- the input embedding size -- Python: d_in = inputs.shape[1]
    d_out = 2               -- the output embedding size
    lesson.show("x_2", x_2)
    lesson.check("d_in, the input embedding size, d=3", d_in, 3)
end)

lesson.say[[
The three weight matrices W_q, W_k, W_v, each d_in × d_out = 3 × 2, filled with uniform random
numbers from the seed 123. attn's random numbers are PyTorch's bit for bit, so the same seed
gives the book's matrices. (requires_grad=False only matters for training; attn has no autograd
and ignores it.)]]

lesson.step("W_q, W_k, W_v from torch.rand with seed 123 (In [17])", function()
    torch.manual_seed(123)
    W_query = nn.Parameter(torch.rand(d_in, d_out), {requires_grad = false}) -- Python: torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    W_key   = nn.Parameter(torch.rand(d_in, d_out), {requires_grad = false}) -- Python: torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    W_value = nn.Parameter(torch.rand(d_in, d_out), {requires_grad = false}) -- Python: torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    lesson.show("W_query", W_query)
    lesson.show("W_key", W_key)
    lesson.show("W_value", W_value)
end)

lesson.say[[
Step 1: project x^(2). The query q^(2) = x^(2) W_q, the key k^(2) = x^(2) W_k and the value
v^(2) = x^(2) W_v. The book prints the query.]]

lesson.step("q^(2), k^(2), v^(2) (In [18])", function()
    query_2 = x_2:matmul(W_query) -- Python: query_2 = x_2 @ W_query
    key_2 = x_2:matmul(W_key)     -- Python: key_2 = x_2 @ W_key
    value_2 = x_2:matmul(W_value) -- Python: value_2 = x_2 @ W_value
    lesson.show("query_2", query_2)
    lesson.check("q^(2) (In [18])", query_2, [=[tensor([0.4306, 1.4551])]=])
end)

lesson.say[[
The query is needed only for the token we ask about, but every token needs its key (to be
compared with the query) and its value (to be mixed into the answer). One matrix product
projects all six rows of the input at once: keys = X W_k and values = X W_v, each 6 × 2.]]

lesson.step("keys and values for all six tokens (In [19])", function()
    keys = inputs:matmul(W_key)     -- Python: keys = inputs @ W_key
    values = inputs:matmul(W_value) -- Python: values = inputs @ W_value
    lesson.show("keys.shape", keys.shape)
    lesson.show("values.shape", values.shape)
    lesson.check("keys.shape (In [19])", "keys.shape: " .. tostring(keys.shape), "keys.shape: torch.Size([6, 2])")
    lesson.check("values.shape (In [19])", "values.shape: " .. tostring(values.shape), "values.shape: torch.Size([6, 2])")
end)

lesson.say[[
Step 2: attention scores. As in §3.3 a score is a dot product, but now of the query with a key,
not of two inputs: ω22 = q^(2) · k^(2) scores how well "journey" matches itself.]]

lesson.step("the score ω22 = q^(2) · k^(2) (In [20])", function()
    keys_2 = keys[2]                         -- Python: keys_2 = keys[1]  (Python starts at 0)
    attn_score_22 = query_2:dot(keys_2)
    lesson.show("attn_score_22", attn_score_22)
    lesson.check("ω22 (In [20])", attn_score_22, [=[tensor(1.8524)]=])
end)

lesson.say[[
All six scores ω2j = q^(2) · k^(j) at once: the query times the transposed key matrix, q^(2) Kᵀ.]]

lesson.step("all scores ω2j for the query x^(2) (In [21])", function()
    attn_scores_2 = query_2:matmul(keys.T) -- Python: attn_scores_2 = query_2 @ keys.T
    lesson.show("attn_scores_2", attn_scores_2)
    lesson.check("ω2 (In [21])", attn_scores_2, [=[tensor([1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440])]=])
end)

lesson.say[[
Step 3: attention weights α2j. As before, softmax turns the scores into weights that sum to 1 —
but first the scores are divided by √d_k, the square root of the keys' dimension (here d_k = 2).
This scaling is what gives "scaled dot-product attention" its name.]]

lesson.step("α2 = softmax(ω2 / √d_k) (In [25])", function()
    d_k = keys.shape[2]                                         -- Python: d_k = keys.shape[1]
    attn_weights_2 = torch.softmax(attn_scores_2 / d_k ^ 0.5, -1) -- Python: torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
    lesson.show("attn_weights_2", attn_weights_2)
    lesson.check("α2 (In [25])", attn_weights_2, [=[tensor([0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])]=])
end)

lesson.say[[
Why divide by √d_k? A dot product of two d_k-dimensional vectors is a sum of d_k products, so
the scores grow with the dimension (GPT-size models have d_k in the hundreds). Multiply our six
scores by a growing factor and watch softmax turn into a step function: nearly all the weight
lands on one key. The slope of softmax, ∂α_j/∂ω_j = α_j(1 − α_j), then goes to zero for every j
— and with it the gradients that training needs.]]

lesson.step("why scale: large scores make softmax peaked and its gradients vanish", function()
    largest = {}
    for i, factor in ipairs {1, 4, 16, 64, 256} do
        alpha = torch.softmax(attn_scores_2 * factor, -1)       -- scores `factor` times larger
        local slopes = alpha * (1 - alpha)                      -- ∂α_j/∂ω_j
        largest[i] = alpha:max():item()
        lesson.show(lesson.tr("softmax(ω2 × %d)", factor), alpha)
        lesson.show(lesson.tr("  slopes α(1 − α) × %d", factor), slopes)
    end
    local in_order = {table.unpack(largest)}
    table.sort(in_order)
    local step = torch.zeros(6)                                 -- a step function:
    step[attn_scores_2:argmax():item()] = 1                     -- all the weight on the largest score
    lesson.agree("the largest weight grows with the factor: the list is in increasing order",
        largest, in_order)
    lesson.agree("at ×256 softmax is a step function: one key takes the weight", alpha, step, {tol = 1e-4})
end)

lesson.say[[
How fast do scores grow with the dimension? For random vectors with independent entries of
variance 1, the dot product q·k has variance d_k, so its typical size is √d_k. Dividing by √d_k
brings the variance back to about 1 whatever the dimension. Measured on 2000 random pairs per
dimension (seed 0):]]

lesson.step("var(q·k) ≈ d_k, var(q·k / √d_k) ≈ 1", function()
    torch.manual_seed(0)
    ratios = {}
    for i, dim in ipairs {4, 64, 1024} do
        local q, k = torch.randn(2000, dim), torch.randn(2000, dim)
        local scores = (q * k):sum(-1)                  -- one dot product per row
        local var = (scores * scores):mean():item()      -- the mean is 0, so this is the variance
        local scaled = scores / dim ^ 0.5
        ratios[i] = (scaled * scaled):mean():item()
        lesson.show(lesson.tr("d_k = %4d", dim),
            string.format("var(q·k) = %8.2f   var(q·k / √d_k) = %.3f", var, ratios[i]))
    end
    lesson.agree("after scaling the variance is 1 for every d_k, as var(q·k) = d_k predicts (within 10%)",
        ratios, {1, 1, 1}, {tol = 0.1})
end)

lesson.say[[
Step 4: the context vector z^(2) is the sum of the value vectors weighted by the attention
weights, z^(2) = Σ_j α2j v^(j) — one product of the weight row with the value matrix.]]

lesson.step("z^(2) = α2 · V (In [26])", function()
    context_vec_2 = attn_weights_2:matmul(values) -- Python: context_vec_2 = attn_weights_2 @ values
    lesson.show("context_vec_2", context_vec_2)
    lesson.check("z^(2) (In [26])", context_vec_2, [=[tensor([0.3061, 0.8210])]=])
end)

lesson.section("3.4.2  Implementing a compact self-attention Python class")

lesson.say[[
The same four steps for every token at once, packed in a module as the book writes it:
Q = X W_q, K = X W_k, V = X W_v, weights softmax(Q Kᵀ / √d_k), context vectors Z = weights · V.
In attn a module class is made with nn.Module:extend; __init plays Python's __init__, and
forward runs when the module is called.]]

lesson.step("class SelfAttention_v1 (In [27])", function()
    SelfAttention_v1 = nn.Module:extend("SelfAttention_v1") -- Python: class SelfAttention_v1(nn.Module):

    function SelfAttention_v1:__init(d_in, d_out)
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))
    end

    function SelfAttention_v1:forward(x)
        local keys = x:matmul(self.W_key)          -- Python: keys = x @ self.W_key
        local queries = x:matmul(self.W_query)     -- Python: queries = x @ self.W_query
        local values = x:matmul(self.W_value)      -- Python: values = x @ self.W_value
        local attn_scores = queries:matmul(keys.T) -- omega  -- Python: queries @ keys.T
        local attn_weights = torch.softmax(
            attn_scores / keys.shape[-1] ^ 0.5, -1) -- Python: attn_scores / keys.shape[-1]**0.5, dim=-1
        local context_vec = attn_weights:matmul(values) -- Python: attn_weights @ values
        return context_vec
    end
    lesson.show("SelfAttention_v1", SelfAttention_v1)
end)

lesson.say[[
With the seed 123 the class draws the same three matrices as In [17] (in the same order W_q,
W_k, W_v), so its second row is z^(2) from step 4.]]

lesson.step("SelfAttention_v1 on all inputs, seed 123 (In [28])", function()
    torch.manual_seed(123)
    sa_v1 = SelfAttention_v1(d_in, d_out)
    context_vecs_v1 = sa_v1(inputs) -- Python: print(sa_v1(inputs))
    lesson.show("sa_v1(inputs)", context_vecs_v1)
    lesson.check("SelfAttention_v1 output (In [28])", context_vecs_v1, [=[
tensor([[0.2996, 0.8053],
        [0.3061, 0.8210],
        [0.3058, 0.8203],
        [0.2948, 0.7939],
        [0.2927, 0.7891],
        [0.2990, 0.8040]], grad_fn=<MmBackward0>)]=])
    lesson.agree("its row 2 is the z^(2) of step by step", context_vecs_v1[2], context_vec_2)
end)

lesson.say[[
SelfAttention_v2 uses nn.Linear layers without bias instead of bare matrices: a Linear layer
computes x Wᵀ, the same matrix product, but initialises W with PyTorch's scheme (uniform in
±1/√d_in), which trains more stably than torch.rand.]]

lesson.step("class SelfAttention_v2 (In [30])", function()
    SelfAttention_v2 = nn.Module:extend("SelfAttention_v2") -- Python: class SelfAttention_v2(nn.Module):

    function SelfAttention_v2:__init(d_in, d_out, qkv_bias)
        self.W_query = nn.Linear(d_in, d_out, {bias = qkv_bias or false}) -- Python: nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, {bias = qkv_bias or false}) -- Python: nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, {bias = qkv_bias or false}) -- Python: nn.Linear(d_in, d_out, bias=qkv_bias)
    end

    function SelfAttention_v2:forward(x)
        local keys = self.W_key(x)
        local queries = self.W_query(x)
        local values = self.W_value(x)
        local attn_scores = queries:matmul(keys.T) -- Python: queries @ keys.T
        local attn_weights = torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1) -- Python: attn_scores / keys.shape[-1]**0.5, dim=-1
        local context_vec = attn_weights:matmul(values) -- Python: attn_weights @ values
        return context_vec
    end
    lesson.show("SelfAttention_v2", SelfAttention_v2)
end)

lesson.step("SelfAttention_v2 on all inputs, seed 789 (In [33])", function()
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(d_in, d_out)
    context_vecs_v2 = sa_v2(inputs) -- Python: print(sa_v2(inputs))
    lesson.show("sa_v2", sa_v2)
    lesson.show("sa_v2(inputs)", context_vecs_v2)
    lesson.check("SelfAttention_v2 output (In [33])", context_vecs_v2, [=[
tensor([[-0.0739,  0.0713],
        [-0.0748,  0.0703],
        [-0.0749,  0.0702],
        [-0.0760,  0.0685],
        [-0.0763,  0.0679],
        [-0.0754,  0.0693]], grad_fn=<MmBackward0>)]=])
end)

lesson.say[[
Exercise 3.1: the two classes compute the same thing; only their weights differ. nn.Linear
stores its matrix transposed, as d_out × d_in (here 2 × 3), and multiplies by its transpose. So
copying each of v2's weight matrices, transposed, into v1 must make v1 print exactly v2's
output.]]

lesson.step("exercise 3.1: v2's weights, transposed, into v1", function()
    lesson.show("sa_v2.W_query.weight.shape (d_out × d_in)", sa_v2.W_query.weight.shape)
    lesson.show("sa_v1.W_query.shape (d_in × d_out)", sa_v1.W_query.shape)
    sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T) -- Python: sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)
    sa_v1.W_key   = nn.Parameter(sa_v2.W_key.weight.T)   -- Python: sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)
    sa_v1.W_value = nn.Parameter(sa_v2.W_value.weight.T) -- Python: sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)
    context_vecs_v1 = sa_v1(inputs)
    lesson.show("sa_v1(inputs)", context_vecs_v1)
    lesson.check("v1 with v2's weights prints v2's output (In [33])", context_vecs_v1, [=[
tensor([[-0.0739,  0.0713],
        [-0.0748,  0.0703],
        [-0.0749,  0.0702],
        [-0.0760,  0.0685],
        [-0.0763,  0.0679],
        [-0.0754,  0.0693]], grad_fn=<MmBackward0>)]=])
    lesson.agree("v1 and v2 outputs are identical, bit for bit", context_vecs_v1, context_vecs_v2)
end)
