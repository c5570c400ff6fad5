-- blocks.lua — help for Python Deep Learning's Transformer blocks (nn/transformer.lua): PositionwiseFFN,
-- SublayerConnection, the encoder and decoder blocks and stacks, and BERT's input embedding. The layers
-- they are built of are in docs/transformer.lua. Loaded by attn.docs (docs/init.lua).

local D = require("attn.docs.define")
local class, mdef = D.class, D.mdef

local ids = D.ids_note

local masks = [=[Masks follow the book's attention(): a 0 (false) hides a key position, a 1 (true)
shows it; encoder masks are [b, 1, n] (padding), decoder target masks [b or 1, n, n]
(nn.subsequent_mask, with padding).]=]

-- ---- the book's blocks ------------------------------------------------------------------------------

class("PositionwiseFFN", "nn.PositionwiseFFN(d_model, d_ff [, dropout = 0.1 [, {activation = \"silu\"}]])", [=[
Python Deep Learning's position-wise feed-forward network, FFN(x) = W_2 dropout(SiLU(W_1 x + b_1)) + b_2, applied
to every position alone: Linear w_1 (d_model -> d_ff), SiLU, dropout, Linear w_2 (d_ff -> d_model).
{activation = "relu"} gives the original Transformer's ReLU, "gelu" BERT's GELU.]=], [=[
torch.manual_seed(0)
ffn = nn.PositionwiseFFN(4, 16, 0)
ffn
--> PositionwiseFFN(
-->   (w_1): Linear(in_features=4, out_features=16, bias=True)
-->   (w_2): Linear(in_features=16, out_features=4, bias=True)
-->   (dropout): Dropout(p=0.0, inplace=False)
--> )
ffn(torch.ones(1, 2, 4)).shape
--> torch.Size([1, 2, 4])]=])

mdef("PositionwiseFFN", "__init", "PositionwiseFFN:__init(d_model, d_ff [, dropout [, opts]])", [=[
What nn.PositionwiseFFN(...) runs: makes w_1, w_2 and dropout in the book's order (so the weights are
PyTorch's for the same seed).]=], [=[
nn.PositionwiseFFN(4, 16):num_parameters()
--> 148]=])

mdef("PositionwiseFFN", "forward", "ffn:forward(x)", [=[
w_2(dropout(activation(w_1(x)))) for x [..., d_model].]=], [=[
ffn = nn.PositionwiseFFN(2, 3, 0)
torch.equal(ffn:forward(torch.ones(2)), ffn.w_2(nn.functional.silu(ffn.w_1(torch.ones(2)))))
--> true]=])

class("SublayerConnection", "nn.SublayerConnection(size [, dropout = 0.1 [, {norm_first = true}]])", [=[
The residual connection around each sublayer of a block, with its LayerNorm: called as sc(x,
sublayer), where sublayer is a module or a function of one tensor. Pre-LN (the book's code, the
default): x + dropout(sublayer(LayerNorm(x))). Post-LN ({norm_first = false}, the original
Transformer): LayerNorm(x + dropout(sublayer(x))). Note that the book's text says it implements a
post-LN encoder, but its SublayerConnection code (the Annotated Transformer's) is the pre-LN form.]=], [=[
x = torch.tensor{{1.0, 2.0, 3.0, 4.0}}
double = function(y) return 2 * y end
nn.SublayerConnection(4, 0)(x, double)
--> tensor([[-1.6833,  1.1056,  3.8944,  6.6833]], grad_fn=<AddBackward0>)
nn.SublayerConnection(4, 0, {norm_first = false})(x, double)
--> tensor([[-1.3416, -0.4472,  0.4472,  1.3416]],
-->        grad_fn=<NativeLayerNormBackward0>)]=])

mdef("SublayerConnection", "__init", "SublayerConnection:__init(size [, dropout [, opts]])", [=[
What nn.SublayerConnection(...) runs: makes norm (a LayerNorm(size)) and dropout, and keeps
norm_first.]=], [=[
nn.SublayerConnection(4, 0.1, {norm_first = false}).norm_first
--> false]=])

mdef("SublayerConnection", "forward", "sc:forward(x, sublayer)", [=[
The residual step, pre-LN or post-LN (see nn.SublayerConnection).]=], [=[
sc = nn.SublayerConnection(4, 0)
x = torch.tensor{{1.0, 2.0, 3.0, 4.0}}
torch.equal(sc:forward(x, nn.ReLU()), x + torch.relu(torch.layer_norm(x, 4)))
--> true]=])

mdef("SublayerConnection", "extra_repr", "sc:extra_repr()", [=[
"norm_first=False" for a post-LN connection; nothing for the book's pre-LN one, which then prints as
PyTorch prints the book's class.]=], [=[
nn.SublayerConnection(4, 0, {norm_first = false}):extra_repr()
--> norm_first=False]=])

class("EncoderBlock", "nn.EncoderBlock(size, self_attn, ffn [, dropout = 0.1 [, {norm_first = true}]])", [=[
One encoder block of Python Deep Learning, ch. 7: multi-head self-attention and a position-wise FFN, each inside a
SublayerConnection (pre-LN by default, post-LN with {norm_first = false}). self_attn and ffn are
modules passed in, as the book does, usually nn.MultiHeadedAttention(h, size) and
nn.PositionwiseFFN(size, d_ff); the children are registered in the book's order (self_attn, ffn,
sublayers), so a seeded block has PyTorch's weights. Called as block(x, mask). ]=] .. masks, [=[
torch.manual_seed(0)
block = nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8), 0):eval()
block(torch.rand(1, 3, 4), torch.tensor{{{1, 1, 0}}}).shape
--> torch.Size([1, 3, 4])]=])

