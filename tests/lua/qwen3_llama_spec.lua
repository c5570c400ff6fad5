-- qwen3.Qwen3Model, llama.Llama3Model and their from_pretrained (src/lua/llm/). The models in
-- tests/data/hf_models and every expected number (reference.safetensors: logits, RoPE tables) were made by
-- scripts/torch_reference_qwen3_llama.py: tiny random models written with Debian's PyTorch 1.13 after the
-- from-scratch notebooks (rasbt/LLMs-from-scratch ch05/11_qwen3, ch05/07_gpt_to_llama), in the Hugging Face
-- layout: float32 and BF16, one of them sharded. Every malformed directory is made here from those files.
local torch, safetensors, qwen3, llama = torch, safetensors, qwen3, llama
local DATA = "tests/data/hf_models"
local ref = safetensors.load_file(DATA .. "/reference.safetensors")
-- the script's TOKENS (0-based, as PyTorch counts) + 1
local IDS = torch.tensor{{6, 18, 43, 4, 61, 12, 30, 9}}
local TMP = string.format("%s/attn_models_spec_%d", os.getenv("TMPDIR") or "/tmp", math.random(1, 1e9))

local QWEN3_TINY = {vocab_size = 64, context_length = 32, emb_dim = 32, n_heads = 4, n_layers = 2, hidden_dim = 48,
                    head_dim = 16, qk_norm = true, n_kv_groups = 2, rope_base = 1000000.0}
local LLAMA3_TINY = {vocab_size = 64, context_length = 32, emb_dim = 32, n_heads = 4, n_layers = 2, hidden_dim = 48,
                     n_kv_groups = 2, rope_base = 500000.0,
                     rope_freq = {factor = 32.0, low_freq_factor = 1.0, high_freq_factor = 4.0, original_context_length = 8}}

local MODELS = {
    {"qwen3-f32", qwen3.Qwen3Model, QWEN3_TINY},
    {"qwen3-bf16-sharded", qwen3.Qwen3Model, QWEN3_TINY},
    {"llama3-f32", llama.Llama3Model, LLAMA3_TINY},
    {"llama3-bf16", llama.Llama3Model, LLAMA3_TINY},
}

