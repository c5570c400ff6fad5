-- attention_nn.lua — help for the books' attention classes (nn/attention.lua):
-- nn.SelfAttention_v1 ... nn.MultiHeadAttention (Build a Large Language Model (From Scratch), ch. 3),
-- nn.MultiHeadedAttention (Python Deep Learning, ch. 7) and nn.DotProductAttention, nn.MLPAttention (d2l). Loaded by attn.docs with its helpers.

local D = require("attn.docs.define")
local def, class, mdef = D.def, D.class, D.mdef
local nn = require("attn.nn")

-- What every class's forward does; said once here, referred to in each entry.
local paths = [=[Attention is computed one of two ways. Staged, the default at every size: scores, scale,
mask, softmax, dropout, weighted sum, each an attention.* stage, exactly the operations of the book's
forward, so every number is PyTorch's to the last bit (and prints PyTorch's digits); the weights are
kept in m.last_weights. Fused, only when asked for with m.use_fused = true: attention.fused, one pass
on all cores that never holds the score matrix, within 1e-5 of the stages (it adds in another order),
taken when it computes the same thing (eval mode or dropout 0, the causal mask or none);
m.last_weights is then nil. attn never switches by itself.]=]

local keywords = [=[Python's keyword arguments go in a trailing options table:
num_heads=2 is {num_heads = 2}, qkv_bias=True is {qkv_bias = true} (or the value in its place).]=]

-- ---- ch. 3 of Build a Large Language Model (From Scratch) -------------------------------------------

class("SelfAttention_v1", "nn.SelfAttention_v1(d_in, d_out)", [=[
The book's first self-attention class (§3.4.2, In [27]): three weight matrices W_query, W_key,
W_value of shape [d_in, d_out] made with nn.Parameter(torch.rand(d_in, d_out)), so after the same
torch.manual_seed they hold the book's numbers. Calling it on x [num_tokens, d_in] (or a batch
[b, num_tokens, d_in]) gives the context vectors softmax(Q·Kᵀ / √d_out)·V, with Q = x·W_query and so
on. ]=] .. paths, [=[
torch.manual_seed(123)
sa_v1 = nn.SelfAttention_v1(3, 2)      -- In [28]; inputs: see ?torch.tensor
sa_v1(inputs)
--> tensor([[0.2996, 0.8053],
-->         [0.3061, 0.8210],
-->         [0.3058, 0.8203],
-->         [0.2948, 0.7939],
-->         [0.2927, 0.7891],
-->         [0.2990, 0.8040]], grad_fn=<MmBackward0>)]=])

mdef("SelfAttention_v1", "__init", "SelfAttention_v1:__init(d_in, d_out)", [=[
What nn.SelfAttention_v1(d_in, d_out) runs: draws W_query, W_key and W_value, in that order, each
torch.rand(d_in, d_out), as parameters.]=], [=[
sa = nn.SelfAttention_v1(3, 2)
sa.W_query.shape, sa:num_parameters()
--> torch.Size([3, 2])	18]=])

mdef("SelfAttention_v1", "forward", "sa:forward(x)", [=[
keys = x·W_key, queries = x·W_query, values = x·W_value, then attention: the context vectors, one per
row of x. x is [num_tokens, d_in] or [b, num_tokens, d_in]; its last dim must be d_in.]=], [=[
torch.manual_seed(123)
nn.SelfAttention_v1(3, 2):forward(inputs)[2]      -- z^(2), In [26]
--> tensor([0.3061, 0.8210], grad_fn=<SelectBackward0>)]=])

class("SelfAttention_v2", "nn.SelfAttention_v2(d_in, d_out [, qkv_bias = false])", [=[
The book's self-attention with nn.Linear layers (§3.4.2, In [30]): W_query, W_key, W_value are
nn.Linear(d_in, d_out, {bias = qkv_bias}), created in that order with PyTorch's initialisation, so
after torch.manual_seed(789) the output is the book's In [33]. ]=] .. keywords .. " " .. paths, [=[
torch.manual_seed(789)
sa_v2 = nn.SelfAttention_v2(3, 2)      -- In [33]
sa_v2(inputs)
--> tensor([[-0.0739,  0.0713],
-->         [-0.0748,  0.0703],
-->         [-0.0749,  0.0702],
-->         [-0.0760,  0.0685],
-->         [-0.0763,  0.0679],
-->         [-0.0754,  0.0693]], grad_fn=<MmBackward0>)]=])

