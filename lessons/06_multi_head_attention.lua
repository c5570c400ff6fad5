-- 06_multi_head_attention.lua — Build a Large Language Model (From Scratch), ch. 3 §3.6: multi-head
-- attention, first as several CausalAttention heads side by side (MultiHeadAttentionWrapper), then as
-- one module that splits its projections into heads (MultiHeadAttention), followed stage by stage with
-- attention.trace.
--   ./attn lessons/06_multi_head_attention.lua           straight through
--   ./attn --step lessons/06_multi_head_attention.lua    one step at a time
-- Every tensor the book prints in §3.6 is printed here, computed by attn, and checked against the
-- book's text (the [=[ ]=] strings are the book's output, the expected side only).

lesson.title("Multi-head attention",
             {source = "Build a Large Language Model (From Scratch), ch. 3 §3.6 (In [48]–[54]), exercises 3.2 and 3.3"})

lesson.section("3.6  Extending single-head attention to multi-head attention")

lesson.say[[
"Multi-head" means splitting the attention mechanism into several "heads" that work
independently. The CausalAttention module of §3.5.3 is single-head attention: one set of
weights W_q, W_k, W_v, one matrix of attention weights α, one context vector z^(i) per token.

We start from where §3.5.3 ended: the six tokens of "Your journey starts with one step" as
3-dimensional vectors x^(1) … x^(6), and a batch of two copies of that text, stacked along a new
first dimension (the book's dim=0 is attn's dim 1).
]]

lesson.step("the inputs and the batch (In [44])", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89},   -- Your     (x^(1))
        {0.55, 0.87, 0.66},   -- journey  (x^(2))
        {0.57, 0.85, 0.64},   -- starts   (x^(3))
        {0.22, 0.58, 0.33},   -- with     (x^(4))
        {0.77, 0.25, 0.10},   -- one      (x^(5))
        {0.05, 0.80, 0.55},   -- step     (x^(6))
    }
    tokens = {"Your", "journey", "starts", "with", "one", "step"}
    batch = torch.stack({inputs, inputs}, 1)     -- Python: torch.stack((inputs, inputs), dim=0)
    lesson.show("batch.shape", batch.shape)
    lesson.check("2 texts, 6 tokens, 3 dimensions (In [44])", batch.shape, "torch.Size([2, 6, 3])")
end)

lesson.say[[
The building block of §3.6.1 is CausalAttention, written here as the book writes it in §3.5.3
(In [46]): three nn.Linear projections Q = W_q(X), K = W_k(X), V = W_v(X), scores ω = Q·Kᵀ, the
positions above the diagonal set to -∞ (a token may not look at later tokens), softmax of ω/√d_k
into weights α, dropout on α, and Z = α·V. Lua counts dimensions from 1, so the book's
keys.transpose(1, 2) (swap the last two of three dims) is keys:transpose(2, 3) here.
]]

lesson.step("class CausalAttention (In [46], §3.5.3)", function()
    CausalAttention = nn.Module:extend("CausalAttention")   -- Python: class CausalAttention(nn.Module):

    function CausalAttention:__init(d_in, d_out, context_length, dropout, qkv_bias)
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, {bias = qkv_bias or false})   -- Python: bias=qkv_bias
        self.W_key   = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
        self.W_value = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
        self.dropout = nn.Dropout(dropout)
        self:register_buffer("mask", torch.triu(torch.ones(context_length, context_length), {diagonal = 1}))
    end

    function CausalAttention:forward(x)
        local b, num_tokens, d_in = table.unpack(x.shape)     -- Python: b, num_tokens, d_in = x.shape
        local keys = self.W_key(x)
        local queries = self.W_query(x)
        local values = self.W_value(x)

        local attn_scores = queries:matmul(keys:transpose(2, 3))   -- Python: queries @ keys.transpose(1, 2)
        attn_scores:masked_fill_(
            self.mask:bool()[{{1, num_tokens}, {1, num_tokens}}], -torch.inf)   -- Python: [:num_tokens, :num_tokens]
        local attn_weights = torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1)   -- Python: **0.5, dim=-1
        attn_weights = self.dropout(attn_weights)

        local context_vec = attn_weights:matmul(values)       -- Python: attn_weights @ values
        return context_vec
    end
