-- The attention of today's models, part 1: the KV cache and grouped key/value heads, as the bonus
-- chapters of Build a Large Language Model (From Scratch) build them (Sebastian Raschka's repository
-- rasbt/LLMs-from-scratch: ch04/03_kv-cache, ch04/04_gqa, the Llama 3 notebook of ch05/07_gpt_to_llama).
-- The chapters print no tensors: every seeded result is checked against PyTorch's run of the same
-- computation (scripts/torch_reference_variants.py, tests/data/torch/lessons_variants.txt); the
-- memory estimates and parameter counts against the figures the chapters print.
--   ./attn lessons/16_kv_cache_gqa.lua           straight through
--   ./attn --step lessons/16_kv_cache_gqa.lua    one step at a time

lesson.title("The KV cache, and keys and values shared by heads",
             {source = "Build a Large Language Model (From Scratch), bonus material: ch04/03_kv-cache, ch04/04_gqa, ch05/07_gpt_to_llama"})

local function ref(name) return lesson.reference("lessons_variants.txt", name) end

lesson.section("1  The KV cache")

lesson.say[[
A GPT writes one token at a time, and each new token needs attention over all the tokens before
it. Without a cache the model reads the whole text again for every new token, recomputing the keys
and values of tokens whose keys and values cannot have changed: the causal mask means token 3
never looks at token 4. The KV cache keeps them. The prompt goes through the model once; after
that, each step feeds only the new token, whose one query meets the cached keys.]]

lesson.step("a small GPT, and greedy generation with the cache", function()
    torch.manual_seed(123)
    cfg = {vocab_size = 50, context_length = 16, emb_dim = 32, n_heads = 4, n_layers = 2, drop_rate = 0.1,
           qkv_bias = false}
    model = gpt.GPTModel(cfg)
    prompt = torch.tensor{{3, 7, 1, 9}}
    ids = gpt.generate_text_simple_cached(model, prompt, 8)   -- Python: generate_text_simple_cached(model, idx, 8)
    lesson.show("ids", ids)
    lesson.check("the ids PyTorch's generate_text_simple_cached makes (its ids + 1)", ids, ref("kv.ids"), {tol = 0})
    lesson.agree("the same ids as generate_text_simple, which recomputes everything",
                 ids, gpt.generate_text_simple(model, prompt, 8, cfg.context_length))
end)

