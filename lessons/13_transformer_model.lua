-- 13_transformer_model.lua — Python Deep Learning (3rd ed.), ch. 7, "Putting it all together": the
-- EncoderDecoder class, build_model with copy.deepcopy and xavier_uniform_, the parameter count at the
-- book's size, one forward pass with teacher forcing, and greedy decoding one token at a time, the target
-- mask growing by a row each step.
--   ./attn lessons/13_transformer_model.lua           straight through
--   ./attn --step lessons/13_transformer_model.lua    one step at a time
-- The chapter prints no numbers here: every seeded result is checked against PyTorch's run of the book's
-- build_model (scripts/lesson_reference_model.py, stored in tests/data/torch/lessons_pdl_ch7.txt).

lesson.title("The assembled Transformer: build_model and greedy decoding",
             {source = "Python Deep Learning (3rd ed.), ch. 7: Putting it all together"})

-- What PyTorch computed for this lesson (scripts/lesson_reference_model.py).
local function pytorch(name)
    return lesson.reference("lessons_pdl_ch7.txt", "model." .. name)
end

lesson.section("Putting it all together")

lesson.say[[
Lesson 12 built the parts: embeddings and the positional encoding, the encoder blocks and the
Encoder, the decoder blocks and the Decoder, which ends in a projection onto the target vocabulary
and log_softmax. The chapter joins them in one class, EncoderDecoder: forward embeds the source
and runs the encoder, then embeds the target and runs the decoder on it and on the encoder's
output. Here it is as the chapter writes it. (The chapter passes keyword arguments, x= and mask=;
Lua passes them in order.)
]]

lesson.step("class EncoderDecoder", function()
    EncoderDecoder = nn.Module:extend("EncoderDecoder")     -- Python: class EncoderDecoder(torch.nn.Module):

    function EncoderDecoder:__init(encoder, decoder, source_embeddings, target_embeddings)
        self.encoder = encoder
        self.decoder = decoder
        self.source_embeddings = source_embeddings
        self.target_embeddings = target_embeddings
    end

    function EncoderDecoder:forward(source, target, source_mask, target_mask)
        local encoder_output = self.encoder(self.source_embeddings(source), source_mask)
        return self.decoder(self.target_embeddings(target), encoder_output, source_mask, target_mask)
    end
end)

lesson.say[[
build_model makes every part and puts them together. Three details matter. It makes one attention
module, one FFN and one positional encoding, and gives every block its own deep copy: the book's
c = copy.deepcopy, m:clone() in attn. The embeddings are torch.nn.Sequential(Embeddings, position):
first the lookup (times √d_model), then the positional encoding added. And after building, every
parameter with more than one dimension (every weight matrix and embedding table) is drawn again
with xavier_uniform_; biases and LayerNorm's weights keep their start (0s, 1s, or nn.Linear's
small uniform biases). Here it is line for line.
]]

lesson.step("build_model", function()
    function build_model(source_vocabulary, target_vocabulary, N, d_model, d_ff, h, dropout)
        N, d_model, d_ff = N or 6, d_model or 512, d_ff or 2048   -- Python: N=6, d_model=512, d_ff=2048,
        h, dropout = h or 8, dropout or 0.1                        -- Python: h=8, dropout=0.1
        local c = function(m) return m:clone() end                 -- Python: c = copy.deepcopy
        local attn = nn.MultiHeadedAttention(h, d_model)
        local ff = nn.PositionwiseFFN(d_model, d_ff, dropout)
        local position = nn.PositionalEncoding(d_model, dropout)
        local model = EncoderDecoder(
            nn.Encoder(nn.EncoderBlock(d_model, c(attn), c(ff), dropout), N),
            nn.Decoder(nn.DecoderBlock(d_model, c(attn), c(attn), c(ff), dropout), N, target_vocabulary),
            nn.Sequential(nn.Embeddings(d_model, source_vocabulary), c(position)),
            nn.Sequential(nn.Embeddings(d_model, target_vocabulary), c(position)))
        -- Initialize parameters with random weights
        for _, p in ipairs(model:parameters()) do                 -- Python: for p in model.parameters():
            if p:dim() > 1 then
                nn.init.xavier_uniform_(p)                         -- Python: torch.nn.init.xavier_uniform_(p)
            end
        end
        return model
    end
end)