end)

lesson.say[[
With the seed 123, d_out = 2 and dropout 0 it gives §3.5.3's context vectors (In [58]). attn
also ships this class as nn.CausalAttention; made with the same seed it draws the same weights
in the same order and prints the same numbers. (The library runs the same stages, so its bits
are the same too; attention.fused, one pass that adds up in another order, runs only when asked
for with use_fused = true.)
]]

lesson.step("CausalAttention and nn.CausalAttention, seed 123 (In [58])", function()
    torch.manual_seed(123)
    context_length = batch.shape[2]               -- Python: batch.shape[1]
    d_in, d_out = 3, 2
    ca = CausalAttention(d_in, d_out, context_length, 0.0)
    ca_vecs = ca(batch)
    torch.manual_seed(123)
    local lib = nn.CausalAttention(d_in, d_out, context_length, 0.0)
    local lib_vecs = lib(batch)
    lesson.show("ca(batch)", ca_vecs)
    lesson.check("CausalAttention, seed 123 (In [58])", ca_vecs, [=[
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
         [-0.5299, -0.1081]]], grad_fn=<UnsafeViewBackward0>)]=])
    lesson.check("nn.CausalAttention prints the same (In [58])", lib_vecs, [=[
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
         [-0.5299, -0.1081]]], grad_fn=<UnsafeViewBackward0>)]=])
    lesson.agree("the same weights W_q, W_k, W_v, bit for bit",
        {lib.W_query.weight, lib.W_key.weight, lib.W_value.weight}, {ca.W_query.weight, ca.W_key.weight, ca.W_value.weight})
    lesson.agree("the same context vectors", lib_vecs, ca_vecs, {tol = 1e-6})
end)

lesson.section("3.6.1  Stacking multiple single-head attention layers")

lesson.say[[
The simplest multi-head attention runs several CausalAttention modules on the same input and puts
their outputs side by side (Figure 3.24). With two heads there are two sets of weights, W_q1, W_k1,
W_v1 and W_q2, W_k2, W_v2, two context matrices Z1 and Z2, and the result is [Z1 Z2]: the two
matrices concatenated along the last dimension. MultiHeadAttentionWrapper keeps its heads in an
nn.ModuleList; Python's list comprehension is a Lua loop.
]]

lesson.step("class MultiHeadAttentionWrapper (In [48])", function()
    MultiHeadAttentionWrapper = nn.Module:extend("MultiHeadAttentionWrapper")   -- Python: class MultiHeadAttentionWrapper(nn.Module):

    function MultiHeadAttentionWrapper:__init(d_in, d_out, context_length, dropout, num_heads, qkv_bias)
        local heads = {}
        for i = 1, num_heads do                   -- Python: [... for _ in range(num_heads)]
            heads[i] = CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
        end
        self.heads = nn.ModuleList(heads)
    end

    function MultiHeadAttentionWrapper:forward(x)
        local outs = {}
        for i, head in ipairs(self.heads) do      -- Python: [head(x) for head in self.heads]
            outs[i] = head(x)
        end
        return torch.cat(outs, -1)                -- Python: torch.cat(..., dim=-1)
    end
end)

lesson.say[[
Two heads (num_heads = 2), each with d_out = 2: every token gets a context vector of
d_out · num_heads = 4 dimensions (Figure 3.25). The output has shape [2, 6, 4]: 2 texts, 6 tokens,
4 dimensions. The two texts are the same, so the two 6 × 4 blocks are the same. (The translation's
caption of Figure 3.25 says the columns are the embedding dimension "specified by d_out=4"; its own
last sentence, 2 heads × 2 = 4, and the code have d_out = 2 per head: 4 is the width of the result.)
]]

