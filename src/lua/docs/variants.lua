-- variants.lua — help for the attention of today's models (attention/variants.lua, nn/attention_variants.lua,
-- gpt/cached.lua): RoPE, the band mask, ALiBi's slopes, grouped key/value heads, latent attention, the KV
-- cache and its size.
-- Loaded by attn.docs with its helpers.
local D = require("attn.docs.define")
local def, class, mdef = D.def, D.class, D.mdef
local attention = require("attn.attention")
local gpt = require("attn.gpt")

def("attention.rope", "attention.rope(x [, {theta_base = 10000, offset = 0, interleaved = false}])", [=[
Rotary position embedding (RoPE, as Llama applies it to queries and keys): x [..., tokens, head_dim],
token t at position offset + t - 1 (0-based, as the Llama notebooks count). Pair i of dims is
rotated by the angle position · theta_base^(-2i/head_dim). Split halves (Llama's, the bonus chapter's
apply_rope): dim i pairs with dim i + head_dim/2, x·cos + cat(-x₂, x₁)·sin. interleaved = true pairs
dims 2i-1 and 2i (the RoPE paper's). The score of a rotated query and key then depends on how far
apart they are, not on where they are. Bit for bit the chapter's numbers.]=], [=[
attention.rope(torch.ones(3, 4))     -- token 1 is not rotated (angle 0)
--> tensor([[ 1.0000,  1.0000,  1.0000,  1.0000],
-->         [-0.3012,  0.9900,  1.3818,  1.0099],
-->         [-1.3254,  0.9798,  0.4932,  1.0198]])
attention.rope(torch.ones(1, 4), {offset = 2, interleaved = true})
--> tensor([[-1.3254,  0.4932,  0.9798,  1.0198]])]=], attention.rope)

def("attention.rope_params", "attention.rope_params(head_dim, theta_base, context_length) -> cos, sin", [=[
The bonus chapter's compute_rope_params: the cosines and sines [context_length, head_dim] of the
angles position · theta_base^(-2i/head_dim), each pair's angle written twice (the split-half layout).]=], [=[
cos, sin = attention.rope_params(4, 10000, 3)
cos
--> tensor([[ 1.0000,  1.0000,  1.0000,  1.0000],
-->         [ 0.5403,  0.9999,  0.5403,  0.9999],
-->         [-0.4161,  0.9998, -0.4161,  0.9998]])]=], attention.rope_params)

def("attention.band_mask", "attention.band_mask(n, m [, {q_start = 0, k_start = 0, window = nil}])", [=[
The mask of sliding-window attention, true = hidden: query i (at position q_start + i - 1) sees key j
(at k_start + j - 1) when 0 <= i - j < window. Without a window it is the causal mask; the starts
place a chunk of queries after the tokens in a KV cache.]=], [=[
attention.band_mask(4, 4, {window = 2})
--> tensor([[False,  True,  True,  True],
-->         [False, False,  True,  True],
-->         [ True, False, False,  True],
-->         [ True,  True, False, False]])]=], attention.band_mask)

def("attention.layer_pattern", "attention.layer_pattern(n_layers, sliding, full)", [=[
Which layers use a sliding window in a model that mixes them (Gemma 3's 5:1): a list of n_layers
booleans, true = sliding, in blocks of sliding then full layers.]=], [=[
p = attention.layer_pattern(7, 5, 1)
p[5], p[6], p[7]
--> true	false	true]=], attention.layer_pattern)

def("attention.alibi_slopes", "attention.alibi_slopes(h)", [=[
ALiBi's slope of each of h heads (Press et al., "Train Short, Test Long"): 2^(-8i/h) for h a power of
two. ALiBi adds -slope · (i - j) to the score of query i and key j instead of adding positions to
the inputs: nn.GroupedQueryAttention(..., {alibi = true}) has the stage.]=], [=[
attention.alibi_slopes(4)
--> tensor([0.2500, 0.0625, 0.0156, 0.0039])]=], attention.alibi_slopes)

def("attention.kv_cache_bytes", "attention.kv_cache_bytes{context_length =, emb_dim =, n_heads =, n_layers =, " ..
    "n_kv_heads =, batch_size = 1, dtype = \"fp16\", latent_dim =, sliding_window =, swa_ratio = {5, 1}}", [=[
The bytes a KV cache takes, counted as the bonus chapters' memory estimators count them: per layer
batch · tokens · head_dim · n_kv_heads · 2 (keys and values) · bytes per number. n_kv_heads fewer
than n_heads: grouped-query attention; latent_dim: multi-head latent attention (one latent per token
and layer); sliding_window with swa_ratio {sliding, full}: the sliding layers keep at most the window
(then the numbers of sliding and full layers are returned too).]=], [=[
attention.kv_cache_bytes{context_length = 32768, emb_dim = 4096, n_heads = 32, n_layers = 32, dtype = "bf16"} / 1e9
--> 17.179869184]=], attention.kv_cache_bytes)

def("attention.repeat_interleave", "attention.repeat_interleave(t, repeats, dim)", [=[
PyTorch's repeat_interleave: each slice of t along dim repeated in place, [K1, K1, K2, K2].
Grouped-query attention repeats its key/value heads this way, so that query heads 1..r share head 1 (plain
repeat would give [K1, K2, K1, K2] and pair the wrong heads). A copy, no arithmetic.]=], [=[
k = torch.tensor({{{1.0, 1.0}}, {{2.0, 2.0}}}):view(1, 2, 1, 2)
attention.repeat_interleave(k, 2, 2):view(4, 2)
--> tensor([[1., 1.],
-->         [1., 1.],
-->         [2., 2.],
-->         [2., 2.]])]=], attention.repeat_interleave)

def("attention.kv_groups", "attention.kv_groups(num_heads, num_kv_groups)", [=[
Which query heads share each key/value head: a list with, for each key/value head, the numbers of its
query heads (repeat_interleave's order).]=], [=[
attention.kv_groups(8, 2)[2][1], #attention.kv_groups(8, 2)[2]
--> 5	4]=], attention.kv_groups)

def("attention.online_softmax", "attention.online_softmax(scores, v [, {tile = 2}]) -> context, steps", [=[
softmax(scores)·v the way FlashAttention computes it: the keys a tile at a time, never a whole row of
weights. Per query row it keeps a running max m, a running sum l of exp(score - m) and a running
output o; a tile with a larger max first rescales l and o by exp(m_old - m_new). The context is o / l.
steps[t] holds m, l, o and the rescaling factor after tile t, to show it tile by tile. Equal to the
staged softmax and weighted sum to a few float32 roundings, not bit for bit: the sums are added tile
by tile and rescaled, in another order. attention.fused runs the same algorithm in C.]=], [=[
s = torch.tensor{{1.0, 3.0, 2.0, 5.0}}
v = torch.eye(4)
z, steps = attention.online_softmax(s, v, {tile = 2})
#steps, steps[2].m
--> 2	tensor([[5.]])
(z - torch.softmax(s, -1)):abs():max():item() < 1e-6
--> true]=], attention.online_softmax)

class("GroupedQueryAttention", "nn.GroupedQueryAttention(d_in, d_out, dropout, num_heads, num_kv_groups " ..
      "[, {qkv_bias = false, sliding_window =, rope = false, theta_base = 10000, alibi = false}])", [=[
The bonus chapter's grouped-query attention (ch04/04_gqa; Llama 3's attention): num_heads query heads,
num_kv_groups key/value heads, each shared by num_heads / num_kv_groups query heads. num_kv_groups = 1
is multi-query attention, num_kv_groups = num_heads multi-head attention. The parameters are the
chapter's, made in its order (W_key, W_value, W_query, out_proj without a bias), so a seed gives its
weights. Options: sliding_window (ch04/06_swa: a band mask, and a cache of that many tokens), rope
(queries and keys rotated by position), alibi (a bias on the scores). m(x, {use_cache = true}) adds
x's keys and values to the cache and attends over all of them; m:reset_cache() empties it.
attention.trace{module = m, x = x [, use_cache = true]} shows every stage, the shared heads too.]=], [=[
torch.manual_seed(123)
m = nn.GroupedQueryAttention(8, 12, 0.0, 4, 2)
m.W_key.weight.shape, m.W_query.weight.shape, m:num_parameters()
--> torch.Size([6, 8])	torch.Size([12, 8])	336]=])

mdef("GroupedQueryAttention", "__init", "GroupedQueryAttention:__init(d_in, d_out, dropout, num_heads, num_kv_groups " ..
     "[, options])", [=[
What nn.GroupedQueryAttention(...) runs: checks the sizes (num_heads divisible by num_kv_groups), then
makes W_key, W_value, W_query, out_proj and dropout, in the chapter's order.]=], [=[
nn.GroupedQueryAttention(4096, 4096, 0.0, 32, 8):num_parameters()   -- the Llama 3 notebook's 41,943,040
--> 41943040]=])

mdef("GroupedQueryAttention", "forward", "m:forward(x [, {use_cache = true}])", [=[
x [b, n, d_in] -> [b, n, d_out]. With use_cache, x's tokens come after those cached by earlier calls
(m.cache_k, m.cache_v, m.ptr_current_pos: the chapter's names); without it, a cache left from before is
emptied first, as the chapter's forward does.]=], [=[
torch.manual_seed(123)
m = nn.GroupedQueryAttention(8, 12, 0.0, 4, 2)
x = torch.rand(1, 3, 8)
y = m(x)
a, b = m(x:narrow(2, 1, 2), {use_cache = true}), m(x:narrow(2, 3, 1), {use_cache = true})
m.cache_k.shape, (torch.cat({a, b}, 2) - y):abs():max():item() < 1e-6
--> torch.Size([1, 2, 3, 3])	true]=])

mdef("GroupedQueryAttention", "reset_cache", "m:reset_cache()", [=[
Forgets the cached keys and values: the next forward with use_cache starts at position 1.]=], [=[
m = nn.GroupedQueryAttention(8, 12, 0.0, 4, 2)
m(torch.rand(1, 2, 8), {use_cache = true})
m:reset_cache()
m.cache_k, m.ptr_current_pos
--> nil	0]=])

mdef("GroupedQueryAttention", "trace_stages", "m:trace_stages(tr)", [=[
What attention.trace{module = m, x = ...} steps through: the projections, the heads (queries into
num_heads, keys and values into num_kv_groups), RoPE if on, the KV cache with use_cache = true, the
key/value heads shared (repeat_interleave), scores, ALiBi if on, the mask (a band with a window),
scaled, weights, context, the heads merged and out_proj.]=], [=[
m = nn.GroupedQueryAttention(8, 12, 0.0, 4, 2)
tr = attention.trace{module = m, x = torch.rand(1, 3, 8), use_cache = true}
tr._stages[5].name, tr._stages[6].name
--> KV cache	share KV]=])

local trace_spec = [=[What a trace of m, or of a Transformer block around m (?gpt.TransformerBlock:trace_stages), builds
its stages from: the spec of attention/pipeline.lua (its projections read what the trace gives them: x, or
the block's normed input), the parameters each stage is computed with, named as m:named_parameters() names
them (so that the backward steps show ∂L/∂W_query.weight, ∂L/∂out_proj.weight, ...), and the options the
trace takes ({use_cache = true}). m:trace_stages(tr) builds those stages.]=]

mdef("GroupedQueryAttention", "trace_spec", "m:trace_spec(tr)", trace_spec, [=[
m = nn.GroupedQueryAttention(8, 12, 0.0, 4, 2)
spec, params = m:trace_spec{module = m, x = torch.rand(1, 3, 8)}
params.queries[1][1], params.output[1][1], spec.kv_repeat
--> W_query.weight	out_proj.weight	2]=])

class("MultiHeadLatentAttention", "nn.MultiHeadLatentAttention(d_in, d_out, dropout, num_heads " ..
      "[, {qkv_bias = false, latent_dim = max(16, d_out // 8)}])", [=[
The bonus chapter's multi-head latent attention (ch04/05_mla; DeepSeek V2 and V3's attention): each
token is projected down to one latent of latent_dim numbers (W_DKV), and that latent is all the KV
cache keeps; the keys and values of every head are projected up from the latents at each step (W_UK,
W_UV). Per token and layer the cache holds latent_dim numbers instead of 2 · d_out. The parameters
are the chapter's, made in its order (W_query, W_DKV, W_UK, W_UV, then out_proj with a bias), so a
seed gives its weights. m(x, {use_cache = true}) appends x's latents to m.cache_c_kv;
m:reset_cache() empties it. gpt.GPTModel{..., latent_dim = 8} puts it in every block, as the
chapter's GPT does. attention.trace{module = m, x = x [, use_cache = true]} shows the latent, the
latent cache and the up-projections.]=], [=[
torch.manual_seed(123)
m = nn.MultiHeadLatentAttention(8, 12, 0.0, 4, {latent_dim = 6})
m.W_DKV.weight.shape, m.W_UK.weight.shape, m:num_parameters()
--> torch.Size([6, 8])	torch.Size([12, 6])	444
nn.MultiHeadLatentAttention(768, 768, 0.0, 12).latent_dim   -- the default, max(16, 768 // 8)
--> 96]=])

mdef("MultiHeadLatentAttention", "__init", "MultiHeadLatentAttention:__init(d_in, d_out, dropout, num_heads " ..
     "[, options])", [=[
What nn.MultiHeadLatentAttention(...) runs: checks the sizes (d_out divisible by num_heads), takes
latent_dim (by default max(16, d_out // 8)), then makes W_query, W_DKV, W_UK, W_UV, out_proj and
dropout, in the chapter's order.]=], [=[
nn.MultiHeadLatentAttention(768, 768, 0.0, 12, {latent_dim = 192}).W_DKV.weight.shape
--> torch.Size([192, 768])]=])

mdef("MultiHeadLatentAttention", "forward", "m:forward(x [, {use_cache = true}])", [=[
x [b, n, d_in] -> [b, n, d_out]. With use_cache, x's latents are appended to m.cache_c_kv (the
chapter's name; m.ptr_current_pos counts the tokens) and the keys and values of all the tokens so far
are projected up from it; x's queries attend over them at the positions after the cached ones.
Without it, a cache left from before is emptied first (the chapter's forward only sets the position
back to 0, so a later cached call would attend over stale latents).]=], [=[
torch.manual_seed(123)
m = nn.MultiHeadLatentAttention(8, 12, 0.0, 4, {latent_dim = 6})
x = torch.rand(1, 3, 8)
y = m(x)
a, b = m(x:narrow(2, 1, 2), {use_cache = true}), m(x:narrow(2, 3, 1), {use_cache = true})
m.cache_c_kv.shape, (torch.cat({a, b}, 2) - y):abs():max():item() < 1e-6
--> torch.Size([1, 3, 6])	true]=])

mdef("MultiHeadLatentAttention", "reset_cache", "m:reset_cache()", [=[
Forgets the cached latents: the next forward with use_cache starts at position 1.]=], [=[
m = nn.MultiHeadLatentAttention(8, 12, 0.0, 4)
m(torch.rand(1, 2, 8), {use_cache = true})
m:reset_cache()
m.cache_c_kv, m.ptr_current_pos
--> nil	0]=])

mdef("MultiHeadLatentAttention", "trace_stages", "m:trace_stages(tr)", [=[
What attention.trace{module = m, x = ...} steps through: the queries, the down-projection to the
latent, the latent cache with use_cache = true (one row per token so far), the up-projections to keys
and values, the heads, scores, the causal mask, scaled, weights, context, the heads merged and
out_proj.]=], [=[
m = nn.MultiHeadLatentAttention(8, 12, 0.0, 4)
tr = attention.trace{module = m, x = torch.rand(1, 3, 8), use_cache = true}
tr._stages[2].name, tr._stages[3].name, tr._stages[4].name
--> down-projection	latent cache	up-projections]=])

mdef("MultiHeadLatentAttention", "trace_spec", "m:trace_spec(tr)", trace_spec, [=[
m = nn.MultiHeadLatentAttention(8, 12, 0.0, 4)
spec, params = m:trace_spec{module = m, x = torch.rand(1, 3, 8)}
params.latent[1][1], params.up_k[1][1], params.up_k[2][1]
--> W_DKV.weight	W_UK.weight	W_UV.weight]=])

mdef("MultiHeadAttention", "reset_cache", "mha:reset_cache()", [=[
Forgets the keys and values that mha(x, {use_cache = true}) cached (the bonus chapter ch04/03_kv-cache):
the next cached call starts at position 1 again.]=], [=[
mha = nn.MultiHeadAttention(4, 4, 8, 0.0, 2)
mha(torch.rand(1, 3, 4), {use_cache = true})
mha.ptr_current_pos, mha.cache_k.shape
--> 3	torch.Size([1, 2, 3, 2])
mha:reset_cache()
mha.ptr_current_pos
--> 0]=])

def("gpt.generate_text_simple_cached", "gpt.generate_text_simple_cached(model, idx, max_new_tokens [, context_size " ..
    "[, use_cache = true]])", [=[
Greedy generation with the KV cache, as the bonus chapter ch04/03_kv-cache names it: the prompt goes
through the model once, then each new token alone, reading the keys and values of every block's cache
(model(ids, {use_cache = true}); model:reset_kv_cache() empties them). The same ids as
gpt.generate_text_simple; the logits agree with the uncached ones to rounding (a row computed alone
and in a block of rows may be rounded differently by the matrix products, in PyTorch as here).]=], [=[
torch.manual_seed(123)
model = gpt.GPTModel{vocab_size = 50, context_length = 16, emb_dim = 32, n_heads = 4, n_layers = 2, drop_rate = 0.1, qkv_bias = false}
gpt.generate_text_simple_cached(model, torch.tensor{{3, 7, 1, 9}}, 4)
--> tensor([[ 3,  7,  1,  9, 31,  9, 17,  8]])]=], gpt.generate_text_simple_cached)

def("gpt.GPTModel:reset_kv_cache", "model:reset_kv_cache()", [=[
Empties the KV cache of every block's attention and sets model.current_pos back to 0.]=], [=[
torch.manual_seed(123)
model = gpt.GPTModel{vocab_size = 50, context_length = 16, emb_dim = 32, n_heads = 4, n_layers = 2, drop_rate = 0.1, qkv_bias = false}
model(torch.tensor{{3, 7}}, {use_cache = true}).shape, model.current_pos
--> torch.Size([1, 2, 50])	2
model:reset_kv_cache()
model.current_pos
--> 0]=], gpt.GPTModel.reset_kv_cache)
