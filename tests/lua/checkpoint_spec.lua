-- The end of chapter 5: m:state_dict(), m:load_state_dict(), the optimizer's state, torch.save and
-- torch.load (safetensors files), and torch.bincount. Expected values: tests/data/torch/checkpoint.txt,
-- made by scripts/torch_reference_checkpoint.py (Debian's PyTorch 1.13, OPENBLAS_CORETYPE=Haswell, one
-- thread). Run inside attn: ./attn /usr/bin/busted -o TAP tests/lua/checkpoint_spec.lua
local support = dofile("tests/lua/support.lua")
local R = support.case_file("checkpoint", assert)
local F = nn.functional

local CFG = {vocab_size = 50, context_length = 8, emb_dim = 16, n_heads = 2, n_layers = 2, drop_rate = 0.1,
             qkv_bias = false}

local function grad_on() torch.set_grad_enabled(true) end

local function tmp(name)
    return (os.getenv("TMPDIR") or "/tmp") .. "/attn_checkpoint_spec_" .. name
end

local function keys_of(d)
    local out = {}
    for k in pairs(d) do out[#out + 1] = k end
    return out
end

-- the error message of f(...), or fails
local function message(f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok, "expected an error")
    return tostring(err)
end

describe("m:state_dict()", function()
    before_each(grad_on)
    it("has PyTorch's keys, in PyTorch's order (the causal masks too), with PyTorch's seeded values", function()
        local c = R.cases.state_dict
        torch.manual_seed(123)
        local sd = gpt.GPTModel(CFG):state_dict()
        local want = {}
        for _, name in ipairs(c.order) do want[#want + 1] = name:sub(4) end
        assert.are.same(want, keys_of(sd))
        for _, k in ipairs(want) do R.check(c, "sd." .. k, sd[k]:float(), 0) end
    end)

    it("shares memory with the model, detached; keep_vars gives the parameters", function()
        local lin = nn.Linear(2, 3)
        local sd = lin:state_dict()
        assert.is_false(sd.weight.requires_grad)
        torch.no_grad(function() lin.weight:fill_(2) end)
        assert.are.equal(12, sd.weight:sum():item())
        assert.are.equal(lin.weight, lin:state_dict({keep_vars = true}).weight)
    end)

    it("leaves out a buffer registered with {persistent = false}; buffers() lists both", function()
        local M = nn.Module:extend("WithBuffers")
        function M:__init()
            self.lin = nn.Linear(2, 2)
            self:register_buffer("cos", torch.ones(3), {persistent = false})
            self:register_buffer("mask", torch.zeros(2))
        end
        local m = M()
        assert.are.same({"mask", "lin.weight", "lin.bias"}, keys_of(m:state_dict()))
        local names = {}
        for _, p in ipairs(m:named_buffers()) do names[#names + 1] = p[1] end
        assert.are.same({"cos", "mask"}, names)
        assert.are.equal(2, #m:buffers())
        assert.are.same({"mask", "lin.weight", "lin.bias"}, keys_of(nn.deepcopy(m):state_dict()))
        assert.matches("unknown option 'persist'", message(m.register_buffer, m, "x", torch.ones(1), {persist = false}))
    end)
end)

describe("Qwen3's state_dict", function()
    it("has the notebook's keys and shapes, without the RoPE tables (persistent=False there)", function()
        local c = R.cases.qwen3_keys
        local cfg = {}
        for _, k in ipairs({"vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "hidden_dim", "head_dim",
                            "n_kv_groups", "rope_base"}) do cfg[k] = tonumber(c[k]) end
        cfg.qk_norm = c.qk_norm == "True"
        local sd = qwen3.Qwen3Model(cfg):state_dict()
        local want = {}
        for _, name in ipairs(c.order) do want[#want + 1] = name:sub(5) end
        assert.are.same(want, keys_of(sd))
        for _, k in ipairs(want) do R.check(c, "key." .. k, torch.zeros_like(sd[k]), 0) end -- the shapes
    end)
end)

describe("m:load_state_dict()", function()
    before_each(grad_on)
    it("copies every tensor and says <All keys matched successfully>", function()
        torch.manual_seed(123)
        local a = gpt.GPTModel(CFG)
        local b = gpt.GPTModel(CFG)
        assert.are.equal("<All keys matched successfully>", tostring(b:load_state_dict(a:state_dict())))
        for i, p in ipairs(b:parameters()) do assert.is_true(torch.equal(p, a:parameters()[i])) end
        assert.is_true(b.out_head.weight.requires_grad) -- still a parameter
    end)

    it("refuses missing, unexpected and mis-shaped tensors in PyTorch's words, and copies nothing", function()
        local lin = nn.Linear(2, 3)
        local before = lin.weight:clone()
        local msg = message(lin.load_state_dict, lin, {weight = torch.zeros(3, 3), extra = torch.ones(1)})
        assert.matches("load_state_dict: Error(s) in loading state_dict for Linear:\n\t"
                       .. 'Missing key(s) in state_dict: "bias". \n\t'
                       .. 'Unexpected key(s) in state_dict: "extra". \n\t'
                       .. "size mismatch for weight: copying a param with shape torch.Size([3, 3]) from checkpoint, "
                       .. "the shape in current model is torch.Size([3, 2]).", msg, 1, true)
        assert.is_true(torch.equal(before, lin.weight))
        local r = lin:load_state_dict({weight = torch.ones(3, 2), extra = torch.ones(1)}, {strict = false})
        assert.are.same({"bias"}, r.missing_keys)
        assert.are.same({"extra"}, r.unexpected_keys)
        assert.are.equal("_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['extra'])", tostring(r))
        assert.are.equal(6, lin.weight:sum():item())
        assert.matches("expected a state dict", message(lin.load_state_dict, lin, lin))
        assert.matches('expected a tensor from checkpoint but received "w"',
                       message(lin.load_state_dict, lin, {weight = "w", bias = torch.zeros(3)}))
    end)
end)

-- the book's train step (train_model_simple's inner loop)
local function train_step(model, optimizer, ids, targets)
    optimizer:zero_grad()
    local loss = F.cross_entropy(model(ids):flatten(1, 2), targets:flatten())
    loss:backward()
    optimizer:step()
    return loss:detach()
end

describe("training resumed from torch.save and torch.load (the book's cells 123 and 124)", function()
    before_each(grad_on)
    local previous
    setup(function() previous = torch.set_bernoulli_flavor("default") end) -- Debian's torch has no MKL
    teardown(function() torch.set_bernoulli_flavor(previous) end)
    it("gives PyTorch's losses and weights, bit for bit, as the run without the pause does", function()
        local c = R.cases.resume
        local ids, targets = R.load(c, "ids") + 1, R.load(c, "targets") + 1 -- PyTorch's ids are 0-based
        -- without the pause
        torch.manual_seed(123)
        local model = gpt.GPTModel(CFG)
        local optimizer = torch.optim.AdamW(model:parameters(), {lr = 4e-4, weight_decay = 0.1})
        for k = 1, 3 do R.check(c, "straight." .. k, train_step(model, optimizer, ids, targets), 0) end
        torch.manual_seed(7)
        for k = 4, 6 do R.check(c, "straight." .. k, train_step(model, optimizer, ids, targets), 0) end
        -- with the book's save and load in between
        torch.manual_seed(123)
        model = gpt.GPTModel(CFG)
        optimizer = torch.optim.AdamW(model:parameters(), {lr = 4e-4, weight_decay = 0.1})
        for k = 1, 3 do R.check(c, "loss." .. k, train_step(model, optimizer, ids, targets), 0) end
        local path = tmp("model_and_optimizer.pth")
        torch.save({model_state_dict = model:state_dict(), optimizer_state_dict = optimizer:state_dict()}, path)
        local checkpoint = torch.load(path, {weights_only = true})
        os.remove(path)
        model = gpt.GPTModel(CFG)
        model:load_state_dict(checkpoint["model_state_dict"])
        optimizer = torch.optim.AdamW(model:parameters(), {lr = 0.0005, weight_decay = 0.1})
        optimizer:load_state_dict(checkpoint["optimizer_state_dict"])
        assert.are.equal(4e-4, optimizer.param_groups[1].lr) -- the saved learning rate, as PyTorch's
        model:train()
        torch.manual_seed(7)
        for k = 4, 6 do R.check(c, "loss." .. k, train_step(model, optimizer, ids, targets), 0) end
        R.check_params(c, model, 0)
    end)

    it("refuses an optimizer state that does not fit, with PyTorch's words", function()
        local a = nn.Linear(2, 2)
        local opt = torch.optim.Adam(a:parameters())
        local other = torch.optim.Adam({a.weight})
        assert.matches("doesn't match the size of optimizer's group", message(other.load_state_dict, other, opt:state_dict()))
        local two = torch.optim.Adam({{params = {a.weight}}, {params = {a.bias}}})
        assert.matches("different number of parameter groups", message(two.load_state_dict, two, opt:state_dict()))
        a.weight.grad, a.bias.grad = torch.ones(2, 2), torch.ones(2)
        opt:step()
        local sd = opt:state_dict()
        sd.state[1].exp_avg = torch.zeros(3)
        local fresh = torch.optim.Adam(nn.Linear(2, 2):parameters())
        assert.matches("state%[1%]%.exp_avg has shape %[3%], but its parameter has shape %[2, 2%]",
                       message(fresh.load_state_dict, fresh, sd))
    end)
end)

describe("torch.save and torch.load", function()
    it("give back numbers, strings, booleans and nested tables exactly, ordered tables in order", function()
        local path = tmp("values.pth")
        local sd = nn.Linear(2, 1):state_dict()
        local obj = {lr = 0.0005, n = 3, neg_zero = -0.0, big = math.huge, name = "a/b\tc%\n#", flag = false,
                     empty = {}, list = {0.9, 0.999}, [2] = "two", ["#3"] = 3, sd = sd,
                     ids = torch.tensor{{15496, 11}, {3, 4}}:t(), mask = torch.tensor{true, false}, step = torch.tensor(3.0)}
        torch.save(obj, path)
        local back = torch.load(path)
        os.remove(path)
        assert.are.equal("float", math.type(back.lr))
        assert.are.equal("integer", math.type(back.n))
        assert.are.equal(0.0005, back.lr)
        assert.is_true(torch.equal(obj.ids, back.ids)) -- a transposed view, written as its copy
        assert.are.equal(torch.int64, back.ids.dtype)
        assert.are.same({true, false}, back.mask:tolist())
        assert.are.equal("torch.Size([])", tostring(back.step.shape))
        assert.are.equal("-0.0", string.format("%.1f", back.neg_zero))
        assert.are.equal(math.huge, back.big)
        assert.are.equal(obj.name, back.name)
        assert.is_false(back.flag)
        assert.are.same({}, back.empty)
        assert.are.same({0.9, 0.999}, back.list)
        assert.are.equal("two", back[2])
        assert.are.equal(3, back["#3"])
        assert.are.same({"weight", "bias"}, keys_of(back.sd))
        assert.is_true(torch.equal(sd.weight, back.sd.weight))
    end)

    it("writes a safetensors file: a plain state dict under its own names, as Python's save_file does", function()
        local path = tmp("model.safetensors")
        local lin = nn.Linear(3, 2)
        torch.save(lin:state_dict(), path)
        local tensors, meta = safetensors.load_file(path)
        assert.are.same({"bias", "weight"}, (function() local k = keys_of(tensors) table.sort(k) return k end)())
        assert.is_string(meta["attn.torch.save.v1"])
        -- the header by the format's rules: 8 bytes of length, a JSON object of dtype, shape, data_offsets
        local f = assert(io.open(path, "rb"))
        local n = string.unpack("<I8", f:read(8))
        local header = f:read(n)
        f:close()
        os.remove(path)
        assert.matches('"weight":{"shape":%[2,3%],"dtype":"F32","data_offsets":%[%d+,%d+%]}', header)
        -- a file from elsewhere (safetensors.save_file, Python's save_file) loads as its table of tensors
        safetensors.save_file({w = torch.ones(2)}, path)
        assert.are.equal(2, torch.load(path).w:sum():item())
        os.remove(path)
    end)

    it("refuses a PyTorch pickle (.pth, a zip) with the Python that converts it, and what it cannot save", function()
        local path = tmp("model.pth")
        local f = assert(io.open(path, "wb"))
        f:write("PK\3\4" .. string.rep("\0", 60)) -- how a zip checkpoint begins
        f:close()
        local msg = message(torch.load, path)
        os.remove(path)
        assert.matches("does not read PyTorch's pickle checkpoints", msg, 1, true)
        assert.matches("from safetensors.torch import save_file", msg, 1, true)
        assert.matches("save its state_dict%(%)", message(torch.save, nn.Linear(1, 1), path))
        assert.matches("cannot save a function at f", message(torch.save, {f = print}, path))
        local loop = {}
        loop.me = loop
        assert.matches("contains itself", message(torch.save, loop, path))
        assert.matches("unknown option 'map_locaton'", message(torch.load, path, {map_locaton = "cpu"}))
    end)

    it("never writes over a file that is not safetensors (the student's PyTorch model.pth); over its own, yes", function()
        local path = tmp("own.pth")
        for _, old in ipairs({"PK\3\4" .. string.rep("\0", 60), "\128\2}q\0.", "my notes\n"}) do
            local f = assert(io.open(path, "wb"))
            f:write(old)
            f:close()
            for _, save in ipairs({torch.save, safetensors.save_file}) do
                local msg = message(save, {w = torch.ones(2)}, path)
                assert.matches("exists and is not a safetensors file: attn does not write over it", msg, 1, true)
                f = assert(io.open(path, "rb"))
                assert.equals(old, f:read("a")) -- untouched
                f:close()
            end
        end
        os.remove(path)
        torch.save({w = torch.ones(2)}, path)
        torch.save({w = torch.zeros(3)}, path) -- its own file: replaced, as PyTorch replaces it
        assert.equals(3, torch.load(path).w:numel())
        os.remove(path)
    end)
end)

describe("torch.bincount", function()
    for _, name in ipairs({"bincount_counts", "bincount_minlength", "bincount_weights", "bincount_weights_minlength"}) do
        it("gives PyTorch's result (" .. name .. "), bins counted from 1", function()
            local c = R.cases[name]
            local opts = {}
            if c.t.weights then opts.weights = R.load(c, "weights") end
            if c.t.minlength then opts.minlength = R.load(c, "minlength"):tolist()[1] end
            local got = torch.bincount(R.load(c, "input") + 1, opts) -- PyTorch's bins are 0-based
            if c.t.weights then R.check(c, "result", got, 0) else
                assert.are.same(support.flat(R.load(c, "result")), support.flat(got))
                assert.are.equal(torch.int64, got.dtype)
            end
        end)
    end

    it("refuses what PyTorch refuses, and bin 0", function()
        assert.matches("attn counts bins from 1", message(torch.bincount, torch.tensor{0, 1}))
        assert.matches("1%-d non%-negative integral inputs", message(torch.bincount, torch.tensor{{1}}))
        assert.matches("minlength should be >= 0", message(torch.bincount, torch.tensor{1}, {minlength = -1}))
        assert.matches("same length as input", message(torch.bincount, torch.tensor{1}, {weights = torch.ones(2)}))
        assert.matches("int64 tensor", message(torch.bincount, torch.tensor{1.5}))
        assert.are.same({0, 0, 0}, torch.bincount(torch.tensor({}, {dtype = torch.int64}), {minlength = 3}):tolist())
    end)

    it("counts the book's 1000 draws as print_sampled_tokens does (cell 94)", function()
        local c = R.cases.sampled
        local probas = torch.softmax(R.load(c, "logits"), 1)
        torch.manual_seed(123)
        local sample = {}
        for i = 1, 1000 do sample[i] = torch.multinomial(probas, 1):item() end
        local sampled_ids = torch.bincount(torch.tensor(sample), {minlength = probas:numel()})
        assert.are.same(support.flat(R.load(c, "counts")), support.flat(sampled_ids))
    end)
end)

describe("the book's cells 119 to 124, translated", function()
    before_each(grad_on)
    it("save the model, load it into a new one, save and load model and optimizer, train on", function()
        local model_pth, both_pth = tmp("model.pth"), tmp("model_and_optimizer.pth")
        torch.manual_seed(123)
        local model = gpt.GPTModel(CFG)
        local optimizer = torch.optim.AdamW(model:parameters(), {lr = 0.0004, weight_decay = 0.1})
        -- cell 119
        torch.save(model:state_dict(), model_pth)
        -- cell 121
        model = gpt.GPTModel(CFG)
        model:load_state_dict(torch.load(model_pth, {map_location = "cpu", weights_only = true}))
        model:eval()
        assert.is_false(model.training)
        -- cell 123
        torch.save({
            model_state_dict = model:state_dict(),
            optimizer_state_dict = optimizer:state_dict(),
        }, both_pth)
        -- cell 124
        local checkpoint = torch.load(both_pth, {weights_only = true})
        model = gpt.GPTModel(CFG)
        model:load_state_dict(checkpoint["model_state_dict"])
        optimizer = torch.optim.AdamW(model:parameters(), {lr = 0.0005, weight_decay = 0.1})
        optimizer:load_state_dict(checkpoint["optimizer_state_dict"])
        model:train()
        os.remove(model_pth)
        os.remove(both_pth)
        assert.is_true(model.training)
        R.check(R.cases.state_dict, "sd.out_head.weight", model.out_head.weight, 0)
    end)
end)