lesson.step("the wrapper on the batch, seed 123 (In [49])", function()
    torch.manual_seed(123)
    context_length = batch.shape[2]               -- Python: batch.shape[1]  (the number of tokens)
    d_in, d_out = 3, 2
    mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, 2)   -- Python: num_heads=2
    context_vecs = mha(batch)
    lesson.show("context_vecs", context_vecs)
    lesson.show("context_vecs.shape", context_vecs.shape)
    lesson.check("two heads side by side (In [49])", context_vecs, [=[
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
         [-0.5299, -0.1081,  0.5077,  0.3493]]], grad_fn=<CatBackward0>)]=])
    lesson.check("its shape (In [49])", "context_vecs.shape: " .. tostring(context_vecs.shape),
        "context_vecs.shape: torch.Size([2, 6, 4])")
end)

lesson.say[[
Look at the first two columns: they are In [58]'s CausalAttention output. After
torch.manual_seed(123), head 1 is made first, so it draws exactly the weights ca drew; head 2 draws
the next numbers of the generator, so it has weights of its own and gives columns 3 and 4.
(attn's index {{}, {}, {1, 2}} is Python's [:, :, 0:2].)
]]

lesson.step("head 1 is §3.5.3's CausalAttention; head 2 is new", function()
    Z1 = context_vecs[{{}, {}, {1, 2}}]            -- Python: context_vecs[:, :, 0:2]
    Z2 = context_vecs[{{}, {}, {3, 4}}]            -- Python: context_vecs[:, :, 2:4]
    lesson.show("Z1", Z1)
    lesson.agree("Z1 = ca(batch) (In [58]), bit for bit", Z1, ca_vecs)
    lesson.agree("head 1 has ca's W_q", mha.heads[1].W_query.weight, ca.W_query.weight)
    lesson.agree("Z2 = head 2 run on its own", Z2, mha.heads[2](batch))
end)

lesson.say[[
attn's library has the same class, nn.MultiHeadAttentionWrapper (keyword arguments such as
num_heads=2 go positionally or in a trailing options table). With the same seed it is the same.
]]

lesson.step("nn.MultiHeadAttentionWrapper gives the same", function()
    torch.manual_seed(123)
    local lib = nn.MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, {num_heads = 2})
    local lib_vecs = lib(batch)
    lesson.show("nn.MultiHeadAttentionWrapper(batch)", lib_vecs)
    lesson.check("the library's wrapper (In [49])", lib_vecs, [=[
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
         [-0.5299, -0.1081,  0.5077,  0.3493]]], grad_fn=<CatBackward0>)]=])
    lesson.agree("equal to the lesson's wrapper", lib_vecs, context_vecs, {tol = 1e-6})
end)

lesson.say[[
Exercise 3.2 (returning 2-dimensional embedding vectors). Change the arguments of
MultiHeadAttentionWrapper(..., num_heads=2) so that the context vectors are 2-dimensional instead
of 4-dimensional, keeping num_heads = 2. Hint: the class stays as it is; change one argument.

The output width is d_out · num_heads, so with two heads d_out = 1 gives 2 dimensions: each head
now projects every token to a single number (W_q, W_k, W_v are 1 × 3), and the two heads' numbers
are put side by side. The book prints no numbers for this exercise; these are attn's, with the
seed 123 as In [49].
]]

lesson.step("Exercise 3.2: d_out = 1 gives 2-dimensional context vectors", function()
    torch.manual_seed(123)
    mha_2d = MultiHeadAttentionWrapper(d_in, 1, context_length, 0.0, 2)   -- Python: d_out=1, num_heads=2
    context_vecs_2d = mha_2d(batch)
    lesson.show("context_vecs", context_vecs_2d)
    lesson.show("context_vecs.shape", context_vecs_2d.shape)
    lesson.check("2-dimensional context vectors, as the exercise asks", context_vecs_2d.shape[3], 2)
    lesson.agree("column 1 is head 1's output", context_vecs_2d[{{}, {}, {1}}], mha_2d.heads[1](batch))
    lesson.agree("column 2 is head 2's output", context_vecs_2d[{{}, {}, {2}}], mha_2d.heads[2](batch))
end)