mdef("SelfAttention_v2", "__init", "SelfAttention_v2:__init(d_in, d_out [, qkv_bias])", [=[
What nn.SelfAttention_v2(...) runs: makes W_query, W_key and W_value, nn.Linear layers with a bias
when qkv_bias is true.]=], [=[
#nn.SelfAttention_v2(3, 2):parameters(), #nn.SelfAttention_v2(3, 2, {qkv_bias = true}):parameters()
--> 3	6]=])

mdef("SelfAttention_v2", "forward", "sa:forward(x)", [=[
Projects x with the three layers and computes self-attention: x [num_tokens, d_in] or
[b, num_tokens, d_in] gives [num_tokens, d_out] or [b, num_tokens, d_out].]=], [=[
torch.manual_seed(789)
sa_v2 = nn.SelfAttention_v2(3, 2)
sa_v2(torch.stack({inputs, inputs}, 1)).shape
--> torch.Size([2, 6, 2])]=])

class("CausalAttention", "nn.CausalAttention(d_in, d_out, context_length, dropout [, qkv_bias = false])", [=[
The book's compact causal attention class (§3.5.3, In [46]): fields d_out, W_query, W_key,
W_value (nn.Linear), dropout (nn.Dropout) and the buffer mask = torch.triu(torch.ones(context_length,
context_length), 1), in the book's order. A token attends only to itself and the tokens before it:
the scores above the diagonal become -inf before the softmax, and dropout (training mode) then drops
weights. x must be a batch [b, num_tokens, d_in] with num_tokens <= context_length. ]=] .. paths, [=[
torch.manual_seed(123)
batch = torch.stack({inputs, inputs}, 1)      -- Python: torch.stack((inputs, inputs), dim=0)
ca = nn.CausalAttention(3, 2, batch.shape[2], 0.0)
context_vecs = ca(batch)                      -- In [58]
context_vecs[1]
--> tensor([[-0.4519,  0.2216],
-->         [-0.5874,  0.0058],
-->         [-0.6300, -0.0632],
-->         [-0.5675, -0.0843],
-->         [-0.5526, -0.0981],
-->         [-0.5299, -0.1081]], grad_fn=<SelectBackward0>)]=])

mdef("CausalAttention", "__init", "CausalAttention:__init(d_in, d_out, context_length, dropout [, qkv_bias])", [=[
What nn.CausalAttention(...) runs: the three projections, the dropout layer and the causal mask
buffer, as the book's __init__.]=], [=[
ca = nn.CausalAttention(3, 2, 4, 0.1)
ca.mask
--> tensor([[0., 1., 1., 1.],
-->         [0., 0., 1., 1.],
-->         [0., 0., 0., 1.],
-->         [0., 0., 0., 0.]])]=])

mdef("CausalAttention", "forward", "ca:forward(x)", [=[
x [b, num_tokens, d_in] -> context vectors [b, num_tokens, d_out], with the causal mask cut to
num_tokens. On the staged path ca.last_weights holds the weights [b, num_tokens, num_tokens].]=], [=[
torch.manual_seed(123)
ca = nn.CausalAttention(3, 2, 6, 0.0)
ca.use_fused = false
ca:forward(torch.stack({inputs, inputs}, 1))
ca.last_weights[1]
--> tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
-->         [0.4833, 0.5167, 0.0000, 0.0000, 0.0000, 0.0000],
-->         [0.3190, 0.3408, 0.3402, 0.0000, 0.0000, 0.0000],
-->         [0.2445, 0.2545, 0.2542, 0.2468, 0.0000, 0.0000],
-->         [0.1994, 0.2060, 0.2058, 0.1935, 0.1953, 0.0000],
-->         [0.1624, 0.1709, 0.1706, 0.1654, 0.1625, 0.1682]],
-->        grad_fn=<SelectBackward0>)]=])

