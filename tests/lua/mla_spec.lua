-- Multi-head latent attention (MLA), the bonus chapter ch04/05_mla of "Build a Large Language Model (From
-- Scratch)": nn.MultiHeadLatentAttention and chapter 4's GPT with it, against what PyTorch computes with
-- the chapter's code (tests/data/torch/mla.txt, made by scripts/torch_reference_mla.py), and its tracer.
-- The MLA memory table of the chapter's README is checked in variants_spec.lua with the other estimates.
local support = dofile("tests/lua/support.lua")
local torch, nn, attention, gpt = torch, nn, attention, gpt

local function int(case, key) return math.tointeger(tonumber(case[key])) end

local function find(kind, what, pred)
    for _, c in ipairs(support.reference("mla")) do
        if c.kind == kind and c.what == what and (pred == nil or pred(c)) then return c end
    end
    error("no case " .. kind .. " " .. what)
end

-- The bound of "cached = uncached": PyTorch's own difference between its cached and uncached outputs on
-- the same case (a row computed alone and inside a block of rows is added in another order by BLAS).
local function torch_diff(case) return tonumber(case.values[1]) end

describe("nn.MultiHeadLatentAttention against the bonus chapter's (ch04/05_mla)", function()
    for _, c in ipairs(support.reference("mla")) do
        if c.kind == "mla" and c.what == "out" then
            local same = function(o) return o.seed == c.seed end
            local name = string.format("seed %s, d_out %s, %s heads, latent_dim %s, qkv_bias %s", c.seed, c.d_out,
                                       c.num_heads, c.latent_dim == "0" and "default" or c.latent_dim, c.qkv_bias)
            local function build()
                torch.manual_seed(int(c, "seed"))
                local latent = int(c, "latent_dim")
                local m = nn.MultiHeadLatentAttention(int(c, "d_in"), int(c, "d_out"), 0.0, int(c, "num_heads"),
                                                      {qkv_bias = c.qkv_bias == "1", latent_dim = latent > 0 and latent or nil})
                m:eval()
                return m, torch.rand(int(c, "b"), int(c, "n"), int(c, "d_in"))
            end
            local function cached(m, x)
                local outs = {m(x:narrow(2, 1, 3), {use_cache = true})}
                for i = 4, x.shape[2] do outs[#outs + 1] = m(x:narrow(2, i, 1), {use_cache = true}) end
                return torch.cat(outs, 2)
            end
            it(name .. ": forward, bit for bit", function()
                local m, x = build()
                assert.is_nil(support.same_bits(m(x), c.values))
            end)
            it(name .. ": through the cache (3 tokens, then one at a time), bit for bit, the latents cached", function()
                local m, x = build()
                assert.is_nil(support.same_bits(cached(m, x), find("mla", "cached", same).values))
                assert.is_nil(support.same_bits(m.cache_c_kv, find("mla", "cache_c_kv", same).values))
                assert.equal(x.shape[2], m.ptr_current_pos)
            end)
            it(name .. ": cached = uncached within PyTorch's own difference", function()
                local m, x = build()
                local full = m(x)
                local d = (cached(m, x) - full):abs():max():item()
                local bound = torch_diff(find("mla", "max_abs_diff", same))
                assert.is_true(d <= bound, d .. " > " .. bound)
                assert.is_true(bound < 1e-6)
            end)
        end
    end

    it("has the chapter's parameters, created in its order, and its default latent_dim max(16, d_out // 8)", function()
        local m = nn.MultiHeadLatentAttention(8, 12, 0.0, 4, {latent_dim = 6})
        local names = {}
        for _, np in ipairs(m:named_parameters()) do names[#names + 1] = np[1] end
        assert.same({"W_query.weight", "W_DKV.weight", "W_UK.weight", "W_UV.weight", "out_proj.weight", "out_proj.bias"},
                    names)
        assert.same({6, 8}, {m.W_DKV.weight.shape[1], m.W_DKV.weight.shape[2]})
        assert.equal(16, nn.MultiHeadLatentAttention(8, 12, 0.0, 4).latent_dim)
        assert.equal(96, nn.MultiHeadLatentAttention(768, 768, 0.0, 12).latent_dim)
    end)

    it("the cache holds one latent per token, not keys and values; reset_cache empties it", function()
        torch.manual_seed(1)
        local m = nn.MultiHeadLatentAttention(8, 16, 0.0, 4, {latent_dim = 4})
        m:eval()
        m(torch.rand(2, 3, 8), {use_cache = true})
        assert.same({2, 3, 4}, {m.cache_c_kv.shape[1], m.cache_c_kv.shape[2], m.cache_c_kv.shape[3]})
        assert.is_nil(rawget(m, "cache_k"))
        m:reset_cache()
        assert.is_nil(m.cache_c_kv)
        assert.equal(0, m.ptr_current_pos)
    end)

    it("an uncached forward empties a cache left from before (the chapter's only resets the position)", function()
        torch.manual_seed(1)
        local m = nn.MultiHeadLatentAttention(8, 8, 0.0, 2, {latent_dim = 4})
        m:eval()
        local x = torch.rand(1, 4, 8)
        m(x:narrow(2, 1, 2), {use_cache = true})
        m(x)
        assert.is_nil(m.cache_c_kv)
        local a = m(x:narrow(2, 1, 2), {use_cache = true})
        assert.is_true(torch.equal(a, m(x:narrow(2, 1, 2))))
    end)

    it("refuses what it cannot compute, naming the class", function()
        assert.has_error(function() nn.MultiHeadLatentAttention(8, 12, 0.0, 5) end,
                         "MultiHeadLatentAttention: d_out (12) must be divisible by num_heads (5)")
        assert.has_error(function() nn.MultiHeadLatentAttention(8, 12, 0.0, 4, {latent = 4}) end,
                         "MultiHeadLatentAttention: unknown option 'latent' (did you mean 'latent_dim'?)")
        local m = nn.MultiHeadLatentAttention(8, 12, 0.0, 4)
        assert.has_error(function() m(torch.rand(1, 2, 8), {cache = true}) end,
                         "MultiHeadLatentAttention: unknown option cache of forward (known: use_cache)")
        assert.has_error(function() m(torch.rand(1, 2, 7)) end,
                         "MultiHeadLatentAttention: x's last dim must be d_in = 8, got shape [1, 2, 7]")
    end)

    it("the tracer shows the latent, the latent cache growing and the up-projected keys, with token labels", function()
        torch.manual_seed(123)
        local m = nn.MultiHeadLatentAttention(8, 12, 0.0, 4, {latent_dim = 6})
        m:eval()
        local x = torch.rand(1, 4, 8)
        local out = {}
        local write = function(s) out[#out + 1] = s end
        local tr = attention.trace{module = m, x = x:narrow(2, 1, 3), use_cache = true, tokens = {"Your", "journey", "starts"},
                                   write = write}
        tr:run()
        local tr2 = attention.trace{module = m, x = x:narrow(2, 4, 1), use_cache = true, tokens = {"with"},
                                    key_tokens = {"Your", "journey", "starts", "with"}, write = write}
        tr2:run()
        assert.same({1, 4, 6}, {tr2.cached_latent.shape[1], tr2.cached_latent.shape[2], tr2.cached_latent.shape[3]})
        assert.same({1, 4, 12}, {tr2.up_k.shape[1], tr2.up_k.shape[2], tr2.up_k.shape[3]})
        assert.same({1, 4, 1, 4}, {tr2.weights.shape[1], tr2.weights.shape[2], tr2.weights.shape[3], tr2.weights.shape[4]})
        assert.is_true(torch.equal(tr2.cached_latent, m.cache_c_kv))
        local text = table.concat(out, "\n")
        for _, s in ipairs({"down-projection", "latent cache", "up-projections", "C = W_DKV(X)", "K = W_UK(C), V = W_UV(C)"}) do
            assert.truthy(text:find(s, 1, true), s)
        end
        assert.truthy(text:find("\n  with ", 1, true)) -- the new latent's row is labelled with its token
        -- the trace computes what the forward computes
        m:reset_cache()
        m(x:narrow(2, 1, 3), {use_cache = true})
        assert.is_true(torch.equal(tr2.output, m(x:narrow(2, 4, 1), {use_cache = true})))
    end)
end)

describe("chapter 4's GPT with multi-head latent attention (cfg.latent_dim)", function()
    local function model()
        torch.manual_seed(123)
        local m = gpt.GPTModel{vocab_size = 50, context_length = 16, emb_dim = 32, n_heads = 4, n_layers = 2,
                               drop_rate = 0.1, qkv_bias = false, latent_dim = 8}
        m:eval()
        return m
    end
    local ids = torch.tensor{{3, 7, 1, 9}}

    it("generates the chapter's ids (PyTorch's + 1) with the cache and without", function()
        local want = {}
        for i, v in ipairs(find("gpt_mla", "ids").values) do want[i] = tonumber(v) + 1 end
        local m = model()
        assert.same(want, gpt.generate_text_simple_cached(m, ids, 8)[1]:tolist())
        assert.same(want, gpt.generate_text_simple(m, ids, 8, 16)[1]:tolist())
    end)

    -- the chapter generates under torch.no_grad(); a recorded graph would chain every step's cache to the
    -- one before it, keeping all of them alive
    it("generates under no_grad: the caches record no graph (and a forward outside it does)", function()
        local m = model()
        gpt.generate_text_simple_cached(m, ids, 3)
        assert.is_false(m.trf_blocks[1].att.cache_c_kv.requires_grad)
        assert.is_true(torch.is_grad_enabled())
        m:reset_kv_cache()
        m(ids, {use_cache = true})
        assert.is_true(m.trf_blocks[1].att.cache_c_kv.requires_grad)
    end)

    it("gives PyTorch's cached and uncached logits, each bit for bit, and the two agree within PyTorch's difference", function()
        local m = model()
        local all = {}
        for i, v in ipairs(find("gpt_mla", "ids").values) do all[i] = tonumber(v) + 1 end
        local seq = torch.tensor{all}
        m:reset_kv_cache()
        local steps = {m(seq:narrow(2, 1, 4), {use_cache = true})}
        for i = 5, 11 do steps[#steps + 1] = m(seq:narrow(2, i, 1), {use_cache = true}) end
        local cached = torch.cat(steps, 2)
        local full = m(seq:narrow(2, 1, 11))
        assert.is_nil(support.same_bits(cached, find("gpt_mla", "logits").values))
        assert.is_nil(support.same_bits(full, find("gpt_mla", "uncached_logits").values))
        local bound = torch_diff(find("gpt_mla", "max_abs_diff"))
        assert.is_true((cached - full):abs():max():item() <= bound)
        assert.is_true(bound < 1e-5)
    end)
end)
