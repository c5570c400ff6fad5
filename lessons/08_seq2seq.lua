-- 08_seq2seq.lua — Python Deep Learning (3rd ed.), ch. 7, "Introducing seq2seq models", with the long-sequence
-- problem of Build a Large Language Model (From Scratch) §3.1 and the notes on chapter 3: a GRU encoder
-- folds a sentence into one vector, the thought vector; a decoder generates from <GO> one token at a time;
-- teacher forcing and the probability of a target; why one vector is a bottleneck, and the reversed source.
--   ./attn lessons/08_seq2seq.lua           straight through
--   ./attn --step lessons/08_seq2seq.lua    one step at a time
-- The chapter prints no numbers here: every seeded result is checked against PyTorch's run of the same
-- code (scripts/lesson_reference_seq2seq.py, stored in tests/data/torch/lessons_pdl_ch7.txt).

lesson.title("seq2seq: an encoder, a thought vector and a decoder",
             {source = "Python Deep Learning (3rd ed.), ch. 7: Introducing seq2seq models; Build a Large Language Model (From Scratch) §3.1"})

-- What PyTorch computed for this lesson (scripts/lesson_reference_seq2seq.py).
local function pytorch(name)
    return lesson.reference("lessons_pdl_ch7.txt", "seq2seq." .. name)
end

lesson.section("Introducing seq2seq models")

