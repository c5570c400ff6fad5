-- 14_bert_gpt.lua — Python Deep Learning (3rd ed.), ch. 7, "Decoder-only and encoder-only models" to
-- "Generative Pre-trained Transformer": BERT's input (token, segment and position embeddings), its two
-- pre-training tasks (masked language model, next-sentence prediction), the model sizes, the attention of
-- BERT (bidirectional) and GPT (causal), GPT's next-token training pairs (Figure 7.15) and the inputs of
-- fine-tuning with [START], [DELIM] and [EXTRACT] (Figure 7.16).
--   ./attn lessons/14_bert_gpt.lua           straight through
--   ./attn --step lessons/14_bert_gpt.lua    one step at a time
-- The chapter prints no numbers here but the model sizes: every seeded result is checked against
-- PyTorch's run of the same code (scripts/lesson_reference_bert_gpt.py, stored in
-- tests/data/torch/lessons_pdl_ch7.txt).

lesson.title("BERT and GPT: their inputs, their training pairs, their masks",
             {source = "Python Deep Learning (3rd ed.), ch. 7: Bidirectional Encoder Representations from Transformers, Generative Pre-trained Transformer"})

-- What PyTorch computed for this lesson (scripts/lesson_reference_bert_gpt.py).
local function pytorch(name)
    return lesson.reference("lessons_pdl_ch7.txt", "bert_gpt." .. name)
end

lesson.section("Decoder-only and encoder-only models")

lesson.say[[
The full Transformer of lessons 12 and 13 has an encoder and a decoder. Most models in use keep one
half: encoder-only models such as BERT, bidirectional like the encoder's self-attention, and
decoder-only models such as GPT, unidirectional like the decoder's masked self-attention. What
differs is what goes in, what the model is trained to predict, and the mask.
]]