mdef("EncoderBlock", "__init", "EncoderBlock:__init(size, self_attn, ffn [, dropout [, opts]])", [=[
What nn.EncoderBlock(...) runs: keeps self_attn and ffn, makes two SublayerConnections with
nn.clones, and keeps size.]=], [=[
block = nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8))
#block.sublayers, block.size
--> 2	4]=])

mdef("EncoderBlock", "forward", "block:forward(x [, mask])", [=[
x = sublayers[1](x, self-attention of x with mask); then sublayers[2](x, ffn).]=], [=[
block = nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8), 0)
block:forward(torch.ones(2, 3, 4)).shape
--> torch.Size([2, 3, 4])]=])

mdef("EncoderBlock", "trace_stages", "block:trace_stages(tr)", [=[
What attention.trace{module = block, x = x [, mask =]} steps through (?gpt.TransformerBlock:trace_stages): the input, the
self-attention's stages with the layer norms, the shortcut connections and the FFN around them, pre-LN or
post-LN as the block was built.]=], [=[
block = nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4, 0), nn.PositionwiseFFN(4, 8, 0), 0)
tr = attention.trace{module = block, x = torch.rand(1, 3, 4), mask = torch.tensor{{{1, 1, 0}}}}
#tr._stages, tr._stages[2].formula, tr._stages[16].name
--> 17	N₁ = sublayers[1].norm(X)	feed-forward]=])

class("Encoder", "nn.Encoder(block, N)", [=[
Python Deep Learning's encoder: N deep copies of block (nn.clones, so they start with equal weights) applied in
turn, then a final LayerNorm. Called as encoder(x, mask).]=], [=[
torch.manual_seed(0)
block = nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8), 0)
encoder = nn.Encoder(block, 2)
#encoder.blocks, encoder:num_parameters()
--> 2	352]=])

mdef("Encoder", "__init", "Encoder:__init(block, N)", [=[
What nn.Encoder(...) runs: blocks = nn.clones(block, N), norm = nn.LayerNorm(block.size).]=], [=[
nn.Encoder(nn.EncoderBlock(4, nn.MultiHeadedAttention(1, 4), nn.PositionwiseFFN(4, 4)), 3).norm
--> LayerNorm((4,), eps=1e-05, elementwise_affine=True)]=])

mdef("Encoder", "forward", "encoder:forward(x [, mask])", [=[
Each block on the output of the one before, then the LayerNorm.]=], [=[
encoder = nn.Encoder(nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8), 0), 2)
y = encoder:forward(torch.rand(1, 3, 4))
y.shape, math.abs(y[1][1]:mean():item()) < 1e-6
--> torch.Size([1, 3, 4])	true]=])

class("DecoderBlock", "nn.DecoderBlock(size, self_attn, encoder_attn, ffn [, dropout = 0.1 [, {norm_first = true}]])", [=[
One decoder block of Python Deep Learning, ch. 7: masked self-attention over the target, attention over the encoder's
output (queries from the decoder, keys and values from encoder_states), and a position-wise FFN,
each inside a SublayerConnection. Called as block(x, encoder_states, source_mask, target_mask).
]=] .. masks, [=[
torch.manual_seed(0)
block = nn.DecoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.MultiHeadedAttention(2, 4),
                        nn.PositionwiseFFN(4, 8), 0)
block(torch.rand(1, 3, 4), torch.rand(1, 5, 4), nil, nn.subsequent_mask(3)).shape
--> torch.Size([1, 3, 4])]=])