lesson.section("3.6.2  Implementing multi-head attention with weight splits")

lesson.say[[
The wrapper runs its heads one after the other, each with its own three matrix products.
MultiHeadAttention does the same work with one larger W_q (and W_k, W_v): one product Q = W_q(X)
of width d_out, then the columns are split into num_heads heads of head_dim = d_out / num_heads
columns each (Figure 3.26). The split is a view, (b, num_tokens, d_out) → (b, num_tokens,
num_heads, head_dim), then a transpose to (b, num_heads, num_tokens, head_dim): now the heads sit
in a batch dimension and one batched matrix product computes every head's scores. At the end the
heads are transposed back and flattened to (b, num_tokens, d_out), and a linear layer out_proj
mixes them. The book's dims 1, 2, 3 are attn's 2, 3, 4.
]]

lesson.step("class MultiHeadAttention (In [50])", function()
    MultiHeadAttention = nn.Module:extend("MultiHeadAttention")   -- Python: class MultiHeadAttention(nn.Module):

    function MultiHeadAttention:__init(d_in, d_out, context_length, dropout, num_heads, qkv_bias)
        assert(d_out % num_heads == 0, "d_out must be divisible by num_heads")

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads -- Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, {bias = qkv_bias or false})   -- Python: bias=qkv_bias
        self.W_key = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
        self.W_value = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
        self.out_proj = nn.Linear(d_out, d_out)  -- Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self:register_buffer("mask", torch.triu(torch.ones(context_length, context_length), {diagonal = 1}))
    end

    function MultiHeadAttention:forward(x)
        local b, num_tokens, d_in = table.unpack(x.shape)     -- Python: b, num_tokens, d_in = x.shape

        local keys = self.W_key(x) -- Shape: (b, num_tokens, d_out)
        local queries = self.W_query(x)
        local values = self.W_value(x)

        -- Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys:view(b, num_tokens, self.num_heads, self.head_dim)
        values = values:view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries:view(b, num_tokens, self.num_heads, self.head_dim)

        -- Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys:transpose(2, 3)               -- Python: keys.transpose(1, 2)
        queries = queries:transpose(2, 3)         -- Python: queries.transpose(1, 2)
        values = values:transpose(2, 3)           -- Python: values.transpose(1, 2)

        -- Dot product for each head
        local attn_scores = queries:matmul(keys:transpose(3, 4))   -- Python: queries @ keys.transpose(2, 3)

        -- Original mask truncated to the number of tokens and converted to boolean
        local mask_bool = self.mask:bool()[{{1, num_tokens}, {1, num_tokens}}]   -- Python: [:num_tokens, :num_tokens]
        attn_scores:masked_fill_(mask_bool, -torch.inf)

        local attn_weights = torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1)   -- Python: **0.5, dim=-1
        attn_weights = self.dropout(attn_weights)

        -- Shape: (b, num_tokens, num_heads, head_dim)
        local context_vec = attn_weights:matmul(values):transpose(2, 3)   -- Python: (attn_weights @ values).transpose(1, 2)

        -- Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec:contiguous():view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec) -- optional projection

        return context_vec
    end
end)

lesson.say[[
The key operation is the batched matrix product of 4-dimensional tensors. A small example: a tensor
a of shape (b, num_heads, num_tokens, head_dim) = (1, 2, 3, 4), one text, two heads, three tokens,
four dimensions per head.
]]

lesson.step("a 4-D tensor a of shape (1, 2, 3, 4) (In [51])", function()
    a = torch.tensor{{{{0.2745, 0.6584, 0.2775, 0.8573},
                       {0.8993, 0.0390, 0.9268, 0.7388},
                       {0.7179, 0.7058, 0.9156, 0.4340}},

                      {{0.0772, 0.3565, 0.1479, 0.5331},
                       {0.4066, 0.2318, 0.4545, 0.9737},
                       {0.4606, 0.5159, 0.4220, 0.5786}}}}
    lesson.show("a.shape", a.shape)
    lesson.check("(b, num_heads, num_tokens, head_dim) (In [51])", a.shape, "torch.Size([1, 2, 3, 4])")
end)

