-- 12_transformer_blocks.lua — Python Deep Learning (3rd ed.), ch. 7 §Building transformers with
-- attention to §Implementing the decoder: embeddings and the static positional encoding, LayerNorm, the
-- position-wise FFN, an encoder block in post-LN and pre-LN form, the Encoder (N = 2), a decoder step with
-- the causal mask and cross-attention, and the Decoder. (BERT and GPT are lesson 14.)
--   ./attn lessons/12_transformer_blocks.lua           straight through
--   ./attn --step lessons/12_transformer_blocks.lua    one step at a time
-- The chapter prints no numbers here: every input is seeded, and every seeded result is checked against
-- PyTorch's own (scripts/gen_lesson_reference.py, the chapter's classes with the same seeds), stored in
-- tests/data/torch/lessons_pdl_ch7.txt, the expected side of the checks only.

lesson.title("Transformer blocks: encoder and decoder",
             {source = "Python Deep Learning (3rd ed.), ch. 7: Building transformers with attention – Implementing the decoder"})

-- What PyTorch computed for this lesson (scripts/gen_lesson_reference.py).
local function pytorch(name)
    return lesson.reference("lessons_pdl_ch7.txt", "blocks." .. name)
end

lesson.section("Transformer encoder")

lesson.say[[
The encoder takes a sequence of tokens. A lookup table turns each token into a d_model-dimensional
embedding vector: the token's id picks a row of the table, a matrix learned with the rest of the
model. The Annotated Transformer's Embeddings (which the chapter uses and leaves out of its text)
multiply that row by √d_model. We make up a tiny source vocabulary and a sentence, with d_model = 8.
Ids are int64 tensors, as in PyTorch. Lua counts ids from 1 (the first row of the table is id 1),
PyTorch from 0: beside ours we show PyTorch's, which are ours minus 1.
]]

lesson.step("token embeddings × √d_model", function()
    src_vocab = {"<pad>", "<s>", "</s>", "the", "cat", "sat", "on", "mat"}
    function ids_of(vocab, sentence)                  -- {"the", ...} -> a [1, n] tensor of ids
        local index, ids, words = {}, {}, {}
        for i, w in ipairs(vocab) do index[w] = i end
        for w in sentence:gmatch("%S+") do
            ids[#ids + 1], words[#words + 1] = index[w], w
        end
        return torch.tensor({ids}), words
    end
    src, src_words = ids_of(src_vocab, "the cat sat on the mat")
    torch.manual_seed(20)
    src_tok = nn.Embeddings(8, #src_vocab)            -- Python: Embeddings(d_model=8, vocab=8)
    emb = src_tok(src)
    lesson.show("src", src)
    lesson.show("src - 1 (PyTorch's ids)", src - 1)
    lesson.check("PyTorch's ids of the sentence are ours minus 1", src - 1, pytorch("src"), {tol = 0})
    lesson.show("emb", emb)
    lesson.check("emb as PyTorch computes it", emb, pytorch("emb"), {tol = 1e-5})
    lesson.agree("both 'the' get the same row", emb[1][1], emb[1][5])
end)

lesson.say([[
Attention does not see the order of the tokens: both "the" above are the same vector wherever
they stand. So the original Transformer adds a static positional encoding, a vector as long as the
embedding and unique to each position, computed once:

    PE(pos, 2i) = sin(pos / 10000^(2i/d_model)),   PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))

Even columns are sines and odd columns cosines; pair i has wavelength 2π·10000^(2i/d_model),
growing geometrically from 2π (here, with d_model = 8, up to 2π·10000^(6/8) = 2π·%g).
nn.positional_encoding(max_len, d_model) computes the matrix with the Annotated Transformer's
float32 operations; we also compute the formula in double precision, with Lua's math.sin and
math.cos, as an independent check.
]], 10000 ^ (6 / 8))

