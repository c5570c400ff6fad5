-- The attention of today's models, part 3: GQA, MQA and multi-head latent attention (MLA), and what each
-- saves in the KV cache, as the bonus chapters of Build a Large Language Model (From Scratch) build them
-- (Sebastian Raschka's repository rasbt/LLMs-from-scratch: ch04/04_gqa, ch04/05_mla). The chapters print
-- no tensors: every seeded result is checked against PyTorch's run of the chapter's code
-- (scripts/torch_reference_mla.py, tests/data/torch/lessons_mla.txt); the memory estimates against the
-- table ch04/05_mla's README prints.
--   ./attn lessons/22_latent_attention.lua           straight through
--   ./attn --step lessons/22_latent_attention.lua    one step at a time

lesson.title("GQA, MQA and latent attention: what they save",
             {source = "Build a Large Language Model (From Scratch), bonus material: ch04/04_gqa, ch04/05_mla"})

local function ref(name) return lesson.reference("lessons_mla.txt", name) end

lesson.section("1  What the cache holds per token")

lesson.say[[
With a KV cache (lesson 16), every layer keeps, for every token so far, what later tokens will
attend to. Multi-head attention keeps a key and a value per head: 2 · d_out numbers per token and
layer. Grouped-query attention keeps them for fewer key/value heads, multi-query attention for one.
Multi-head latent attention (DeepSeek V2 and V3) keeps something else: one latent vector per token,
of latent_dim numbers, from which the keys and values of every head are computed again when needed.

attention.kv_cache_bytes counts as the chapters' memory estimators do. One token, one layer, fp32,
at GPT-2 small's width (768, 12 heads):]]

lesson.step("numbers cached per token and layer", function()
    local one = {context_length = 1, n_layers = 1, emb_dim = 768, n_heads = 12, dtype = "fp32"}
    local function numbers(extra)
        local cfg = {}
        for k, v in pairs(one) do cfg[k] = v end
        for k, v in pairs(extra) do cfg[k] = v end
        return attention.kv_cache_bytes(cfg) // 4
    end
    mha_n, gqa_n, mqa_n, mla_n = numbers{}, numbers{n_kv_heads = 4}, numbers{n_kv_heads = 1}, numbers{latent_dim = 96}
    lesson.show("mha_n", mha_n)   -- 12 heads · 64 · 2 (a key and a value)
    lesson.show("gqa_n", gqa_n)   -- 4 key/value heads
    lesson.show("mqa_n", mqa_n)   -- 1 key/value head
    lesson.show("mla_n", mla_n)   -- one latent of 96 (the chapter's default, max(16, 768 // 8))
    lesson.agree("MHA: a key and a value of 768 each", mha_n, 2 * 768)
    lesson.agree("MLA: the latent alone", mla_n, 96)
    lesson.agree("MLA at the default latent_dim keeps 16 times less than MHA", mha_n / mla_n, 16)
end)

lesson.section("2  Multi-head latent attention, step by step")

lesson.say[[
nn.MultiHeadLatentAttention is the chapter's class. Its parameters, made in the chapter's order so
that the seed gives the chapter's weights: W_query (the queries, as in chapter 3), W_DKV (down: a
token to its latent), W_UK and W_UV (up: a latent to the keys and to the values of every head), and
out_proj. Here on the book's six tokens: d_out 8, 4 heads of 2 dims, a latent of 4 numbers per token
where multi-head attention would cache 16.]]

lesson.step("MultiHeadLatentAttention on the six tokens", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^(1))
        {0.55, 0.87, 0.66}, -- journey  (x^(2))
        {0.57, 0.85, 0.64}, -- starts   (x^(3))
        {0.22, 0.58, 0.33}, -- with     (x^(4))
        {0.77, 0.25, 0.10}, -- one      (x^(5))
        {0.05, 0.80, 0.55}} -- step     (x^(6))
    tokens = {"Your", "journey", "starts", "with", "one", "step"}
    x = inputs:unsqueeze(1)
    torch.manual_seed(123)
    mla = nn.MultiHeadLatentAttention(3, 8, 0.0, 4, {latent_dim = 4})   -- Python: MultiHeadLatentAttention(3, 8, 0.0, 4, latent_dim=4)
    mla:eval()
    lesson.show("mla.W_DKV.weight.shape", mla.W_DKV.weight.shape)
    lesson.show("mla.W_UK.weight.shape", mla.W_UK.weight.shape)
    out = mla(x)
    lesson.show("out", out)
    lesson.check("the chapter's class in PyTorch, same seed", out, ref("mla.out"), {tol = 0})   -- bit for bit
end)

lesson.say[[
The tracer shows the three stages MLA adds before the heads. Three tokens go in first, with the
cache: the down-projection gives one latent per token (a row per token), the latent cache holds them,
and the up-projections turn every cached latent into a key and a value of 8 numbers.]]

lesson.step("trace: the latent, the latent cache, the keys projected up", function()
    mla:reset_cache()
    tr = attention.trace{module = mla, x = x:narrow(2, 1, 3), use_cache = true, tokens = {"Your", "journey", "starts"}}
    tr:step("latent")
    tr:step("cached_latent")
    tr:step("up_k")
    lesson.agree("the cache holds the 3 latents", tr.cached_latent, mla.cache_c_kv)
end)

lesson.say[[
Then one token at a time. The new token's latent is appended to the cache, and the up-projections
recompute the keys and values of all the tokens so far from their latents: that is the price MLA
pays for its small cache, an extra matrix product per step. The new token's query meets them in one
new row of scores.]]

lesson.step("trace: the fourth token alone", function()
    tr2 = attention.trace{module = mla, x = x:narrow(2, 4, 1), use_cache = true, tokens = {"with"},
                          key_tokens = {"Your", "journey", "starts", "with"}}
    tr2:step("cached_latent")
    tr2:step("up_k")
    tr2:step("weights")
    lesson.agree("the cache holds 4 latents of 4 numbers", {mla.cache_c_kv.shape[2], mla.cache_c_kv.shape[3]}, {4, 4})
    lesson.agree("one row of scores per head", tr2.scores.shape[3], 1)
end)

lesson.step("all six through the cache, against PyTorch", function()
    mla:reset_cache()
    local steps = {mla(x:narrow(2, 1, 3), {use_cache = true})}   -- the first three, as in the trace
    for i = 4, 6 do steps[#steps + 1] = mla(x:narrow(2, i, 1), {use_cache = true}) end   -- then one at a time
    local cached = torch.cat(steps, 2)
    lesson.show("mla.cache_c_kv", mla.cache_c_kv)
    lesson.check("the cached outputs, as the chapter's class computes them", cached, ref("mla.cached"), {tol = 0})
    lesson.check("the cached latents", mla.cache_c_kv, ref("mla.cache_c_kv"), {tol = 0})
    lesson.check("the keys W_UK projects up from them", mla.W_UK(mla.cache_c_kv), ref("mla.keys"), {tol = 0})
    lesson.agree("the uncached outputs, to rounding", cached, out, {tol = 1e-6})
end)

lesson.section("3  A GPT with latent attention")

lesson.say[[
The chapter's GPT is chapter 4's with MultiHeadLatentAttention in every block; in attn,
gpt.GPTModel with a latent_dim in its configuration. Greedy generation with the cache gives the ids
and the logits PyTorch computes with the chapter's code.]]

lesson.step("generate with the latent cache", function()
    torch.manual_seed(123)
    model = gpt.GPTModel{vocab_size = 50, context_length = 16, emb_dim = 32, n_heads = 4, n_layers = 2,
                         drop_rate = 0.1, qkv_bias = false, latent_dim = 8}
    local prompt = torch.tensor{{3, 7, 1, 9}}
    ids = gpt.generate_text_simple_cached(model, prompt, 8)
    lesson.show("ids", ids)
    lesson.check("the ids of the chapter's generate_text_simple_cached (its ids + 1)", ids, ref("gpt.ids"), {tol = 0})
    lesson.agree("the same ids without the cache", ids, gpt.generate_text_simple(model, prompt, 8, 16))
    model:reset_kv_cache()
    local steps = {model(ids:narrow(2, 1, 4), {use_cache = true})}
    for i = 5, 11 do steps[#steps + 1] = model(ids:narrow(2, i, 1), {use_cache = true}) end
    lesson.show("model.trf_blocks[1].att.cache_c_kv.shape", model.trf_blocks[1].att.cache_c_kv.shape)
    lesson.check("every cached step's logits, as PyTorch computes them", torch.cat(steps, 2), ref("gpt.logits"), {tol = 0})
end)

lesson.section("4  What it saves")

lesson.say[[
The MLA chapter's README runs its memory estimator on a model with emb 2048, 24 heads, 48 layers
and 8192 tokens in bf16, with 4 key/value groups for GQA and a latent of 1024 for MLA. Its printed
table: MHA 3.25 GB, GQA 0.81 GB, MLA 0.81 GB; MHA / GQA 4.00x, MHA / MLA 4.03x. (head_dim is
⌈2048 / 24⌉ = 86, so "MHA" counts 24 · 86 = 2064 dims, slightly more than 2048: hence 4.03 and not 4.)]]

lesson.step("the chapter's memory table", function()
    local cfg = {context_length = 8192, emb_dim = 2048, n_heads = 24, n_layers = 48, dtype = "bf16"}
    local mha_bytes = attention.kv_cache_bytes(cfg)
    cfg.n_kv_heads = 24 // 4   -- the estimator's n_kv_groups = 4
    local gqa_bytes = attention.kv_cache_bytes(cfg)
    cfg.n_kv_heads, cfg.latent_dim = nil, 1024
    local mla_bytes = attention.kv_cache_bytes(cfg)
    local function gb(b) return string.format("%.2f GB", b / 1e9) end
    lesson.show("gb(mha_bytes), gb(gqa_bytes), gb(mla_bytes)", {gb(mha_bytes), gb(gqa_bytes), gb(mla_bytes)})
    lesson.check("MHA total KV cache: 3.25 GB (ch04/05_mla's README)", gb(mha_bytes), "3.25 GB")
    lesson.check("GQA total KV cache: 0.81 GB", gb(gqa_bytes), "0.81 GB")
    lesson.check("MLA total KV cache: 0.81 GB", gb(mla_bytes), "0.81 GB")
    lesson.check("Ratio (MHA / GQA): 4.00x", string.format("%.2fx", mha_bytes / gqa_bytes), "4.00x")
    lesson.check("Savings (GQA vs MHA): 75.00%", string.format("%.2f%%", (1 - gqa_bytes / mha_bytes) * 100), "75.00%")
    lesson.check("Ratio (MHA / MLA): 4.03x", string.format("%.2fx", mha_bytes / mla_bytes), "4.03x")
    lesson.check("Savings (MLA vs MHA): 75.19%", string.format("%.2f%%", (1 - mla_bytes / mha_bytes) * 100), "75.19%")
end)

lesson.say[[
For its own GPT runs (emb 768, 24 heads, 12 layers) the README takes latent_dim 192 and writes
"(768×2)/192 = 8× compression". The KV cache indeed shrinks eightfold; the README's measured memory
shrinks less (1.54 GB to 0.68 GB), because most of a model's memory is its other weights.]]

lesson.step("the README's 8× compression", function()
    local cfg = {context_length = 32768, emb_dim = 768, n_heads = 24, n_layers = 12, dtype = "bf16"}
    local mha_bytes = attention.kv_cache_bytes(cfg)
    cfg.latent_dim = 192
    local ratio = mha_bytes / attention.kv_cache_bytes(cfg)
    lesson.show("ratio", ratio)
    lesson.check("(768×2)/192 = 8× compression (ch04/05_mla's README)", ratio, 8)
end)