local function slurp(path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("a")
    f:close()
    return s
end

local function write(path, text)
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
end

local function sh(cmd) assert(os.execute(cmd), cmd) end

-- A copy of one of the tiny models in TMP/name, its files changed by edits {file = new text or false}.
local function variant(from, name, edits)
    local dir = TMP .. "/" .. name
    sh("mkdir -p '" .. dir .. "' && cp " .. DATA .. "/" .. from .. "/* '" .. dir .. "/'")
    for file, text in pairs(edits or {}) do
        if text == false then os.remove(dir .. "/" .. file) else write(dir .. "/" .. file, text) end
    end
    return dir
end

local function refused(Model, dir, pattern)
    local ok, err = pcall(Model.from_pretrained, dir)
    assert.is_false(ok, "loaded " .. tostring(dir))
    assert.matches(pattern, err)
    assert.matches("from_pretrained: ", err)
end

-- A config.json with one value replaced (a Lua pattern on the text, as the script writes it).
local function config_with(from, pattern, repl)
    local text, n = slurp(DATA .. "/" .. from .. "/config.json"):gsub(pattern, repl)
    assert(n == 1, pattern)
    return text
end

-- A safetensors file of float32 tensors {name = tensor} (safetensors.save_file writes F32).
local function tensors_file(path, t) safetensors.save_file(t, path) end

describe("Qwen3 and Llama 3 from the Hugging Face layout", function()
    setup(function() sh("mkdir -p '" .. TMP .. "'") end)
    teardown(function() os.execute("rm -rf '" .. TMP .. "'") end)

    for _, m in ipairs(MODELS) do
        it(m[1] .. ": the logits are PyTorch's, bit for bit", function()
            local model = m[2].from_pretrained(DATA .. "/" .. m[1])
            local out = model(IDS)
            assert.are.same({1, 8, 64}, {out.shape[1], out.shape[2], out.shape[3]})
            assert.is_true(torch.equal(out, ref[m[1] .. ".logits"]))
        end)
    end

    it("a seed gives the notebooks' weights: every parameter equals the file made after torch.manual_seed(123)", function()
        for _, m in ipairs({MODELS[1], MODELS[3]}) do
            torch.manual_seed(123)
            local built = m[2](m[3])
            local loaded = m[2].from_pretrained(DATA .. "/" .. m[1])
            local by_name = {}
            for _, np in ipairs(loaded:named_parameters()) do by_name[np[1]] = np[2] end
            local n = 0
            for _, np in ipairs(built:named_parameters()) do
                -- Qwen3's file ties the head to the embedding (no lm_head): its out_head is the embedding's
                if not (m[1] == "qwen3-f32" and np[1] == "out_head.weight") then
                    assert.is_true(torch.equal(np[2], by_name[np[1]]), m[1] .. " " .. np[1])
                    n = n + 1
                end
            end
            assert.are.equal(m[1] == "qwen3-f32" and 24 or 21, n)
        end
    end)

    it("RoPE's tables are PyTorch's (Llama 3's frequency scaling too), bit for bit", function()
        for _, m in ipairs({MODELS[1], MODELS[3]}) do
            local hd = m[3].head_dim or m[3].emb_dim // m[3].n_heads
            local cos, sin = attention.rope_params(hd, m[3].rope_base, m[3].context_length, m[3].rope_freq)
            assert.is_true(torch.equal(cos, ref[m[1] .. ".rope_cos"]), m[1])
            assert.is_true(torch.equal(sin, ref[m[1] .. ".rope_sin"]), m[1])
        end
    end)

    it("the parts are the notebooks': tied head, QK-norm only in Qwen3, RMSNorm's parameter names", function()
        local q = qwen3.Qwen3Model.from_pretrained(DATA .. "/qwen3-f32")
        assert.are.equal(q.tok_emb.weight, q.out_head.weight)
        assert.is_not_nil(q.trf_blocks[1].att.q_norm.scale)
        assert.are.equal(16, q.trf_blocks[1].att.head_dim)
        local l = llama.Llama3Model.from_pretrained(DATA .. "/llama3-f32")
        assert.are_not.equal(l.tok_emb.weight, l.out_head.weight)
        assert.is_nil(l.trf_blocks[1].att.q_norm)
        assert.is_not_nil(l.final_norm.weight)
        assert.is_false(l.training)
    end)

    it("the KV cache, one token at a time, gives the logits of the whole sequence", function()
        -- within 1e-5: one query row against the cached keys is a product of other shapes than the
        -- whole 8 x 8 one, which OpenBLAS sums in another order (a float32 rounding or two per logit)
        for _, m in ipairs(MODELS) do
            local model = m[2].from_pretrained(DATA .. "/" .. m[1])
            local full = model(IDS)
            model:reset_kv_cache()
            for i = 1, 8 do
                local out = model(IDS[{{}, {i, i}}], {use_cache = true})
                local d = (out[{{}, 1}] - full[{{}, i}]):abs():max():item()
                assert.is_true(d <= 1e-5, m[1] .. " token " .. i .. ": " .. d)
            end
        end
    end)

    it("from_pretrained makes no weights of its own: every parameter is the file's, the user's torch.empty and initializers untouched", function()
        -- the model is built with placeholders (a zero expanded to each weight's shape) that the file's
        -- weights replace; one left behind would be a non-contiguous view
        torch.manual_seed(5)
        local before = nn.Linear(4, 3).weight:clone()
        for _, m in ipairs(MODELS) do
            local model = m[2].from_pretrained(DATA .. "/" .. m[1])
            for _, np in ipairs(model:named_parameters()) do
                assert.is_true(np[2]:is_contiguous(), m[1] .. " " .. np[1])
            end
        end
        -- a refusal raised while the model is built puts them back too
        local dir = variant("qwen3-f32", "heads_init", {["config.json"] =
            slurp(DATA .. "/qwen3-f32/config.json"):gsub('"num_key_value_heads": 2', '"num_key_value_heads": 3')})
        assert.is_false(pcall(qwen3.Qwen3Model.from_pretrained, dir))
        torch.manual_seed(5)
        assert.is_true(torch.equal(before, nn.Linear(4, 3).weight))
        local e = torch.empty(2, 3)
        assert.is_true(e:is_contiguous())
        e[{1, 1}] = 7 -- a tensor of its own, not a view of one shared number
        assert.are.equal(0, e[{2, 1}])
    end)

    it("a single row (a decode step) goes through W·x (sgemv), within float32 rounding of nn.Linear's x·Wᵀ", function()
        -- more rows keep nn.Linear's product, PyTorch's bits (the logits test above)
        local model = qwen3.Qwen3Model.from_pretrained(DATA .. "/qwen3-f32")
        local fc1 = model.trf_blocks[1].ff.fc1
        local x = torch.randn(1, 1, 32)
        local row = fc1(x)
        assert.are.same({1, 1, 48}, {row.shape[1], row.shape[2], row.shape[3]})
        local d = (row - nn.functional.linear(x, fc1.weight)):abs():max():item()
        assert.is_true(d <= 1e-6, tostring(d))
        local xs = torch.randn(1, 3, 32)
        assert.is_true(torch.equal(fc1(xs), nn.functional.linear(xs, fc1.weight)))
        assert.matches("Linear%(in_features=32, out_features=48, bias=False%)", tostring(fc1))
    end)

    it("is found in the Hugging Face cache by its name", function()
        local hf = require("attn.hf")
        local commit = string.rep("ab", 20)
        local folder = TMP .. "/cache/models--Qwen--Qwen3-Tiny"
        sh("mkdir -p '" .. folder .. "/snapshots/" .. commit .. "' '" .. folder .. "/refs'")
        write(folder .. "/refs/main", commit)
        sh("cp " .. DATA .. "/qwen3-bf16-sharded/* '" .. folder .. "/snapshots/" .. commit .. "/'")
        local saved = hf.cache_dir
        hf.cache_dir = function() return TMP .. "/cache" end
        local ok, model = pcall(qwen3.Qwen3Model.from_pretrained, "Qwen/Qwen3-Tiny")
        hf.cache_dir = saved
        assert(ok, model)
        assert.is_true(torch.equal(model(IDS), ref["qwen3-bf16-sharded.logits"]))
    end)

    it("checks its input: ids in the vocabulary, within the context length", function()
        local model = qwen3.Qwen3Model.from_pretrained(DATA .. "/qwen3-f32")
        assert.has_error(function() model(torch.tensor{{65}}) end)
        assert.matches("token ids must be from 1 to vocab_size = 64", select(2, pcall(model, torch.tensor{{65}})))
        assert.matches("more than the model's context length of 32", select(2, pcall(model, torch.ones(1, 33):long())))
        assert.matches("Qwen3Model: expected a configuration table", select(2, pcall(qwen3.Qwen3Model, 5)))
        assert.matches("cfg.n_heads %(4%) must be divisible by cfg.n_kv_groups %(3%)",
                       select(2, pcall(llama.Llama3Model, setmetatable({n_kv_groups = 3}, {__index = LLAMA3_TINY}))))
    end)
end)

describe("from_pretrained refuses a malformed or mismatched directory, naming the file and the reason", function()
    setup(function() sh("mkdir -p '" .. TMP .. "'") end)
    teardown(function() os.execute("rm -rf '" .. TMP .. "'") end)
    local Q, L = qwen3.Qwen3Model, llama.Llama3Model

    it("not a directory name", function() refused(Q, 42, 'expected a directory or a model name such as "Qwen/Qwen3%-0.6B"') end)
    it("no config.json", function() refused(Q, TMP .. "/nothing", "for " .. TMP .. "/nothing, found no config.json") end)
    it("config.json not JSON", function()
        refused(Q, variant("qwen3-f32", "badjson", {["config.json"] = "{ not json"}), "config.json is not a JSON object")
    end)
    it("another model's config.json", function()
        refused(L, DATA .. "/qwen3-f32", 'config.json describes a "qwen3" model; Llama3Model loads "llama" models')
        refused(Q, DATA .. "/llama3-f32", 'config.json describes a "llama" model; Qwen3Model loads "qwen3" models')
    end)
    it("another activation", function()
        refused(Q, variant("qwen3-f32", "gelu", {["config.json"] = config_with("qwen3-f32", '"silu"', '"gelu"')}),
                'config.json: hidden_act "gelu"')
    end)
    it("attention biases", function()
        refused(Q, variant("qwen3-f32", "bias", {["config.json"] = config_with("qwen3-f32", '"attention_bias": false', '"attention_bias": true')}),
                "config.json: attention_bias is true")
    end)
    it("another RMSNorm epsilon", function()
        refused(Q, variant("qwen3-f32", "eps", {["config.json"] = config_with("qwen3-f32", '1e%-06', '1e-05')}),
                "config.json: rms_norm_eps 1e%-05; Qwen3Model's RMSNorm uses 1e%-06")
    end)
    it("a size missing or not a whole number", function()
        refused(Q, variant("qwen3-f32", "nohidden", {["config.json"] = config_with("qwen3-f32", '"hidden_size": 32,', '')}),
                "config.json has no hidden_size")
        refused(Q, variant("qwen3-f32", "halflayer", {["config.json"] = config_with("qwen3-f32", '"num_hidden_layers": 2', '"num_hidden_layers": 2.5')}),
                "config.json: num_hidden_layers must be a whole number >= 1, got 2.5")
    end)
    it("use_sliding_window true is refused (it was ignored)", function()
        refused(Q, variant("qwen3-f32", "sliding", {["config.json"] = config_with("qwen3-f32", '"attention_bias": false', '"attention_bias": false, "use_sliding_window": true')}),
                "config.json: use_sliding_window is true; Qwen3Model attends to every earlier position")
    end)
    it("a config.json without tie_word_embeddings and weights with lm_head.weight: that head, not the embedding", function()
        -- qwen3-f32's own config says true and its weights have no lm_head: given one, and the key taken out,
        -- the model must use it (Qwen3Config's default is false)
        local dir = variant("qwen3-f32", "untied", {["config.json"] = config_with("qwen3-f32", '"tie_word_embeddings": true,?', '')})
        local st = safetensors.load_file(dir .. "/model.safetensors")
        local head = torch.randn(st["model.embed_tokens.weight"].shape)
        st["lm_head.weight"] = head
        safetensors.save_file(st, dir .. "/model.safetensors")
        local m = Q.from_pretrained(dir)
        assert.is_true(torch.equal(m.out_head.weight:detach(), head))
    end)
    it("num_hidden_layers against the weights, before a block is built (1e9 built blocks for minutes)", function()
        refused(Q, variant("qwen3-f32", "manylayers", {["config.json"] = config_with("qwen3-f32", '"num_hidden_layers": 2', '"num_hidden_layers": 1000000000')}),
                "config.json says num_hidden_layers 1000000000, but the weights have 2 layers")
        refused(L, variant("llama3-f32", "manylayers_llama", {["config.json"] = config_with("llama3-f32", '"num_hidden_layers": 2', '"num_hidden_layers": 1000000000')}),
                "config.json says num_hidden_layers 1000000000, but the weights have 2 layers")
        refused(Q, variant("qwen3-f32", "fewlayers", {["config.json"] = config_with("qwen3-f32", '"num_hidden_layers": 2', '"num_hidden_layers": 1')}),
                "config.json says num_hidden_layers 1, but the weights have 2 layers")
    end)
    it("heads that do not divide", function()
        refused(Q, variant("qwen3-f32", "heads", {["config.json"] = config_with("qwen3-f32", '"num_key_value_heads": 2', '"num_key_value_heads": 3')}),
                "config.json: Qwen3Model: cfg.n_heads %(4%) must be divisible by cfg.n_kv_groups %(3%)")
    end)
    it("a rope_scaling attn does not compute", function()
        refused(L, variant("llama3-f32", "yarn", {["config.json"] = config_with("llama3-f32", '"llama3"', '"yarn"')}),
                'config.json: rope_scaling yarn is not supported %(Llama3Model reads none, or "llama3"%)')
        refused(Q, variant("qwen3-f32", "qscale", {["config.json"] = config_with("qwen3-f32", '"rope_theta"', '"rope_scaling": {"rope_type": "yarn"}, "rope_theta"')}),
                "config.json: rope_scaling yarn is not supported %(Qwen3Model reads none%)")
    end)
    it("no weights", function()
        refused(Q, variant("qwen3-f32", "noweights", {["model.safetensors"] = false}),
                "has neither model.safetensors nor model.safetensors.index.json")
    end)
    it("a truncated safetensors file", function()
        local bytes = slurp(DATA .. "/qwen3-f32/model.safetensors")
        refused(Q, variant("qwen3-f32", "truncated", {["model.safetensors"] = bytes:sub(1, #bytes - 100)}),
                "Qwen3Model.from_pretrained: .*truncated/model.safetensors")
    end)
    it("an index without a weight_map, or not JSON", function()
        refused(Q, variant("qwen3-bf16-sharded", "nomap", {["model.safetensors.index.json"] = '{"metadata": {}}'}),
                "model.safetensors.index.json has no weight_map")
        refused(Q, variant("qwen3-bf16-sharded", "mapjson", {["model.safetensors.index.json"] = '[1, 2]'}),
                "model.safetensors.index.json is not a JSON object")
    end)
    local index = slurp(DATA .. "/qwen3-bf16-sharded/model.safetensors.index.json")
    it("an index naming a shard outside the directory", function()
        local text = index:gsub('"model%-00001%-of%-00002.safetensors"', '"../model-00001-of-00002.safetensors"', 1)
        refused(Q, variant("qwen3-bf16-sharded", "outside", {["model.safetensors.index.json"] = text}),
                "the shard of .* must be a file name in the directory")
    end)
    it("a missing shard", function()
        refused(Q, variant("qwen3-bf16-sharded", "noshard", {["model-00002-of-00002.safetensors"] = false}),
                "names the shard .*model%-00002%-of%-00002.safetensors, which is missing")
    end)
    it("an index that puts a tensor in the wrong shard", function()
        local text = index:gsub('("model.embed_tokens.weight": )"model%-00001', '%1"model-00002', 1)
        refused(Q, variant("qwen3-bf16-sharded", "wrongshard", {["model.safetensors.index.json"] = text}),
                "says model.embed_tokens.weight is in model%-00002%-of%-00002.safetensors, but it is in")
    end)
    it("an index listing a tensor no shard holds", function()
        local text = index:gsub('"weight_map": {', '"weight_map": {"model.extra.weight": "model-00001-of-00002.safetensors", ', 1)
        refused(Q, variant("qwen3-bf16-sharded", "listed", {["model.safetensors.index.json"] = text}),
                "lists model.extra.weight in model%-00001%-of%-00002.safetensors, which does not hold it")
    end)
    it("a tensor in two shards", function()
        local dir = variant("qwen3-bf16-sharded", "twice")
        local a = safetensors.load_file(dir .. "/model-00001-of-00002.safetensors")
        local b = safetensors.load_file(dir .. "/model-00002-of-00002.safetensors")
        local first
        for name in pairs(a) do first = first or name end
        b[first] = a[first]
        tensors_file(dir .. "/model-00002-of-00002.safetensors", b)
        refused(Q, dir, "the tensor " .. first:gsub("%p", "%%%0") .. " is in both")
    end)
    it("a weight the model does not have, and one it lacks", function()
        local dir = variant("qwen3-f32", "extra")
        local w = safetensors.load_file(dir .. "/model.safetensors")
        w["model.layers.0.mlp.extra.weight"] = torch.zeros(2)
        tensors_file(dir .. "/model.safetensors", w)
        refused(Q, dir, "model.safetensors holds model.layers.0.mlp.extra.weight, which is not a weight of Qwen3Model")
        w["model.layers.0.mlp.extra.weight"] = nil
        w["model.layers.1.self_attn.k_norm.weight"] = nil
        tensors_file(dir .. "/model.safetensors", w)
        refused(Q, dir, "the weights have no model.layers.1.self_attn.k_norm.weight")
    end)
    it("a weight of another shape", function()
        local dir = variant("llama3-f32", "shape")
        local w = safetensors.load_file(dir .. "/model.safetensors")
        w["model.layers.1.mlp.up_proj.weight"] = torch.zeros(47, 32)
        tensors_file(dir .. "/model.safetensors", w)
        refused(L, dir, "model.layers.1.mlp.up_proj.weight in .*model.safetensors is %[47, 32%]; config.json makes it %[48, 32%]")
    end)
    it("an embedding that disagrees with config.json", function()
        refused(Q, variant("qwen3-f32", "vocab", {["config.json"] = config_with("qwen3-f32", '"vocab_size": 64', '"vocab_size": 65')}),
                "config.json says vocab_size 65 and hidden_size 32, but model.embed_tokens.weight in .* is %[64, 32%]")
    end)
    it("integer weights", function()
        local dir = variant("qwen3-f32", "ints")
        local w = safetensors.load_file(dir .. "/model.safetensors")
        w["model.norm.weight"] = torch.ones(32):long()
        tensors_file(dir .. "/model.safetensors", w)
        refused(Q, dir, "model.norm.weight in .* holds torch.int64 numbers, not floating%-point ones")
    end)
    it("an untied head without lm_head.weight, and an lm_head of another shape", function()
        local dir = variant("llama3-f32", "nohead")
        local w = safetensors.load_file(dir .. "/model.safetensors")
        w["lm_head.weight"] = torch.zeros(63, 32)
        tensors_file(dir .. "/model.safetensors", w)
        refused(L, dir, "lm_head.weight in .* is %[63, 32%]; config.json makes it %[64, 32%]")
        w["lm_head.weight"] = nil
        tensors_file(dir .. "/model.safetensors", w)
        refused(L, dir, "config.json says tie_word_embeddings is false, but the weights have no lm_head.weight")
    end)
    it("a model too large for the memory available, refused before it is mapped", function()
        -- a sparse file: 8 TB of float32 that take no disk, with a well-formed header
        local dir = variant("qwen3-f32", "huge")
        local n = 2 * 1000 * 1000 * 1000 * 1000 // 4 * 4
        local header = string.format('{"w":{"dtype":"F32","shape":[%d],"data_offsets":[0,%d]}}', n, n * 4)
        header = header .. string.rep(" ", (8 - #header % 8) % 8)
        local f = assert(io.open(dir .. "/model.safetensors", "wb"))
        f:write(string.pack("<I8", #header), header)
        f:seek("set", 8 + #header + n * 4 - 1)
        f:write("\0")
        f:close()
        refused(Q, dir, "Qwen3Model.from_pretrained: .*huge/model.safetensors: its tensors take 8 TB, more than the memory available now")
    end)
end)

describe("attention.overview and attention.trace of Qwen3 and Llama 3", function()
    local function quiet(f)
        local out = {}
        f(function(s) out[#out + 1] = s end)
        return table.concat(out)
    end
    local ids = {6, 18, 43, 4, 61, 12, 30, 9}

    for _, m in ipairs(MODELS) do
        it(m[1] .. ": every layer's weights are PyTorch's, bit for bit, and the trace's weights the overview's", function()
            local model = m[2].from_pretrained(DATA .. "/" .. m[1])
            local maps
            local text = quiet(function(write) maps = attention.overview{module = model, ids = ids, write = write} end)
            assert.matches("L1  h1", text)
            assert.are.equal(2, #maps.layers)
            for l = 1, 2 do assert.is_true(torch.equal(maps.layers[l], ref[m[1] .. ".weights." .. l]), "layer " .. l) end
            for h = 1, 4 do
                local tr
                quiet(function(write) tr = attention.trace{module = model, layer = 2, head = h, ids = ids, write = write} tr:run() end)
                assert.is_true(torch.equal(maps.layers[2][h], tr.weights), "head " .. h)
            end
        end)
    end

    it("the trace shows RoPE, the shared key/value head, and QK-norm in Qwen3", function()
        local model = qwen3.Qwen3Model.from_pretrained(DATA .. "/qwen3-f32")
        local tr
        local text = quiet(function(write) tr = attention.trace{module = model, layer = 1, head = 4, ids = ids, write = write} tr:run() end)
        assert.matches("RoPE", text)
        assert.matches("q_norm%(W_query%(X%)%), head 4", text)
        assert.matches("key/value head 2 %(shared by query heads 3%-4%)", text)
        assert.is_not_nil(tr.rotated_k)
    end)

    it("text needs the model's tokenizer; a layer or head that does not exist is refused", function()
        local model = llama.Llama3Model.from_pretrained(DATA .. "/llama3-f32")
        assert.matches("text needs the model's tokenizer",
                       select(2, pcall(attention.overview, {module = model, text = "你好", write = function() end})))
        assert.matches("layer must be a block number from 1 to 2, got 3",
                       select(2, pcall(attention.trace, {module = model, layer = 3, head = 1, ids = ids, write = function() end})))
        assert.matches("head must be a head number from 1 to 4, got 0",
                       select(2, pcall(attention.trace, {module = model, layer = 1, head = 0, ids = ids, write = function() end})))
    end)
end)