lesson.say[[
Multiply a by a view of itself with its last two dims (num_tokens and head_dim) swapped. matmul
treats the leading dims (b, num_heads) as a batch and multiplies the last two dims' matrices, one
pair per head: each head's 3 × 4 matrix by its 4 × 3 transpose. The book's a.transpose(2, 3) is
a:transpose(3, 4) in attn, whose dims count from 1.
]]

lesson.step("a @ a.transpose(2, 3): every head at once (In [52])", function()
    res = a:matmul(a:transpose(3, 4))             -- Python: a @ a.transpose(2, 3)
    lesson.show(res)
    lesson.check("a @ a.transpose(2, 3) (In [52])", res, [=[
tensor([[[[1.3208, 1.1631, 1.2879],
          [1.1631, 2.2150, 1.8424],
          [1.2879, 1.8424, 2.0402]],

         [[0.4391, 0.7003, 0.5903],
          [0.7003, 1.3737, 1.0620],
          [0.5903, 1.0620, 0.9912]]]])]=])
end)

lesson.say[[
The same numbers one head at a time: take each head's 3 × 4 matrix out of a and multiply it by its
transpose. The batched product is only a more compact way to run this loop (a loop that adds in a
slightly different order, so the last bit can differ: PyTorch sums a batched product this small in its
own loop and a single matrix product through BLAS, and attn does the same).
]]

lesson.step("the same, one head at a time (In [53])", function()
    first_head = a[{1, 1, {}, {}}]                -- Python: a[0, 0, :, :]
    first_res = first_head:matmul(first_head.T)   -- Python: first_head @ first_head.T
    lesson.show("First head", first_res)
    second_head = a[{1, 2, {}, {}}]               -- Python: a[0, 1, :, :]
    second_res = second_head:matmul(second_head.T)
    lesson.show("Second head", second_res)
    lesson.check("first head (In [53])", first_res, [=[
tensor([[1.3208, 1.1631, 1.2879],
        [1.1631, 2.2150, 1.8424],
        [1.2879, 1.8424, 2.0402]])]=])
    lesson.check("second head (In [53])", second_res, [=[
tensor([[0.4391, 0.7003, 0.5903],
        [0.7003, 1.3737, 1.0620],
        [0.5903, 1.0620, 0.9912]])]=])
    local by_loop, by_batch = {}, {}
    for h = 1, a.shape[2] do                      -- every head: the loop the batched product replaces
        local head = a[{1, h, {}, {}}]
        by_loop[h], by_batch[h] = head:matmul(head.T), res[{1, h}]
    end
    -- PyTorch adds a product this small (4 · 3 · 3 < 400 multiplications per head) in its own loop when it
    -- is batched, and through BLAS when it is one matrix: the last bit can differ, in PyTorch as here
    lesson.agree("the per-head loop equals the batched product (to the last bit or two)", by_loop, by_batch,
                 {tol = 1e-6})
end)

lesson.say[[
Now the class on the batch, with the seed 123, d_out = 2 and two heads, so head_dim = 1: each head
sees one column of Q, K and V. The output has d_out = 2 dimensions per token, not 4 as the
wrapper's: here d_out is the total width, shared by the heads.
]]

lesson.step("MultiHeadAttention on the batch, seed 123 (In [54])", function()
    torch.manual_seed(123)
    batch_size, context_length, d_in = table.unpack(batch.shape)   -- Python: ... = batch.shape
    d_out = 2
    mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, 2)   -- Python: num_heads=2
    context_vecs = mha(batch)
    lesson.show("context_vecs", context_vecs)
    lesson.show("context_vecs.shape", context_vecs.shape)
    lesson.check("MultiHeadAttention, seed 123 (In [54])", context_vecs, [=[
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
         [0.2575, 0.4028]]], grad_fn=<ViewBackward0>)]=])
    lesson.check("its shape (In [54])", "context_vecs.shape: " .. tostring(context_vecs.shape),
        "context_vecs.shape: torch.Size([2, 6, 2])")