lesson.step("the positional encoding matrix", function()
    pe = nn.positional_encoding(10, 8)              -- Python: PositionalEncoding(8, 0., 10).pe[0]
    formula = {}
    for pos = 0, 9 do
        formula[pos + 1] = {}
        for c = 0, 7 do
            local angle = pos / 10000 ^ ((c - c % 2) / 8)
            formula[pos + 1][c + 1] = c % 2 == 0 and math.sin(angle) or math.cos(angle)
        end
    end
    positions = {}
    for pos = 0, 9 do positions[pos + 1] = "pos " .. pos end
    torch.set_printoptions{precision = 2, sci_mode = false}   -- Python: precision=2, sci_mode=False
    attention.heatmap(pe, {rows = positions})
    torch.set_printoptions{profile = "default"}
    lesson.show("pe", pe)
    lesson.check("pe as PyTorch computes it", pe, pytorch("pe"), {tol = 1e-5})
    lesson.agree("pe is the formula (double precision)", pe, formula, {tol = 1e-6})
end)

lesson.say[[
The input of the first encoder block is the sum: embedding plus the encoding of its position.
This is the chapter's source_embeddings, torch.nn.Sequential(Embeddings(d_model, vocab),
c(position)): nn.PositionalEncoding adds pe's first n rows (and applies dropout, off in evaluation
mode). The two "the" now differ.
]]

lesson.step("x = embeddings + positional encoding", function()
    pos_enc = nn.PositionalEncoding(8, 0.1, 50)      -- d_model, dropout, max_len
    pos_enc:eval()
    x = pos_enc(emb)
    lesson.show("x", x)
    lesson.check("x as PyTorch computes it", x, pytorch("x"), {tol = 1e-5})
    lesson.agree("x = emb + pe[1..6]", x[1], emb[1] + pe:narrow(1, 1, 6), {tol = 1e-6})
    lesson.show("x of the first 'the' − x of the second", x[1][1] - x[1][5])
    lesson.agree("the two 'the' now differ by pe[1] − pe[5]", x[1][1] - x[1][5], pe[1] - pe[5], {tol = 1e-6})
end)

lesson.say[[
Every sublayer of a block is wrapped in a residual connection with layer normalisation. LayerNorm
normalises each token's vector on its own: subtract the mean of its d_model numbers, divide by the
square root of their (biased) variance plus ε = 1e-5, then scale and shift by learned weight and
bias, which start as 1 and 0. By hand, then with nn.LayerNorm(8):
]]

lesson.step("LayerNorm, by hand and nn.LayerNorm", function()
    mean = x:mean(-1, true)                          -- Python: x.mean(-1, keepdim=True)
    var = (x - mean):pow(2):mean(-1, true)           -- biased: divided by d_model, not d_model − 1
    by_hand = (x - mean) / (var + 1e-5):sqrt()
    ln = nn.LayerNorm(8)
    normed = ln(x)
    lesson.show("normed", normed)
    lesson.show("row means", normed:mean(-1))
    lesson.show("row variances", (normed - normed:mean(-1, true)):pow(2):mean(-1))
    lesson.check("nn.LayerNorm as PyTorch computes it", normed, pytorch("ln"), {tol = 1e-5})
    lesson.agree("nn.LayerNorm is the formula", normed, by_hand, {tol = 1e-6})
end)

lesson.say[[
The other sublayer is the position-wise feed-forward network, FFN(x) = act(x·W1 + b1)·W2 + b2,
applied to every token separately with the same weights. The original Transformer used ReLU; the
chapter uses SiLU, silu(z) = z·sigmoid(z), and an inner size d_ff (here 32). Dropout sits between the
two layers (off in evaluation mode).
]]

