-- The attention of today's models, part 2: where a token is (sinusoidal encodings, RoPE, ALiBi) and how
-- far back it may look (sliding windows), as the bonus chapters of Build a Large Language Model (From
-- Scratch) build them (the repository rasbt/LLMs-from-scratch: ch05/07_gpt_to_llama for RoPE,
-- ch04/06_swa for sliding windows); ALiBi as its paper (Press, Smith and Lewis, "Train Short, Test
-- Long") defines it. Seeded results are checked against PyTorch running the chapters' computations
-- (scripts/torch_reference_variants.py), the memory estimate against the figures ch04/06_swa prints.
--   ./attn lessons/17_positions_windows.lua           straight through
--   ./attn --step lessons/17_positions_windows.lua    one step at a time

lesson.title("Positions and windows: RoPE, ALiBi, sliding-window attention",
             {source = "Build a Large Language Model (From Scratch), bonus material: ch05/07_gpt_to_llama, ch04/06_swa"})

local function ref(name) return lesson.reference("lessons_variants.txt", name) end

lesson.section("1  Where a token is")

lesson.say[[
Attention by itself does not know the order of the tokens: shuffle the keys and values together and
every query gets the same context vector. GPT-2 adds a learned vector per position to each token's
embedding; the original Transformer adds fixed sines and cosines (nn.positional_encoding). Both add
the position to the input, once, before the first layer.]]

lesson.step("without positions, attention ignores order", function()
    torch.manual_seed(123)
    x = torch.rand(4, 4)
    local shuffled = torch.stack({x[3], x[1], x[4], x[2]}, 1)   -- the same four tokens in another order
    local z = attention.forward{q = x[{{1}}], k = x, v = x}
    local z_shuffled = attention.forward{q = x[{{1}}], k = shuffled, v = shuffled}
    lesson.show("z", z)
    lesson.agree("the same context vector with the keys and values shuffled", z, z_shuffled, {tol = 1e-7})
    pe = nn.positional_encoding(6, 4)
    lesson.show("pe", pe)
end)

lesson.say[[
Llama, Qwen and Gemma rotate instead (RoPE). In every layer, each query and key of head_dim
numbers is cut into pairs, and pair i is turned by the angle position · θ^(-2i/head_dim), θ = 10,000
by default: the first pair turns fast, the last one slowly. The Llama notebooks pair dim i with dim
i + head_dim/2 (split halves): x·cos + (-x₂, x₁)·sin. attention.rope is their compute_rope_params and
apply_rope; position 1 (angle 0) is not turned.]]

lesson.step("RoPE on six positions", function()
    torch.manual_seed(123)
    q = torch.rand(1, 1, 6, 4)
    cos, sin = attention.rope_params(4, 10000, 6)   -- Python: cos, sin = compute_rope_params(head_dim=4, context_length=6)
    lesson.show("cos", cos)
    q_rot = attention.rope(q)                       -- Python: apply_rope(q, cos, sin)
    lesson.show("q_rot", q_rot)
    lesson.check("the q the chapter's code draws with seed 123", q, ref("rope.q"), {tol = 0})
    lesson.check("apply_rope's result, bit for bit", q_rot, ref("rope.rotated"), {tol = 0})
    lesson.agree("a rotation keeps each pair's length", (q_rot * q_rot):sum(-1), (q * q):sum(-1), {tol = 1e-6})
end)

lesson.say[[
Why rotate? A rotation by a and one by b multiply to one by a - b when one of the two vectors is
transposed: the score of a query at position i and a key at position j depends on i - j only.
Moving both tokens along the text by the same number of positions changes nothing.]]

lesson.step("the score depends on the distance only", function()
    torch.manual_seed(1)
    local qv, kv = torch.rand(1, 4), torch.rand(1, 4)
    local function score(i, j)
        return (attention.rope(qv, {offset = i}) * attention.rope(kv, {offset = j})):sum():item()
    end
    lesson.show("score(2, 0), score(7, 5), score(12, 10)", string.format("%.6f %.6f %.6f", score(2, 0), score(7, 5),
                                                                          score(12, 10)))
    lesson.agree("positions 7 and 5: as 2 and 0", score(7, 5), score(2, 0), {tol = 1e-6})
    lesson.agree("positions 12 and 10: as 2 and 0", score(12, 10), score(2, 0), {tol = 1e-6})
end)

lesson.say[[
ALiBi goes further: no rotation, no vector at all. Each head h adds -m_h · (i - j) to the score of
query i and key j, a penalty growing with the distance, with a slope m_h = 2^(-8h/H) of its own per
head: steep heads look near, flat heads far.]]

lesson.step("ALiBi: slopes, and the bias on the scores", function()
    lesson.show("attention.alibi_slopes(4)", attention.alibi_slopes(4))
    lesson.agree("head 1's slope is 2^-2 with 4 heads", attention.alibi_slopes(4)[1], 2 ^ -2)
    torch.manual_seed(123)
    alibi = nn.GroupedQueryAttention(4, 4, 0.0, 2, 2, {alibi = true})
    alibi:eval()
    tr = attention.trace{module = alibi, x = torch.rand(1, 4, 4), tokens = {"a", "b", "c", "d"}}
    tr:step("biased")
    lesson.agree("the bias of head 1, query 4, key 1: -2^-4 · 3", (tr.biased - tr.scaled)[1][1][4][1], -3 * 2 ^ -4,
                 {tol = 1e-7})
end)

lesson.section("2  How far back: sliding windows")

lesson.say[[
A sliding window lets each token see only the last W tokens, itself included: the causal mask with
a band cut off below. Gemma 3 uses windows in five layers out of six; the sixth sees everything.]]

lesson.step("the band mask, and the 5:1 layer pattern", function()
    lesson.show("attention.band_mask(6, 6, {window = 2})", attention.band_mask(6, 6, {window = 2}))
    local pattern = attention.layer_pattern(12, 5, 1)
    local kinds = {}
    for i, sliding in ipairs(pattern) do kinds[i] = sliding and "S" or "F" end
    lesson.show("12 layers, 5:1", table.concat(kinds, " "))
    lesson.agree("layer 6 and layer 12 see everything", {pattern[6], pattern[12]}, {false, false})
end)

lesson.say[[
With a window, the cache needs to keep only W tokens. The bonus chapter's first version kept W and
let a chunk of new tokens attend over them alone, so the chunk's first tokens saw less than a window
(reported as rasbt/LLMs-from-scratch#1013). A chunk of n tokens needs the last W + n - 1 keys: those are what the layer
attends over, and it still keeps only W.]]

lesson.step("a sliding-window layer, with and without the cache", function()
    inputs = torch.tensor{
        {0.43, 0.15, 0.89}, -- Your     (x^(1))
        {0.55, 0.87, 0.66}, -- journey  (x^(2))
        {0.57, 0.85, 0.64}, -- starts   (x^(3))
        {0.22, 0.58, 0.33}, -- with     (x^(4))
        {0.77, 0.25, 0.10}, -- one      (x^(5))
        {0.05, 0.80, 0.55}} -- step     (x^(6))
    torch.manual_seed(123)
    swa = nn.GroupedQueryAttention(3, 4, 0.0, 2, 2, {sliding_window = 2})
    swa:eval()
    local x = inputs:unsqueeze(1)
    out = swa(x)
    lesson.check("the chapter's computation in PyTorch, bit for bit", out, ref("swa.out"), {tol = 0})
    local chunks = {}
    for i = 1, 5, 2 do chunks[#chunks + 1] = swa(x:narrow(2, i, 2), {use_cache = true}) end   -- two tokens at a time
    lesson.show("swa.cache_k.shape", swa.cache_k.shape)
    lesson.check("in chunks of two through the cache: PyTorch's numbers", torch.cat(chunks, 2), ref("swa.cached"),
                 {tol = 0})
    lesson.agree("the same as without the cache, to rounding", torch.cat(chunks, 2), out, {tol = 1e-6})
end)

lesson.step("what a 5:1 window saves in a 32-layer model", function()
    local cfg = {context_length = 32768, emb_dim = 4096, n_heads = 32, n_layers = 32, dtype = "bf16",
                 sliding_window = 1024, swa_ratio = {5, 1}}
    local bytes, sliding, full = attention.kv_cache_bytes(cfg)
    lesson.show("sliding, full layers", string.format("%d, %d", sliding, full))
    lesson.check("27 SWA, 5 FULL (ch04/06_swa's README)", {sliding, full}, {27, 5}, {tol = 0})
    lesson.check("MHA + SWA: 3.14 GB (ch04/06_swa's README)", string.format("%.2f GB", bytes / 1e9), "3.14 GB")
    cfg.n_kv_heads = 8
    lesson.check("GQA + SWA: 0.78 GB (ch04/06_swa's README)", string.format("%.2f GB", attention.kv_cache_bytes(cfg) / 1e9),
                 "0.78 GB")
end)
