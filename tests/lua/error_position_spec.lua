-- error_position_spec.lua — an error from attn's embedded library (src/lua/*.lua, src/bind/*.c) points
-- at the user's line and names what the user called, never at "[attn]/nn.lua:304:" internals.
-- Code is loaded as a chunk named like the REPL's ("=stdin"), the call on its line 2, and also typed
-- through the REPL's own evaluator (src/lua/repl/init.lua), which drops "stdin:1: " for one-liners.
local repl = require("attn.repl")
local errors = require("attn.errors")

local INPUTS = "torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64}, " ..
               "{0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}"

-- Each case: code that raises, then the start of its message after the position: the function or
-- class called (and, for a layer inside it, that layer).
local CASES = {
    -- the C stages, called by the user and through the library
    {"inputs:matmul(torch.ones(2, 3))", "matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)"},
    {"attention.scores(inputs, torch.ones(6, 2))", "attention.scores: q [6, 3] and k [6, 2]"},
    {"attention.scores(inputs)", "attention.scores: k must be a tensor"},
    {"attention.scale(inputs, -1)", "attention.scale: d_k must be a positive number"},
    {"attention.causal_mask('a')", "attention.causal_mask: n must be an integer"},
    {"attention.valid_len_mask(3, torch.tensor{5})", "attention.valid_len_mask: valid length 5"},
    {"attention.mask(inputs, torch.ones(2, 2):bool())", "attention.mask: the mask [2, 2] does not fit"},
    {"attention.softmax(inputs, 3)", "attention.softmax: dim 3 is out of range"},
    {"attention.weighted_sum(inputs, torch.ones(2, 2))", "attention.weighted_sum: weights [6, 3]"},
    {"attention.dropout(inputs, 2)", "attention.dropout: p must be between 0 and 1"},
    {"attention.split_heads(batch, 2)", "attention.split_heads: d = 3 (x [2, 6, 3])"},
    {"attention.merge_heads(inputs)", "attention.merge_heads: expected x [..., h, n, dh]"},
    {"attention.general(inputs, torch.ones(2, 2))", "attention.general: h must be a tensor"},
    {"attention.additive(inputs, inputs, torch.ones(2, 2), torch.ones(2, 2), torch.ones(2))",
     "attention.additive: shapes do not fit"},
    {"attention.fused(inputs, torch.ones(6, 2), inputs)", "attention.fused: q [6, 3] and k [6, 2]"},
    {"attention.fused(inputs, inputs, inputs, {causal = 3})", "attention.fused: option causal"},
    -- attention.forward, trace, heatmap (Lua over the stages)
    {"attention.forward{q = inputs, k = torch.ones(6, 2), v = inputs}",
     "attention.forward: attention.scores: q [6, 3] and k [6, 2]"},
    {"attention.forward{q = batch, k = batch, v = batch, heads = 2}",
     "attention.forward: attention.split_heads: d = 3 (x [2, 6, 3]) is not divisible by 2 heads"},
    {"attention.forward{q = batch, k = batch, v = batch, mask = torch.ones(3, 3):bool()}",
     "attention.forward: attention.mask: the mask [3, 3] does not fit the scores [2, 6, 6]"},
    {"attention.forward{q = inputs, k = inputs, v = inputs, mask = 3}", "attention.forward: mask must be"},
    {"attention.forward{q = inputs, k = inputs, v = inputs, causal = true}", "attention.forward: unknown option causal"},
    {"attention.forward(inputs)", "attention.forward: expected a table"},
    {"attention.trace(inputs)", "attention.trace: expected a table"},
    {"attention.trace{x = torch.ones(3)}", "attention.trace: x must be [n, d] or [b, n, d], got [3]"},
    {"attention.trace{x = inputs, tokens = {'a'}}", "attention.trace: 1 tokens for 6 rows"},
    {"attention.trace{x = inputs, foo = 1}", "attention.trace: unknown option foo"},
    {"attention.trace{x = inputs, write = 3}", "attention.trace: write must be a function"},
    {"attention.trace{q = inputs, k = torch.ones(6, 2), v = inputs}", "attention.trace: q [6, 3] and k [6, 2]"},
    {"attention.trace{q = inputs, k = inputs, v = inputs, heads = 2}", "attention.trace: d = 3 is not divisible"},
    {"attention.trace{q = inputs, k = inputs, v = inputs, mask = 3}", "attention.trace: mask must be"},
    {"attention.trace{q = inputs, k = inputs, v = inputs, mask = torch.ones(2, 2):bool(), write = quiet}:run()",
     "attention.trace: stage 3 (masked): attention.mask: the mask [2, 2] does not fit the scores [6, 6]"},
    {"attention.trace{x = inputs}:step(7)", "attention.trace: no stage 7"},
    {"attention.trace{x = inputs}:step('foo')", 'attention.trace: no stage "foo"'},
    {"attention.trace{x = inputs}.step()", "attention.trace: call it as tr:step() with a colon"},
    {"attention.trace{module = nn.Linear(3, 2), x = inputs}", "attention.trace: module Linear is not one of"},
    {"attention.trace{module = nn.CausalAttention(3, 2, 4, 0.0), x = batch, write = quiet}:run()",
     "attention.trace: stage 5 (masked): 6 tokens, but the module's mask is for at most 4"},
    {"attention.trace{module = nn.MultiHeadAttention(3, 2, 6, 0.0, 2), x = torch.ones(2, 6, 4), write = quiet}:run()",
     "attention.trace: stage 1 (queries): Linear: expected an input whose last dim is in_features = 3"},
    {"attention.trace{module = nn.SelfAttention_v1(3, 2), x = torch.ones(6, 4), write = quiet}:run()",
     "attention.trace: stage 1 (queries): matmul: cannot multiply [6, 4] by [3, 2]"},
    {"attention.heatmap(batch)", "attention.heatmap: expected a 2-D tensor (a matrix), got shape [2, 6, 3]"},
    {"attention.heatmap(inputs, {rows = {'a'}})", "attention.heatmap: 1 row labels for 6 rows"},
    {"attention.heatmap(inputs, 3)", "attention.heatmap: options must be a table"},
    -- nn.lua
    {"nn.Linear(3)", "Linear: out_features must be a positive integer, got nil"},
    {"nn.Linear(3, 2, 5)", "Linear: the third argument must be an options table"},
    {"nn.Linear(3, 2)(torch.ones(4))", "Linear: expected an input whose last dim is in_features = 3, got shape [4]"},
    {"nn.Linear(3, 2)('x')", "Linear: input must be a tensor"},
    {"nn.Dropout(2)", "Dropout: p must be a probability"},
    {"nn.Dropout(0.5)('x')", "Dropout: input must be a tensor"},
    {"nn.ModuleList(3)", "ModuleList: expected a list of modules"},
    {"nn.ModuleList{3}", "ModuleList: element 1 is not a module"},
    {"nn.ModuleList{}:append(3)", "ModuleList:append: expected a module"},
    {"nn.ModuleList{}()", "ModuleList: a ModuleList has no forward"},
    {"nn.Module()()", "Module: forward is not defined"},
    {"nn.Module:extend()", "extend: the class needs a name"},
    {"nn.Parameter(3)", "Parameter: data must be a tensor"},
    {"nn.deepcopy(3)", "deepcopy: expected a module"},
    {"nn.Linear(3, 2):train(3)", "train: mode must be true or false"},
    {"nn.Linear(3, 2):register_buffer(3, inputs)", "register_buffer: name must be a string"},
    {"nn.Linear(3, 2):register_buffer('m', 3)", "register_buffer: buffer must be a tensor"},
    {"nn.functional.softmax('x')", "softmax: input must be a tensor"},
    {"nn.functional.dropout('x', 0.5)", "dropout: input must be a tensor"},
    -- the book's attention classes (attention_nn.lua)
    {"nn.SelfAttention_v1(3)", "SelfAttention_v1: missing argument d_out"},
    {"nn.SelfAttention_v1(3, 2)(torch.ones(6, 4))", "SelfAttention_v1: x's last dim must be d_in = 3, got shape [6, 4]"},
    {"nn.SelfAttention_v2(3, 2, 'x')", "SelfAttention_v2: qkv_bias must be true or false"},
    {"nn.CausalAttention(3, 2, 4, 0.0)(batch)", "CausalAttention: x has 6 tokens but context_length is 4"},
    {"nn.CausalAttention(3, 2, 6, 2)", "CausalAttention: dropout must be a probability"},
    {"nn.CausalAttention(3, 2, 6, 0.0)(inputs)", "CausalAttention: x must have shape [batch, num_tokens, 3], got [6, 3]"},
    {"nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0)", "MultiHeadAttentionWrapper: missing argument num_heads"},
    {"nn.MultiHeadAttention(3, 3, 6, 0.0, 2)", "MultiHeadAttention: d_out (3) must be divisible by num_heads (2)"},
    {"nn.MultiHeadAttention(3, 2, 6, 0.0, 2, {foo = 1})", "MultiHeadAttention: unknown option foo"},
    {"nn.MultiHeadAttention(3, 2, 6, 0.0, 2)(torch.ones(2, 6, 4))", "MultiHeadAttention: x's last dim must be d_in = 3"},
    {"nn.MultiHeadedAttention(3, 4)", "MultiHeadedAttention: d_model (4) must be divisible by h (3)"},
    {"nn.MultiHeadedAttention(2, 4)(batch, batch, batch)", "MultiHeadedAttention: queries' last dim must be 4"},
    {"nn.DotProductAttention(0.0)(inputs, inputs, inputs)", "DotProductAttention: queries must be a 3-D tensor"},
    {"nn.DotProductAttention(0.0)(batch, batch, batch, torch.tensor{7, 2})", "DotProductAttention: valid length 7"},
    {"nn.DotProductAttention(0.0)(batch, batch, batch, {1, 'x'})", "DotProductAttention: valid_lens must be"},
    {"nn.MLPAttention(2, 3, 4, 0.0)(batch, batch, batch)", "MLPAttention: keys' last dim must be 2"},
    -- the Transformer's layers (transformer.lua)
    {"nn.LayerNorm('x')", "LayerNorm: normalized_shape must be a size"},
    {"nn.LayerNorm(4)(inputs)", "LayerNorm: expected an input whose last dim is 4, got shape [6, 3]"},
    {"nn.LayerNorm(3, {eps = -1})", "LayerNorm: eps must be a finite number"},
    {"nn.Embedding(3)", "Embedding: embedding_dim must be a positive integer"},
    {"nn.Embedding(3, 2)(torch.tensor{5})", "Embedding: index 5 is out of range"},
    {"nn.Embedding(3, 2, {padding_idx = 9})", "Embedding: padding_idx must be an id from 1 to 3"},
    {"nn.Embeddings(4, 3)(torch.tensor{9})", "Embeddings: Embedding: index 9 is out of range"},
    {"nn.GELU{approximate = 'x'}", "GELU: approximate must be"},
    {"nn.ReLU()('x')", "ReLU: input must be a tensor"},
    {"nn.positional_encoding(5, 3)", "positional_encoding: d_model must be even"},
    {"nn.PositionalEncoding(3, 0.0)", "PositionalEncoding: d_model must be even"},
    {"nn.PositionalEncoding(4, 0.0, 5)(torch.ones(1, 6, 4))", "PositionalEncoding: expected an input [..., n, 4]"},
    {"nn.PositionwiseFFN(4, 8, 0.0, {activation = 'x'})", "PositionwiseFFN: activation must be"},
    {"nn.PositionwiseFFN(4, 8, 0.0)(inputs)",
     "PositionwiseFFN: Linear: expected an input whose last dim is in_features = 4, got shape [6, 3]"},
    {"nn.SublayerConnection(4, 0.0)(inputs, 3)", "SublayerConnection: the second argument must be the sublayer"},
    {"nn.SublayerConnection(4, 0.0)(inputs, nn.ReLU())", "SublayerConnection: LayerNorm: expected an input"},
    {"nn.EncoderBlock(4, 3)", "EncoderBlock: self_attn must be a module"},
    {"nn.EncoderBlock(4, nn.MultiHeadedAttention(2, 4), nn.PositionwiseFFN(4, 8, 0.0), 0.0)(inputs)",
     "EncoderBlock: LayerNorm: expected an input whose last dim is 4, got shape [6, 3]"},
    {"nn.Encoder(3, 2)", "Encoder: block must be a module"},
    {"nn.Decoder(3, 2)", "Decoder: block must be a module"},
    {"nn.DecoderBlock(4, 3)", "DecoderBlock: self_attn must be a module"},
    {"nn.BERTEmbedding(10, 4, {max_len = 2})(torch.tensor{{1, 2, 3}})", "BERTEmbedding: 3 tokens, but max_len is 2"},
    {"nn.clones(3, 2)", "clones: module must be a module"},
    {"nn.subsequent_mask(-1)", "subsequent_mask: n must be a positive integer"},
}