lesson.step("the position-wise FFN (SiLU)", function()
    torch.manual_seed(21)
    ffn = nn.PositionwiseFFN(8, 32, 0.1)             -- d_model, d_ff, dropout
    ffn:eval()
    ffn_out = ffn(x)
    inner = ffn.w_1(x)
    ffn_by_hand = ffn.w_2(inner * torch.sigmoid(inner))   -- Python: w_2(silu(w_1(x)))
    lesson.show("ffn_out", ffn_out)
    lesson.check("FFN as PyTorch computes it", ffn_out, pytorch("ffn"), {tol = 1e-5})
    lesson.agree("FFN is w_2(z·sigmoid(z)) with z = w_1(x)", ffn_out, ffn_by_hand, {tol = 1e-6})
    lesson.agree("token by token: FFN of token 3 alone is row 3", ffn(x[1][3]), ffn_out[1][3], {tol = 1e-6})
end)

lesson.section("Implementing the encoder")

lesson.say[[
The two kinds of encoder block differ only in where LayerNorm sits. Post-LN, the original
Transformer (Figure 7.9, left): each sublayer's output is LayerNorm(x + Sublayer(x)). Pre-LN
(right): x + Sublayer(LayerNorm(x)). The chapter says it implements the post-LN encoder, and that
SublayerConnection matches LayerNorm(x + SubLayer(x)); but its code, the Annotated Transformer's,
returns x + self.dropout(sublayer(self.norm(x))): the pre-LN form, as the checks below confirm.
attn's nn.SublayerConnection and blocks follow the code and take {norm_first = false} for post-LN.
Each block has two sublayers: multi-head self-attention (2 heads) and the FFN. The source mask is
all ones: no padding, every token may attend to every token.

We build the post-LN block from a seed, then the pre-LN block from the same seed, so that both
have the same weights, and run both on x.
]]

lesson.step("an encoder block, post-LN", function()
    src_mask = torch.ones(1, 1, 6)                  -- 1 = may attend (the chapter's convention)
    torch.manual_seed(22)
    block_post = nn.EncoderBlock(8, nn.MultiHeadedAttention(2, 8, 0.1), nn.PositionwiseFFN(8, 32, 0.1),
                                 0.1, {norm_first = false})   -- post-LN; the chapter's code is pre-LN
    block_post:eval()
    y_post = block_post(x, src_mask)
    -- by hand: LayerNorm(x + MHA(x)), then LayerNorm(h + FFN(h))
    local s = block_post.sublayers
    h_post = s[1].norm(x + block_post.self_attn(x, x, x, src_mask))
    y_post_hand = s[2].norm(h_post + block_post.ffn(h_post))
    lesson.show("y_post", y_post)
    lesson.check("post-LN block as PyTorch computes it", y_post, pytorch("enc_post"), {tol = 1e-5})
    lesson.agree("= LayerNorm(h + FFN(h)), h = LayerNorm(x + MHA(x))", y_post, y_post_hand, {tol = 1e-6})
end)

lesson.step("the same block, pre-LN (the chapter's SublayerConnection)", function()
    torch.manual_seed(22)
    block_pre = nn.EncoderBlock(8, nn.MultiHeadedAttention(2, 8, 0.1), nn.PositionwiseFFN(8, 32, 0.1),
                                0.1)
    block_pre:eval()
    y_pre = block_pre(x, src_mask)
    -- by hand: h = x + MHA(LayerNorm(x)), then h + FFN(LayerNorm(h))
    local s = block_pre.sublayers
    local n1 = s[1].norm(x)
    h_pre = x + block_pre.self_attn(n1, n1, n1, src_mask)
    y_pre_hand = h_pre + block_pre.ffn(s[2].norm(h_pre))
    lesson.show("y_pre", y_pre)
    lesson.check("pre-LN block as PyTorch computes it", y_pre, pytorch("enc_pre"), {tol = 1e-5})
    lesson.agree("= h + FFN(LayerNorm(h)), h = x + MHA(LayerNorm(x))", y_pre, y_pre_hand, {tol = 1e-6})
    lesson.agree("the same weights as the post-LN block", block_pre:parameters(), block_post:parameters())
    lesson.show("largest |y_pre − y_post|", (y_pre - y_post):abs():max())
end)

lesson.say[[
Same weights, same input, different outputs. A post-LN block ends with a LayerNorm, so each
token's output has mean 0 and standard deviation 1 (with LayerNorm's initial weight 1 and bias 0).
A pre-LN block ends with a residual sum: its output keeps the scale of x, and the chapter's Encoder
closes the stack with one final LayerNorm. (In training, the chapter says, post-LN needs a warm-up of
the learning rate and pre-LN does not, but pre-LN may suffer representation collapse.)
]]

