-- gpt (src/lua/gpt/): chapter 4's GPTModel, chapter 5's loading and generation, against PyTorch:
-- tests/data/gpt2/reference.safetensors and the tiny GPT-2 in tests/data/gpt2/tiny (Hugging Face's
-- layout), both made by scripts/torch_reference_gpt2.py with the book's classes.
--   seeded construction, every weight of the tiny configuration and 16 of every GPT_CONFIG_124M weight   bit for bit
--   the tiny model's logits after GPTModel.from_pretrained                                                1e-5
--   generate_text_simple's, generate's (temperature, top-k, multinomial) and multinomial's ids            exact
local torch, gpt, safetensors = torch, gpt, safetensors
local R = safetensors.load_file("tests/data/gpt2/reference.safetensors")
local TINY_DIR = "tests/data/gpt2/tiny"

local function tiny_cfg()
    return {vocab_size = 1000, context_length = 32, emb_dim = 64, n_heads = 4, n_layers = 2, drop_rate = 0.1,
            qkv_bias = true}
end

-- PyTorch's parameter name -> attn's (module list indices are 1-based in attn).
local function attn_name(name)
    return (name:gsub("%.(%d+)%.", function(d) return "." .. (tonumber(d) + 1) .. "." end))
end

local function bits_equal(a, b)
    return a.dtype == b.dtype and tostring(a.shape) == tostring(b.shape) and torch.equal(a, b)
end