class("MultiHeadAttentionWrapper",
      "nn.MultiHeadAttentionWrapper(d_in, d_out, context_length, dropout, num_heads [, qkv_bias = false])", [=[
The book's stack of causal attention heads (§3.6.1, In [48]): heads = nn.ModuleList of num_heads
nn.CausalAttention modules, each with its own weights (drawn one head after the other); the outputs
are joined along the last dim, so the context vectors have d_out * num_heads dims. ]=] .. keywords, [=[
torch.manual_seed(123)
mha = nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0, {num_heads = 2})   -- In [49]
context_vecs = mha(torch.stack({inputs, inputs}, 1))
context_vecs.shape, context_vecs[1][1]
--> torch.Size([2, 6, 4])	tensor([-0.4519,  0.2216,  0.4772,  0.1063], grad_fn=<SelectBackward0>)]=])

mdef("MultiHeadAttentionWrapper", "__init",
     "MultiHeadAttentionWrapper:__init(d_in, d_out, context_length, dropout, num_heads [, qkv_bias])", [=[
What nn.MultiHeadAttentionWrapper(...) runs: num_heads nn.CausalAttention heads in an nn.ModuleList.]=], [=[
mha = nn.MultiHeadAttentionWrapper(3, 1, 6, 0.0, 2)    -- exercise 3.2: d_out = 1
#mha.heads, mha(torch.stack({inputs, inputs}, 1)).shape
--> 2	torch.Size([2, 6, 2])]=])

mdef("MultiHeadAttentionWrapper", "forward", "mha:forward(x)", [=[
Runs every head on x [b, num_tokens, d_in] and joins the results: torch.cat({head1(x), ...}, -1).
Each head keeps its own last_weights and use_fused (set it on the heads, for _, head in
ipairs(mha.heads) do head.use_fused = false end, to keep every head's weights).]=], [=[
torch.manual_seed(123)
mha = nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2)
mha:forward(torch.stack({inputs, inputs}, 1))[1][6]
--> tensor([-0.5299, -0.1081,  0.5077,  0.3493], grad_fn=<SelectBackward0>)]=])

class("MultiHeadAttention",
      "nn.MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads [, qkv_bias = false])", [=[
The book's efficient multi-head attention (§3.6.2, In [50]): one W_query, W_key, W_value of
d_in -> d_out each, split into num_heads heads of head_dim = d_out / num_heads (d_out must be
divisible by num_heads), then out_proj = nn.Linear(d_out, d_out), dropout and the causal mask buffer,
in the book's order. A GPT-2-sized one, nn.MultiHeadAttention(768, 768, 1024, 0.0, 12), has
2,360,064 parameters (exercise 3.3). ]=] .. keywords .. " " .. paths, [=[
torch.manual_seed(123)
mha = nn.MultiHeadAttention(3, 2, 6, 0.0, {num_heads = 2})          -- In [54]
context_vecs = mha(torch.stack({inputs, inputs}, 1))
context_vecs[1]
--> tensor([[0.3190, 0.4858],
-->         [0.2943, 0.3897],
-->         [0.2856, 0.3593],
-->         [0.2693, 0.3873],
-->         [0.2639, 0.3928],
-->         [0.2575, 0.4028]], grad_fn=<SelectBackward0>)]=])

mdef("MultiHeadAttention", "__init",
     "MultiHeadAttention:__init(d_in, d_out, context_length, dropout, num_heads [, qkv_bias])", [=[
What nn.MultiHeadAttention(...) runs: sets d_out, num_heads and head_dim, then makes W_query, W_key,
W_value, out_proj, dropout and the mask buffer, as the book's __init__.]=], [=[
mha = nn.MultiHeadAttention(768, 768, 1024, 0.0, 12)
mha.head_dim, mha:num_parameters()
--> 64	2360064]=])

