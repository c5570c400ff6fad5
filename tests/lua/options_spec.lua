-- Keyword options: every options table is checked against the options the function knows
-- (src/bind/args.c's lt_check_options for the bindings, src/lua/options.lua for the library), with
-- "did you mean" for a near miss; PyTorch's aliases are taken, not dropped. And a method called with
-- '.' instead of ':' is named as such (errors.explain). The values PyTorch computes with the aliases
-- and alpha are checked in dtype_spec.lua (tests/data/torch/dtypes.txt); here, the messages.
local torch, nn = torch, nn

local function fails(expected, f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok, "expected an error: " .. expected)
    assert(tostring(err):find(expected, 1, true), "expected «" .. expected .. "», got «" .. tostring(err) .. "»")
end

describe("options tables of the bindings", function()
    local x = torch.ones(2, 3)
    local b = torch.tensor{1.5, 2, 3}

    it("refuse a misspelt option, with the nearest name", function()
        fails("mean: unknown option 'dims' (did you mean 'dim'?)", function() return x:mean{dims = 1} end)
        fails("sum: unknown option 'keepdmi' (did you mean 'keepdim'?)", function() return x:sum{dim = 1, keepdmi = true} end)
        fails("ones: unknown option 'dtpye' (did you mean 'dtype'?)", torch.ones, 2, {dtpye = torch.int64})
        fails("tril: unknown option 'diag' (did you mean 'diagonal'?)", torch.tril, x, {diag = 1})
        fails("topk: unknown option 'Largest' (did you mean 'largest'?)", torch.topk, b, 1, {Largest = false})
        fails("layer_norm: unknown option 'epsilon' (did you mean 'eps'?)", torch.layer_norm, x, {3}, {epsilon = 1e-6})
        fails("layer_norm: unknown option 'momentum' (the options are: normalized_shape, weight, bias, eps)",
              torch.layer_norm, x, {3}, {momentum = 0.1})
        fails("var: unknown option 'ddof' (the options are: dim, unbiased, correction, keepdim)",
              function() return x:var{ddof = 0} end)
        fails("dropout: unknown option 'training' (did you mean 'train'?)", torch.dropout, x, {p = 0.5, training = false})
        fails("attention.softmax: unknown option 'axes' (did you mean 'axis'?)", attention.softmax, x, {axes = 1})
    end)

    it("refuse options a function does not take", function()
        fails("mul: unknown option 'alpha' (mul takes no options)", function() return x:mul(b, {alpha = 2}) end)
        fails("div: unknown option 'rounding_mode' (div takes no options)", torch.div, x, b, {rounding_mode = "floor"})
    end)

    it("refuse keys that are not names, and an option given with its alias too", function()
        fails("softmax: options are given by name, as {dim = 1}; got the key 3", torch.softmax, x, {dim = 1, [3] = 2})
        fails("sum: give dim or its alias axis, not both", function() return x:sum{dim = 1, axis = 1} end)
        fails("sum: give keepdim or its alias keepdims, not both",
              function() return x:sum{dim = 1, keepdim = true, keepdims = true} end)
    end)

    it("take PyTorch's aliases and alpha instead of dropping them", function()
        local s = x:sum{dim = 2, keepdims = true}
        assert.are.same({2, 1}, {s.shape[1], s.shape[2]})
        assert.are.equal(1, x:sum{axis = 1}.ndim)
        assert.are.same({{4, 5, 7}, {4, 5, 7}}, x:add(b, {alpha = 2}):tolist())
        assert.are.same({{-2, -3, -5}, {-2, -3, -5}}, torch.sub(x, b, {alpha = 2}):tolist())
        local y = x:clone()
        y:sub_(b, {alpha = 1})
        assert.are.same({{-0.5, -1, -2}, {-0.5, -1, -2}}, y:tolist())
        assert.are.equal(torch.int64, torch.eye(2, {dtype = torch.int64}).dtype)
        assert.are.equal(torch.bool, torch.zeros_like(x, {dtype = torch.bool}).dtype)
    end)

    it("alpha follows PyTorch's dtype rules", function()
        local i = torch.tensor{1, 2}
        fails("add: for integral input tensors, argument alpha must not be a floating point number", i.add, i, i,
              {alpha = 0.5})
        assert.are.same({7, 14}, i:add(i, {alpha = 6}):tolist())
        assert.are.same({math.mininteger + 1, 2}, torch.tensor{1, 2}:add(torch.tensor{math.mininteger, 0},
                                                                            {alpha = 1}):tolist())
        fails("add: alpha is supported for float32 and int64 results only", function()
            local t = torch.tensor{true}
            return t:add(t, {alpha = 2})
        end)
    end)
end)

describe("options tables of the Lua library", function()
    it("refuse a misspelt option, with the nearest name", function()
        fails("Linear: unknown option 'Bias' (did you mean 'bias'?)", nn.Linear, 3, 2, {Bias = false})
        fails("LayerNorm: unknown option 'epsilon' (did you mean 'eps'?)", nn.LayerNorm, 4, {epsilon = 1e-6})
        fails("LayerNorm: unknown option 'momentum' (the options are: eps, elementwise_affine, bias)",
              nn.LayerNorm, 4, {momentum = 0.1})
        fails("Embedding: unknown option 'padding_id' (did you mean 'padding_idx'?)", nn.Embedding, 5, 2,
              {padding_id = 1})
        fails("SublayerConnection: unknown option 'normfirst' (did you mean 'norm_first'?)", nn.SublayerConnection, 4, 0,
              {normfirst = true})
        fails("MultiHeadAttention: unknown option 'qkvbias' (did you mean 'qkv_bias'?)",
              nn.MultiHeadAttention, 3, 2, 6, 0.0, 2, {qkvbias = true})
        fails("lesson.check: unknown option 'tolerance' (did you mean 'tol'?)", lesson.check, "x", 1, 1,
              {tolerance = 0.1})
        fails("attention.heatmap: unknown option 'row' (did you mean 'rows'?)", attention.heatmap, torch.eye(2),
              {row = {"a", "b"}})
    end)

    it("keep accepting the options they know", function()
        assert.is_false(nn.Linear(3, 2, {bias = false}).bias)
        assert.are.equal(1e-6, nn.LayerNorm(4, {eps = 1e-6}).eps)
    end)
end)

describe("a method called with '.' instead of ':'", function()
    -- errors.explain runs in a message handler (the REPL's, main.c's): xpcall with one here
    local errors = require("attn.errors")
    local function explained(f)
        local ok, err = xpcall(f, function(e)
            local msg = errors.explain(errors.text(e)) -- not a tail call: explain counts the handler's frame
            return msg
        end)
        assert.is_false(ok)
        return err
    end

    it("on a module of the user's: m.forward(x) runs with self = x", function()
        local M = nn.Module:extend("M")
        function M:__init() self.W_query = nn.Linear(3, 2) end
        function M:forward(x) return self.W_query(x) end
        local m = M()
        local err = explained(function() local y = m.forward(torch.ones(2, 3)) return y end)
        assert.matches("forward was called with '%.' instead of ':' %(self is a tensor%): write m:forward%(%.%.%.%), "
                       .. "or m%(%.%.%.%) to call a module's forward", err)
        assert.matches("^[^%[]*options_spec%.lua:%d+: ", err) -- the user's line, not attn's
    end)

    it("on one of attn's layers: l.forward(nil, x) runs with self = nil", function()
        local l = nn.Linear(3, 2)
        local err = explained(function() local y = l.forward(nil, torch.ones(2, 3)) return y end)
        assert.matches("forward was called with '%.' instead of ':' %(self is nil%)", err)
        assert.is_nil(err:find("layers.lua", 1, true))
    end)

    it("leaves other errors alone", function()
        local l = nn.Linear(3, 2)
        local err = explained(function() local y = l:forward(torch.ones(2, 4)) return y end)
        assert.matches("Linear: expected an input whose last dim is in_features = 3", err)
        assert.is_nil(err:find("instead of", 1, true))
    end)
end)

describe("in-place writes into an expanded tensor", function()
    it("masked_fill_ and exponential_ refuse one, as add_ and copy_ do, and leave it unchanged", function()
        local e = torch.zeros(1):expand(3)
        fails("masked_fill_: more than one element of the written-to tensor refers to a single memory location",
              e.masked_fill_, e, torch.tensor{true, false, true}, 1)
        assert.are.same({0, 0, 0}, e:tolist()) -- the shared element used to show through: {1, 1, 1}
        fails("exponential_: more than one element of the written-to tensor refers to a single memory location",
              e.exponential_, e)
        fails("add_: more than one element", e.add_, e, 1)
    end)

    it("a tensor that is not expanded is filled as before", function()
        local t = torch.zeros(3)
        t:masked_fill_(torch.tensor{true, false, true}, 1)
        assert.are.same({1, 0, 1}, t:tolist())
        local m = torch.zeros(2, 3)
        m[1]:masked_fill_(torch.tensor{false, true, false}, 5) -- a view, but no element twice
        assert.are.same({{0, 5, 0}, {0, 0, 0}}, m:tolist())
    end)
end)

describe("torch.set_printoptions", function()
    it("refuses a misspelt option instead of printing as before", function()
        fails("set_printoptions: unknown option 'precison' (did you mean 'precision'?)", torch.set_printoptions,
              {precison = 2})
    end)
end)