describe("GPTModel, seeded as PyTorch", function()
    it("builds every weight of a tiny configuration bit for bit, and draws as many numbers", function()
        torch.manual_seed(123)
        local m = gpt.GPTModel(tiny_cfg())
        local ours = {}
        for _, np in ipairs(m:named_parameters()) do ours[np[1]] = np[2] end
        local n = 0
        for key, t in pairs(R) do
            local name = key:match("^seeded/(.+)$")
            if name and name ~= "next" then
                n = n + 1
                assert.is_true(ours[attn_name(name)] ~= nil, name)
                assert.is_true(bits_equal(ours[attn_name(name)], t), name)
            end
        end
        assert.are.equal(#m:parameters(), n)
        assert.is_true(bits_equal(torch.rand(4), R["seeded/next"]))
    end)

    it("builds GPT_CONFIG_124M as PyTorch does (16 elements of every weight; the count, 163,009,536)", function()
        torch.manual_seed(123)
        local m = gpt.GPTModel(gpt.GPT_CONFIG_124M)
        assert.is_true(bits_equal(torch.rand(4), R["seeded124m/next"]))
        assert.are.equal(R["seeded124m/count"][1], m:num_parameters())
        for _, np in ipairs(m:named_parameters()) do
            local name, p = np[1], np[2]
            local flat = p:reshape(-1)
            local count = flat:numel()
            local picked = {}
            for k = 0, 15 do picked[k + 1] = flat[k * (count - 1) // 15 + 1] end
            local py = name:gsub("%.(%d+)%.", function(d) return "." .. (tonumber(d) - 1) .. "." end)
            assert.is_true(bits_equal(torch.tensor(picked), R["seeded124m/" .. py]), name)
        end
        m = nil
        collectgarbage()
    end)
end)

describe("GPTModel.from_pretrained", function()
    local model = gpt.GPTModel.from_pretrained(TINY_DIR)

    it("loads the tiny GPT-2 and computes PyTorch's logits within 1e-5", function()
        local logits = model(R.input + 1)
        assert.are.same({2, 10, 1000}, {logits.shape[1], logits.shape[2], logits.shape[3]})
        assert.is_true((logits - R.logits):abs():max():item() <= 1e-5)
        assert.is_false(model.training)
    end)

    it("ties the output head to the token embedding (GPT-2's weight tying)", function()
        assert.are.equal(model.tok_emb.weight, model.out_head.weight)
        local tied = 0
        for _, p in ipairs(model:parameters()) do tied = tied + p:numel() end
        assert.are.equal(tied, model:num_parameters())
        -- the same configuration built untied has one more parameter: an output head of its own
        local untied = gpt.GPTModel(tiny_cfg())
        assert.are.equal(#model:parameters() + 1, #untied:parameters())
        assert.are.equal(tied + model.tok_emb.weight:numel(), untied:num_parameters())
    end)

    it("generates PyTorch's ids: generate_text_simple, generate with temperature and top-k", function()
        local start = (R.input + 1):narrow(1, 1, 1):narrow(2, 1, 4)
        assert.is_true(torch.equal(gpt.generate_text_simple(model, start, 6, 32), R.simple + 1))
        assert.is_true(torch.equal(gpt.generate_text_simple(model, (R.input + 1):narrow(1, 1, 1), 5, 6),
                                   R.simple_crop + 1))
        torch.manual_seed(123)
        assert.is_true(torch.equal(gpt.generate(model, start, 8, 32, {temperature = 1.4, top_k = 25}), R.sample_topk + 1))
        torch.manual_seed(7)
        assert.is_true(torch.equal(gpt.generate(model, start, 8, 32, {temperature = 0.7}), R.sample + 1))
        assert.is_true(torch.equal(gpt.generate(model, start, 5, 32, {top_k = 5}), R.greedy_topk + 1))
    end)

    it("steps through generate one token at a time, with the same ids", function()
        local start = (R.input + 1):narrow(1, 1, 1):narrow(2, 1, 4)
        torch.manual_seed(123)
        local saved = io.write
        local out = {}
        io.write = function(...) for i = 1, select("#", ...) do out[#out + 1] = tostring((select(i, ...))) end end
        local g = gpt.Generator{model = model, idx = start, max_new_tokens = 8, temperature = 1.4, top_k = 25}
        local ok, err = pcall(g.run, g)
        io.write = saved
        assert(ok, err)
        assert.is_true(torch.equal(g.idx, R.sample_topk + 1))
        local text = table.concat(out)
        assert.matches("%[1/8%] the model reads 4 tokens", text)
        assert.matches("causal mask", text)
        assert.matches("<%- chosen", text)
    end)

    it("reads the names with the transformer. prefix too, and ignores the mask buffers", function()
        local dir = (os.getenv("TMPDIR") or "/tmp") .. "/attn_gpt_spec_prefix"
        os.execute("mkdir -p " .. dir .. " && cp " .. TINY_DIR .. "/config.json " .. dir .. "/")
        local state = safetensors.load_file(TINY_DIR .. "/model.safetensors")
        local renamed = {}
        for k, v in pairs(state) do renamed["transformer." .. k] = v end
        renamed["lm_head.weight"] = state["wte.weight"]
        safetensors.save_file(renamed, dir .. "/model.safetensors")
        local m = gpt.GPTModel.from_pretrained(dir)
        os.remove(dir .. "/model.safetensors")
        os.remove(dir .. "/config.json")
        assert.is_true((m(R.input + 1) - R.logits):abs():max():item() <= 1e-5)
    end)
end)

describe("torch.multinomial as PyTorch 1.13 draws it", function()
    it("one sample and three without replacement, and the stream after them", function()
        for seed = 1, 10 do
            local probs = R["multinomial/" .. seed .. "/probs"]
            torch.manual_seed(seed)
            torch.randn(3, 50) -- PyTorch drew the probabilities' numbers from the same stream
            assert.is_true(torch.equal(torch.multinomial(probs, 1), R["multinomial/" .. seed .. "/one"] + 1), seed)
            assert.is_true(torch.equal(torch.multinomial(probs, 3), R["multinomial/" .. seed .. "/three"] + 1), seed)
            assert.is_true(bits_equal(torch.rand(2), R["multinomial/" .. seed .. "/next"]), seed)
        end
    end)

    it("refuses what PyTorch refuses", function()
        assert.has_error(function() torch.multinomial(torch.tensor{0.5, -0.1}, 1) end,
                         "multinomial: probability tensor contains either inf, nan or element < 0")
        assert.has_error(function() torch.multinomial(torch.zeros(3), 1) end,
                         "multinomial: invalid multinomial distribution (sum of probabilities <= 0)")
        assert.matches("cannot sample n_sample > prob_dist.size%(%-1%)",
                       select(2, pcall(torch.multinomial, torch.ones(3), 4)))
        assert.matches("replacement", select(2, pcall(torch.multinomial, torch.ones(3), 2, {replacement = true})))
    end)
end)

describe("bad input to the GPT model", function()
    local model = gpt.GPTModel.from_pretrained(TINY_DIR)

    it("a text longer than the context length names both numbers", function()
        local ok, err = pcall(model, torch.ones(1, 33):long())
        assert.is_false(ok)
        assert.matches("GPTModel: the input has 33 tokens, more than the model's context length of 32", err)
    end)

    it("ids out of the vocabulary, or not int64", function()
        assert.is_false(pcall(model, torch.tensor{{1001}}))
        assert.matches("expected token ids as an int64 tensor", select(2, pcall(model, torch.ones(1, 3))))
    end)

    it("a config whose sizes do not match the tensors", function()
        local dir = (os.getenv("TMPDIR") or "/tmp") .. "/attn_gpt_spec_cfg"
        os.execute("mkdir -p " .. dir .. " && cp " .. TINY_DIR .. "/model.safetensors " .. dir .. "/")
        local f = assert(io.open(TINY_DIR .. "/config.json"))
        local text = f:read("a")
        f:close()
        local function try(edited)
            f = assert(io.open(dir .. "/config.json", "w"))
            f:write(edited)
            f:close()
            return select(2, pcall(gpt.GPTModel.from_pretrained, dir))
        end
        assert.matches("config.json says vocab_size 1000 and n_embd 128, but wte.weight is %[1000, 64%]",
                       try((text:gsub('"n_embd": 64', '"n_embd": 128'))))
        assert.matches("config.json says n_layer 3, but the weights have 2 transformer blocks",
                       try((text:gsub('"n_layer": 2', '"n_layer": 3'))))
        -- an absurd layer count is compared with the weights before a block is built (it used to build
        -- 100,000 blocks, 50 s and gigabytes, before it compared)
        assert.matches("config.json says n_layer 100000, but the weights have 2 transformer blocks",
                       try((text:gsub('"n_layer": 2', '"n_layer": 100000'))))
        assert.matches("config.json says n_positions 16, but wpe.weight is %[32, 64%]",
                       try((text:gsub('"n_positions": 32', '"n_positions": 16'))))
        -- a missing or mistyped key is named (it used to fail inside string.format in attn's errors.lua)
        local missing = try((text:gsub('"n_embd": 64,', '')))
        assert.matches("GPTModel.from_pretrained: .*config.json has no n_embd", missing)
        assert.is_nil(missing:find("[attn]", 1, true))
        assert.matches("config.json: n_head must be a positive integer, got \"four\"",
                       try((text:gsub('"n_head": 4', '"n_head": "four"'))))
        assert.matches('activation_function "relu"', try((text:gsub('"gelu_new"', '"relu"'))))
        -- a string epsilon is named (it failed inside attn: [attn]/gpt/load.lua, attempt to sub a 'string')
        local eps = try((text:gsub('"layer_norm_epsilon": [^,\n]*', '"layer_norm_epsilon": "x"')))
        assert.matches('config.json: layer_norm_epsilon must be a number, got "x"', eps)
        assert.is_nil(eps:find("[attn]", 1, true))
        os.remove(dir .. "/config.json")
        assert.matches("has no config.json", select(2, pcall(gpt.GPTModel.from_pretrained, dir)))
        os.remove(dir .. "/model.safetensors")
        assert.matches("has no config.json", select(2, pcall(gpt.GPTModel.from_pretrained, "/nonexistent")))
    end)

    it("a truncated weights file is refused by name", function()
        local dir = (os.getenv("TMPDIR") or "/tmp") .. "/attn_gpt_spec_trunc"
        os.execute("mkdir -p " .. dir .. " && cp " .. TINY_DIR .. "/config.json " .. dir .. "/ && head -c 100000 "
                   .. TINY_DIR .. "/model.safetensors > " .. dir .. "/model.safetensors")
        local ok, err = pcall(gpt.GPTModel.from_pretrained, dir)
        os.remove(dir .. "/model.safetensors")
        os.remove(dir .. "/config.json")
        assert.is_false(ok)
        assert.matches("GPTModel.from_pretrained: .*model.safetensors: .*past the end of the data", err)
    end)

    it("bad configurations and generate arguments", function()
        assert.matches("GPTModel: the configuration has no context_length", select(2, pcall(gpt.GPTModel, {vocab_size = 5})))
        local cfg = tiny_cfg()
        cfg.n_heads = 5
        assert.matches("cfg.emb_dim %(64%) must be divisible by cfg.n_heads %(5%)", select(2, pcall(gpt.GPTModel, cfg)))
        local idx = torch.tensor{{1, 2}}
        assert.matches("top_k %(2000%) is larger than the vocabulary %(1000%)",
                       select(2, pcall(gpt.generate, model, idx, 1, 32, {top_k = 2000})))
        assert.matches("temperature must be a number >= 0", select(2, pcall(gpt.generate, model, idx, 1, 32, {temperature = -1})))
        assert.matches("idx must be an int64 tensor", select(2, pcall(gpt.generate_text_simple, model, torch.ones(1, 2), 1, 32)))
    end)
end)

describe("stepping through a GPT model's heads", function()
    local model = gpt.GPTModel.from_pretrained(TINY_DIR)
    local ids = {5, 17, 99, 3, 250}
    local function quiet(f)
        local lines = {}
        local ok, err = pcall(f, function(s) lines[#lines + 1] = s end)
        assert(ok, err)
        return table.concat(lines, "\n")
    end

    it("attention.trace{module =, layer =, head =, ids =}: the heads' contexts make the block's attention output", function()
        for layer = 1, 2 do
            local contexts = {}
            local trs = {}
            quiet(function(write)
                for h = 1, 4 do
                    trs[h] = attention.trace{module = model, layer = layer, head = h, ids = ids, write = write}
                    trs[h]:run()
                    contexts[h] = trs[h].context
                end
            end)
            local merged = torch.cat(contexts, -1):unsqueeze(1) -- [1, n, d]: the heads side by side
            local block = model.trf_blocks[layer]
            local want = block.att(trs[1].x:unsqueeze(1)) -- tr.x: the block's input after norm1
            assert.is_true(torch.equal(block.att.out_proj(merged), want), "layer " .. layer)
            assert.are.same({5, 5}, {trs[1].weights.shape[1], trs[1].weights.shape[2]})
            assert.are.equal(0.0, trs[1].weights:detach()[1][2]) -- the causal mask
        end
    end)

    it("the trace's first input is the residual stream the model computes", function()
        local tr
        quiet(function(write) tr = attention.trace{module = model, layer = 1, head = 1, ids = ids, write = write} tr:run() end)
        local x = model.tok_emb(torch.tensor{ids}) + model.pos_emb(torch.arange(1, 6))
        assert.is_true(torch.equal(tr.x, model.trf_blocks[1].norm1(x)[1]))
    end)

    it("attention.overview draws every layer x head and returns the weights", function()
        local maps
        local text = quiet(function(write) maps = attention.overview{module = model, ids = ids, write = write} end)
        assert.are.equal(2, #maps.layers)
        assert.are.same({4, 5, 5}, {maps.layers[1].shape[1], maps.layers[1].shape[2], maps.layers[1].shape[3]})
        assert.matches("L1  h1", text)
        assert.matches("L2  h1", text)
        local tr
        quiet(function(write) tr = attention.trace{module = model, layer = 2, head = 3, ids = ids, write = write} tr:run() end)
        assert.is_true(torch.equal(maps.layers[2][3], tr.weights))
    end)

    it("refuses a layer or head that does not exist, and too long an input, naming them", function()
        assert.matches("layer must be a block number from 1 to 2, got 3",
                       select(2, pcall(attention.trace, {module = model, layer = 3, head = 1, ids = ids})))
        assert.matches("head must be a head number from 1 to 4, got 0",
                       select(2, pcall(attention.trace, {module = model, layer = 1, head = 0, ids = ids})))
        local long = {}
        for i = 1, 40 do long[i] = i end
        assert.matches("the input has 40 tokens, more than the model's context length of 32",
                       select(2, pcall(attention.trace, {module = model, layer = 1, head = 1, ids = long})))
        assert.matches("give the input as text", select(2, pcall(attention.overview, {module = model})))
        assert.matches("module must be a whole model", select(2, pcall(attention.overview, {module = nn.Linear(2, 2), ids = ids})))
    end)
end)
