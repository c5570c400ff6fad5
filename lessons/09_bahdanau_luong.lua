-- 09_bahdanau_luong.lua — Python Deep Learning (3rd ed.), ch. 7, "Understanding the attention mechanism"
-- › "Bahdanau attention" and "Luong attention": one decoder step of each, computed by hand on small
-- made-up encoder and decoder states; then Bahdanau's whole decoder over lesson 08's sentence, stepped
-- token by token (c_t, α_t, s_t, y_t), and its alignment matrix.
--   ./attn lessons/09_bahdanau_luong.lua           straight through
--   ./attn --step lessons/09_bahdanau_luong.lua    one step at a time
-- The chapter gives formulas here, no numbers: the states and weights are random (seeded). In the one-step
-- sections the identities (lesson.agree) compare two computations of the same quantity (the formula
-- written out by hand, and attn's stage) and the one check is the chapter's own statement that the weights
-- sum to 1; the whole decoder is checked against PyTorch's run of the same code
-- (scripts/lesson_reference_seq2seq.py, stored in tests/data/torch/lessons_pdl_ch7.txt).

lesson.title("Bahdanau and Luong attention: one decoder step by hand, then a whole sentence",
             {source = "Python Deep Learning (3rd ed.), ch. 7: Bahdanau attention, Luong attention"})

lesson.section("Understanding the attention mechanism · Bahdanau attention")

lesson.say[[
In a seq2seq model the encoder reads the input sequence and produces one hidden state h_i per
input step, i = 1 … T. Without attention the decoder sees only the last one. Bahdanau attention
lets every decoder step t look at all of them through a context vector, a weighted sum of the
encoder states:

  c_t = Σ_i α_{t,i} h_i,     α_{t,i} = softmax(e_{t,i}) over i,     e_{t,i} = a(s_{t−1}, h_i)

The alignment score e_{t,i} says how well input position i fits output step t; it is computed
from the previous decoder state s_{t−1} (s_t is not known yet) and the encoder state h_i.

The chapter prints no numbers for this section, so we make some up: T = 4 encoder states of size 3,
drawn from a seeded generator. They are the rows of H: row i is h_i (the chapter writes vectors as
columns; as rows, W h_i becomes h_i·Wᵀ). We compute the first decoder step, t = 1, for which the
chapter says to use the last encoder state h_T as the previous decoder state: s_0 = h_T.
]]

lesson.step("the encoder states H and the decoder state s_0 = h_T", function()
    torch.manual_seed(0)
    H = torch.randn(4, 3)
    s_prev = H[4]:view(1, 3)                     -- Python: H[-1].view(1, 3)
    lesson.show("H", H)
    lesson.show("s_prev", s_prev)
end)

lesson.say[[
The score function a is a small network trained with the rest of the model. Bahdanau's is
additive, and the chapter gives it in two forms. The first concatenates the two states and applies
one weight matrix W, then tanh, then a weight vector v:

  e_{t,i} = vᵀ tanh(W [h_i; s_{t−1}])

With states of size 3, [h_i; s_{t−1}] has 6 numbers; we take a hidden size of 5, so W is 5 × 6
and v has 5 entries (random, seeded: in a real model they are learned). One score per encoder
state, in a loop:
]]

lesson.step("additive scores, form 1: vᵀ tanh(W [h_i; s_{t−1}])", function()
    torch.manual_seed(1)
    W = torch.randn(5, 6)
    v = torch.randn(5)
    e_concat = torch.empty(4)
    for i = 1, 4 do
        local h_s = torch.cat({H[i], s_prev[1]}, 1)   -- [h_i; s_{t−1}]
        e_concat[i] = torch.dot(v, torch.tanh(W:matmul(h_s)))
    end
    lesson.show("W", W)
    lesson.show("v", v)
    lesson.show("e (form 1)", e_concat)
end)

lesson.say[[
The second form has two separate fully connected layers, W1 for the encoder state and W2 for the
decoder state, and adds their outputs:

  e_{t,i} = vᵀ tanh(W1 h_i + W2 s_{t−1})

It is the same function. Multiplying W by a stacked vector multiplies the first 3 columns of W by
h_i and the last 3 by s_{t−1} and adds the two: W [h; s] = W1 h + W2 s with W = [W1 W2]. So cut W
into its two halves of columns, and the second form gives the first form's scores. This form
needs no loop: W1 applies to all encoder states at once (H·W1ᵀ, one row per state), W2 s_{t−1}
is one row that broadcasting adds to each of them. The two computations add the products in a
different order, so they agree to float32 rounding: within 1e-6.
]]

lesson.step("form 2: vᵀ tanh(W1 h_i + W2 s_{t−1}) with W = [W1 W2]", function()
    W1 = W:narrow(2, 1, 3)                       -- Python: W[:, :3]
    W2 = W:narrow(2, 4, 3)                       -- Python: W[:, 3:]
    e_sum = torch.tanh(H:matmul(W1.T) + s_prev:matmul(W2.T)):matmul(v)
    lesson.show("W1 h_i, one row per i", H:matmul(W1.T))
    lesson.show("W2 s_{t−1}", s_prev:matmul(W2.T))
    lesson.show("e (form 2)", e_sum)
    lesson.agree("form 2 gives form 1's scores", e_sum, e_concat, {tol = 1e-6})
end)

lesson.say[[
This is the score attention.additive(q, k, W_q, W_k, v) computes: vᵀ tanh(W_q q + W_k k) for
every query q and key k, with W_q and W_k in nn.Linear's layout. Here the query is the decoder
state (W_q = W2) and the keys are the encoder states (W_k = W1). It is also d2l's MLPAttention
score (lesson 07). The result is [1, 4]: one row for the one query.
]]

lesson.step("attention.additive(s_{t−1}, H, W2, W1, v)", function()
    e = attention.additive(s_prev, H, W2, W1, v)
    lesson.show("e", e)
    lesson.agree("attention.additive gives the hand-computed scores", e, e_concat:view(1, 4), {tol = 1e-6})
end)

lesson.say[[
Softmax over the encoder positions turns the scores into the weights α_{t,i}. The chapter: "for each
decoder step t, all the α_{t,i} weights sum to 1". It writes the formula α_{t,i} = softmax(e_{t,i}/e_t),
which reads as if e_{t,i} were divided by something. It is not: e_t stands for the vector of step t's
scores, (e_{t,1}, …, e_{t,T}), and α_{t,i} is entry i of its softmax, exp(e_{t,i}) / Σ_j exp(e_{t,j}).
Dividing the scores by their sum instead would not even give weights: a score can be negative.
]]

lesson.step("the weights α_{t,i} = softmax(e_t), entry i", function()
    alpha = attention.softmax(e)
    lesson.show("alpha", alpha)
    lesson.show("sum", alpha:sum())
    lesson.show("e / Σ e, not the weights", e / e:sum())
    lesson.check("the weights sum to 1 (the chapter)", alpha:sum(), 1, {tol = 1e-6})
    lesson.agree("softmax's weights are all positive", alpha:min():item() > 0, true)
end)

lesson.say[[
The context vector c_t is the weighted sum of the encoder states: c_t = Σ_i α_{t,i} h_i. By hand
in a loop, and with attention.weighted_sum, the product α·H. Note that the encoder states play both
parts here: they are scored against the query (keys) and they are what gets summed (values).
]]

lesson.step("the context vector c_t = Σ α_{t,i} h_i", function()
    c_loop = torch.zeros(3)
    for i = 1, 4 do
        c_loop = c_loop + alpha[{1, i}] * H[i]
    end
    c_t = attention.weighted_sum(alpha, H)
    lesson.show("c_t by the loop", c_loop)
    lesson.show("c_t = α·H", c_t)
    lesson.agree("α·H is the weighted sum of the h_i", c_t, c_loop:view(1, 3), {tol = 1e-6})
end)

lesson.say[[
The decoder then computes its new state from the concatenation [s_{t−1}; c_t] and its previous
output y_{t−1}: s_t = RNN_decoder([s_{t−1}; c_t], y_{t−1}). Here is the vector it reads, the previous
state with the context appended; the next section runs the RNN, and the whole decoder, on a sentence.
]]

lesson.step("the decoder RNN's input [s_{t−1}; c_t]", function()
    rnn_input = torch.cat({s_prev, c_t}, 2)     -- Python: torch.cat([s_prev, c_t], dim=1)
    lesson.show("[s_{t−1}; c_t]", rnn_input)
    lesson.show("rnn_input.shape", rnn_input.shape)
end)

lesson.section("Bahdanau attention · the whole decoder, over a sentence")

-- What PyTorch computed for this section (scripts/lesson_reference_seq2seq.py).
local function pytorch(name)
    return lesson.reference("lessons_pdl_ch7.txt", "bahdanau." .. name)
end

lesson.say[[
Now the chapter's algorithm from start to end, on lesson 08's sentence and encoder: "how are you
today ? <EOS>" into "¿ cómo estás hoy ?". Step 1 of the algorithm: the encoder computes all its
states H = {h_1, …, h_T}. This time the decoder keeps every one of them, not just the last.
]]

lesson.step("the encoder of lesson 08: every state h_i", function()
    src_vocab = {"<pad>", "<EOS>", "how", "are", "you", "today", "?"}
    tgt_vocab = {"<pad>", "<GO>", "<EOS>", "¿", "cómo", "estás", "hoy", "?"}
    function ids_of(vocab, sentence)                     -- {"how", ...} -> a [1, n] int64 tensor
        local index, ids, words = {}, {}, {}
        for i, w in ipairs(vocab) do index[w] = i end
        for w in sentence:gmatch("%S+") do ids[#ids + 1], words[#words + 1] = index[w], w end
        return torch.tensor({ids}), words
    end
    src, src_words = ids_of(src_vocab, "how are you today ? <EOS>")
    torch.manual_seed(40)                                -- lesson 08's encoder, the same weights
    embed = nn.Embedding(#src_vocab, 4)
    encoder = nn.GRU(4, 8, {batch_first = true})
    local outputs, h_T = encoder(embed(src))
    enc = outputs[1]                                     -- [6, 8]: h_1 … h_6, one row each
    s = h_T[1]                                           -- [1, 8]: s_0 = h_T, as the chapter says
    attention.heatmap(enc, {rows = src_words})
end)

lesson.say[[
The decoder's parts, random and seeded as everything here: the target embedding; the alignment
model of the second form, W1 for the encoder states, W2 for the decoder state and v, with a hidden
size of 10 (nn.Linear layers without bias); the decoder RNN, a GRU cell whose input is the embedded
previous word y_{t−1} with the context c_t appended (4 + 8 numbers) and whose state is s; and W_y,
the output layer. (The chapter writes s_t = RNN([s_{t−1}; c_t], y_{t−1}): the same three things go in,
an RNN cell just takes its previous state apart from its input.) W1, W2 and v are drawn again from
a standard normal distribution: nn.Linear's small start would give nearly equal scores everywhere.
]]

lesson.step("the decoder's parts", function()
    torch.manual_seed(43)
    tgt_embed = nn.Embedding(#tgt_vocab, 4)
    W1 = nn.Linear(8, 10, {bias = false})                -- applied to every h_i
    W2 = nn.Linear(8, 10, {bias = false})                -- applied to s_{t−1}
    v = nn.Linear(10, 1, {bias = false})
    rnn = nn.GRUCell(4 + 8, 8)                           -- input [y_{t−1} embedded; c_t], state s_{t−1}
    W_y = nn.Linear(8, #tgt_vocab)
    for _, layer in ipairs({W1, W2, v}) do               -- drawn again, larger than nn.Linear's start
        nn.init.normal_(layer.weight)                    -- Python: torch.nn.init.normal_(layer.weight)
    end
    dec_in, in_words = ids_of(tgt_vocab, "<GO> ¿ cómo estás hoy ?")   -- teacher forcing: the target, shifted
    lesson.show("rnn", rnn)
    lesson.show("W_y", W_y)
end)

lesson.say[[
One decoder step is steps 2 to 5 of the chapter's algorithm: the scores e_{t,i} = vᵀ tanh(W1 h_i +
W2 s_{t−1}), the weights α_t = softmax(e_t), the context c_t = Σ α_{t,i} h_i, the new state
s_t = RNN([y_{t−1}; c_t], s_{t−1}), and the output y_t = softmax(W_y s_t), a probability for every
target word. Here is t = 1, from <GO> and s_0 = h_T.
]]

lesson.step("decoder step t = 1", function()
    all_states = {}                                      -- s_1, s_2, ...
    function decoder_step(t)                             -- steps 2 to 5 of the chapter's algorithm
        s_before = s                                               -- s_{t−1}
        local e = v(torch.tanh(W1(enc) + W2(s))):squeeze(-1)      -- e_{t,i}, one per h_i
        local alpha = torch.softmax(e, -1)                         -- α_{t,i}
        local c = alpha:matmul(enc)                                -- c_t = Σ α_{t,i} h_i
        local y_prev = tgt_embed(dec_in:select(2, t))              -- y_{t−1}, embedded: [1, 4]
        s = rnn(torch.cat({y_prev, c:unsqueeze(1)}, -1), s)        -- s_t
        local y = torch.softmax(W_y(s), -1)                        -- y_t
        all_states[t] = s[1]
        return e, alpha, c, y
    end
    e1, alpha1, c1, y1 = decoder_step(1)
    lesson.show("e_1", e1)
    attention.heatmap(alpha1:unsqueeze(1), {rows = {"α_1"}, cols = src_words})
    lesson.show("c_1", c1)
    lesson.show("s_1", s)
    attention.heatmap(y1, {rows = {"y_1"}, cols = tgt_vocab})
    lesson.agree("attention.additive computes the same scores", attention.additive(s_before, enc,
        W2.weight, W1.weight, v.weight[1]), e1:unsqueeze(1), {tol = 1e-6})
    lesson.agree("α_1 sums to 1", alpha1:sum():item(), 1, {tol = 1e-6})
end)

lesson.say[[
Step t = 2 reads the word "¿" (teacher forcing: the true target word, whatever y_1 said) and scores
the same encoder states again, now against s_1. The weights move: each output step looks at the
source in its own way.
]]

lesson.step("decoder step t = 2", function()
    e2, alpha2, c2, y2 = decoder_step(2)
    attention.heatmap(torch.stack({alpha1, alpha2}), {rows = {"α_1", "α_2"}, cols = src_words})
    lesson.show("c_2", c2)
    lesson.show("s_2", s)
    attention.heatmap(y2, {rows = {"y_2"}, cols = tgt_vocab})
end)

lesson.say[[
The chapter's step 6: repeat until the end of the sequence. The weights α_{t,i} of all steps form
the alignment matrix, one row per output step, one column per input word: "if the input and output
sequences have length 10, the weights form a 10 × 10 matrix, 100 weights in all", says the chapter.
Ours are 6 and 6.
]]

lesson.step("steps t = 3 to 6, and the alignment matrix", function()
    alphas, contexts, outputs = {alpha1, alpha2}, {c1, c2}, {y1[1], y2[1]}
    for t = 3, 6 do
        local _, alpha, c, y = decoder_step(t)
        alphas[t], contexts[t], outputs[t] = alpha, c, y[1]
    end
    out_words = {"¿", "cómo", "estás", "hoy", "?", "<EOS>"}     -- what step t should predict
    alignment = torch.stack(alphas)                             -- [6, 6]
    attention.heatmap(alignment, {rows = out_words, cols = src_words, range = {0, 1}})
    lesson.check("the alignment matrix, as PyTorch's decoder computes it", alignment, pytorch("alpha"), {tol = 1e-5})
    lesson.check("every context vector c_t, as PyTorch's", torch.stack(contexts), pytorch("c"), {tol = 1e-6})
    lesson.check("every state s_t, as PyTorch's", torch.stack(all_states), pytorch("s"), {tol = 1e-6})
    lesson.check("every output y_t, as PyTorch's", torch.stack(outputs), pytorch("y"), {tol = 1e-6})
    lesson.agree("T' × T weights: 6 × 6 = 36 (the chapter's 10 × 10 = 100)", alignment:numel(),
                 #out_words * #src_words)
    lesson.agree("every row sums to 1", alignment:sum(-1), torch.ones(6), {tol = 1e-6})
end)

lesson.say[[
These weights come from random numbers, so where each row peaks means nothing yet; training would
make each row peak at the source words that the output word translates (¿ and ? at "?", cómo at
"how", estás at "are you", hoy at "today"). What matters is the shape of the computation: every step
reaches every encoder state, so the decoder is no longer limited to one thought vector.
]]

lesson.section("Understanding the attention mechanism · Luong attention")

lesson.say[[
Luong attention changes the order: the decoder RNN first computes its new state s_t from s_{t−1}
and y_{t−1} (without a context vector), and the alignment scores use s_t, not s_{t−1}. We do not
model the RNN, so s_t is made up as well (seeded).
]]

lesson.step("the current decoder state s_t", function()
    torch.manual_seed(2)
    s_t = torch.randn(1, 3)
    lesson.show("s_t", s_t)
end)

lesson.say[[
Besides the additive score, Luong's paper proposes two multiplicative ones. The dot score
e_{t,i} = s_tᵀ h_i has no parameters at all, so s and h must have the same size. A dot product is
large when the two vectors point the same way: it measures similarity. By hand for each h_i, and
with attention.dot (the same as attention.scores, q·kᵀ):
]]

lesson.step("Luong's dot score e_{t,i} = s_tᵀ h_i", function()
    e_dot_loop = torch.empty(4)
    for i = 1, 4 do
        e_dot_loop[i] = torch.dot(s_t[1], H[i])
    end
    e_dot = attention.dot(s_t, H)               -- Python: s_t @ H.T
    lesson.show("by the loop", e_dot_loop)
    lesson.show("attention.dot(s_t, H)", e_dot)
    lesson.agree("attention.dot gives s_tᵀ h_i", e_dot, e_dot_loop:view(1, 4), {tol = 1e-6})
end)

lesson.say[[
The general score e_{t,i} = s_tᵀ W_m h_i puts a trainable matrix W_m between the two (random and
seeded here). As rows: s_t·W_m·Hᵀ, which attention.general(s, W, h) computes. W_m need not be
square, so s and h may differ in size. With W_m the identity matrix it is the dot score again.
]]

lesson.step("Luong's general score e_{t,i} = s_tᵀ W_m h_i", function()
    torch.manual_seed(3)
    W_m = torch.randn(3, 3)
    e_general_hand = s_t:matmul(W_m):matmul(H.T)  -- Python: s_t @ W_m @ H.T
    e_general = attention.general(s_t, W_m, H)
    lesson.show("W_m", W_m)
    lesson.show("s_t·W_m·Hᵀ", e_general_hand)
    lesson.show("attention.general(s_t, W_m, H)", e_general)
    lesson.agree("attention.general gives s_tᵀ W_m h_i", e_general, e_general_hand, {tol = 1e-6})
    lesson.agree("with W_m = I it is the dot score", attention.general(s_t, torch.eye(3), H), e_dot, {tol = 1e-6})
end)

lesson.say[[
The rest is as in Bahdanau: softmax gives the weights, and the context vector is the weighted
sum of the encoder states. We continue with the general scores.
]]

lesson.step("Luong's weights and context vector", function()
    alpha_luong = attention.softmax(e_general)
    c_luong = attention.weighted_sum(alpha_luong, H)
    lesson.show("alpha", alpha_luong)
    lesson.show("c_t", c_luong)
end)

lesson.say[[
Last, Luong combines the context with the decoder state into an intermediate vector
s̃_t = tanh(W_c [c_t; s_t]), with a trainable W_c (3 × 6 here: 6 numbers in, 3 out; random and
seeded). The output step uses s̃_t: to classify the next word, y_t = softmax(W_y s̃_t). For that
we make up a vocabulary of 5 words, so W_y is 5 × 3. The result is a probability for each word.
]]

lesson.step("s̃_t = tanh(W_c [c_t; s_t]) and y_t = softmax(W_y s̃_t)", function()
    torch.manual_seed(4)
    W_c = torch.randn(3, 6)
    W_y = torch.randn(5, 3)
    c_s = torch.cat({c_luong, s_t}, 2)           -- Python: torch.cat([c_t, s_t], dim=1)
    s_tilde = torch.tanh(c_s:matmul(W_c.T))      -- Python: torch.tanh(c_s @ W_c.T)
    y_t = torch.softmax(s_tilde:matmul(W_y.T), -1)
    lesson.show("[c_t; s_t]", c_s)
    lesson.show("s̃_t", s_tilde)
    lesson.show("y_t", y_t)
end)

lesson.say[[
Side by side: Bahdanau scores with s_{t−1} and feeds the context into the RNN; Luong runs the RNN
first, scores with s_t and uses the context only after it, for the output. In both, the keys and
the values are the same encoder states H. General attention (lesson 10, the chapter's next section)
separates them: a query is matched against keys, and the values carry what is returned.
]]