end)

lesson.say[[
The book: "mathematically, MultiHeadAttention implements the same concept as
MultiHeadAttentionWrapper" (Figure 3.26). The wrapper keeps a W_q per head, W_q1 and W_q2, and
computes Q1 = X W_q1 and Q2 = X W_q2; MultiHeadAttention keeps one W_q, computes Q = X W_q once and
splits its columns into Q1 and Q2. The two are the same computation when W_q = [W_q1 W_q2], the
heads' matrices side by side (and likewise for W_k, W_v), and when out_proj changes nothing (an
identity matrix, bias 0). Take the wrapper of exercise 3.2, two heads with d_out = 1, and put its
heads' weights into a MultiHeadAttention with d_out = 2, so that head_dim = 1. nn.Linear stores
W transposed (d_out × d_in), so side by side columns are stacked rows here.
]]

lesson.step("Figure 3.26: W_q = [W_q1 W_q2] makes the weight split equal the wrapper", function()
    split = MultiHeadAttention(d_in, 2, context_length, 0.0, 2)
    torch.no_grad(function()                           -- Python: with torch.no_grad():
        for _, name in ipairs({"W_query", "W_key", "W_value"}) do
            split[name].weight:copy_(torch.cat({mha_2d.heads[1][name].weight, mha_2d.heads[2][name].weight}, 1))
        end
        split.out_proj.weight:copy_(torch.eye(2))      -- out_proj does nothing
        split.out_proj.bias:zero_()
    end)
    lesson.show("W_q1ᵀ (head 1's W_query.weight)", mha_2d.heads[1].W_query.weight)
    lesson.show("W_q2ᵀ (head 2's W_query.weight)", mha_2d.heads[2].W_query.weight)
    lesson.show("W_qᵀ = [W_q1 W_q2]ᵀ", split.W_query.weight)
    lesson.show("split(batch)", split(batch))
    lesson.agree("the weight split computes the wrapper's context vectors", split(batch), context_vecs_2d,
                 {tol = 1e-6})
end)

lesson.say[[
What happened inside? attention.trace follows mha through its stages, computing each one from mha's
own layers with attn's attention stages, and shows every matrix with the tokens as labels (one
matrix per text and head). First the three projections Q = W_q(X), K = W_k(X), V = W_v(X), each
6 × 2 per text. The seed is the one ca was made with and W_q, W_k, W_v are drawn in the same order
with the same shapes, so they are ca's weights: Q, K and V are those of In [58].
]]

lesson.step("trace: the projections Q, K, V", function()
    tr = attention.trace{module = mha, x = batch, tokens = tokens}
    tr:step("queries")
    tr:step("keys")
    tr:step("values")
    lesson.agree("W_q, W_k, W_v are those of ca (In [58])", {mha.W_query.weight, mha.W_key.weight, mha.W_value.weight},
        {ca.W_query.weight, ca.W_key.weight, ca.W_value.weight})
end)

lesson.say[[
The split: view (2, 6, 2) as (2, 6, 2, 1) and swap the token and head dims, (2, 2, 6, 1). Head 1
gets column 1 of Q, K and V, head 2 gets column 2. Nothing is copied; the trace shows the queries.
]]

lesson.step("trace: split into heads", function()
    tr:step("split")
    lesson.agree("queries as (b, num_heads, num_tokens, head_dim)", tr.split.shape,
        {batch_size, mha.num_heads, context_length, mha.head_dim})
    lesson.agree("head 2's queries are column 2 of Q", tr.split[{1, 2, {}, 1}], tr.queries[{1, {}, 2}])
end)

