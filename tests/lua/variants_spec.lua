-- The attention of today's models: grouped key/value heads, the KV cache, sliding windows,
-- RoPE, ALiBi and the KV cache's size, against what PyTorch computes with the bonus chapters' code
-- (tests/data/torch/variants.txt, made by scripts/torch_reference_variants.py) and against the figures
-- the bonus chapters print (their README.md files and the Llama 3 notebook, quoted below).
local support = dofile("tests/lua/support.lua")
local torch, nn, attention, gpt = torch, nn, attention, gpt

local function int(case, key) return math.tointeger(tonumber(case[key])) end

local function cases(kind)
    local out = {}
    for _, c in ipairs(support.reference("variants")) do
        if c.kind == kind then
            out[#out + 1] = c
        end
    end
    return out
end

local function find(kind, what, pred)
    for _, c in ipairs(cases(kind)) do
        if c.what == what and (pred == nil or pred(c)) then return c end
    end
    error("no case " .. kind .. " " .. what)
end

describe("nn.GroupedQueryAttention against the bonus chapter's (ch04/04_gqa, 06_swa)", function()
    for _, c in ipairs(cases("gqa")) do
        if c.what == "out" then
            local name = string.format("seed %s, %s query heads, %s key/value heads, window %s", c.seed, c.num_heads,
                                       c.num_kv_groups, c.window)
            local function build()
                torch.manual_seed(int(c, "seed"))
                local w = int(c, "window")
                local m = nn.GroupedQueryAttention(int(c, "d_in"), int(c, "d_out"), 0.0, int(c, "num_heads"),
                                                   int(c, "num_kv_groups"), {sliding_window = w > 0 and w or nil})
                m:eval()
                return m, torch.rand(int(c, "b"), int(c, "n"), int(c, "d_in"))
            end
            it(name .. ": forward, bit for bit", function()
                local m, x = build()
                assert.is_nil(support.same_bits(m(x), c.values))
            end)
            it(name .. ": the same tokens through the cache (3, then one at a time), bit for bit", function()
                local m, x = build()
                local want = find("gqa", "cached", function(o) return o.seed == c.seed and o.num_kv_groups ==
                                  c.num_kv_groups and o.window == c.window end)
                local outs = {m(x:narrow(2, 1, 3), {use_cache = true})}
                for i = 4, x.shape[2] do outs[#outs + 1] = m(x:narrow(2, i, 1), {use_cache = true}) end
                assert.is_nil(support.same_bits(torch.cat(outs, 2), want.values))
            end)
        end
    end

    it("has the chapter's parameters, created in its order (W_key, W_value, W_query, out_proj)", function()
        local m = nn.GroupedQueryAttention(8, 12, 0.0, 4, 2)
        local names = {}
        for _, np in ipairs(m:named_parameters()) do names[#names + 1] = np[1] end
        assert.same({"W_key.weight", "W_value.weight", "W_query.weight", "out_proj.weight"}, names)
        assert.same({6, 8}, {m.W_key.weight.shape[1], m.W_key.weight.shape[2]})
    end)

    -- converting-llama2-to-llama3.ipynb prints "MHA: 67,108,864" and "GQA: 41,943,040" for emb 4096, 32 heads,
    -- 8 key/value groups (its MHA: GroupedQueryAttention with as many groups as heads, no biases)
    it("has the Llama 3 notebook's parameter counts: 67,108,864 (32 groups) and 41,943,040 (8 groups)", function()
        local function count(groups)
            local m = nn.GroupedQueryAttention(4096, 4096, 0.0, 32, groups)
            local total = 0
            for _, p in ipairs(m:parameters()) do total = total + p:numel() end
            return total
        end
        assert.equal(67108864, count(32))
        assert.equal(41943040, count(8))
    end)

    it("shares key/value heads in repeat_interleave's order: query heads 1, 2 read head 1", function()
        assert.same({{1, 2}, {3, 4}}, attention.kv_groups(4, 2))
        local k = torch.tensor({{{1.0}}, {{2.0}}}):view(1, 2, 1, 1)
        assert.same({1, 1, 2, 2}, attention.repeat_interleave(k, 2, 2):reshape(-1):tolist())
    end)

    it("refuses a head count the groups do not divide, naming the class", function()
        assert.has_error(function() nn.GroupedQueryAttention(8, 12, 0.0, 4, 3) end,
                         "GroupedQueryAttention: num_heads (4) must be divisible by num_kv_groups (3)")
        local m = nn.GroupedQueryAttention(8, 12, 0.0, 4, 2)
        assert.has_error(function() m(torch.rand(1, 2, 8), {cache = true}) end,
                         "GroupedQueryAttention: unknown option cache of forward (known: use_cache)")
    end)
end)

describe("the KV cache (ch04/03_kv-cache)", function()
    local c_ids = find("gpt_cached", "ids")
    local function model()
        torch.manual_seed(123)
        local m = gpt.GPTModel{vocab_size = 50, context_length = 16, emb_dim = 32, n_heads = 4, n_layers = 2,
                               drop_rate = 0.1, qkv_bias = false}
        m:eval()
        return m
    end

    it("generates the chapter's ids (PyTorch's + 1) with gpt.generate_text_simple_cached", function()
        local ids = gpt.generate_text_simple_cached(model(), torch.tensor{{3, 7, 1, 9}}, 8)
        local want = {}
        for i, v in ipairs(c_ids.values) do want[i] = tonumber(v) + 1 end
        assert.same(want, ids[1]:tolist())
    end)

    it("gives PyTorch's cached logits and PyTorch's uncached logits, each bit for bit", function()
        local m = model()
        local ids = torch.tensor{{3, 7, 1, 9, 31, 9, 17, 8, 30, 4, 42}}
        m:reset_kv_cache()
        local steps = {m(ids:narrow(2, 1, 4), {use_cache = true})}
        for i = 5, 11 do steps[#steps + 1] = m(ids:narrow(2, i, 1), {use_cache = true}) end
        assert.is_nil(support.same_bits(torch.cat(steps, 2), find("gpt_cached", "logits").values))
        assert.is_nil(support.same_bits(m(ids), find("gpt_cached", "uncached_logits").values))
    end)

    -- Bit for bit cached = uncached holds only where the matrix products do: BLAS computes a row in a
    -- block of rows with other kernels than a row alone, so the new token's row (one row) and the same
    -- row inside the whole sequence (n rows) may round differently. PyTorch shows the same difference
    -- on the same model (the reference file's max_abs_diff): the bound here is PyTorch's own.
    it("gives the uncached logits within PyTorch's own difference between the two", function()
        local m = model()
        local ids = torch.tensor{{3, 7, 1, 9, 31, 9, 17, 8, 30, 4, 42}}
        m:reset_kv_cache()
        local steps = {m(ids:narrow(2, 1, 4), {use_cache = true})}
        for i = 5, 11 do steps[#steps + 1] = m(ids:narrow(2, i, 1), {use_cache = true}) end
        local diff = (torch.cat(steps, 2) - m(ids)):abs():max():item()
        local torch_diff = tonumber(find("gpt_cached", "max_abs_diff").values[1])
        assert.is_true(diff <= torch_diff, diff .. " > " .. torch_diff)
        assert.is_true(torch_diff < 1e-6)
    end)

    -- The bonus chapter's bug (rasbt/LLMs-from-scratch#1013): with a sliding window, a cache that kept only the last W keys let
    -- the first queries of a chunk see fewer than W keys; cached and uncached outputs then differ by far
    -- more than rounding. A chunk of n attends over the last W + n - 1 keys.
    it("with a sliding window, cached = uncached to rounding for chunks of every size (rasbt/LLMs-from-scratch#1013)", function()
        torch.manual_seed(7)
        local m = nn.GroupedQueryAttention(16, 16, 0.0, 4, 2, {sliding_window = 3})
        m:eval()
        local x = torch.rand(1, 9, 16)
        local full = m(x)
        for _, chunk in ipairs({1, 2, 4}) do
            m:reset_cache()
            local outs, i = {}, 1
            while i <= 9 do
                local n = math.min(chunk, 10 - i)
                outs[#outs + 1] = m(x:narrow(2, i, n), {use_cache = true})
                i = i + n
            end
            local d = (torch.cat(outs, 2) - full):abs():max():item()
            assert.is_true(d < 1e-6, "chunk " .. chunk .. ": " .. d)
            assert.equal(3, m.cache_k.shape[3]) -- the cache keeps the window, no more
        end
    end)

    it("nn.MultiHeadAttention: use_cache and reset_cache; a full cache is a clear error", function()
        torch.manual_seed(1)
        local m = nn.MultiHeadAttention(8, 8, 4, 0.0, 2)
        m:eval()
        local x = torch.rand(1, 4, 8)
        local full = m(x)
        local a = m(x:narrow(2, 1, 2), {use_cache = true})
        local b = m(x:narrow(2, 3, 2), {use_cache = true})
        assert.is_true((torch.cat({a, b}, 2) - full):abs():max():item() < 1e-6)
        assert.has_error(function() m(x:narrow(2, 1, 1), {use_cache = true}) end,
                         "MultiHeadAttention: the cache holds 4 tokens; 1 more exceed the context length of 4 " ..
                         "(m:reset_cache() empties it)")
        m:reset_cache()
        assert.is_true((m(x:narrow(2, 1, 2), {use_cache = true}) - a):abs():max():item() == 0)
    end)

    it("the tracer shows the cache growing and one new row of scores per step", function()
        torch.manual_seed(123)
        local m = nn.GroupedQueryAttention(8, 12, 0.0, 4, 2)
        m:eval()
        local x = torch.rand(1, 4, 8)
        local out = {}
        local tr = attention.trace{module = m, x = x:narrow(2, 1, 3), use_cache = true,
                                   write = function(s) out[#out + 1] = s end}
        tr:run()
        assert.same({1, 2, 3, 3}, {tr.cached_k.shape[1], tr.cached_k.shape[2], tr.cached_k.shape[3], tr.cached_k.shape[4]})
        local tr2 = attention.trace{module = m, x = x:narrow(2, 4, 1), use_cache = true, tokens = {"d"},
                                    key_tokens = {"a", "b", "c", "d"}, write = function(s) out[#out + 1] = s end}
        tr2:run()
        assert.equal(4, tr2.cached_k.shape[3])
        assert.same({1, 4, 1, 4}, {tr2.scores.shape[1], tr2.scores.shape[2], tr2.scores.shape[3], tr2.scores.shape[4]})
        local text = table.concat(out, "\n")
        assert.truthy(text:find("KV cache", 1, true))
        assert.truthy(text:find("share KV", 1, true))
    end)
end)

describe("attention.rope against the Llama notebooks' compute_rope_params and apply_rope", function()
    for _, c in ipairs(cases("rope")) do
        if c.what == "out" then
            it(string.format("seed %s, head_dim %s, theta_base %s, offset %s: bit for bit", c.seed, c.d, c.theta_base,
                             c.offset), function()
                torch.manual_seed(int(c, "seed"))
                local x = torch.rand(int(c, "b"), int(c, "h"), int(c, "n"), int(c, "d"))
                local cos, sin = attention.rope_params(int(c, "d"), int(c, "theta_base"), int(c, "offset") + int(c, "n"))
                local key = function(o) return o.seed == c.seed end
                assert.is_nil(support.same_bits(cos, find("rope", "cos", key).values))
                assert.is_nil(support.same_bits(sin, find("rope", "sin", key).values))
                local got = attention.rope(x, {theta_base = int(c, "theta_base"), offset = int(c, "offset")})
                assert.is_nil(support.same_bits(got, c.values))
            end)
        end
    end

    -- the point of RoPE: the score of a query at position i and a key at position j depends on i - j only
    for _, interleaved in ipairs({false, true}) do
        it("q·k depends on the relative position only" .. (interleaved and " (interleaved pairs)" or ""), function()
            torch.manual_seed(3)
            local q, k = torch.rand(1, 8), torch.rand(1, 8)
            local function score(i, j)
                local qi = attention.rope(q, {offset = i, interleaved = interleaved})
                local kj = attention.rope(k, {offset = j, interleaved = interleaved})
                return (qi * kj):sum():item()
            end
            for _, d in ipairs({0, 1, 3}) do
                local ref = score(d, 0)
                for _, i in ipairs({d + 1, d + 5, d + 20}) do
                    -- float32 rounding of angles up to 20 rad: about 20 · 2^-24 each, well under 1e-5
                    assert.is_true(math.abs(score(i, i - d) - ref) < 1e-5)
                end
            end
            assert.is_true(math.abs(score(1, 0) - score(3, 0)) > 1e-3) -- and it does depend on it
        end)
    end

    it("rejects an odd head_dim and unknown options, naming attention.rope", function()
        assert.has_error(function() attention.rope(torch.rand(2, 3)) end,
                         "attention.rope: head_dim must be even (dims are rotated in pairs), got [2, 3]")
        assert.has_error(function() attention.rope(torch.rand(2, 4), {offest = 1}) end,
                         "attention.rope: unknown option 'offest' (did you mean 'offset'?)")
    end)
end)

describe("sliding windows and ALiBi", function()
    it("band_mask hides the future and everything a window or more back", function()
        local h = attention.band_mask(4, 4, {window = 2})
        assert.same({{false, true, true, true}, {false, false, true, true}, {true, false, false, true},
                     {true, true, false, false}}, h:tolist())
    end)

    it("the layer pattern 5:1 is five sliding layers, then a full one", function()
        assert.same({true, true, true, true, true, false, true}, attention.layer_pattern(7, 5, 1))
    end)

    it("ALiBi's slopes are 2^(-8i/h): 1/2, 1/4, ..., 1/256 for 8 heads", function()
        local s = attention.alibi_slopes(8):tolist()
        for i = 1, 8 do assert.equal(2 ^ -i, s[i]) end
    end)

    it("an ALiBi model's scores carry the bias: equal q and k rows give -slope·distance", function()
        torch.manual_seed(1)
        local m = nn.GroupedQueryAttention(4, 4, 0.0, 2, 2, {alibi = true})
        m:eval()
        local out = {}
        local tr = attention.trace{module = m, x = torch.rand(1, 3, 4), write = function(s) out[#out + 1] = s end}
        tr:step("biased")
        local bias = tr.biased - tr.scaled
        assert.is_true(math.abs(bias[1][1][3][1]:item() - (-2 * 2 ^ -4)) < 1e-6) -- head 1, slope 1/16, 2 back
        assert.is_true(math.abs(bias[1][2][3][1]:item() - (-2 * 2 ^ -8)) < 1e-6) -- head 2, slope 1/256
    end)
end)

describe("attention.kv_cache_bytes: the bonus chapters' printed estimates", function()
    local function gb(bytes) return string.format("%.2f GB", bytes / 1e9) end

    -- ch04/04_gqa/README.md: emb_dim 4096, 32 heads, 32 layers, 32768 tokens, n_kv_groups 4, bf16
    it("MHA 17.18 GB, GQA 4.29 GB (ch04/04_gqa)", function()
        local cfg = {context_length = 32768, emb_dim = 4096, n_heads = 32, n_layers = 32, dtype = "bf16"}
        assert.equal("17.18 GB", gb(attention.kv_cache_bytes(cfg)))
        cfg.n_kv_heads = 32 // 4
        assert.equal("4.29 GB", gb(attention.kv_cache_bytes(cfg)))
    end)

    -- ch04/05_mla/README.md: 8192 tokens, emb 2048, 24 heads, 48 layers, 4 groups, latent 1024, bf16
    it("MHA 3.25 GB, GQA 0.81 GB, MLA 0.81 GB (ch04/05_mla)", function()
        local cfg = {context_length = 8192, emb_dim = 2048, n_heads = 24, n_layers = 48, dtype = "bf16"}
        assert.equal("3.25 GB", gb(attention.kv_cache_bytes(cfg)))
        cfg.n_kv_heads = 24 // 4
        assert.equal("0.81 GB", gb(attention.kv_cache_bytes(cfg)))
        cfg.n_kv_heads, cfg.latent_dim = nil, 1024
        assert.equal("0.81 GB", gb(attention.kv_cache_bytes(cfg)))
    end)

    -- ch04/06_swa/README.md: as 04_gqa's, window 1024, ratio 5:1: "27 SWA, 5 FULL", 3.14 GB and 0.78 GB
    it("MHA + SWA 3.14 GB, GQA + SWA 0.78 GB, 27 sliding and 5 full layers (ch04/06_swa)", function()
        local cfg = {context_length = 32768, emb_dim = 4096, n_heads = 32, n_layers = 32, dtype = "bf16",
                     sliding_window = 1024, swa_ratio = {5, 1}}
        local bytes, swa, full = attention.kv_cache_bytes(cfg)
        assert.equal("3.14 GB", gb(bytes))
        assert.same({27, 5}, {swa, full})
        cfg.n_kv_heads = 8
        assert.equal("0.78 GB", gb(attention.kv_cache_bytes(cfg)))
    end)

    it("refuses what it cannot count", function()
        assert.has_error(function() attention.kv_cache_bytes{context_length = 8, n_layers = 1, dtype = "fp64"} end,
                         'attention.kv_cache_bytes: dtype must be one of fp32, bf16, fp16, fp8, int8, got "fp64"')
    end)
end)

describe("attention.online_softmax: FlashAttention's running max and sum", function()
    -- the staged softmax adds a row's exps in one pass; the online one tile by tile, each partial sum
    -- rescaled when a larger max arrives: a few float32 roundings apart (bound: 1e-6 for weights <= 1
    -- and values in [0, 1), about 8 ulp of the results here), not bit for bit
    for _, tile in ipairs({1, 2, 3, 7}) do
        it("tile " .. tile .. ": the staged softmax·v within 1e-6, causal rows included", function()
            torch.manual_seed(tile)
            local s = attention.mask(torch.rand(2, 5, 7) * 6, attention.causal_mask(5, 7))
            local v = torch.rand(2, 7, 3)
            local z, steps = attention.online_softmax(s, v, {tile = tile})
            local ref = attention.weighted_sum(attention.softmax(s, -1), v)
            assert.is_true((z - ref):abs():max():item() < 1e-6)
            assert.equal(math.ceil(7 / tile), #steps)
            assert.is_true(torch.equal(steps[#steps].m, s:max{dim = -1, keepdim = true}))
        end)
    end

    it("rescales when a tile brings a larger max: exp(m_old - m_new)", function()
        local s = torch.tensor{{1.0, 0.0, 3.0, 2.0}}
        local _, steps = attention.online_softmax(s, torch.eye(4), {tile = 2})
        assert.is_true(math.abs(steps[2].scale[1][1] - math.exp(1 - 3)) < 1e-7)
    end)

    it("refuses scores and values that do not agree, naming attention.online_softmax", function()
        assert.has_error(function() attention.online_softmax(torch.rand(2, 3), torch.rand(4, 2)) end,
                         "attention.online_softmax: scores [..., n, m] and v [..., m, dv] must agree on m, got [2, 3] and [4, 2]")
    end)
end)