lesson.say[[
Inside, model(ids, {use_cache = true}) is the model with one change per attention layer: the keys
and values of the new tokens are appended to the layer's cache_k and cache_v, and the queries attend
over all of them, at the positions after the cached ones (the model's current_pos). The logits of
each step are the ones PyTorch computes with the chapter's code, to the last bit.]]

lesson.step("the logits of every cached step", function()
    model:reset_kv_cache()
    local steps = {model(ids:narrow(2, 1, 4), {use_cache = true})}   -- the prompt, once
    for i = 5, 11 do
        steps[#steps + 1] = model(ids:narrow(2, i, 1), {use_cache = true})   -- then one token at a time
    end
    cached = torch.cat(steps, 2)
    lesson.show("cached.shape", cached.shape)
    lesson.show("model.current_pos", model.current_pos)
    lesson.show("model.trf_blocks[1].att.cache_k.shape", model.trf_blocks[1].att.cache_k.shape)
    lesson.check("the cached logits, as PyTorch computes them with the chapter's model", cached, ref("kv.logits"), {tol = 0})   -- bit for bit
    lesson.agree("the uncached logits, to rounding", cached, model(ids:narrow(2, 1, 11)), {tol = 1e-6})
end)

lesson.say[[
Why "to rounding" and not exactly? The last row of an uncached pass is computed inside a block of
eleven rows; the cached step computes it alone. The matrix products add the same numbers, but BLAS
picks its kernels by the number of rows, and a row alone may be added in another order. PyTorch
shows the same difference on the same model. The ids, which only need the largest logit, agree.

The tracer shows one layer's step. Three tokens first: the cache holds three keys per head and
the scores are 3 × 3. Then the fourth token alone: the cache grows to four, and the scores are a
single new row, the new token's query against every key so far.]]

lesson.step("trace: the cache growing, one row of scores per step", function()
    torch.manual_seed(123)
    local x = torch.rand(1, 4, 8)
    att = nn.GroupedQueryAttention(8, 8, 0.0, 2, 2)   -- 2 heads, 2 key/value heads: multi-head attention
    att:eval()
    tr = attention.trace{module = att, x = x:narrow(2, 1, 3), use_cache = true, tokens = {"Your", "journey", "starts"}}
    tr:step("cached_k")
    tr:step("weights")
    tr2 = attention.trace{module = att, x = x:narrow(2, 4, 1), use_cache = true, tokens = {"with"},
                          key_tokens = {"Your", "journey", "starts", "with"}}
    tr2:step("cached_k")
    tr2:step("weights")
    lesson.agree("the cache holds 4 tokens", tr2.cached_k.shape[3], 4)
    lesson.agree("one row of scores per head", tr2.scores.shape[3], 1)
end)

lesson.section("2  Keys and values shared by heads: GQA and MQA")

lesson.say[[
The cache costs memory: per layer, per token, per head a key and a value. Grouped-query attention
(Llama 3, Qwen, Gemma) keeps all the query heads but fewer key/value heads, each shared by a group of
query heads; multi-query attention keeps one. nn.GroupedQueryAttention is the chapter's class: its
W_key and W_value project to num_kv_groups · head_dim only, and they are made first, then W_query,
then out_proj, in the chapter's order, so the seed gives the chapter's weights.]]

lesson.step("GroupedQueryAttention: 4 query heads, 2 key/value heads", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^(1))
        {0.55, 0.87, 0.66}, -- journey  (x^(2))
        {0.57, 0.85, 0.64}, -- starts   (x^(3))
        {0.22, 0.58, 0.33}, -- with     (x^(4))
        {0.77, 0.25, 0.10}, -- one      (x^(5))
        {0.05, 0.80, 0.55}} -- step     (x^(6))
    tokens = {"Your", "journey", "starts", "with", "one", "step"}
    torch.manual_seed(123)
    gqa = nn.GroupedQueryAttention(3, 8, 0.0, 4, 2)   -- Python: GroupedQueryAttention(d_in=3, d_out=8, dropout=0.0, num_heads=4, num_kv_groups=2)
    gqa:eval()
    lesson.show("gqa.W_key.weight.shape", gqa.W_key.weight.shape)
    lesson.show("gqa.W_query.weight.shape", gqa.W_query.weight.shape)
    out = gqa(inputs:unsqueeze(1))
    lesson.show("out", out)
    lesson.check("the chapter's class in PyTorch, same seed", out, ref("gqa2.out"), {tol = 0})   -- bit for bit
end)

lesson.say[[
Which query heads share which key/value head? The chapter repeats each key/value head with
repeat_interleave, so heads 1 and 2 read key/value head 1 and heads 3 and 4 read head 2. (Plain
repeat would pair them the other way round, a bug its comment warns about.) The trace shows the two
key/value heads, then the four they become.]]

lesson.step("trace: the shared key/value heads", function()
    lesson.show("attention.kv_groups(4, 2)", attention.kv_groups(4, 2))
    tr = attention.trace{module = gqa, x = inputs:unsqueeze(1), tokens = tokens}
    tr:step("split")
    tr:step("repeated_k")
    lesson.agree("query heads 1 and 2 see the same keys", tr.repeated_k[1][1], tr.repeated_k[1][2])
    lesson.agree("the keys of heads 1 and 2 are key/value head 1", tr.repeated_k[1][2], tr.split_k[1][1])
    tr:step("output")
    lesson.agree("the tracer's output is the forward's", tr.output, out)
end)

lesson.step("multi-query attention (1 key/value head), with the cache", function()
    torch.manual_seed(123)
    mqa = nn.GroupedQueryAttention(3, 8, 0.0, 4, 1)
    mqa:eval()
    local x = inputs:unsqueeze(1)
    lesson.check("one key/value head: PyTorch's numbers", mqa(x), ref("gqa1.out"), {tol = 0})
    local steps = {mqa(x:narrow(2, 1, 3), {use_cache = true})}
    for i = 4, 6 do steps[#steps + 1] = mqa(x:narrow(2, i, 1), {use_cache = true}) end
    lesson.check("the same tokens through the cache: PyTorch's numbers", torch.cat(steps, 2), ref("gqa1.cached"), {tol = 0})
    lesson.show("mqa.cache_k.shape", mqa.cache_k.shape)
end)

lesson.section("3  What it saves")

lesson.say[[
The Llama 3 notebook compares a Llama-sized layer (emb 4096, 32 heads) with 32 key/value heads, that
is multi-head attention, and with 8. The keys and values project to a quarter of the width, so
their weights shrink by three quarters.]]

lesson.step("parameters of a Llama 3-sized layer", function()
    local function count(groups)
        return nn.GroupedQueryAttention(4096, 4096, 0.0, 32, groups):num_parameters()
    end
    mha_params, gqa_params = count(32), count(8)
    lesson.show("mha_params", mha_params)
    lesson.show("gqa_params", gqa_params)
    lesson.check("MHA: 67,108,864 (the notebook's printed count)", mha_params, 67108864)
    lesson.check("GQA: 41,943,040 (the notebook's printed count)", gqa_params, 41943040)
end)

lesson.say[[
The cache shrinks by the same factor. attention.kv_cache_bytes counts it as the chapters' memory
estimators do, for a model with emb 4096, 32 heads, 32 layers and 32,768 tokens in bf16.]]

lesson.step("the KV cache of a 32-layer model, MHA and GQA", function()
    local cfg = {context_length = 32768, emb_dim = 4096, n_heads = 32, n_layers = 32, dtype = "bf16"}
    local mha_bytes = attention.kv_cache_bytes(cfg)
    cfg.n_kv_heads = 8   -- the estimator's n_kv_groups = 4: 32 / 4 key/value heads
    local gqa_bytes = attention.kv_cache_bytes(cfg)
    lesson.show("mha_bytes", mha_bytes)
    lesson.show("gqa_bytes", gqa_bytes)
    lesson.check("MHA total KV cache: 17.18 GB (ch04/04_gqa's README)", string.format("%.2f GB", mha_bytes / 1e9), "17.18 GB")
    lesson.check("GQA total KV cache: 4.29 GB (ch04/04_gqa's README)", string.format("%.2f GB", gqa_bytes / 1e9), "4.29 GB")
    lesson.agree("four times less", mha_bytes / gqa_bytes, 4)
end)
