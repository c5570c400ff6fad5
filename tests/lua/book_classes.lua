-- book_classes.lua — the book's chapter-3 attention classes (ch. 3, LLMs from scratch), written in
-- Lua exactly as the book writes them in Python (only 1-based dims, marked "Python: ..."), for the
-- specs that check them against the book's printed numbers: book_random_spec.lua (every printed
-- output that depends on random numbers) and trace_spec.lua (the tracer, stage by stage). Loaded with
-- dofile, like support.lua; each load makes fresh classes. The library's own versions, written for
-- speed and checks, are in src/lua/nn/attention.lua.
local nn, torch = nn, torch

-- In [27]
local SelfAttention_v1 = nn.Module:extend("SelfAttention_v1")
function SelfAttention_v1:__init(d_in, d_out)
    self.W_query = nn.Parameter(torch.rand(d_in, d_out))
    self.W_key   = nn.Parameter(torch.rand(d_in, d_out))
    self.W_value = nn.Parameter(torch.rand(d_in, d_out))
end
function SelfAttention_v1:forward(x)
    local keys = x:matmul(self.W_key)
    local queries = x:matmul(self.W_query)
    local values = x:matmul(self.W_value)
    local attn_scores = queries:matmul(keys.T) -- omega
    local attn_weights = torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1)
    local context_vec = attn_weights:matmul(values)
    return context_vec
end

-- In [30]
local SelfAttention_v2 = nn.Module:extend("SelfAttention_v2")
function SelfAttention_v2:__init(d_in, d_out, qkv_bias)
    self.W_query = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
    self.W_key   = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
    self.W_value = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
end
function SelfAttention_v2:forward(x)
    local keys = self.W_key(x)
    local queries = self.W_query(x)
    local values = self.W_value(x)
    local attn_scores = queries:matmul(keys.T)
    local attn_weights = torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1)
    local context_vec = attn_weights:matmul(values)
    return context_vec
end

-- In [46]
local CausalAttention = nn.Module:extend("CausalAttention")
function CausalAttention:__init(d_in, d_out, context_length, dropout, qkv_bias)
    self.d_out = d_out
    self.W_query = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
    self.W_key   = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
    self.W_value = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
    self.dropout = nn.Dropout(dropout) -- New
    self:register_buffer("mask", torch.triu(torch.ones(context_length, context_length), {diagonal = 1})) -- New
end
function CausalAttention:forward(x)
    local b, num_tokens, d_in = table.unpack(x.shape) -- New batch dimension b
    local keys = self.W_key(x)
    local queries = self.W_query(x)
    local values = self.W_value(x)
    local attn_scores = queries:matmul(keys:transpose(2, 3)) -- Python: keys.transpose(1, 2)
    attn_scores:masked_fill_(self.mask:bool()[{{1, num_tokens}, {1, num_tokens}}], -torch.inf)
    local attn_weights = torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1)
    attn_weights = self.dropout(attn_weights) -- New
    local context_vec = attn_weights:matmul(values)
    return context_vec
end

-- In [48]
local MultiHeadAttentionWrapper = nn.Module:extend("MultiHeadAttentionWrapper")
function MultiHeadAttentionWrapper:__init(d_in, d_out, context_length, dropout, num_heads, qkv_bias)
    local heads = {}
    for i = 1, num_heads do
        heads[i] = CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
    end
    self.heads = nn.ModuleList(heads)
end
function MultiHeadAttentionWrapper:forward(x)
    local outs = {}
    for i, head in ipairs(self.heads) do outs[i] = head(x) end
    return torch.cat(outs, -1)
end

-- In [50]
local MultiHeadAttention = nn.Module:extend("MultiHeadAttention")
function MultiHeadAttention:__init(d_in, d_out, context_length, dropout, num_heads, qkv_bias)
    assert(d_out % num_heads == 0, "d_out must be divisible by num_heads")
    self.d_out = d_out
    self.num_heads = num_heads
    self.head_dim = d_out // num_heads -- Reduce the projection dim to match desired output dim
    self.W_query = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
    self.W_key = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
    self.W_value = nn.Linear(d_in, d_out, {bias = qkv_bias or false})
    self.out_proj = nn.Linear(d_out, d_out) -- Linear layer to combine head outputs
    self.dropout = nn.Dropout(dropout)
    self:register_buffer("mask", torch.triu(torch.ones(context_length, context_length), {diagonal = 1}))
end
function MultiHeadAttention:forward(x)
    local b, num_tokens, d_in = table.unpack(x.shape)
    local keys = self.W_key(x) -- Shape: (b, num_tokens, d_out)
    local queries = self.W_query(x)
    local values = self.W_value(x)
    keys = keys:view(b, num_tokens, self.num_heads, self.head_dim)
    values = values:view(b, num_tokens, self.num_heads, self.head_dim)
    queries = queries:view(b, num_tokens, self.num_heads, self.head_dim)
    keys = keys:transpose(2, 3) -- Python: transpose(1, 2)
    queries = queries:transpose(2, 3)
    values = values:transpose(2, 3)
    local attn_scores = queries:matmul(keys:transpose(3, 4)) -- Python: keys.transpose(2, 3)
    local mask_bool = self.mask:bool()[{{1, num_tokens}, {1, num_tokens}}]
    attn_scores:masked_fill_(mask_bool, -torch.inf)
    local attn_weights = torch.softmax(attn_scores / keys.shape[-1] ^ 0.5, -1)
    attn_weights = self.dropout(attn_weights)
    local context_vec = attn_weights:matmul(values):transpose(2, 3)
    context_vec = context_vec:contiguous():view(b, num_tokens, self.d_out)
    context_vec = self.out_proj(context_vec) -- optional projection
    return context_vec
end

return {
    SelfAttention_v1 = SelfAttention_v1,
    SelfAttention_v2 = SelfAttention_v2,
    CausalAttention = CausalAttention,
    MultiHeadAttentionWrapper = MultiHeadAttentionWrapper,
    MultiHeadAttention = MultiHeadAttention,
}