mdef("DecoderBlock", "__init", "DecoderBlock:__init(size, self_attn, encoder_attn, ffn [, dropout [, opts]])", [=[
What nn.DecoderBlock(...) runs: keeps size, self_attn, encoder_attn and ffn in the book's order and
makes three SublayerConnections.]=], [=[
block = nn.DecoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8))
#block.sublayers
--> 3]=])

mdef("DecoderBlock", "forward", "block:forward(x, encoder_states [, source_mask [, target_mask]])", [=[
x = sublayers[1](x, self-attention with target_mask); x = sublayers[2](x, attention to encoder_states
with source_mask); then sublayers[3](x, ffn).]=], [=[
block = nn.DecoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8), 0)
block:forward(torch.ones(2, 3, 4), torch.ones(2, 6, 4)).shape
--> torch.Size([2, 3, 4])]=])

class("Decoder", "nn.Decoder(block, N, vocab_size)", [=[
Python Deep Learning's decoder: N deep copies of block, a final LayerNorm, a Linear projection to vocab_size and
log_softmax over the vocabulary, so each position gets log-probabilities of the next token. Called as
decoder(x, encoder_states, source_mask, target_mask).]=], [=[
torch.manual_seed(0)
block = nn.DecoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8), 0)
decoder = nn.Decoder(block, 2, 7)
y = decoder(torch.rand(1, 3, 4), torch.rand(1, 5, 4), nil, nn.subsequent_mask(3))
y.shape, y[1][1]:exp():sum()
--> torch.Size([1, 3, 7])	tensor(1.0000, grad_fn=<SumBackward0>)]=])

mdef("Decoder", "__init", "Decoder:__init(block, N, vocab_size)", [=[
What nn.Decoder(...) runs: blocks = nn.clones(block, N), norm = nn.LayerNorm(block.size),
projection = nn.Linear(block.size, vocab_size).]=], [=[
block = nn.DecoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8))
nn.Decoder(block, 1, 7).projection
--> Linear(in_features=4, out_features=7, bias=True)]=])

mdef("Decoder", "forward", "decoder:forward(x, encoder_states [, source_mask [, target_mask]])", [=[
The blocks in turn, then log_softmax(projection(norm(x)), -1).]=], [=[
block = nn.DecoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8), 0)
nn.Decoder(block, 1, 7):forward(torch.ones(1, 2, 4), torch.ones(1, 3, 4)).shape
--> torch.Size([1, 2, 7])]=])

-- ---- BERT -------------------------------------------------------------------------------------------

class("BERTEmbedding", "nn.BERTEmbedding(vocab_size, d_model [, {max_len = 512, segments = 2}])", [=[
BERT's input representation as Python Deep Learning describes it (Figure 7.11): the sum of a token embedding, a
segment embedding (sentence A or B) and a learned position embedding, three nn.Embedding tables
(token, segment, position, created in that order). Called as bert(tokens, segments) with tokens
[b, n] and segments [b, n] (1 for A, 2 for B; all 1 when left out). ]=] .. ids .. [=[ Real BERT then
applies LayerNorm and dropout to the sum; apply nn.LayerNorm(d_model) to the result for that.]=], [=[
torch.manual_seed(0)
bert = nn.BERTEmbedding(10, 4, {max_len = 8})
CLS, SEP, my, dog, he = 1, 2, 5, 6, 7
bert({{CLS, my, dog, SEP, he, SEP}}, {{1, 1, 1, 1, 2, 2}}).shape
--> torch.Size([1, 6, 4])]=])

mdef("BERTEmbedding", "__init", "BERTEmbedding:__init(vocab_size, d_model [, opts])", [=[
What nn.BERTEmbedding(...) runs: makes the token, segment and position tables.]=], [=[
nn.BERTEmbedding(30000, 768)
--> BERTEmbedding(
-->   (token): Embedding(30000, 768)
-->   (segment): Embedding(2, 768)
-->   (position): Embedding(512, 768)
--> )]=])

mdef("BERTEmbedding", "forward", "bert:forward(tokens [, segments])", [=[
token(tokens) + segment(segments) + position(1..n), in that order of addition.]=], [=[
bert = nn.BERTEmbedding(10, 4)
tokens = torch.tensor{{3, 4}}
sum = bert.token(tokens) + bert.segment(torch.tensor{{1, 1}}) + bert.position(torch.tensor{1, 2})
torch.equal(bert:forward(tokens), sum)
--> true]=])
