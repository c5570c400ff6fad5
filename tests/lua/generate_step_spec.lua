-- gpt.Generator with the KV cache (use_cache = true), for GPT-2, Qwen3 and Llama 3, and the value
-- attention.overview returns. Expected ids: PyTorch's (tests/data/gpt2/reference.safetensors, made by
-- scripts/torch_reference_gpt2.py: the book's generate with temperature 1.4 and top-k 25 after
-- torch.manual_seed(123)), else attn's own uncached generation, which the other specs check against PyTorch.
-- Qwen3's real tokenizer.json (make test fetches it into build/hf-tokenizers) labels the candidates.
local torch, gpt, qwen3, llama, tokenizers = torch, gpt, qwen3, llama, tokenizers
local R = safetensors.load_file("tests/data/gpt2/reference.safetensors")
local DATA = "tests/data/hf_models"
local TOKENIZER = (os.getenv("ATTN_HF_TOKENIZERS_DIR") or "build/hf-tokenizers") .. "/qwen3/tokenizer.json"
local TMP = string.format("%s/attn_generate_step_%d", os.getenv("TMPDIR") or "/tmp", math.random(1, 1e9))

-- Runs fn with io.write captured; returns what it wrote.
local function captured(fn)
    local saved, out = io.write, {}
    io.write = function(...) for i = 1, select("#", ...) do out[#out + 1] = tostring((select(i, ...))) end end
    local ok, err = pcall(fn)
    io.write = saved
    assert(ok, err)
    return table.concat(out)
end

local function err_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok)
    return err
end

describe("gpt.Generator with the KV cache", function()
    it("GPT-2: PyTorch's sampled ids (temperature 1.4, top-k 25), the prompt once and then a token a step", function()
        local model = gpt.GPTModel.from_pretrained("tests/data/gpt2/tiny")
        local start = (R.input + 1):narrow(1, 1, 1):narrow(2, 1, 4)
        torch.manual_seed(123)
        local g = gpt.Generator{model = model, idx = start, max_new_tokens = 8, temperature = 1.4, top_k = 25,
                                use_cache = true}
        local text = captured(function() g:run() end)
        assert.is_true(torch.equal(g.idx, R.sample_topk + 1))
        assert.matches("%[1/8%] the prompt, 4 tokens, goes through the model once", text)
        assert.matches("%[2/8%] only the new token #%d+ goes through the model: its query meets 5 keys, 4 from the cache", text)
        assert.matches("%[8/8%] only the new token #%d+ goes through the model: its query meets 11 keys", text)
        assert.is_nil(text:find("causal mask", 1, true)) -- the uncached step's line
        assert.are.equal(11, model.current_pos)
    end)

    for _, m in ipairs({{"qwen3-f32", qwen3.Qwen3Model}, {"llama3-f32", llama.Llama3Model}}) do
        it(m[1] .. ": the ids of uncached generation and of generate_text_simple_cached", function()
            local model = m[2].from_pretrained(DATA .. "/" .. m[1])
            local prompt = torch.tensor{{6, 18, 43, 4}}
            local cached = gpt.Generator{model = model, idx = prompt, max_new_tokens = 6, use_cache = true}
            local plain = gpt.Generator{model = model, idx = prompt, max_new_tokens = 6}
            captured(function() cached:run() end)
            captured(function() plain:run() end)
            assert.is_true(torch.equal(cached.idx, plain.idx))
            assert.is_true(torch.equal(cached.idx, gpt.generate_text_simple_cached(model, prompt, 6)))
            assert.is_true(torch.equal(cached.idx, gpt.generate_text_simple(model, prompt, 6, 32)))
        end)
    end

    it("takes Qwen3's tokenizers.Tokenizer: the text encoded as it encodes it, the candidates labelled", function()
        local tok = tokenizers.Tokenizer.from_file(TOKENIZER)
        torch.manual_seed(123)
        local model = qwen3.Qwen3Model{vocab_size = 151936, context_length = 32, emb_dim = 32, n_heads = 4, n_layers = 2,
                                       hidden_dim = 48, head_dim = 16, qk_norm = true, n_kv_groups = 2,
                                       rope_base = 1000000.0}
        local g = gpt.Generator{model = model, tokenizer = tok, text = "你的旅程从一步开始", max_new_tokens = 2,
                                use_cache = true, show = 2}
        assert.are.same(tok:encode("你的旅程从一步开始"), g.idx[1]:tolist())
        local text = captured(function() g:run() end)
        assert.matches("the prompt, 5 tokens", text)
        local first = g.idx[1][6]
        assert.truthy(text:find(string.format("only the new token %q goes through", tok:decode({first})), 1, true))
        assert.is_nil(text:find("#%d")) -- every candidate has its label
        assert.are.equal(tok:decode(g.idx), g:text())
    end)

    it("uses the tokenizer.json beside a model from_pretrained read", function()
        os.execute("mkdir -p '" .. TMP .. "' && cp " .. DATA .. "/qwen3-f32/* '" .. TMP .. "/' && cp '" .. TOKENIZER ..
                   "' '" .. TMP .. "/'")
        local model = qwen3.Qwen3Model.from_pretrained(TMP)
        local g = gpt.Generator{model = model, idx = torch.tensor{{6, 18}}, max_new_tokens = 1, use_cache = true}
        local text = captured(function() g:step() end)
        os.execute("rm -rf '" .. TMP .. "'")
        local tok = tokenizers.Tokenizer.from_file(TOKENIZER)
        assert.truthy(text:find(string.format("new token: %q", tok:decode({g.idx[1][3]})), 1, true))
    end)

    it("refuses what cannot work, naming Generator", function()
        local model = qwen3.Qwen3Model.from_pretrained(DATA .. "/qwen3-f32")
        assert.matches("Generator: use_cache must be true or false, got 1",
                       err_of(gpt.Generator, {model = model, idx = {1}, use_cache = 1}))
        assert.matches("Generator: use_cache needs a model with a KV cache %(GPTModel, Qwen3Model, Llama3Model%)",
                       err_of(gpt.Generator, {model = nn.Linear(2, 2), idx = {1}, use_cache = true}))
        assert.matches("Generator: 30 tokens and 4 new ones do not fit the cache of 32 positions",
                       err_of(gpt.Generator, {model = model, idx = torch.ones(1, 30):long(), max_new_tokens = 4,
                                              use_cache = true}))
        assert.matches("Generator: text must be a string, got",
                       err_of(gpt.Generator, {model = model, text = 5, tokenizer = {}}))
    end)
end)

describe("attention.overview's value", function()
    it("prints as one line at the prompt, and holds every head's weights", function()
        local model = qwen3.Qwen3Model.from_pretrained(DATA .. "/qwen3-f32")
        local maps
        local text = captured(function() maps = attention.overview{module = model, ids = {6, 18, 43}, write = function() end} end)
        assert.are.equal("", text)
        assert.are.equal("<attention.overview: 2 layers × 4 heads on 3 tokens; maps.layers[l][h] is one head's weights>",
                         require("attn.repl.show").value(maps))
        assert.are.same({4, 3, 3}, {maps.layers[1].shape[1], maps.layers[1].shape[2], maps.layers[1].shape[3]})
    end)
end)