lesson.say[[
Each head computes its own scores ω = Q_h·K_hᵀ, a 6 × 6 matrix per text and head, in one batched
product (as a @ a.transpose(2, 3) above). The causal mask sets the scores above the diagonal to -∞.
Then the division by √d_k, where d_k is the head's width: here 1, so it changes nothing.
]]

lesson.step("trace: per-head scores, masked, scaled", function()
    tr:step("scores")
    tr:step("masked")
    tr:step("scaled")
    lesson.agree("scores for every text and head: (b, num_heads, num_tokens, num_tokens)", tr.scores.shape,
        {batch_size, mha.num_heads, context_length, context_length})
    lesson.agree("√d_k = √1: scaling changes nothing", tr.scaled, tr.masked)
end)

lesson.say[[
Softmax along each row turns each head's scores into attention weights α; the heatmap shades
larger weights darker. Every row sums to 1, and a token gives no weight to later tokens. The two
heads weigh the tokens differently: they are two separate attention patterns over the same text.
]]

lesson.step("trace: per-head attention weights α", function()
    tr:step("weights")
    lesson.agree("every row of α sums to 1", tr.weights:sum(-1), torch.ones(batch_size, mha.num_heads, context_length),
        {tol = 1e-6})
end)

lesson.say[[
The notes on chapter 3 picture the heads as a panel of experts reading the same sentence, each
with its own job: head 1 grammar (subject, verb, object), head 2 reference (what "it" points at),
head 3 the mood of the text. Nothing here is trained, so no head has a job yet; but each already
reads the sentence its own way. For each head, the token each token gives most weight to:
]]

lesson.step("two heads, two readings of the same text", function()
    for h = 1, mha.num_heads do
        local row = {}
        for i = 1, context_length do
            row[i] = tokens[i] .. "→" .. tokens[tr.weights[1][h][i]:argmax():item()]
        end
        lesson.show(lesson.tr("head %d", h), table.concat(row, "  "))
    end
    lesson.agree("the two heads' weights differ", torch.equal(tr.weights[1][1], tr.weights[1][2]), false)
end)

lesson.say[[
Each head's context vectors Z_h = α_h·V_h (6 × 1 per head), then the merge: transpose back to
(b, num_tokens, num_heads, head_dim) and flatten to (b, num_tokens, d_out). The first token can
only attend to itself (α = 1), so its row is its own V: the first row of In [58], since V is ca's.
]]

lesson.step("trace: per-head context vectors, and the merge", function()
    tr:step("context")
    tr:step("merged")
    lesson.check("row 'Your' of the merged Z is In [58]'s first row", tr.merged[{1, 1}]:tolist(),
        {-0.4519, 0.2216}, {tol = 5e-5})
end)

lesson.say[[
Last, out_proj, an nn.Linear(d_out, d_out) with a bias, mixes the heads' columns. Its output is
In [54], and it is mha(batch) to the last bit: the trace computes what the module computes.
]]

lesson.step("trace: out_proj", function()
    tr:step("output")
    lesson.check("the trace's output (In [54])", tr.output, [=[
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
         [0.2575, 0.4028]]], grad_fn=<ViewBackward0>)]=])
    lesson.agree("= mha(batch), bit for bit", tr.output, context_vecs)
end)

lesson.say[[
attn's library has the class too: nn.MultiHeadAttention, made with the same arguments and seed,
draws the same weights (W_q, W_k, W_v, then out_proj, as the book's __init). Its forward takes
attention.fused when it computes the same thing (no dropout, the causal mask): a single pass
that never holds the 6 × 6 score matrices, so the last bits of a sum may differ from the staged
computation; it still prints the book's numbers.
]]

lesson.step("nn.MultiHeadAttention gives the same as the book's class", function()
    torch.manual_seed(123)
    lib_mha = nn.MultiHeadAttention(d_in, d_out, context_length, 0.0, {num_heads = 2})
    local lib_vecs = lib_mha(batch)
    lesson.show("nn.MultiHeadAttention(batch)", lib_vecs)
    lesson.check("the library's MultiHeadAttention (In [54])", lib_vecs, [=[
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
         [0.2575, 0.4028]]], grad_fn=<ViewBackward0>)]=])
    lesson.agree("the same parameters, with the same names, in the same order", lib_mha:named_parameters(),
        mha:named_parameters())
    lesson.agree("equal to the lesson's class", lib_vecs, context_vecs, {tol = 1e-6})
