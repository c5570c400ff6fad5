-- trace_backward_spec.lua — attention.trace's backward steps (src/lua/attention/backward.lua): the stage
-- counts forward and backward, every backward stage's gradient against PyTorch's, token labels on the
-- backward displays, the Chinese edition's lines, errors, and the page tr:save writes.
-- Expected values: tests/data/torch/backward_trace.txt, made by scripts/torch_reference_backward_trace.py
-- (Debian's PyTorch 1.13, OPENBLAS_CORETYPE=Haswell, one thread): the same stages computed by PyTorch,
-- L = (out * grad_out):sum() with grad_out from the file, every stage's .grad after L.backward().
-- Run inside attn: ./attn /usr/bin/busted -o TAP tests/lua/trace_backward_spec.lua
local support = dofile("tests/lua/support.lua")
local R = support.case_file("backward_trace", assert)
local i18n = require("attn.i18n")

local TOKENS = {"Your", "journey", "starts", "with", "one", "step"}
local INPUTS = {{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
                {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}

local function inputs() return torch.tensor(INPUTS) end
local function batch() return torch.stack({inputs(), inputs()}, 1) end

-- Every gradient is compared bit for bit: each stage's backward is the formula PyTorch's autograd uses for
-- the same op (mm/bmm, division by a scalar, masked_fill, softmax, view and transpose, Linear's addmm),
-- and the engine sums a tensor's incoming gradients in PyTorch's order. The reference computes GPT-2's
-- head the way the trace does (that head's [n, d] products), so it is bit for bit as well.
local TOL = 0
-- Python Deep Learning's EncoderBlock is the exception: nn.LayerNorm's backward (torch.layer_norm's, which adds
-- each row's sums in another order than PyTorch's vectorised CPU kernel) and SiLU's backward (its FFN's
-- activation; PyTorch fuses it in one kernel) round differently by an ulp or two, and the stages before them
-- inherit that: every gradient within 1e-6 of PyTorch's (the largest difference measured is 4.8e-7, on
-- gradients of size up to about 5; the keys' bias gets a gradient that is 0 up to rounding, so the bound is
-- absolute). The GPT block's LayerNorm and GELU are made of plain ops and stay bit for bit.
local ENCODER_TOL = 1e-6

-- A trace with a loss whose output is collected: returns tr and a function giving (and clearing) the text.
local function traced(args, c)
    local out = {}
    args.write = function(s) out[#out + 1] = s .. "\n" end
    args.color = false
    if c then
        local w = R.load(c, "grad_out")
        args.loss = function(o) return (o * w):sum() end
    end
    local tr = attention.trace(args)
    return tr, function()
        local s = table.concat(out)
        out = {}
        return s
    end
end

-- "[←i/N] name" headers (backward) or "[i/N] name" (forward), in order.
local function headers(text, back)
    local list = {}
    local pat = back and "%[←(%d+)/(%d+)%] +(%S+)" or "%[(%d+)/(%d+)%] +(%S+)"
    for i, n, name in text:gmatch(pat) do list[#list + 1] = i .. "/" .. n .. " " .. name end
    return list
end

-- Every gradient of case c (grad.<stage key or parameter name>) equals tr.grads' one; every stage of the
-- trace has one in the file (so none goes unchecked). Returns how many were compared.
local function check_grads(c, tr, tol)
    local n = 0
    for _, name in ipairs(c.order) do
        if name:sub(1, 5) == "grad." then
            local key = R.attn_name(name:sub(6))
            assert(tr.grads[key] ~= nil, "tr.grads." .. key .. " missing")
            R.check(c, name, tr.grads[key], tol or TOL)
            n = n + 1
        end
    end
    for _, st in ipairs(tr._stages) do
        for _, key in ipairs(st.keys) do
            assert(c.t["grad." .. key], "stage " .. key .. " has no reference gradient in case " .. c.name)
        end
    end
    R.check(c, "loss", tr.loss_value, tol or 0)
    return n
end

local function seeded(seed, make)
    torch.manual_seed(seed)
    return make()
end

before_each(function() torch.set_grad_enabled(true) end) -- another spec may leave it off

describe("attention.trace backward: the gradient of every stage against PyTorch's", function()
    local CASES = {
        {"sa_v1", 123, function() return nn.SelfAttention_v1(3, 2) end, inputs,
         {"queries", "keys", "values", "scores", "scaled", "weights", "context"}},
        {"sa_v2", 789, function() return nn.SelfAttention_v2(3, 2) end, inputs,
         {"queries", "keys", "values", "scores", "scaled", "weights", "context"}},
        {"causal", 123, function() return nn.CausalAttention(3, 2, 6, 0.0) end, batch,
         {"queries", "keys", "values", "scores", "masked", "scaled", "weights", "context"}},
        {"mha", 123, function() return nn.MultiHeadAttention(3, 2, 6, 0.0, 2) end, batch,
         {"queries", "keys", "values", "split", "scores", "masked", "scaled", "weights", "context", "merged", "output"}},
        {"wrapper", 123, function() return nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2) end, batch,
         {"queries", "keys", "values", "scores", "masked", "scaled", "weights", "context", "output"}},
    }
    for _, case in ipairs(CASES) do
        local name, seed, make, x, keys = table.unpack(case)
        it(name .. ": " .. #keys .. " stages forward, the same backward in reverse, each gradient bit for bit", function()
            local c = R.cases[name]
            local m = seeded(seed, make)
            local tr, text = traced({module = m, x = x(), tokens = TOKENS}, c)
            local got = {}
            for i, st in ipairs(tr._stages) do got[i] = st.key end
            assert.are.same(keys, got)
            tr:run()
            assert.are.equal(#keys, #headers(text()))
            tr:run_backward()
            local back = headers(text(), true)
            assert.are.equal(#keys, #back)
            for k, h in ipairs(back) do
                local st = tr._stages[#keys + 1 - k]
                assert.are.equal(k .. "/" .. #keys .. " " .. st.name:match("^%S+"), h)
            end
            assert.is_true(check_grads(c, tr) >= #keys + 3) -- every stage's tensor and the projections' weights
            -- the module's parameters keep the gradients they had (none): the tracer used autograd.grad
            for _, p in ipairs(m:parameters()) do assert.is_nil(p.grad) end
        end)
    end

    it("a book class written as the book writes it (read by its field names) gives the same gradients", function()
        local book = dofile("tests/lua/book_classes.lua")
        local c = R.cases.mha
        local m = seeded(123, function() return book.MultiHeadAttention(3, 2, 6, 0.0, 2) end)
        local tr = traced({module = m, x = batch()}, c)
        tr:run_backward()
        check_grads(c, tr)
    end)

    it("a trace of q, k, v (heads 2, causal): the inputs get gradients through aliases, the user's stay as made", function()
        local c = R.cases.qkv
        local q, k, v = R.load(c, "q"), R.load(c, "k"), R.load(c, "v")
        local tr = traced({q = q, k = k, v = v, heads = 2, mask = "causal"}, c)
        tr:run_backward()
        check_grads(c, tr)
        assert.is_false(q.requires_grad)
        assert.is_nil(q.grad)
    end)

    it("Python Deep Learning's MultiHeadedAttention (its Transformer blocks' attention), a padding mask, -1e9", function()
        local c = R.cases.annotated
        local m = seeded(123, function() return nn.MultiHeadedAttention(2, 4, 0.0) end)
        local x, mask = R.load(c, "x"), R.load(c, "mask")
        local tr, text = traced({module = m, x = x, mask = mask}, c)
        tr:run_backward()
        assert.are.equal(11, #headers(text(), true))
        assert.are.equal(11 + 2 + 8, check_grads(c, tr)) -- the stages, split's other two, 4 weights and 4 biases
    end)

    it("GPT-2 (the book's GPTModel), layer 2, head 2: block 2's input, that head's stages, bit for bit", function()
        local c = R.cases.gpt
        local model = seeded(123, function()
            return gpt.GPTModel{vocab_size = 50, context_length = 8, emb_dim = 16, n_heads = 2, n_layers = 2,
                                drop_rate = 0.0, qkv_bias = false}
        end)
        local ids = R.load(c, "ids") + 1 -- PyTorch's ids are 0-based
        local tr, text = traced({module = model, layer = 2, head = 2, ids = ids}, c)
        tr:run_backward()
        local back = headers(text(), true)
        assert.are.equal(9, #back)
        assert.are.equal("9/9 input", back[9])
        check_grads(c, tr)
    end)
end)

describe("attention.trace backward: what each step shows", function()
    it("the formula of each step is the chain rule through the stages that read its tensor", function()
        local m = seeded(123, function() return nn.MultiHeadAttention(3, 2, 6, 0.0, 2) end)
        local tr, text = traced({module = m, x = batch(), tokens = TOKENS}, R.cases.mha)
        tr:backward("weights")
        local head = text():match("^[^\n]*")
        assert.is_truthy(head:find("^%[←4/11%] +weights "), head)
        assert.is_truthy(head:find("∂L/∂α = ∂L/∂Z·V_hᵀ", 1, true), head)
        tr:backward("scaled")
        assert.is_truthy(text():find("∂L/∂ω_s = α ⊙ (∂L/∂α − Σⱼ α·∂L/∂α)", 1, true))
        tr:backward("values")
        local values = text()
        assert.is_truthy(values:find("∂L/∂V = ∂L/∂V_h → [.., n, d]", 1, true))
        assert.is_truthy(values:find("∂L/∂W_value.weight", 1, true))
        tr:backward(1)
        assert.is_truthy(text():find("∂L/∂out   (L = loss(out))", 1, true))
    end)

    it("labels rows with the tokens, and the score-shaped gradients' columns too, drawn as heatmaps", function()
        local m = seeded(123, function() return nn.CausalAttention(3, 2, 6, 0.0) end)
        local tr, text = traced({module = m, x = inputs(), tokens = TOKENS}, nil)
        rawset(tr, "loss", function(o) return (o * o):sum() end)
        tr:backward("weights")
        local s = text()
        assert.is_truthy(s:find("\n +Your +journey +starts +with +one +step\n"), s) -- columns: the keys
        for _, tok in ipairs(TOKENS) do assert.is_truthy(s:find("\n  " .. tok .. " +%-?%d"), tok) end
        local function shaded(text)
            for _, c in ipairs({"░", "▒", "▓", "█"}) do
                if text:find(c, 1, true) then return true end
            end
            return false
        end
        assert.is_true(shaded(s))
        tr:backward("context")
        s = text()
        assert.is_truthy(s:find("\n  journey +%-?%d"))
        assert.is_false(shaded(s)) -- a context gradient is a plain matrix, as its forward step
    end)

    it("the numbers shown are tr.grads'", function()
        local m = seeded(123, function() return nn.CausalAttention(3, 2, 6, 0.0) end)
        local tr, text = traced({module = m, x = inputs(), tokens = TOKENS}, nil)
        rawset(tr, "loss", function(o) return (o * o):sum() end)
        tr:backward("queries")
        local s = text()
        local g = tr.grads.queries
        local want = require("attn.draw.heatmap").render(g, {rows = TOKENS, shade = false, color = false})
        assert.is_truthy(s:find(want:gsub("\n", "\n  "), 1, true), s)
    end)

    it("after the last step says so; tr:backward(which) shows a step again, by number or name", function()
        local m = seeded(123, function() return nn.SelfAttention_v2(3, 2) end)
        local tr, text = traced({module = m, x = inputs()}, R.cases.sa_v2)
        tr:run_backward()
        text()
        tr:backward()
        local loss = string.format("%.4f", tr.loss_value:item())
        assert.are.equal("(all 7 stages shown backward: tr.grads holds the gradients, the loss was " .. loss .. ")\n",
                         text())
        tr:backward(7)
        local a = text()
        tr:backward("queries")
        assert.are.equal(a, text())
    end)

    it("in Chinese: the notes and messages are translated, the formulas stay", function()
        local m = seeded(123, function() return nn.MultiHeadAttention(3, 2, 6, 0.0, 2) end)
        local tr, text = traced({module = m, x = batch()}, R.cases.mha)
        i18n.lang("zh_CN")
        local ok, err = pcall(function()
            tr:run_backward()
            tr:backward()
        end)
        local s = text()
        i18n.lang("en")
        assert(ok, err)
        assert.is_falsy(s:find("shown: the gradient", 1, true))
        assert.is_falsy(s:find("stages shown backward", 1, true))
        assert.is_truthy(s:find("tr.grads.split_k", 1, true))
        assert.is_truthy(s:find("形状", 1, true)) -- "shape"
        assert.is_truthy(s:find("∂L/∂α = ∂L/∂Z·V_hᵀ", 1, true))
    end)
end)

describe("attention.trace backward: errors", function()
    local function error_of(f, ...)
        local ok, err = pcall(f, ...)
        assert(not ok, "expected an error")
        return tostring(err)
    end

    it("without loss =, tr:backward says what it needs", function()
        local tr = traced({x = inputs()}, nil)
        assert.is_truthy(error_of(tr.backward, tr):find("tr:backward needs the loss", 1, true))
    end)

    it("loss must be a function; its result must be one number that depends on out", function()
        assert.is_truthy(error_of(attention.trace, {x = inputs(), loss = 3}):find("loss must be a function", 1, true))
        local tr = traced({x = inputs(), loss = function(o) return o end}, nil)
        assert.is_truthy(error_of(tr.run_backward, tr):find("loss must return the loss, a tensor of one number, " ..
                                                             "got a torch.float32 tensor of shape [6, 3]", 1, true))
        tr = traced({x = inputs(), loss = function() return torch.tensor(1.0) end}, nil)
        assert.is_truthy(error_of(tr.backward, tr):find("loss(out) does not depend on out", 1, true))
        tr = traced({x = inputs(), loss = function() error("my bug") end}, nil)
        assert.is_truthy(error_of(tr.backward, tr):find("my bug", 1, true))
    end)

    it("stages computed with gradients off: said, not a wrong picture", function()
        local m = seeded(123, function() return nn.SelfAttention_v2(3, 2) end)
        local tr = traced({module = m, x = inputs(), loss = function(o) return o:sum() end}, nil)
        torch.no_grad(function() tr:run() end)
        assert.is_truthy(error_of(tr.backward, tr):find("is not part of a graph", 1, true))
    end)

    it("a step that does not exist, and a call with a dot", function()
        local tr = traced({x = inputs(), loss = function(o) return o:sum() end}, nil)
        assert.is_truthy(error_of(tr.backward, tr, 4):find("no backward step 4: give 1..3 (1 is the last stage) " ..
                                                            "or one of context, weights, scores", 1, true))
        assert.is_truthy(error_of(tr.backward):find("call it as tr:backward() with a colon", 1, true))
        assert.is_truthy(error_of(tr.run_backward):find("call it as tr:run_backward() with a colon", 1, true))
    end)
end)

describe("attention.trace backward: tr:save", function()
    it("writes the forward steps, then the backward ones, with the gradients' heatmaps", function()
        local m = seeded(123, function() return nn.CausalAttention(3, 2, 6, 0.0) end)
        local tr = traced({module = m, x = inputs(), tokens = TOKENS}, nil)
        rawset(tr, "loss", function(o) return (o * o):sum() end)
        tr:step()
        local path = os.tmpname()
        tr:save(path)
        local f = assert(io.open(path))
        local html = f:read("a")
        f:close()
        os.remove(path)
        assert.is_truthy(html:find('id="step-16"', 1, true))
        assert.is_falsy(html:find('id="step-17"', 1, true))
        assert.is_truthy(html:find("← weights ∂L/∂α = ∂L/∂Z·Vᵀ", 1, true))
        assert.are.equal(1, tr.pos) -- the tracer stays where it was
        assert.are.equal(0, tr.bpos)
    end)
end)

-- The stage keys of a trace, in order.
local function keys_of(tr)
    local got = {}
    for i, st in ipairs(tr._stages) do got[i] = st.key end
    return got
end

-- Runs tr forward and backward; returns the backward headers ("k/N name") after checking the counts.
local function both_ways(tr, text, n)
    tr:run()
    assert.are.equal(n, #headers(text()))
    tr:run_backward()
    local back = headers(text(), true)
    assert.are.equal(n, #back)
    return back
end

describe("attention.trace backward: classes that build their own stages show their parameters' gradients", function()
    it("GroupedQueryAttention (4 query heads, 2 key/value heads): every stage and W_query, W_key, W_value, out_proj", function()
        local c = R.cases.gqa
        local m = seeded(123, function() return nn.GroupedQueryAttention(4, 8, 0.0, 4, 2) end)
        local tr, text = traced({module = m, x = R.load(c, "x")}, c)
        assert.are.same({"queries", "keys", "values", "split", "repeated_k", "scores", "masked", "scaled", "weights",
                         "context", "merged", "output"}, keys_of(tr))
        both_ways(tr, text, 12)
        -- the stages, split's and share KV's other tensors, the four weight matrices (no biases)
        assert.are.equal(12 + 3 + 4, check_grads(c, tr))
        tr:backward("queries")
        assert.is_truthy(text():find("∂L/∂W_query.weight", 1, true))
        tr:backward("output")
        assert.is_truthy(text():find("∂L/∂out_proj.weight", 1, true))
        for _, p in ipairs(m:parameters()) do assert.is_nil(p.grad) end
    end)

    it("MultiHeadLatentAttention: the down- and up-projections' weights with their stages", function()
        local c = R.cases.mla
        local m = seeded(123, function() return nn.MultiHeadLatentAttention(4, 8, 0.0, 2, {latent_dim = 4}) end)
        local tr, text = traced({module = m, x = R.load(c, "x")}, c)
        assert.are.same({"queries", "latent", "up_k", "split", "scores", "masked", "scaled", "weights", "context",
                         "merged", "output"}, keys_of(tr))
        both_ways(tr, text, 11)
        -- the stages, up_v, split_k, split_v, and W_query, W_DKV, W_UK, W_UV, out_proj's weight and bias
        assert.are.equal(11 + 3 + 6, check_grads(c, tr))
        tr:backward("up_k")
        local s = text()
        assert.is_truthy(s:find("∂L/∂W_UK.weight", 1, true) and s:find("∂L/∂W_UV.weight", 1, true), s)
    end)
end)

describe("attention.trace of a Transformer block, forward and backward", function()
    local BLOCK = {"x", "norm1", "queries", "keys", "values", "split", "scores", "masked", "scaled", "weights",
                   "context", "merged", "output", "shortcut1", "norm2", "ff", "shortcut2"}
    local function gpt_block()
        return seeded(123, function()
            return gpt.TransformerBlock{vocab_size = 50, context_length = 6, emb_dim = 4, n_heads = 2, n_layers = 1,
                                        drop_rate = 0.0, qkv_bias = false}
        end)
    end

    it("chapter 4's TransformerBlock: 17 stages, input to output, every gradient and parameter bit for bit", function()
        local c = R.cases.block
        local b = gpt_block()
        local x = R.load(c, "x")
        local tr, text = traced({module = b, x = x, tokens = TOKENS}, c)
        assert.are.same(BLOCK, keys_of(tr))
        local back = both_ways(tr, text, 17)
        assert.are.equal("1/17 shortcut", back[1])
        assert.are.equal("2/17 feed-forward", back[2])
        assert.are.equal("17/17 input", back[17])
        -- the stages, split's other two, and the block's 13 parameters (norm1, att, ff, norm2)
        assert.are.equal(17 + 2 + 13, check_grads(c, tr))
        -- the last stage is the block's own output
        assert.is_true(torch.equal(tr.shortcut2, b(x)))
        assert.is_false(x.requires_grad) -- the user's input is left as made; the trace differentiates an alias
        for _, p in ipairs(b:parameters()) do assert.is_nil(p.grad) end
    end)

    it("a block's steps: the shortcut's gradient joins the norm's at the input, parameters shown, tokens as labels", function()
        local c = R.cases.block
        local tr, text = traced({module = gpt_block(), x = R.load(c, "x"), tokens = TOKENS}, c)
        tr:step("shortcut1")
        local s = text()
        assert.is_truthy(s:find("H₁ = X + out", 1, true), s)
        tr:backward("x")
        s = text()
        assert.is_truthy(s:find("∂L/∂X = ∂L/∂N₁·∂N₁/∂X + ∂L/∂H₁", 1, true), s)
        for _, tok in ipairs(TOKENS) do assert.is_truthy(s:find("\n  " .. tok .. " +%-?%d"), tok) end
        tr:backward("norm1")
        s = text()
        assert.is_truthy(s:find("∂L/∂norm1.scale", 1, true) and s:find("∂L/∂norm1.shift", 1, true), s)
        tr:backward("ff")
        s = text()
        assert.is_truthy(s:find("∂L/∂ff.layers.1.weight", 1, true) and s:find("∂L/∂ff.layers.3.bias", 1, true), s)
        tr:backward("queries")
        assert.is_truthy(text():find("∂L/∂att.W_query.weight", 1, true))
    end)

    it("Python Deep Learning's EncoderBlock, pre-LN and post-LN, with its padding mask, within 1e-6", function()
        local post = {"x", "queries", "keys", "values", "split", "scores", "scaled", "masked", "weights", "context",
                      "merged", "output", "shortcut1", "post_norm1", "ff", "shortcut2", "post_norm2"}
        local pre = {"x", "norm1", "queries", "keys", "values", "split", "scores", "scaled", "masked", "weights",
                     "context", "merged", "output", "shortcut1", "norm2", "ff", "shortcut2"}
        for _, case in ipairs({{"encoder", true, pre}, {"encoder_post", false, post}}) do
            local c = R.cases[case[1]]
            local b = seeded(123, function()
                return nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4, 0.0), nn.PositionwiseFFN(4, 8, 0.0), 0.0,
                                       {norm_first = case[2]})
            end)
            local x, mask = R.load(c, "x"), R.load(c, "mask")
            local tr, text = traced({module = b, x = x, mask = mask}, c)
            assert.are.same(case[3], keys_of(tr))
            both_ways(tr, text, 17)
            -- the stages, split's other two, 4 + 4 attention weights and biases, 4 of the FFN, 4 of the norms
            assert.are.equal(17 + 2 + 16, check_grads(c, tr, ENCODER_TOL))
            assert.is_true(torch.equal(tr[case[3][17]], b(x, mask)))
        end
    end)

    it("without a loss, a block steps forward only; its page has the backward steps when it has one", function()
        local c = R.cases.block
        local tr, text = traced({module = gpt_block(), x = R.load(c, "x"), tokens = TOKENS}, nil)
        tr:run()
        assert.are.equal(17, #headers(text()))
        rawset(tr, "loss", function(o) return (o * o):sum() end)
        local path = os.tmpname()
        tr:save(path)
        local f = assert(io.open(path))
        local html = f:read("a")
        f:close()
        os.remove(path)
        assert.is_truthy(html:find('id="step-34"', 1, true))
        assert.is_falsy(html:find('id="step-35"', 1, true))
        assert.is_truthy(html:find("← shortcut ∂L/∂H₂", 1, true))
    end)

    it("Qwen3's and Llama 3's blocks: traced through their model, said so", function()
        local cfg = {vocab_size = 20, context_length = 8, emb_dim = 8, n_heads = 2, n_layers = 1, hidden_dim = 16,
                     head_dim = 4, qk_norm = true, n_kv_groups = 1, rope_base = 10000.0}
        local model = qwen3.Qwen3Model(cfg)
        local ok, err = pcall(attention.trace, {module = model.trf_blocks[1], x = torch.rand(1, 3, 8)})
        assert.is_false(ok)
        assert.is_truthy(tostring(err):find("trace its model, attention.trace{module = model, layer =, head =", 1, true),
                         tostring(err))
    end)

    it("a block's x must be [batch, n, d], as its forward takes it", function()
        local ok, err = pcall(attention.trace, {module = gpt_block(), x = torch.rand(6, 4)})
        assert.is_false(ok)
        assert.is_truthy(tostring(err):find("a Transformer block's trace takes x = [batch, n, d], as its forward does, " ..
                                            "got [6, 4]", 1, true), tostring(err))
    end)
end)