-- Globals of the code under test (chunks are loaded in _G, not in busted's environment).
local function setup()
    _G.inputs = load("return " .. INPUTS)()
    _G.batch = torch.stack({_G.inputs, _G.inputs}, 1)
    _G.quiet = function() end
end

local function teardown()
    _G.inputs, _G.batch, _G.quiet = nil, nil, nil
end


-- The message of `code` run on line 2 of a chunk named "=stdin" (nil if it raised nothing).
local function message_on_line_2(code)
    local f = assert(load("local a = 1\nlocal r = " .. code .. "\nreturn r", "=stdin", "t"))
    local ok, err = pcall(f)
    if ok then return nil end
    return tostring(err)
end

-- The error line the REPL prints for `code` typed at the prompt.
local function repl_message(code)
    local errs = {}
    repl.eval(code, {write = function() end, error = function(m) errs[#errs + 1] = m end})
    return errs[1]
end

local function plain_find(s, sub) return s:find(sub, 1, true) end

describe("errors raised in attn's library point at the user's line", function()
    before_each(setup)
    after_each(teardown)

    for _, case in ipairs(CASES) do
        local code, want = case[1], case[2]
        it(code, function()
            local msg = message_on_line_2(code)
            assert(msg, "no error from: " .. code)
            assert.is_nil(plain_find(msg, "[attn]/"), "a library position in: " .. msg)
            assert.are.equal("stdin:2: " .. want, msg:sub(1, #("stdin:2: " .. want)), "got: " .. msg)
            local typed = repl_message(code)
            assert(typed, "the REPL printed no error for: " .. code)
            assert.are.equal(want, typed:sub(1, #want), "at the prompt: " .. typed)
        end)
    end

    it("has cases for every kind of library function", function()
        assert.is_true(#CASES >= 90)
    end)
end)

describe("a sweep over the library with wrong arguments", function()
    before_each(setup)
    after_each(teardown)

    -- Wrong arguments, written as code so that each call gets fresh tensors.
    local GARBAGE = {"", "'x'", "-1", "0", "2.5", "true", "{}", "3, 'x'", "torch.ones(2)", "torch.ones(2, 3)",
                     "torch.ones(2, 3, 4)", "torch.ones(2, 3), 'x'", "torch.ones(2, 3), torch.ones(4, 5)"}

    -- Calls f(args) (or f(self, args)) on line 2 of a chunk named "=stdin"; returns the message or nil.
    local function call_from_stdin(f, args, self)
        local call = "f(" .. (self and ("self" .. (args ~= "" and ", " or "")) or "") .. args .. ")"
        local chunk = assert(load("local f, self = ...\nlocal r = " .. call .. "\nreturn r", "=stdin", "t"))
        local ok, err = pcall(chunk, f, self)
        if ok then return nil end
        return tostring(err), call
    end

    local function check(label, f, self)
        for _, args in ipairs(GARBAGE) do
            local msg, call = call_from_stdin(f, args, self)
            if msg then
                assert(not plain_find(msg, "[attn]/"), label .. " " .. call .. ": " .. msg)
                assert(msg:find("^stdin:2: "), label .. " " .. call .. " does not point at the line: " .. msg)
            end
        end
    end

    local function callable(v)
        return type(v) == "function" or type(v) == "table" and getmetatable(v) and getmetatable(v).__call
    end

    it("every function and class of nn, nn.functional and attention", function()
        local saved_print = _G.print
        _G.print = function() end -- attention.heatmap prints what it is given
        -- in a fixed order: what the calls print (a warning, a heatmap) comes in the same order on every run,
        -- which tests/web/test_lua.sh compares byte for byte with the WebAssembly build's (pairs' order follows
        -- the string hash's random seed)
        for _, tname in ipairs({"attention", "nn", "nn.functional"}) do
            local t = ({nn = nn, ["nn.functional"] = nn.functional, attention = attention})[tname]
            local keys = {}
            for k in pairs(t) do keys[#keys + 1] = k end
            table.sort(keys)
            for _, k in ipairs(keys) do
                if callable(t[k]) then check(tname .. "." .. k, t[k]) end
            end
        end
        _G.print = saved_print
    end)

    it("every instance of the book's classes and the Transformer's layers, called and its methods", function()
        local function mha() return nn.MultiHeadedAttention(2, 4, 0.0) end
        local function ffn() return nn.PositionwiseFFN(4, 8, 0.0) end
        local modules = {
            nn.Linear(3, 2), nn.Dropout(0.1), nn.ModuleList{}, nn.SelfAttention_v1(3, 2), nn.SelfAttention_v2(3, 2),
            nn.CausalAttention(3, 2, 6, 0.0), nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2),
            nn.MultiHeadAttention(3, 2, 6, 0.0, 2), mha(), nn.DotProductAttention(0.0), nn.MLPAttention(2, 3, 4, 0.0),
            nn.LayerNorm(4), nn.Embedding(10, 4), nn.ReLU(), nn.GELU(), nn.SiLU(), nn.PositionalEncoding(4, 0.0),
            nn.Embeddings(4, 10), ffn(), nn.SublayerConnection(4, 0.0), nn.EncoderBlock(4, mha(), ffn(), 0.0),
            nn.Encoder(nn.EncoderBlock(4, mha(), ffn(), 0.0), 2), nn.DecoderBlock(4, mha(), mha(), ffn(), 0.0),
            nn.Decoder(nn.DecoderBlock(4, mha(), mha(), ffn(), 0.0), 2, 10), nn.BERTEmbedding(10, 4),
        }
        for _, m in ipairs(modules) do
            check(m.__name .. "()", m)
            for _, method in ipairs({"train", "eval", "register_buffer", "parameters", "named_parameters", "modules",
                                     "children", "append", "num_parameters"}) do
                if type(m[method]) == "function" then check(m.__name .. ":" .. method, m[method], m) end
            end
            for _, x in ipairs({torch.ones(2, 3, 3), torch.ones(2, 3, 4), torch.ones(6, 3)}) do
                local ok, tr = pcall(attention.trace, {module = m, x = x, write = function() end})
                if ok then check(m.__name .. " traced", tr.run, tr) end
            end
        end
    end)

    it("the tracer's methods, with and without the colon", function()
        local tr = attention.trace{x = _G.inputs, write = function() end}
        for _, method in ipairs({"step", "run", "back"}) do
            check("tr:" .. method, tr[method], tr)
            check("tr." .. method, tr[method])
        end
    end)
end)

describe("what is not the library's is left as it is", function()
    before_each(setup)
    after_each(teardown)

    it("an error in a class the user wrote keeps the line of its forward", function()
        local f = assert(load([[
local SA = nn.Module:extend("SA")
function SA:__init() self.W_query = nn.Linear(3, 2, {bias = false}) end
function SA:forward(x)
    return self.W_query(x):matmul(torch.ones(5, 5))
end
local sa = SA()
local out = sa(inputs)
return out]], "=stdin", "t"))
        local ok, err = pcall(f)
        assert.is_false(ok)
        assert.are.equal("stdin:4: matmul: cannot multiply [6, 2] by [5, 5] (2 ≠ 5)", err)
    end)

    it("a library layer inside the user's forward points at the line in their forward", function()
        local f = assert(load([[
local SA = nn.Module:extend("SA")
function SA:__init() self.W_query = nn.Linear(4, 2) end
function SA:forward(x)
    local q = self.W_query(x)
    return q
end
local out = SA()(inputs)
return out]], "=stdin", "t"))
        local ok, err = pcall(f)
        assert.is_false(ok)
        assert.are.equal("stdin:4: Linear: expected an input whose last dim is in_features = 4, got shape [6, 3]", err)
    end)

    it("an error in a function the user passes to a layer keeps its own line", function()
        local f = assert(load([[
local sl = nn.SublayerConnection(3, 0.0)
local out = sl(inputs, function(y)
    return y:matmul(torch.ones(4, 4))
end)
return out]], "=stdin", "t"))
        local ok, err = pcall(f)
        assert.is_false(ok)
        assert.are.equal("stdin:3: matmul: cannot multiply [6, 3] by [4, 4] (3 ≠ 4)", err)
    end)

    it("called through the user's pcall, the message has no position, as Lua's own errors", function()
        local ok, err = pcall(nn.Linear, 3)
        assert.is_false(ok)
        assert.are.equal("Linear: out_features must be a positive integer, got nil", err)
        ok, err = pcall(attention.scores, _G.inputs)
        assert.are.equal("attention.scores: k must be a tensor, got no value", err)
    end)

    it("errors.call passes Ctrl-C's 'interrupted' and error objects through unchanged", function()
        local ok, err = pcall(errors.call, "X", function() error("interrupted", 0) end)
        assert.are.equal("interrupted", err)
        local obj = setmetatable({}, {__tostring = function() return "obj" end})
        ok, err = pcall(errors.call, "X", function() error(obj) end)
        assert.are.equal(obj, err)
    end)
end)