lesson.say[[
Our task is the chapter's seq2seq example: translate "how are you today ?" into Spanish,
"¿ cómo estás hoy ?". Each language gets a tiny vocabulary, with a padding token and the start
and end symbols <s> and </s>. A small model first: N = 2 blocks of each kind, d_model = 16,
d_ff = 32, h = 2 heads. Ids are int64 tensors counted from 1 (PyTorch's are ours minus 1).
]]

lesson.step("the vocabularies and a small model", function()
    src_vocab = {"<pad>", "<s>", "</s>", "how", "are", "you", "today", "?"}
    tgt_vocab = {"<pad>", "<s>", "</s>", "¿", "cómo", "estás", "hoy", "?"}
    function ids_of(vocab, sentence)                     -- {"how", ...} -> a [1, n] int64 tensor
        local index, ids, words = {}, {}, {}
        for i, w in ipairs(vocab) do index[w] = i end
        for w in sentence:gmatch("%S+") do ids[#ids + 1], words[#words + 1] = index[w], w end
        return torch.tensor({ids}), words
    end
    torch.manual_seed(30)
    model = build_model(#src_vocab, #tgt_vocab, 2, 16, 32, 2)   -- Python: N=2, d_model=16, d_ff=32, h=2
    model:eval()
    for name, child in model:named_children() do
        lesson.show(name, lesson.tr("%s, %d parameters", child.__name, child:num_parameters()))
    end
    lesson.show("model:num_parameters()", model:num_parameters())
    lesson.check("as many parameters as PyTorch's model", model:num_parameters(), pytorch("small.params"):item())
    lesson.check("an attention weight as PyTorch draws it",
                 model.encoder.blocks[1].self_attn.fc_layers[1].weight, pytorch("small.fc1"), {tol = 0})
    lesson.check("the target embedding table as PyTorch draws it",
                 model.target_embeddings[1].lut.weight, pytorch("small.lut"), {tol = 0})
end)

lesson.say[[
Every block holds its own copy: c(attn) twice in a decoder block gives two modules with equal
numbers but separate storage, and then xavier_uniform_ draws each matrix anew, so they end up
different. Every weight now lies within Xavier's bound ±√(6 / (fan_in + fan_out)). attn also has
the function as nn.build_model; made from the same seed it is the same model.
]]

lesson.step("copies, Xavier's bounds, nn.build_model", function()
    local block = model.decoder.blocks[1]
    local a, b = block.self_attn.fc_layers[1].weight, block.encoder_attn.fc_layers[1].weight
    lesson.show("self_attn and encoder_attn: the same first weight?", torch.equal(a, b))
    local worst = 0
    for _, p in ipairs(model:parameters()) do
        if p:dim() > 1 then
            local bound = math.sqrt(6 / (p.shape[1] + p.shape[2]))
            worst = math.max(worst, p:abs():max():item() / bound)
        end
    end
    lesson.show("largest |w| / bound over all matrices", string.format("%.4f", worst))
    lesson.agree("two copies of one module, drawn anew: different weights", torch.equal(a, b), false)
    lesson.agree("every matrix within Xavier's bound", worst <= 1, true)
    torch.manual_seed(30)
    lib_model = nn.build_model(#src_vocab, #tgt_vocab, {N = 2, d_model = 16, d_ff = 32, h = 2})
    lib_model:eval()
    lesson.agree("nn.build_model makes the same parameters", lib_model:parameters(), model:parameters())
end)

lesson.say[[
The book's sizes are those of the original Transformer: N = 6, d_model = 512, d_ff = 2048, h = 8.
With our two tiny vocabularies nearly all of its parameters are in the blocks. One encoder block
holds the attention's four 512 × 512 Linear layers (with biases), the FFN's 512 × 2048 and
2048 × 512 layers and two LayerNorms; a decoder block has a second attention module and a third
LayerNorm. The counts below are computed from the model built at that size.
]]

lesson.step("the parameter count at the book's size", function()
    torch.manual_seed(31)
    big = build_model(#src_vocab, #tgt_vocab)              -- Python: build_model(8, 8)
    local enc_block, dec_block = big.encoder.blocks[1]:num_parameters(), big.decoder.blocks[1]:num_parameters()
    lesson.show("one encoder block", enc_block)
    lesson.show("one decoder block", dec_block)
    lesson.show("encoder (6 blocks + LayerNorm)", big.encoder:num_parameters())
    lesson.show("decoder (6 blocks + LayerNorm + projection)", big.decoder:num_parameters())
    lesson.show("the whole model", big:num_parameters())
    lesson.check("the whole model: PyTorch's count", big:num_parameters(), pytorch("book.params"):item())
    lesson.check("the encoder: PyTorch's count", big.encoder:num_parameters(), pytorch("book.encoder"):item())
    lesson.check("the decoder: PyTorch's count", big.decoder:num_parameters(), pytorch("book.decoder"):item())
    lesson.agree("one encoder block: 4·(512² + 512) + (512·2048 + 2048) + (2048·512 + 512) + 2·2·512",
                 enc_block, 4 * (512 * 512 + 512) + (512 * 2048 + 2048) + (2048 * 512 + 512) + 2 * 2 * 512)
    big = nil
    collectgarbage()
end)

lesson.section("One forward pass: teacher forcing")

lesson.say[[
In training, the decoder is fed the whole target at once, shifted right by one: "<s> ¿ cómo estás
hoy ?" in, and at each position it predicts the next word, "¿ cómo estás hoy ? </s>" (teacher
forcing, as in seq2seq). The causal target mask keeps each position from seeing the words after
it; the source mask is all ones (no padding). The output holds, for each of the 6 target positions,
the log-probabilities of the 8 target words.
]]

lesson.step("model(source, target, source_mask, target_mask)", function()
    src, src_words = ids_of(src_vocab, "how are you today ?")
    tgt, tgt_words = ids_of(tgt_vocab, "<s> ¿ cómo estás hoy ?")
    lesson.check("PyTorch's source ids are ours minus 1", src - 1, pytorch("src"), {tol = 0})
    lesson.check("PyTorch's target ids are ours minus 1", tgt - 1, pytorch("tgt"), {tol = 0})
    src_mask = torch.ones(1, 1, src.shape[2])
    tgt_mask = nn.subsequent_mask(tgt.shape[2])
    log_probs = model(src, tgt, src_mask, tgt_mask)
    lesson.show("tgt_mask", tgt_mask)
    lesson.show("log_probs.shape", log_probs.shape)
    attention.heatmap(log_probs[1]:exp(), {rows = tgt_words, cols = tgt_vocab, range = {0, 1}})
    lesson.check("the log-probabilities as PyTorch computes them", log_probs, pytorch("log_probs"), {tol = 1e-6})
    lesson.agree("each position's probabilities sum to 1", log_probs:exp():sum(-1), torch.ones(1, 6), {tol = 1e-6})
end)

lesson.say[[
The model is untrained: which word gets the most probability at each position is an accident of
its random weights. Training would push up, at each position, the probability of the word that
follows in the target.
]]

lesson.section("Greedy decoding, one token at a time")

lesson.say[[
At inference there is no target to feed. The decoder starts from <s> alone and generates: at each
step it reads the target so far, the last position's log-probabilities name the most probable next
word, which is appended, and the longer target goes in again. The target mask grows by one row
and one column each step. (The chapter says the extended sequence is fed "to the encoder" again;
the encoder's input is the source, which does not change, so it runs once and its output, the
memory, is reused at every step. It is the decoder that reads the extended target.)

nn.GreedyDecoder keeps that state: d.memory, the target so far d.ys, and after each d:step() the
mask d.target_mask and the log-probabilities d.log_probs it used. It needs the Annotated
Transformer's encode and decode methods, which attn's nn.EncoderDecoder has: we decode with
lib_model, made by nn.build_model from the same seed (the same weights).
]]

lesson.step("start: encode once, the target is <s>", function()
    d = nn.GreedyDecoder(lib_model, src, src_mask, 2)   -- 2 is <s> (PyTorch's 1)
    lesson.show("d.memory.shape", d.memory.shape)
    lesson.show("d.ys", d.ys)
end)

lesson.say[[
Step 1: the decoder reads "<s>" under a 1 × 1 mask and predicts the first word.
]]

lesson.step("decoding step 1", function()
    local id = d:step()
    lesson.show("target_mask", d.target_mask)
    lesson.show("next word", lesson.tr("%s (probability %.4f)", tgt_vocab[id], math.exp(d.log_probs:detach()[1][id])))
    lesson.show("d.ys", d.ys)
    lesson.check("step 1's log-probabilities as PyTorch's", d.log_probs, pytorch("greedy.step1"), {tol = 1e-6})
end)

lesson.say[[
Step 2: "<s>" and the word just chosen, under a 2 × 2 mask.
]]

lesson.step("decoding step 2", function()
    local id = d:step()
    lesson.show("target_mask", d.target_mask)
    lesson.show("next word", lesson.tr("%s (probability %.4f)", tgt_vocab[id], math.exp(d.log_probs:detach()[1][id])))
    lesson.show("d.ys", d.ys)
    lesson.check("step 2's log-probabilities as PyTorch's", d.log_probs, pytorch("greedy.step2"), {tol = 1e-6})
end)

lesson.say[[
Four more steps; the mask is 6 × 6 at the last. (A trained model would stop when it produces </s>;
nn.GreedyDecoder takes {end_symbol = 3} for that, and nn.greedy_decode runs all the steps at once.)
]]

lesson.step("decoding steps 3 to 6", function()
    for i = 3, 6 do
        local id = d:step()
        lesson.show(lesson.tr("step %d", i), lesson.tr("%s (probability %.4f), mask %d × %d",
            tgt_vocab[id], math.exp(d.log_probs:detach()[1][id]), d.target_mask.shape[2], d.target_mask.shape[3]))
        lesson.check(lesson.tr("step %d's log-probabilities as PyTorch's", i), d.log_probs,
                     pytorch("greedy.step" .. i), {tol = 1e-6})
    end
    lesson.show("target_mask", d.target_mask)
    local words = {}
    for i = 1, d.ys.shape[2] do words[i] = tgt_vocab[d.ys[1][i]] end
    lesson.show("the translation", table.concat(words, " "))
    lesson.check("the same words as PyTorch's greedy decoding (ids minus 1)", d.ys - 1, pytorch("greedy.ys"), {tol = 0})
    lesson.agree("nn.greedy_decode gives the same", nn.greedy_decode(lib_model, src, src_mask, 7, 2), d.ys)
end)

lesson.say[[
Why the causal mask, when the target is only as long as what was generated? Because the same
model is trained with teacher forcing on whole targets (above), where the mask keeps each position
from seeing the answer. With it, the decoder computes the same thing for a position whether the
words after it are there or not: the last row of step 6 is the row of a single forward pass over
the same 6 words.
]]

lesson.step("the last step equals a single pass over the same target", function()
    local ys6 = d.ys:narrow(2, 1, 6)
    local whole = model(src, ys6, src_mask, nn.subsequent_mask(6))
    lesson.agree("step 6's log-probabilities = the last row of one forward pass", whole[1][6], d.log_probs[1],
                 {tol = 1e-6})
end)