end)

lesson.say[[
Exercise 3.3 (initializing a GPT-2 size attention module). Make a MultiHeadAttention with as many
heads as the smallest GPT-2 (12), input and output embeddings of 768 dimensions, and GPT-2's
context length of 1024 tokens. How many parameters does it have? W_q, W_k and W_v are 768 × 768
each (qkv_bias = false) and out_proj is 768 × 768 plus a bias of 768: 4 · 768² + 768. The mask is
a buffer, not a parameter. Python's sum(p.numel() for p in mha.parameters()) is a loop in Lua.
]]

lesson.step("Exercise 3.3: a GPT-2-sized MultiHeadAttention, its parameters", function()
    torch.manual_seed(123)
    mha_gpt2 = MultiHeadAttention(768, 768, 1024, 0.0, 12)
    local total = 0
    for _, p in ipairs(mha_gpt2:parameters()) do  -- Python: sum(p.numel() for p in mha.parameters())
        total = total + p:numel()
    end
    lesson.show("head_dim", mha_gpt2.head_dim)
    lesson.show(lesson.tr("parameters"), total)
    lesson.check("the book's class: 2,360,064 parameters (the English edition's solution to exercise 3.3)", total, 2360064)
    torch.manual_seed(123)
    lib_gpt2 = nn.MultiHeadAttention(768, 768, 1024, 0.0, 12)
    lib_gpt2.use_fused = true -- the fused pass, asked for: attn never takes it by itself
    lesson.check("nn.MultiHeadAttention(768, 768, 1024, 0.0, 12): the solution's 2,360,064 too", lib_gpt2:num_parameters(),
        2360064)
end)

-- The pass runs on GPT-2's 1024 tokens when the lesson runs by itself (a plain run, step mode); --check,
-- --html and a notebook run the same code on 128 (a 64th of the scores: the check takes a second, not
-- five, and 150 MB less), since they only check that the two outputs agree. (In a notebook this line
-- is not a cell: n_tokens stays nil there, and the cell uses 128.)
local mode = lesson.state().mode
n_tokens = (mode == "run" or mode == "step" or mode == "line") and 1024 or 128

lesson.say([[
A forward pass at GPT-2 size: a batch of 2 texts of %d tokens, 768 dimensions each (random
numbers stand in for token embeddings). The book's class computes 12 heads of %d × %d scores
per text; nn.MultiHeadAttention, asked with use_fused = true, takes the fused path, which never
stores them. The times are
measured on this machine with os.clock (processor time, all threads added up), so they differ
from run to run; they are shown, not checked. The two outputs must agree. (--check runs the pass
on 128 tokens, the lesson by itself on GPT-2's 1024.)
]], n_tokens, n_tokens, n_tokens)

lesson.step("Exercise 3.3: a timed forward pass at GPT-2 size", function()
    torch.manual_seed(123)
    x = torch.rand(2, n_tokens or 128, 768)                    -- Python: torch.rand(2, 1024, 768)
    local t0 = os.clock()
    out_book = mha_gpt2(x)
    local t_book = os.clock() - t0
    t0 = os.clock()
    out_lib = lib_gpt2(x)
    local t_lib = os.clock() - t0
    lesson.show("out.shape", out_book.shape)
    lesson.printf("the book's class (staged):        %.3f s", t_book)
    lesson.printf("nn.MultiHeadAttention (fused):    %.3f s", t_lib)
    lesson.agree("one 768-dimensional vector per token: the shape of x", out_book.shape, x.shape)
    lesson.agree("the two outputs agree", out_lib, out_book, {tol = 1e-5})
end)