lesson.step("post-LN vs pre-LN: the scale of each token's output", function()
    function row_std(t) return (t - t:mean(-1, true)):pow(2):mean(-1):sqrt() end
    lesson.show("std of x's rows", row_std(x))
    lesson.show("std of y_post's rows", row_std(y_post))
    lesson.show("std of y_pre's rows", row_std(y_pre))
    lesson.agree("post-LN: every row has standard deviation 1", row_std(y_post), torch.ones(1, 6), {tol = 1e-4})
    lesson.agree("post-LN: every row has mean 0", y_post:mean(-1), torch.zeros(1, 6), {tol = 1e-6})
end)

lesson.say[[
The chapter's Encoder stacks N copies of a block (the original has N = 6; we take N = 2) and ends
with a LayerNorm. Each block's output is the next one's input. clones makes deep copies, so both
blocks start with equal weights; training would make them differ. The output is the memory the
decoder will attend to.
]]

lesson.step("the Encoder: N = 2 blocks and a final LayerNorm", function()
    torch.manual_seed(23)
    encoder = nn.Encoder(nn.EncoderBlock(8, nn.MultiHeadedAttention(2, 8, 0.1),
                                         nn.PositionwiseFFN(8, 32, 0.1), 0.1), 2)
    encoder:eval()
    memory = encoder(x, src_mask)
    -- the same by hand: block 1, block 2, LayerNorm
    memory_hand = encoder.norm(encoder.blocks[2](encoder.blocks[1](x, src_mask), src_mask))
    lesson.show("#encoder.blocks", #encoder.blocks)
    lesson.show("memory", memory)
    lesson.check("the Encoder as PyTorch computes it", memory, pytorch("memory"), {tol = 1e-5})
    lesson.agree("= norm(block 2(block 1(x)))", memory, memory_hand, {tol = 1e-6})
    lesson.agree("clones: the two blocks start equal", encoder.blocks[1]:parameters(), encoder.blocks[2]:parameters())
end)

lesson.section("Implementing the decoder")

lesson.say[[
The decoder reads the target sequence generated so far, shifted by one: it starts with <s>. Its
block has three sublayers: masked self-attention over the target (a token may attend only to
itself and earlier tokens, the causal mask nn.subsequent_mask), attention over the encoder's
memory (queries from the decoder, keys and values from the encoder: cross-attention), and the
FFN. (The chapter's text says source_mask is the mask of the decoder's self-attention. Its
DecoderBlock.forward, whose lines its listing lost in conversion, is the Annotated Transformer's,
which gives target_mask to the self-attention and source_mask to the cross-attention, as attn does.)
Our made-up target vocabulary is German; the decoder has seen "<s> die Katze saß" and will
predict the next word. The target gets its own Embeddings and the same positional encoding.
mha.use_fused = false keeps each attention's weights in .attn, so we can look at them.
]]

lesson.step("a decoder block: causal self-attention and cross-attention", function()
    tgt_vocab = {"<pad>", "<s>", "</s>", "die", "Katze", "saß", "auf", "der", "Matte"}
    tgt, tgt_words = ids_of(tgt_vocab, "<s> die Katze saß")
    lesson.check("PyTorch's target ids are ours minus 1", tgt - 1, pytorch("tgt"), {tol = 0})
    torch.manual_seed(24)
    tgt_tok = nn.Embeddings(8, #tgt_vocab)
    dec_block = nn.DecoderBlock(8, nn.MultiHeadedAttention(2, 8, 0.1),      -- self-attention
                                nn.MultiHeadedAttention(2, 8, 0.1),          -- cross-attention
                                nn.PositionwiseFFN(8, 32, 0.1), 0.1)
    dec_block:eval()
    dec_block.self_attn.use_fused, dec_block.encoder_attn.use_fused = false, false
    y = pos_enc(tgt_tok(tgt))
    tgt_mask = nn.subsequent_mask(4)                 -- [1, 4, 4], true = may attend
    dec_out = dec_block(y, memory, src_mask, tgt_mask)
    lesson.show("tgt_mask", tgt_mask)
    lesson.heatmaps{{lesson.tr("self-attention, head 1"), dec_block.self_attn.attn[1][1], {rows = tgt_words, cols = tgt_words}},
                    {lesson.tr("cross-attention, head 1"), dec_block.encoder_attn.attn[1][1], {rows = tgt_words, cols = src_words}}}
    lesson.show("dec_out", dec_out)
    lesson.check("the target input y as PyTorch computes it", y, pytorch("y"), {tol = 1e-5})
    lesson.check("self-attention weights [1, 2, 4, 4] as PyTorch's", dec_block.self_attn.attn, pytorch("dec_self_attn"), {tol = 1e-5})
    lesson.check("cross-attention weights [1, 2, 4, 6] as PyTorch's", dec_block.encoder_attn.attn, pytorch("dec_cross_attn"), {tol = 1e-5})
    lesson.check("the decoder block's output as PyTorch computes it", dec_out, pytorch("dec_out"), {tol = 1e-5})
    lesson.agree("self-attention: no weight above the diagonal (A = tril(A))",
                 torch.tril(dec_block.self_attn.attn[1]), dec_block.self_attn.attn[1])
end)

lesson.say[[
What the causal mask buys: position t's output depends only on tokens 1 … t. So running the block
on the first 3 target tokens alone gives exactly the first 3 rows of the output for all 4. This is
why training can feed the whole target at once, while generation adds one token at a time.
]]

lesson.step("causality: a shorter target gives the same first rows", function()
    y3 = y:narrow(2, 1, 3)                           -- Python: y[:, :3]
    out3 = dec_block(y3, memory, src_mask, nn.subsequent_mask(3))
    lesson.show("out3", out3)
    lesson.agree("the first 3 rows of dec_out", out3, dec_out:narrow(2, 1, 3), {tol = 1e-6})
end)

lesson.say[[
The chapter's Decoder stacks N such blocks, normalises, projects each position onto the target
vocabulary with a Linear layer and takes log_softmax: row t holds the log-probabilities of the
token that follows token t. The last row predicts the word after "saß". The model is untrained,
so its guess means nothing yet, but it is computed the same way as PyTorch's.
]]

lesson.step("the Decoder: N = 2 blocks, projection, log_softmax, the next word", function()
    torch.manual_seed(25)
    decoder = nn.Decoder(nn.DecoderBlock(8, nn.MultiHeadedAttention(2, 8, 0.1),
                                         nn.MultiHeadedAttention(2, 8, 0.1),
                                         nn.PositionwiseFFN(8, 32, 0.1), 0.1), 2, #tgt_vocab)
    decoder:eval()
    log_probs = decoder(y, memory, src_mask, tgt_mask)   -- [1, 4, 9]
    probs = log_probs[1][4]:exp()                         -- after "saß"
    _, best = probs:max(1)
    next_word = tgt_vocab[math.tointeger(best:item())]
    lesson.show("log_probs", log_probs)
    lesson.show("probs", probs)
    lesson.show("next word", next_word)
    lesson.check("log_probs as PyTorch computes them", log_probs, pytorch("log_probs"), {tol = 1e-5})
    lesson.agree("every row of probabilities sums to 1", log_probs:exp():sum(-1), torch.ones(1, 4), {tol = 1e-6})
    lesson.check("PyTorch picks the same next word", best:item(), pytorch("log_probs")[1][4]:argmax():item() + 0)
end)
