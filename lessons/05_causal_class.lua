-- Build a Large Language Model (From Scratch), ch. 3 §3.5.3: a batch made with torch.stack, and the
-- compact CausalAttention class (causal mask + dropout in one module), written as the book writes it and
-- run on the batch with the seed 123. Every number the book prints is checked against the book's text.
--   ./attn lessons/05_causal_class.lua           straight through
--   ./attn --step lessons/05_causal_class.lua    one step at a time

lesson.title("A compact causal attention class, on a batch",
             {source = "Build a Large Language Model (From Scratch), ch. 3 §3.5.3 (In [44]–[58])"})

lesson.section("3.5.3  Implementing a compact causal attention class")

lesson.say[[
Training feeds the model several texts at once, a batch. Here the batch is our six-token text
"Your journey starts with one step" twice: torch.stack puts the two 6 × 3 matrices one behind
the other along a new first dimension, giving a 2 × 6 × 3 tensor (2 texts, 6 tokens each, 3
dimensions per token). The book's dim=0 is attn's dim 1: attn counts dimensions from 1.]]

lesson.step("a batch of two texts (In [44])", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^(1))
        {0.55, 0.87, 0.66}, -- journey  (x^(2))
        {0.57, 0.85, 0.64}, -- starts   (x^(3))
        {0.22, 0.58, 0.33}, -- with     (x^(4))
        {0.77, 0.25, 0.10}, -- one      (x^(5))
        {0.05, 0.80, 0.55}} -- step     (x^(6))
    d_in, d_out = inputs.shape[2], 2            -- Python: d_in = inputs.shape[1]
    batch = torch.stack({inputs, inputs}, 1)    -- Python: batch = torch.stack((inputs, inputs), dim=0)
    lesson.show("batch.shape", batch.shape)     -- 2 inputs with 6 tokens each, and each token has embedding dimension 3
    lesson.check("batch shape (In [44])", batch.shape, [=[torch.Size([2, 6, 3])]=])
end)

lesson.say[[
CausalAttention is SelfAttention_v2 plus the two things of §3.5: the causal mask (scores above
the diagonal set to −∞ before the softmax) and dropout on the weights. Three details are new.
The mask is made once, for the longest text the model accepts (context_length), and stored with
register_buffer — it belongs to the module but is not trained; forward cuts it to the number of
tokens actually given. masked_fill_ with a trailing underscore changes the scores in place. And
since x now has a batch dimension, K is transposed on its last two dimensions,
keys:transpose(2, 3) — the book's keys.transpose(1, 2), counted from 0.]]

lesson.step("class CausalAttention (In [46])", function()
    CausalAttention = nn.Module:extend("CausalAttention") -- Python: class CausalAttention(nn.Module):

    function CausalAttention:__init(d_in, d_out, context_length, dropout, qkv_bias)
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, {bias = qkv_bias or false}) -- Python: nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, {bias = qkv_bias or false}) -- Python: nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, {bias = qkv_bias or false}) -- Python: nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout) -- New
        self:register_buffer("mask", torch.triu(torch.ones(context_length, context_length), {diagonal = 1})) -- New  -- Python: self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))
    end

    function CausalAttention:forward(x)
        local b, num_tokens, d_in = table.unpack(x.shape) -- New batch dimension b  -- Python: b, num_tokens, d_in = x.shape
        local keys = self.W_key(x)
        local queries = self.W_query(x)
        local values = self.W_value(x)

        local attn_scores = queries:matmul(keys:transpose(2, 3)) -- Changed transpose  -- Python: queries @ keys.transpose(1, 2)
        attn_scores:masked_fill_( -- New, _ ops are in-place
            self.mask:bool()[{{1, num_tokens}, {1, num_tokens}}], -torch.inf) -- Python: self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        local attn_weights = torch.softmax(
            attn_scores / keys.shape[-1] ^ 0.5, -1) -- Python: attn_scores / keys.shape[-1]**0.5, dim=-1
        attn_weights = self.dropout(attn_weights) -- New

        local context_vec = attn_weights:matmul(values) -- Python: attn_weights @ values
        return context_vec
    end
    lesson.show("CausalAttention", CausalAttention)
end)

lesson.say[[
Made with the seed 123 (so its three nn.Linear layers draw different weights from sa_v2's seed
789) and dropout 0, the module maps the 2 × 6 × 3 batch to 2 × 6 × 2 context vectors: one z^(i)
per token per text. The two texts are the same, so the two 6 × 2 blocks are the same.]]

lesson.step("CausalAttention on the batch, seed 123 (In [58])", function()
    torch.manual_seed(123)
    context_length = batch.shape[2] -- Python: context_length = batch.shape[1]
    ca = CausalAttention(d_in, d_out, context_length, 0.0)
    context_vecs = ca(batch)
    lesson.show("ca", ca)
    lesson.show("context_vecs", context_vecs)
    lesson.show("context_vecs.shape", context_vecs.shape)
    lesson.check("CausalAttention output (In [58])", context_vecs, [=[
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
    lesson.check("context_vecs.shape (In [58])", "context_vecs.shape: " .. tostring(context_vecs.shape),
        "context_vecs.shape: torch.Size([2, 6, 2])")
end)

lesson.say[[
Why cut the mask to num_tokens? A batch may be shorter than context_length. Give the same module
only the first four tokens, "Your journey starts with": the mask is cut to 4 × 4, and — the
point of causal attention — the four context vectors are exactly those of the full text, because
no token ever looked at the two that are now missing.]]

lesson.step("a shorter batch: the first four tokens", function()
    short = batch[{{}, {1, 4}}]                          -- Python: batch[:, :4]
    short_vecs = ca(short)
    lesson.show("short.shape", short.shape)
    lesson.show("ca(short)", short_vecs)
    lesson.check("rows 1–4 of In [58]", short_vecs, [=[
tensor([[[-0.4519,  0.2216],
         [-0.5874,  0.0058],
         [-0.6300, -0.0632],
         [-0.5675, -0.0843]],

        [[-0.4519,  0.2216],
         [-0.5874,  0.0058],
         [-0.6300, -0.0632],
         [-0.5675, -0.0843]]], grad_fn=<UnsafeViewBackward0>)]=])
    lesson.agree("identical, bit for bit, to the first four rows of the full batch",
        short_vecs, context_vecs[{{}, {1, 4}}])
end)

-- attn's own nn.CausalAttention (if this build has it) is the same computation as a library class.
if nn.CausalAttention then
    lesson.say[[
attn also ships the book's class as nn.CausalAttention. Made with the same seed and arguments,
it draws the same weights in the same order and prints the book's context vectors. It runs the
same stages as the lesson's class, so the two agree to the last bit.]]

    lesson.step("the library's nn.CausalAttention gives the same", function()
        torch.manual_seed(123)
        ca_lib = nn.CausalAttention(d_in, d_out, context_length, 0.0)
        context_vecs_lib = ca_lib(batch)
        lesson.show("nn.CausalAttention(batch)", context_vecs_lib)
        lesson.check("nn.CausalAttention output (In [58])", context_vecs_lib, [=[
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
        lesson.agree("nn.CausalAttention = the lesson's class", context_vecs_lib, context_vecs)
    end)
end