mdef("MultiHeadAttention", "forward", "mha:forward(x)", [=[
x [b, num_tokens, d_in] -> [b, num_tokens, d_out]: projects x, splits the heads
(attention.split_heads: the book's view + transpose), computes causal attention in every head,
merges the heads back (attention.merge_heads) and applies out_proj. On the staged path
mha.last_weights is [b, num_heads, num_tokens, num_tokens].]=], [=[
mha = nn.MultiHeadAttention(3, 4, 6, 0.0, 2)
mha.use_fused = false
mha(torch.stack({inputs, inputs}, 1)).shape, mha.last_weights.shape
--> torch.Size([2, 6, 4])	torch.Size([2, 2, 6, 6])]=])

-- ---- Python Deep Learning ch. 7, the annotated transformer ------------------------------------------

class("MultiHeadedAttention", "nn.MultiHeadedAttention(h, d_model [, dropout = 0.1])", [=[
The annotated transformer's multi-head attention (Python Deep Learning, ch. 7): d_k =
d_model / h, h, fc_layers = four nn.Linear(d_model, d_model) (three project query, key and value, the
fourth combines the heads), attn (the weights of the last call) and dropout. As in the book's
clones(), the four layers start as copies of one layer: one draw of the generator, as PyTorch's
copy.deepcopy gives. Call it as m(query, key, value [, mask]): a mask holds 0 (or false) where a query
may not see a key, the opposite of ch. 3's convention, and those scores become -1e9. ]=] .. paths
.. [=[ The weights are also in m.attn, the book's field.]=], [=[
torch.manual_seed(0)
mha = nn.MultiHeadedAttention(2, 8, 0.0)
x = torch.rand(1, 3, 8)
subsequent = torch.tril(torch.ones(1, 3, 3))    -- 1 = may see; 0 = hidden
mha.use_fused = false                           -- staged, so that mha.attn holds the weights
out = mha(x, x, x, subsequent)
out.shape, mha.attn.shape
--> torch.Size([1, 3, 8])	torch.Size([1, 2, 3, 3])]=])

mdef("MultiHeadedAttention", "__init", "MultiHeadedAttention:__init(h, d_model [, dropout])", [=[
What nn.MultiHeadedAttention(...) runs: checks that h divides d_model, makes the four equal layers
(clones) and the dropout layer (p = 0.1 unless given).]=], [=[
m = nn.MultiHeadedAttention(8, 512)
m.d_k, #m.fc_layers, m.dropout.p, torch.equal(m.fc_layers[1].weight, m.fc_layers[4].weight)
--> 64	4	0.1	true]=])

mdef("MultiHeadedAttention", "forward", "m:forward(query, key, value [, mask])", [=[
query [b, n, d_model], key and value [b, m, d_model]; mask nil or [b or 1, n or 1, m] (0 = hidden,
the same for every head). Projects with fc_layers[1..3], splits into h heads, computes
softmax(q·kᵀ/√d_k) with the hidden scores set to -1e9, dropout, the weighted sum, merges the heads and
applies fc_layers[4]: [b, n, d_model]. A mask equal to the causal one (torch.tril of ones) may take the
fused path.]=], [=[
torch.manual_seed(0)
mha = nn.MultiHeadedAttention(2, 8, 0.0)
x = torch.rand(1, 3, 8)
mha.use_fused = false
mha:forward(x, x, x, torch.tril(torch.ones(1, 3, 3)))
mha.attn[1][1]                                  -- head 1: row i sees keys 1..i
--> tensor([[1.0000, 0.0000, 0.0000],
-->         [0.4785, 0.5215, 0.0000],
-->         [0.3284, 0.3141, 0.3575]], grad_fn=<SelectBackward0>)]=])

-- ---- d2l --------------------------------------------------------------------------------------

local toy = [=[
queries, keys = torch.ones(2, 1, 2), torch.ones(2, 10, 2)
values = torch.arange(40, {dtype = torch.float32}):reshape(1, 10, 4):expand(2, 10, 4)   -- Python: .repeat(2, 1, 1)
]=]

class("DotProductAttention", "nn.DotProductAttention(dropout)", [=[
d2l's scaled dot-product attention with valid lengths (d2l §10.1): m(queries, keys, values
[, valid_lens]) with queries [b, n, d], keys [b, m, d], values [b, m, dv]. valid_lens (a tensor or a
Lua list) gives, per batch element ([b]) or per query ([b, n]), how many keys count; the scores of the
others become -1e6 before the softmax (d2l's masked_softmax), so they get weight 0. dropout applies to
the weights in training mode. ]=] .. paths, toy .. [=[
attention_layer = nn.DotProductAttention(0.5)
attention_layer:eval()
attention_layer(queries, keys, values, {2, 6})   -- the mean of the first 2 and the first 6 values
--> tensor([[[ 2.0000,  3.0000,  4.0000,  5.0000]],
-->
-->         [[10.0000, 11.0000, 12.0000, 13.0000]]])]=])

mdef("DotProductAttention", "__init", "DotProductAttention:__init(dropout)", [=[
What nn.DotProductAttention(dropout) runs: makes the dropout layer; there are no parameters.]=], [=[
nn.DotProductAttention(0.5)
--> DotProductAttention(
-->   (dropout): Dropout(p=0.5, inplace=False)
--> )]=])

mdef("DotProductAttention", "forward", "m:forward(queries, keys, values [, valid_lens])", [=[
softmax(q·kᵀ/√d with the keys beyond each valid length set to -1e6), dropout, times values:
[b, n, dv]. A valid length must be a whole number from 0 to m (0 hides every key: the weights are
then uniform, as d2l's -1e6 gives).]=], toy .. [=[
m = nn.DotProductAttention(0)
m.use_fused = false
m:forward(torch.ones(2, 2, 2), keys, values, {{1, 3}, {10, 5}})   -- one length per query
m.last_weights[1][2]
--> tensor([0.3333, 0.3333, 0.3333, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
-->         0.0000])]=])

class("MLPAttention", "nn.MLPAttention(key_size, query_size, units, dropout)", [=[
d2l's additive (multilayer perceptron) attention (d2l §10.1): the score of query q and key k is
vᵀ tanh(W_q q + W_k k) (attention.additive), with W_k = nn.Linear(key_size, units), W_q =
nn.Linear(query_size, units) and v = nn.Linear(units, 1), all without bias, made in that order as in
d2l's PyTorch class; queries and keys may have different sizes. Valid lengths and dropout as in
nn.DotProductAttention; there is no scaling and no fused path (the weights are always in
m.last_weights). d2l's 2020 PyTorch code applied W_k to the queries and left out the tanh; attn
follows the formula, as d2l's later AdditiveAttention does.]=], toy .. [=[
torch.manual_seed(0)
atten = nn.MLPAttention(2, 2, 8, 0.1)
atten:eval()
atten(queries, keys, values, torch.tensor{2, 6})   -- the same as DotProductAttention: equal keys
--> tensor([[[ 2.0000,  3.0000,  4.0000,  5.0000]],
-->
-->         [[10.0000, 11.0000, 12.0000, 13.0000]]], grad_fn=<UnsafeViewBackward0>)]=])

mdef("MLPAttention", "__init", "MLPAttention:__init(key_size, query_size, units, dropout)", [=[
What nn.MLPAttention(...) runs: makes W_k, W_q, v (nn.Linear, no bias) and the dropout layer.]=], [=[
m = nn.MLPAttention(3, 2, 8, 0.1)
m.W_k.weight.shape, m.W_q.weight.shape, m.v.weight.shape
--> torch.Size([8, 3])	torch.Size([8, 2])	torch.Size([1, 8])]=])

mdef("MLPAttention", "forward", "m:forward(queries, keys, values [, valid_lens])", [=[
queries [b, n, query_size], keys [b, m, key_size], values [b, m, dv] -> [b, n, dv]: additive scores,
masked by the valid lengths (-1e6), softmax, dropout, times values.]=], toy .. [=[
torch.manual_seed(0)
m = nn.MLPAttention(2, 2, 8, 0.1):eval()
m:forward(queries, keys, values, {2, 6})
m.last_weights[1]
--> tensor([[0.5000, 0.5000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
-->          0.0000]], grad_fn=<SelectBackward0>)]=])

-- m:trace_stages: what each class tells attention.trace
local trace_stages = [=[What attention.trace{module = m, x = ...} steps through, as the class says it:
the list of stages (each {key = the tracer's field, name, formula, compute = function(tr)}, built by
attention/stages.lua, computed when the tracer steps) and the trace options it takes beside module
and x (MultiHeadedAttention: {mask = true}). attention.trace calls it; a class of your own that
defines it is traced its way, one that does not is read by the book's field names (W_query, heads,
fc_layers).]=]
for _, c in ipairs({"SelfAttention_v1", "SelfAttention_v2", "CausalAttention", "MultiHeadAttentionWrapper",
                    "MultiHeadAttention", "MultiHeadedAttention"}) do
    mdef(c, "trace_stages", c .. ":trace_stages(tr)", trace_stages, [=[
ca = nn.CausalAttention(3, 2, 6, 0.0)
list = ca:trace_stages{module = ca, x = torch.stack({inputs})}
#list, list[5].key, list[5].formula
--> 8	masked	ω.masked_fill(mask, -inf)]=])
end