lesson.say[[
A translation is not word for word: the output sentence has its own length and order. Before
attention, the answer was the encoder-decoder (seq2seq) model of 2014: one recurrent network, the
encoder, reads the whole input sentence, and a second one, the decoder, writes the output. The
chapter's example translates "How are you today?" into Spanish, "¿Cómo estás hoy?". The encoder
reads the tokens [how, are, you, today, ?, <EOS>]; the decoder starts from a <GO> signal. Each
language gets a tiny vocabulary; ids are int64 tensors counted from 1 (PyTorch's are ours minus 1).
]]

lesson.step("the vocabularies and the source sentence", function()
    function pad(s, n) return s .. string.rep(" ", n - utf8.len(s)) end   -- pads to n characters
    src_vocab = {"<pad>", "<EOS>", "how", "are", "you", "today", "?"}
    tgt_vocab = {"<pad>", "<GO>", "<EOS>", "¿", "cómo", "estás", "hoy", "?"}
    function ids_of(vocab, sentence)                     -- {"how", ...} -> a [1, n] int64 tensor
        local index, ids, words = {}, {}, {}
        for i, w in ipairs(vocab) do index[w] = i end
        for w in sentence:gmatch("%S+") do ids[#ids + 1], words[#words + 1] = index[w], w end
        return torch.tensor({ids}), words
    end
    src, src_words = ids_of(src_vocab, "how are you today ? <EOS>")
    lesson.show("src", src)
    lesson.check("PyTorch's ids of the sentence are ours minus 1", src - 1, pytorch("src"), {tol = 0})
end)

lesson.say[[
The encoder is an embedding (each token a vector of 4 numbers) and a GRU with a hidden state of 8
numbers. It reads one token per step and updates its state from the token and the state before.
Its outputs are the states after each step; the seq2seq model keeps only the last one, h_T: the
encoder's summary of the whole sentence, which the chapter calls the thought vector v. (Both are
made from a seed: untrained, random weights. nn.GRU's weights and numbers are PyTorch's, bit for bit.)
]]

lesson.step("the encoder: embedding and GRU", function()
    torch.manual_seed(40)
    embed = nn.Embedding(#src_vocab, 4)
    encoder = nn.GRU(4, 8, {batch_first = true})            -- Python: GRU(4, 8, batch_first=True)
    outputs, h_T = encoder(embed(src))
    lesson.show("encoder", encoder)
    attention.heatmap(outputs[1], {rows = src_words})
    lesson.show("v = h_T", h_T)
    lesson.check("the states after each step, as PyTorch computes them", outputs, pytorch("outputs"), {tol = 1e-6})
    lesson.check("the thought vector, as PyTorch computes it", h_T, pytorch("v"), {tol = 1e-6})
    lesson.agree("v is the state after the last step", h_T[1][1], outputs[1][6])
end)

lesson.say[[
The GRU is one cell applied step after step: h_t = cell(x_t, h_{t−1}), from h_0 = 0. Here is the
loop written out with nn.GRUCell holding the encoder's weights: it gives every state above.
]]

lesson.step("the encoder step by step", function()
    cell = nn.GRUCell(4, 8)
    torch.no_grad(function()                                -- Python: with torch.no_grad():
        cell.weight_ih:copy_(encoder.weight_ih_l0)
        cell.weight_hh:copy_(encoder.weight_hh_l0)
        cell.bias_ih:copy_(encoder.bias_ih_l0)
        cell.bias_hh:copy_(encoder.bias_hh_l0)
    end)
    local x = embed(src)[1]                                 -- [6, 4]: one row per token
    local h = torch.zeros(1, 8)
    for t = 1, 6 do
        h = cell(x[{{t}}], h)                               -- Python: h = cell(x[t-1:t], h)
        lesson.show(lesson.tr("h_%d after %-6s", t, src_words[t]), h)
    end
    lesson.agree("the last state of the loop is v", h, h_T[1])
end)

lesson.say[[
The decoder is a second GRU cell, with its own embedding of the target words and a Linear layer
onto the target vocabulary. Its state starts as the thought vector, s_0 = v. At each step it reads
the word it produced last (first <GO>), updates its state, turns the state into probabilities of
every target word (softmax of the Linear layer's output) and emits the most probable one. That word
is its next input: the model is autoregressive, [<GO>] → [<GO>, y_1] → [<GO>, y_1, y_2] …, until it
emits <EOS>. The decoder sees the source only through v.
]]

lesson.step("the decoder generates from <GO>", function()
    torch.manual_seed(82)
    tgt_embed = nn.Embedding(#tgt_vocab, 4)
    dec_cell = nn.GRUCell(4, 8)
    out = nn.Linear(8, #tgt_vocab)
    local s = h_T[1]                                        -- s_0 = v
    local y = torch.tensor{2}                               -- <GO>
    generated, probs = {}, {}
    for t = 1, 8 do
        s = dec_cell(tgt_embed(y), s)
        local p = torch.softmax(out(s), -1)
        y = p:argmax(-1)
        generated[t], probs[t] = y[1], p
        lesson.show(lesson.tr("step %d", t), string.format("→ %s (p = %.4f)", pad(tgt_vocab[y[1]], 6), p[1][y[1]]:item()))
        if y[1] == 3 then break end                         -- <EOS>
    end
    lesson.check("the words PyTorch's decoder picks (ids minus 1)", torch.tensor(generated) - 1,
                 pytorch("generated"), {tol = 0})
    lesson.check("their probabilities at every step, as PyTorch computes them", torch.cat(probs), pytorch("probs"),
                 {tol = 1e-6})
end)

lesson.say[[
Untrained, the decoder says nothing sensible. Training is supervised: we know the target sentence,
and the decoder learns by teacher forcing. Whatever it would have generated, at step t+1 it is fed
the true target word t, so that a wrong guess early does not spoil the rest. Its inputs are the
target shifted right by one position, starting with <GO>; its targets are the same sentence, ending
with <EOS>.
]]

lesson.step("teacher forcing: inputs and targets", function()
    dec_in, in_words = ids_of(tgt_vocab, "<GO> ¿ cómo estás hoy ?")
    dec_out, out_words = ids_of(tgt_vocab, "¿ cómo estás hoy ? <EOS>")
    for t = 1, 6 do
        lesson.show(lesson.tr("step %d", t), lesson.tr("reads %s must predict %s", pad(in_words[t], 6), out_words[t]))
    end
    lesson.agree("the inputs are the targets shifted right by one", dec_in:narrow(2, 2, 5), dec_out:narrow(2, 1, 5))
end)

lesson.say[[
What the model maximises is the probability of the whole target given the source:
P(y_1 … y_T' | x_1 … x_T) = Π_t P(y_t | v, y_1 … y_{t−1}), each factor the decoder's probability of
the right word at step t. With teacher forcing all steps run at once: nn.GRU over the shifted
target from the state v, with the decoder cell's weights, gives every s_t, and log_softmax of the
Linear layer gives each step's log-probabilities. The log of the product is the sum of the logs.
]]

lesson.step("log P(target | source) = Σ log P(y_t | v, y_<t)", function()
    dec_gru = nn.GRU(4, 8, {batch_first = true})
    torch.no_grad(function()                                -- Python: with torch.no_grad():
        dec_gru.weight_ih_l0:copy_(dec_cell.weight_ih)
        dec_gru.weight_hh_l0:copy_(dec_cell.weight_hh)
        dec_gru.bias_ih_l0:copy_(dec_cell.bias_ih)
        dec_gru.bias_hh_l0:copy_(dec_cell.bias_hh)
    end)
    local states = dec_gru(tgt_embed(dec_in), h_T)
    local log_p = torch.log_softmax(out(states), -1)[1]     -- [6, 8]
    log_p_target = torch.empty(6)
    local product = 1
    for t = 1, 6 do
        log_p_target[t] = log_p[t][dec_out[1][t]]           -- the log-probability of the right word
        product = product * math.exp(log_p_target[t]:item())  -- a 0-d tensor (it requires grad): :item()
    end
    lesson.show("log P(y_t | v, y_<t)", log_p_target)
    lesson.show("log P(target | source)", log_p_target:sum())
    lesson.show("P(target | source)", product)
    lesson.check("each step's log-probability, as PyTorch computes it", log_p_target, pytorch("teacher.log_p"),
                 {tol = 1e-6})
    lesson.check("their sum, as PyTorch computes it", log_p_target:sum(), pytorch("teacher.total"), {tol = 1e-5})
    lesson.agree("the product of the probabilities is exp of the sum of the logs", product,
                 math.exp(log_p_target:sum():item()), {tol = 1e-9})
end)

lesson.section("The bottleneck")

lesson.say[[
Everything the decoder knows about the source is v, 8 numbers here, however long the sentence.
Build a Large Language Model (From Scratch) §3.1 names the problem: the decoder cannot reach the
encoder's earlier states, only the last one, so context is lost, the more the longer the sentence.
The notes on chapter 3 say it the same way: the RNN cannot use the encoder's early states. And
Python Deep Learning: "newer sequence elements suppress the information of older ones". We can
measure it: encode a sentence of 30 random words, then replace one word at a time with <pad> and
see how far v moves.
]]

lesson.step("30 words, one vector: how far v moves when one word changes", function()
    torch.manual_seed(42)
    long = torch.randint(3, 8, {1, 30})                     -- Python: torch.randint(2, 7, (1, 30))
    lesson.check("PyTorch draws the same words (ids minus 1)", long - 1, pytorch("long"), {tol = 0})
    function influence(tokens)                              -- |Δv| for each position changed to <pad>
        local _, v = encoder(embed(tokens))
        local out = torch.empty(tokens.shape[2])
        for i = 1, tokens.shape[2] do
            local changed = tokens:clone()
            changed[1][i] = 1                               -- <pad>
            local _, v2 = encoder(embed(changed))
            out[i] = (v2 - v):pow(2):sum():sqrt()
        end
        return out
    end
    moves = torch.no_grad(influence, long)                   -- numbers only: no graph (Python: with torch.no_grad():)
    local _, v_long = encoder(embed(long))
    lesson.show("v of the 30-word sentence", v_long)
    lesson.show("|Δv| when word i changes", moves)
    lesson.check("each word's influence, as PyTorch computes it", moves, pytorch("influence"), {tol = 1e-5})
    lesson.agree("v has 8 numbers for 30 words as for 6", v_long.shape, h_T.shape)
    lesson.agree("the last word moves v more than the first", moves[30] > moves[1], true)
end)

lesson.say([[
Changing the last word moves v by %.3f, the first by %.1e: after 29 more updates of the state,
little of the first word is left. (A trained LSTM keeps more; the chapter puts the useful length of
an RNN's memory at about 100 tokens. The shape of the curve is the point: the oldest words fade.)
]], moves[30], moves[1])

lesson.say[[
The original seq2seq paper found a trick: feed the source reversed, [C, B, A] → [W, X, Y, Z]
instead of [A, B, C]. The average distance between a source word and its translation stays the
same, but the first source word is now read last, right before the decoder writes the first target
word. (The Chinese translation says the reversed input goes "to the decoder"; it is the encoder that
reads the source, reversed.) Measured on our sentence: how much does "how" move v, read first or
read last?
]]

lesson.step("the source reversed: its first word is read last", function()
    rev, rev_words = ids_of(src_vocab, "? today you are how <EOS>")
    forward_moves, reversed_moves = torch.no_grad(influence, src), torch.no_grad(influence, rev)
    local function listed(words, moves)                     -- "how 0.1287, are 0.0428, ..."
        local parts = {}
        for i, w in ipairs(words) do parts[i] = string.format("%s %.4f", w, moves[i]) end
        return table.concat(parts, ", ")
    end
    lesson.show("|Δv| in order", listed(src_words, forward_moves))
    lesson.show("|Δv| reversed", listed(rev_words, reversed_moves))
    lesson.check("in order, as PyTorch computes it", forward_moves, pytorch("influence_forward"), {tol = 1e-5})
    lesson.check("reversed, as PyTorch computes it", reversed_moves, pytorch("influence_reversed"), {tol = 1e-5})
    lesson.agree("\"how\" moves v more when it is read last", reversed_moves[5] > forward_moves[1], true)
end)

lesson.say[[
The trick only moves the problem: now the last source words fade. Attention removes it. The next
lesson gives the decoder every encoder state h_1 … h_T, not just v, and lets it choose at each step
which ones to look at.
]]