lesson.step("token ids", function()
    function ids_of(vocab, sentence)                      -- {"my", ...} -> a [1, n] int64 tensor
        local index, ids, words = {}, {}, {}
        for i, w in ipairs(vocab) do index[w] = i end
        for w in sentence:gmatch("%S+") do ids[#ids + 1], words[#words + 1] = index[w], w end
        return torch.tensor({ids}), words
    end
    function words_of(vocab, t)                           -- a tensor of ids -> "my dog ..."
        local words = {}
        for i, id in ipairs(t:reshape(-1):tolist()) do words[i] = vocab[id] end
        return table.concat(words, " ")
    end
end)

lesson.section("Bidirectional Encoder Representations from Transformers")

lesson.say[[
BERT is an encoder-only model. Its input is one sequence, or a pair of sequences A and B joined
into one: it starts with the classification token [CLS] and each sequence ends with [SEP]. Each
token's input embedding is the sum of three learned embeddings (Figure 7.11): the token's, its
segment's (A or B), and its position's (BERT learns position embeddings instead of using the
static encoding). Here is the figure's pair "my dog is cute" / "he likes playing", with a made-up
vocabulary of 12 tokens and d_model = 8. Segment ids are 1 (A) and 2 (B) in Lua, 0 and 1 in PyTorch.
]]

lesson.step("BERT's input: token + segment + position embeddings", function()
    bert_vocab = {"[PAD]", "[CLS]", "[SEP]", "[MASK]",
                  "my", "dog", "is", "cute", "he", "likes", "play", "##ing"}
    tokens, bert_words = ids_of(bert_vocab, "[CLS] my dog is cute [SEP] he likes play ##ing [SEP]")
    segments = torch.tensor({{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2}})   -- Python: [[0] * 6 + [1] * 5]
    torch.manual_seed(26)
    bert = nn.BERTEmbedding(#bert_vocab, 8, {max_len = 16})        -- Python: max_len=16
    token_part = bert.token(tokens)
    segment_part = bert.segment(segments)
    position_part = bert.position(torch.arange(1, 12))            -- Python: torch.arange(11)
    e = bert(tokens, segments)
    lesson.show("tokens", tokens)
    lesson.show("tokens - 1 (PyTorch's ids)", tokens - 1)
    lesson.check("PyTorch's token ids are ours minus 1", tokens - 1, pytorch("tokens"), {tol = 0})
    lesson.check("PyTorch's segment ids are ours minus 1", segments - 1, pytorch("segments"), {tol = 0})
    lesson.show("token embeddings", token_part)
    lesson.show("segment embeddings", segment_part)
    lesson.show("position embeddings", position_part)
    lesson.show("e = their sum", e)
    lesson.check("token embeddings as PyTorch's", token_part, pytorch("token"), {tol = 1e-5})
    lesson.check("segment embeddings as PyTorch's", segment_part, pytorch("segment"), {tol = 1e-5})
    lesson.check("position embeddings as PyTorch's", position_part, pytorch("position"), {tol = 1e-5})
    lesson.check("BERT's input as PyTorch computes it", e, pytorch("e"), {tol = 1e-5})
    lesson.agree("e = token + segment + position", e, token_part + segment_part + position_part, {tol = 1e-6})
end)

lesson.say[[
BERT learns without labels, from two tasks made out of plain text. The first is the masked
language model (MLM): some words of the input are hidden and the model must predict them from the
words on both sides, which a bidirectional encoder can see. BERT's recipe: choose 15% of the words;
of the chosen ones, replace 80% by [MASK], 10% by a random word, and leave 10% unchanged (so that
the model cannot rely on seeing [MASK], which never occurs in the tasks it is fine-tuned for later).
The Chinese translation lost the first number: it says only that the word becomes [MASK] 80% of the
time, a random word 10%, itself 10% — of the 15% chosen. Here the recipe is drawn with
torch.rand: a word is chosen when its number is below 0.15, then a second number decides
(< 0.8: [MASK]; < 0.9: a random word; else unchanged). [CLS] and [SEP] are never chosen.
]]

lesson.step("masked language model: which words are hidden, and how", function()
    function mlm_mask(t, special)                         -- t: [n] ids; special: [n] bool, never chosen
        local n = t:numel()
        local chosen = torch.rand(n):lt(0.15):logical_and(special:logical_not())
        local r = torch.rand(n)
        local random_words = torch.randint(5, #bert_vocab + 1, {n})       -- Python: randint(4, 12, (n,))
        local to_mask = chosen:logical_and(r:lt(0.8))
        local to_random = chosen:logical_and(r:ge(0.8)):logical_and(r:lt(0.9))
        local out = torch.where(to_mask, torch.full({n}, 4), t)           -- 4 is [MASK]
        out = torch.where(to_random, random_words, out)
        return chosen, to_mask, to_random, out
    end
    torch.manual_seed(332)
    local flat = tokens[1]
    chosen, to_mask, to_random, mlm_input = mlm_mask(flat, flat:lt(5))   -- ids 1-4 are special
    lesson.show("chosen", chosen)
    lesson.show(lesson.tr("before"), words_of(bert_vocab, flat))
    lesson.show(lesson.tr("after "), words_of(bert_vocab, mlm_input))
    for i = 1, flat:numel() do
        if chosen[i] then
            local what = to_mask[i] and lesson.tr("masked") or to_random[i] and lesson.tr("a random word")
                or lesson.tr("left unchanged")
            lesson.show(lesson.tr("word %d", i), lesson.tr("%s → %s (%s); the model must predict %s",
                        bert_vocab[flat[i]], bert_vocab[mlm_input[i]], what, bert_vocab[flat[i]]))
        end
    end
    lesson.check("PyTorch chooses the same words", chosen:long(), pytorch("mlm.chosen"), {tol = 0})
    lesson.check("and makes the same input (ids minus 1)", mlm_input - 1, pytorch("mlm.input"), {tol = 0})
end)

lesson.say[[
Eleven tokens are too few to see the proportions. On 10,000 words, the same recipe:
]]

lesson.step("the proportions on 10,000 words", function()
    torch.manual_seed(51)
    local many = torch.randint(5, #bert_vocab + 1, {10000})
    local c, m, r, out = mlm_mask(many, many:lt(5))
    local n_chosen, n_mask, n_random = c:sum():item(), m:sum():item(), r:sum():item()
    local n_same = c:logical_and(m:logical_not()):logical_and(r:logical_not()):sum():item()
    lesson.show("chosen", lesson.tr("%d of 10000 (%.1f%%)", n_chosen, n_chosen / 100))
    lesson.show("of those", lesson.tr("[MASK] %.1f%%, random %.1f%%, unchanged %.1f%%", 100 * n_mask / n_chosen,
        100 * n_random / n_chosen, 100 * n_same / n_chosen))
    lesson.check("the same counts as PyTorch's: chosen, [MASK], random, unchanged",
                 torch.tensor{n_chosen, n_mask, n_random, n_same}, pytorch("mlm.counts"), {tol = 0})
    lesson.agree("about 15% chosen (within one point)", n_chosen / 10000, 0.15, {tol = 0.01})
    lesson.agree("about 80% of them [MASK] (within three points)", n_mask / n_chosen, 0.8, {tol = 0.03})
    lesson.agree("[MASK], random and unchanged share out the chosen words", n_mask + n_random + n_same, n_chosen)
end)

lesson.say[[
The second task is next-sentence prediction (NSP): is sentence B the one that follows sentence A?
Pairs come from running text: half the time B is the next sentence (label IsNext), half the time
another sentence (NotNext). The pair becomes one input, [CLS] A [SEP] B [SEP], with segment ids
saying which tokens belong to A (1, [CLS] and the first [SEP] included) and which to B (2); the
model answers on the output at [CLS]. A text of four sentences, one pair for each of the first
three, decided by torch.rand (IsNext when the number is 0.5 or more):
]]

lesson.step("next-sentence prediction: pairs and segment ids", function()
    text = {"the man went to the store", "he bought a gallon of milk", "penguins are flightless birds",
            "my dog is cute"}
    torch.manual_seed(60)
    picks = {}
    for a = 1, 3 do
        local is_next = torch.rand(1)[1] >= 0.5
        local others = {}                                 -- neither A nor the sentence after it
        for k = 1, 4 do if k ~= a and k ~= a + 1 then others[#others + 1] = k end end
        local b = is_next and a + 1 or others[torch.randint(1, 3, {1})[1]]   -- Python: randint(0, 2, (1,))
        picks[#picks + 1], picks[#picks + 2] = is_next and 1 or 0, b - 1      -- PyTorch's sentence numbers
        local words, segs = {"[CLS]"}, {1}
        for w in text[a]:gmatch("%S+") do words[#words + 1], segs[#segs + 1] = w, 1 end
        words[#words + 1], segs[#segs + 1] = "[SEP]", 1
        for w in text[b]:gmatch("%S+") do words[#words + 1], segs[#segs + 1] = w, 2 end
        words[#words + 1], segs[#segs + 1] = "[SEP]", 2
        lesson.show(lesson.tr("A = %d, B = %d, %s", a, b, is_next and "IsNext" or "NotNext"), table.concat(words, " "))
        lesson.show("  segment ids", torch.tensor(segs))
    end
    lesson.check("PyTorch draws the same pairs (IsNext, B - 1 for each A)", torch.tensor(picks), pytorch("nsp"), {tol = 0})
end)

lesson.say[[
The segment ids select rows of the segment embedding, one row for A and one for B, added to every
token of that sentence: it is how the encoder tells the two sentences apart, since attention itself
sees a set of vectors. In the example pair of the first step, the 6 tokens of A all get row 1 and
the 5 of B row 2.
]]

lesson.step("segment embeddings: one row for A, one for B", function()
    lesson.show("bert.segment.weight", bert.segment.weight)
    lesson.agree("every token of A gets row 1", segment_part[1]:narrow(1, 1, 6), bert.segment.weight[1]:expand(6, 8))
    lesson.agree("every token of B gets row 2", segment_part[1]:narrow(1, 7, 5), bert.segment.weight[2]:expand(5, 8))
end)

lesson.say[[
The chapter gives BERT's sizes: BERT_BASE has 12 encoder blocks with 12 heads and d_model = 768,
110M parameters in all; BERT_LARGE 24 blocks, 16 heads, d_model = 1024, 340M; both with a WordPiece
vocabulary of 30,000 tokens. We count what our classes hold for these sizes: one encoder block
(the chapter's, with an FFN of 4·d_model, as in BERT) built for real, times the number of blocks,
plus the three embedding tables: 30,000 tokens, 512 positions (BERT's longest input) and 2 segments.
]]

lesson.step("BERT_BASE and BERT_LARGE: counting the parameters", function()
    function block_parameters(d_model, heads)        -- one encoder block, FFN of 4·d_model
        local block = nn.EncoderBlock(d_model, nn.MultiHeadedAttention(heads, d_model, 0.1),
                                      nn.PositionwiseFFN(d_model, 4 * d_model, 0.1), 0.1)
        return block:num_parameters()               -- Python: sum(p.numel() for p in block.parameters())
    end
    base_block, large_block = block_parameters(768, 12), block_parameters(1024, 16)
    bert_base = 12 * base_block + (30000 + 512 + 2) * 768
    bert_large = 24 * large_block + (30000 + 512 + 2) * 1024
    lesson.printf("BERT_BASE:  12 × %d + %d × 768  = %d (%.1fM; the chapter: 110M, %+.1f%%)", base_block,
                        30000 + 512 + 2, bert_base, bert_base / 1e6, (bert_base / 110e6 - 1) * 100)
    lesson.printf("BERT_LARGE: 24 × %d + %d × 1024 = %d (%.1fM; the chapter: 340M, %+.1f%%)", large_block,
                        30000 + 512 + 2, bert_large, bert_large / 1e6, (bert_large / 340e6 - 1) * 100)
    lesson.check("a 768-wide block holds as many parameters as PyTorch's", base_block, pytorch("block768.params"):item())
    lesson.check("a 1024-wide block holds as many parameters as PyTorch's", large_block, pytorch("block1024.params"):item())
    lesson.check("BERT_BASE: the chapter's 110M, within 2%", bert_base, 110e6, {tol = 0.02 * 110e6})
    lesson.check("BERT_LARGE: the chapter's 340M, within 2%", bert_large, 340e6, {tol = 0.02 * 340e6})
end)

lesson.say([[
The counts differ from the chapter's rounded figures by %+.1f%% and %+.1f%%. Besides the rounding, the
released models have a few parts our classes leave out: a LayerNorm on the embeddings, a pooling
layer for [CLS], and a WordPiece vocabulary a little larger than the round 30,000.
]], (bert_base / 110e6 - 1) * 100, (bert_large / 340e6 - 1) * 100)

lesson.section("Generative Pre-trained Transformer")

lesson.say[[
GPT is a decoder-only model: decoder blocks without the cross-attention sublayer, so the only
difference from an encoder block is the mask. The chapter gives its size: 12 decoder layers with 12
heads, d_model = 768, an FFN of 3,072, a BPE vocabulary of 40,000 tokens and 117M parameters. A
GPT block therefore holds exactly the parameters of the 768-wide encoder block counted above
(whose FFN is 4 · 768 = 3,072), and the chapter's GPT adds a static positional encoding, which has
no parameters.
]]

lesson.step("GPT: counting the parameters", function()
    gpt = 12 * base_block + 40000 * 768                   -- 12 blocks + the token embeddings
    lesson.printf("GPT: 12 × %d + 40000 × 768 = %d (%.1fM; the chapter: 117M, %+.1f%%)", base_block, gpt,
                        gpt / 1e6, (gpt / 117e6 - 1) * 100)
    lesson.check("GPT: the chapter's 117M, within 2%", gpt, 117e6, {tol = 0.02 * 117e6})
end)

lesson.say[[
BERT's self-attention is bidirectional: every token attends to every token, before and after it.
GPT's is causal (unidirectional): a token attends only to itself and the tokens before it. Here
are both masks for the first sequence, [CLS] my dog is cute [SEP] (columns are the key positions
1 to 6):
]]

lesson.step("the masks: bidirectional (BERT) and causal (GPT)", function()
    words6 = {table.unpack(bert_words, 1, 6)}
    bert_mask = torch.ones(1, 6, 6)                  -- every query sees every key
    gpt_mask = nn.subsequent_mask(6)                 -- query i sees keys 1 … i
    lesson.heatmaps{{lesson.tr("BERT: bidirectional"), bert_mask[1], {rows = words6, cols = {1, 2, 3, 4, 5, 6}, range = {0, 1}}},
                    {lesson.tr("GPT: causal"), gpt_mask[1]:float(), {rows = words6, cols = {1, 2, 3, 4, 5, 6}, range = {0, 1}}}}
    lesson.show("keys each query sees, BERT", bert_mask[1]:sum(-1))
    lesson.show("keys each query sees, GPT", gpt_mask[1]:float():sum(-1))
    lesson.agree("GPT: query i sees i keys", gpt_mask[1]:float():sum(-1), torch.arange(1, 7))
end)

lesson.say[[
The same attention module (one seed, the same weights) on the same six embeddings from above,
once with each mask. BERT's [CLS] attends to the whole sequence, which is why its output can
stand for the sequence in classification. Under GPT's mask, [CLS] sees only itself (weight 1) and
only the last token sees everything, which is why GPT puts its classification token, [EXTRACT],
at the end.
]]

lesson.step("the attention weights under each mask", function()
    torch.manual_seed(27)
    mha = nn.MultiHeadedAttention(2, 8, 0.1)
    mha:eval()
    mha.use_fused = false
    x6 = e:narrow(2, 1, 6)                           -- Python: e[:, :6]
    mha(x6, x6, x6, bert_mask)
    bert_attn = mha.attn
    mha(x6, x6, x6, gpt_mask)
    gpt_attn = mha.attn
    lesson.heatmaps{{lesson.tr("BERT, head 1"), bert_attn[1][1], {rows = words6, cols = words6}},
                    {lesson.tr("GPT, head 1"), gpt_attn[1][1], {rows = words6, cols = words6}}}
    lesson.check("BERT's weights as PyTorch computes them", bert_attn, pytorch("bert_attn"), {tol = 1e-5})
    lesson.check("GPT's weights as PyTorch computes them", gpt_attn, pytorch("gpt_attn"), {tol = 1e-5})
    lesson.agree("BERT: every weight is above 0 (as many as there are weights)", bert_attn:gt(0):sum():item(),
                 bert_attn:numel())
    lesson.agree("GPT: [CLS] attends only to itself", gpt_attn[1][1][1], torch.eye(6)[1])
    lesson.agree("GPT: no weight above the diagonal (A = tril(A))", torch.tril(gpt_attn[1]), gpt_attn[1])
end)

lesson.say[[
GPT's pre-training needs no [MASK] and no pairs: it predicts the next token, as the seq2seq decoder
does, with the input and the output the same sequence shifted by one. Figure 7.15: from
[[START], t_1, …, t_N], the training pairs are {[START]: t_1}, {[START], t_1: t_2}, …,
{[START], t_1, …, t_{N−1}: t_N}. Here they are for a short text.
]]

lesson.step("next-token pairs (Figure 7.15)", function()
    local seq = {"[START]", "my", "dog", "is", "cute"}
    for n = 1, #seq - 1 do
        lesson.show(lesson.tr("pair %d", n), string.format("{%s: %s}", table.concat(seq, ", ", 1, n), seq[n + 1]))
    end
    gpt_input = {table.unpack(seq, 1, #seq - 1)}
    gpt_target = {table.unpack(seq, 2, #seq)}
    lesson.show(lesson.tr("input "), table.concat(gpt_input, " "))
    lesson.show(lesson.tr("target"), table.concat(gpt_target, " "))
    lesson.agree("the target is the input shifted left by one", {table.unpack(gpt_target, 1, 3)},
                 {table.unpack(gpt_input, 2, 4)})
end)

lesson.say[[
The four pairs are not four passes through the model. The causal mask above makes output position n
depend only on input positions 1 … n, so one pass over the input computes every prefix's prediction
at once: row n of the masked attention is pair n. (It is the decoder's teacher forcing of lessons 08
and 13, without an encoder.)

For fine-tuning, GPT gets special tokens (Figure 7.16). A text to classify becomes [START] text
[EXTRACT], and the output at [EXTRACT] is fed to the classifier: it plays [CLS]'s part, but stands at
the end, because under the causal mask only the last token sees the whole input. A pair for natural
language inference (does the premise entail the hypothesis?) is joined with [DELIM] (printed
"[`DELIM]" in the translation): [START] premise [DELIM] hypothesis [EXTRACT].
]]

lesson.step("fine-tuning inputs: [START] … [DELIM] … [EXTRACT]", function()
    local classify = "[START] my dog is cute [EXTRACT]"
    local nli = "[START] I am running [DELIM] I am training [EXTRACT]"
    local function count(s) local n = 0 for _ in s:gmatch("%S+") do n = n + 1 end return n end
    lesson.show("classify", classify)
    lesson.show("nli", nli)
    local n = count(nli)
    local mask = nn.subsequent_mask(n)[1]:float()
    lesson.show("keys [EXTRACT] sees", mask[n]:sum())
    lesson.show("keys [START] sees", mask[1]:sum())
    lesson.agree("under the causal mask the last token, [EXTRACT], sees all the input", mask[n]:sum():item(), n)
end)
