-- The fuzzer's second half (the first, fuzz_spec.lua, calls every public function): the surfaces that
-- learn and load, called as a careless or hostile user would — autograd (random ops on tensors that
-- require grad, then backward and torch.autograd.grad with random gradients, options and inputs, in-place
-- changes of saved tensors, a second backward), the optimizers (random parameter lists, options, groups,
-- closures, steps), the loaders (model folders whose config.json and weights are changed at random,
-- tokenizer.json files of random pieces, DataLoaders of random datasets and options) and the kernel's
-- requests (random messages handed to attn.kernel as src/cli/kernel.c hands them, after the wire has
-- checked their signature: its C half is scripts/fuzz_kernel.py's). Each call may raise a Lua error, none
-- may crash or hang. make test runs a small fixed-seed slice (also under ASan+UBSan); long runs:
-- scripts/fuzz.sh N, or ATTN_FUZZ_ITERS=20000 ATTN_FUZZ_SEED=7 ./attn /usr/bin/busted tests/lua/fuzz_learn_spec.lua
local torch, nn = torch, nn
local ITERS = tonumber(os.getenv("ATTN_FUZZ_ITERS")) or 10000
local SEED = tonumber(os.getenv("ATTN_FUZZ_SEED")) or 20261129
local DEADLINE = tonumber(os.getenv("ATTN_FUZZ_DEADLINE")) or 0.5 -- seconds per call
local testing = require("attn.bind").testing
local within = testing.call_within

local function pick(list) return list[math.random(1, #list)] end

local function random_shape()
    local s = {}
    for i = 1, math.random(0, 3) do s[i] = math.random(0, 3) end
    return s
end

local leaves, pool = {}, {}

local function random_value()
    local r = math.random(1, 20)
    if r <= 6 then return pick(leaves) end
    if r <= 9 then return pick(pool) end
    if r == 10 then return torch.rand(random_shape()) end
    if r == 11 then return math.random(-2, 3) end
    if r == 12 then return pick({0 / 0, math.huge, -math.huge, 1e300, 0.5, -0.0, 2 ^ 63, math.mininteger}) end
    if r == 13 then return pick({"x", true, false, {}, function() end, nn.Linear(2, 2)}) end
    if r == 14 then return torch.tensor(pick({1, 2.5, true})) end
    if r == 15 then return torch.ones(random_shape()):long() end
    if r == 16 then return {dim = math.random(-2, 2), keepdim = math.random() < 0.5, alpha = math.random(-2, 2)} end
    if r == 17 then return {retain_graph = math.random() < 0.5, create_graph = math.random() < 0.5,
                            allow_unused = math.random() < 0.5} end
    if r == 18 then return random_shape() end
    if r == 19 then return leaves end
    return nil
end

local function new_leaf()
    local t = torch.rand(random_shape())
    if math.random() < 0.2 then t = t:long() end -- refused: only float tensors require grad
    local ok = pcall(t.requires_grad_, t)
    return ok and t or torch.rand(2, 3):requires_grad_()
end

-- the public functions, as fuzz_spec.lua lists them: torch.*, the Tensor's methods, nn.functional
local function functions()
    local methods = require("attn.bind").methods
    local fns = {}
    for k, v in pairs(torch) do
        if type(v) == "function" and k ~= "set_printoptions" and k ~= "set_num_threads" then fns[#fns + 1] = {"torch." .. k, v} end
    end
    for k, v in pairs(methods) do fns[#fns + 1] = {"Tensor:" .. k, v} end
    for k, v in pairs(nn.functional) do
        if type(v) == "function" then fns[#fns + 1] = {"F." .. k, v} end
    end
    table.sort(fns, function(a, b) return a[1] < b[1] end)
    return fns
end

-- something done with a result that requires grad: a backward with a random gradient or options, the
-- gradient of it through torch.autograd.grad, an in-place change before the backward (the version
-- check), a second backward (the freed graph), .grad set to anything
local function use_graph(res)
    local r = math.random(1, 8)
    if r == 1 then return res:sum():backward() end
    if r == 2 then return res:backward(random_value(), random_value()) end
    if r == 3 then return torch.autograd.grad(res:sum(), pick({leaves, pick(leaves), random_value()}), random_value()) end
    if r == 4 then return torch.autograd.grad(random_value(), random_value(), random_value(), random_value()) end
    if r == 5 then
        local leaf = pick(leaves)
        pcall(function() leaf:add_(1) end)
        return res:sum():backward()
    end
    if r == 6 then
        local s = res:sum()
        s:backward({retain_graph = math.random() < 0.5})
        return s:backward()
    end
    if r == 7 then
        local leaf = pick(leaves)
        leaf.grad = random_value()
        return res:sum():backward()
    end
    return torch.no_grad(function() return res * 2 end):sum():backward()
end

local function random_options(keys)
    local o = {}
    for _ = 1, math.random(0, 4) do
        o[pick(keys)] = pick({0.1, -1, 0, 1e300, 0 / 0, true, false, "0.1", {0.9, 0.999}, {2, -1}, {}, 1e-8, math.maxinteger})
    end
    return o
end

local OPTIM_KEYS = {"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "betas", "eps", "amsgrad",
                    "foreach", "params", "lr_decay", 1, "capturable"}

local function random_params()
    local r = math.random(1, 6)
    if r == 1 then return {pick(leaves), pick(leaves)} end
    if r == 2 then return {{params = {pick(leaves)}, lr = pick({0.1, "x", -1})}, {params = {pick(leaves)}}} end
    if r == 3 then return {pick(pool)} end
    if r == 4 then return random_value() end
    if r == 5 then return {pick(leaves), random_value()} end
    return {new_leaf()}
end

describe("random autograd, optimizers, loaders and kernel requests", function()
    after_each(function() torch.set_grad_enabled(true) end)

    local function start()
        math.randomseed(SEED)
        torch.manual_seed(0)
        local statm = io.open("/proc/self/statm")
        local pages = statm and tonumber((statm:read("l") or ""):match("^%d+%s+(%d+)")) or 0
        if statm then statm:close() end
        testing.set_memory_cap(pages * 4096 + 1e9) -- 1 GB more than this process holds (fuzz_spec.lua says why)
        leaves = {}
        for i = 1, 6 do leaves[i] = new_leaf() end
        pool = {torch.ones(2, 3), torch.zeros(3), torch.rand(2, 2, 2)}
    end

    it(string.format("%d random ops on tensors that require grad, each followed by a backward (seed %d)", ITERS // 4,
                     SEED), function()
        start()
        local fns = functions()
        local errors, graphs = 0, 0
        for _ = 1, ITERS // 4 do
            local f = pick(fns)
            local args = {}
            local n = math.random(1, 3)
            for k = 1, n do args[k] = random_value() end
            if math.random() < 0.7 then args[1] = pick(leaves) end
            local ok, res = within(DEADLINE, f[2], table.unpack(args, 1, n))
            if not ok then
                errors = errors + 1
                assert.are.equal("string", type(res), f[1] .. " raised a non-string error")
            elseif torch.is_tensor(res) then
                local rg = select(2, pcall(function() return res.requires_grad end))
                if rg == true then
                    graphs = graphs + 1
                    local ok2, err = within(DEADLINE, use_graph, res)
                    if not ok2 then assert.are.equal("string", type(err), f[1] .. "'s backward raised a non-string error") end
                end
                if math.random() < 0.3 then pool[#pool < 30 and #pool + 1 or math.random(1, 30)] = res end
            end
            if math.random() < 0.05 then leaves[math.random(1, #leaves)] = new_leaf() end
        end
        testing.set_memory_cap(0)
        assert.is_true(graphs > 0 and errors > 0)
        -- and gradients are still right afterwards (a random call may have been torch.set_grad_enabled(false))
        torch.set_grad_enabled(true)
        local x = torch.tensor({1.0, 2.0, 3.0}):requires_grad_()
        ;(x * x):sum():backward()
        assert.are.equal("tensor([2., 4., 6.])", tostring(x.grad))
        print(string.format("# %d autograd calls, %d errors, %d graphs used", ITERS // 4, errors, graphs))
    end)

    it(string.format("%d optimizers with random parameters, options, groups and steps (seed %d)", ITERS // 10, SEED),
       function()
        start()
        local classes = {torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW}
        local made = 0
        for _ = 1, ITERS // 10 do
            local class = pick(classes)
            local ok, opt = within(DEADLINE, function(...) return class(...) end, random_params(),
                                   random_options(OPTIM_KEYS))
            if ok then
                made = made + 1
                for _ = 1, math.random(1, 4) do
                    local r = math.random(1, 7)
                    within(DEADLINE, function()
                        if r == 1 then
                            for _, g in ipairs(opt.param_groups) do
                                for _, p in ipairs(g.params) do p.grad = pick({torch.rand(p.shape), random_value()}) end
                            end
                            return opt:step()
                        elseif r == 2 then
                            return opt:step(pick({function() return random_value() end, random_value()}))
                        elseif r == 3 then
                            return opt:zero_grad(random_value())
                        elseif r == 4 then
                            opt.param_groups[1][pick(OPTIM_KEYS)] = random_value()
                            return opt:step()
                        elseif r == 5 then
                            return opt.step()
                        elseif r == 6 then
                            return opt:state_dict()
                        end
                        return opt:add_param_group(random_value())
                    end)
                end
            end
        end
        testing.set_memory_cap(0)
        assert.is_true(made > 0)
        print(string.format("# %d optimizers made, of %d tries", made, ITERS // 10))
    end)

    -- model folders: a small model of the tests' (tests/data/...), its config.json with keys set to random
    -- values, its weights with a byte flipped or cut short; tokenizer.json of random pieces
    local MODELS = {{"tests/data/gpt2/tiny", function(d) return gpt.GPTModel.from_pretrained(d) end},
                    {"tests/data/hf_models/qwen3-f32", function(d) return qwen3.Qwen3Model.from_pretrained(d) end},
                    {"tests/data/hf_models/llama3-f32", function(d) return llama.Llama3Model.from_pretrained(d) end}}
    local CONFIG_VALUES = {"0", "-1", "1e9", "1e300", "2.5", "\"x\"", "null", "true", "[]", "{}", "[1,2]", "9007199254740993",
                           "-0.0", "3", "64", "\"\\u0000\""}
    local TOKENIZER_PIECES = {"{", "}", "[", "]", ",", ":", "\"model\"", "\"type\"", "\"BPE\"", "\"WordLevel\"", "\"vocab\"",
                              "\"merges\"", "\"a b\"", "\"a\"", "\"b\"", "\"ab\"", "0", "1", "-1", "4194304", "1e300",
                              "\"added_tokens\"", "\"id\"", "\"content\"", "\"pre_tokenizer\"", "\"ByteLevel\"",
                              "\"Split\"", "\"pattern\"", "\"Regex\"", "\"(\"", "\"decoder\"", "\"normalizer\"", "null",
                              "\"byte_fallback\"", "true", "\"\\u0000\"", "\"\\ud800\""}

    local function read(path)
        local f = assert(io.open(path, "rb"))
        local s = f:read("a")
        f:close()
        return s
    end
    local function write(path, s)
        local f = assert(io.open(path, "wb"))
        f:write(s)
        f:close()
    end

    local function mutated_config(text)
        return (text:gsub("(\"[%w_]+\"%s*:%s*)([^,\n}]+)", function(key, value)
            if math.random() < 0.05 then return key .. pick(CONFIG_VALUES) end
            return key .. value
        end))
    end

    local function mutated_weights(bytes)
        local r = math.random(1, 3)
        if r == 1 then return bytes end
        if r == 2 then return bytes:sub(1, math.random(0, #bytes)) end
        local i = math.random(1, #bytes)
        return bytes:sub(1, i - 1) .. string.char(math.random(0, 255)) .. bytes:sub(i + 1)
    end

    local function random_dataset()
        local r = math.random(1, 5)
        if r == 1 then
            local d = {}
            for i = 1, math.random(0, 5) do d[i] = torch.rand(random_shape()) end
            return d
        end
        if r == 2 then
            local d = {}
            for i = 1, math.random(0, 5) do d[i] = {torch.rand(2), math.random(0, 3)} end
            return d
        end
        if r == 3 then return setmetatable({}, {__len = function() return math.random(-1, 4) end,
                                                __index = function(_, i) return i % 2 == 0 and torch.ones(2) or "x" end}) end
        if r == 4 then return {1, 2.5, true, {}} end
        return random_value()
    end
    local LOADER_KEYS = {"batch_size", "shuffle", "drop_last", "generator", "num_workers", "sampler", "collate_fn"}

    it(string.format("%d loads of changed model folders, tokenizer files and datasets (seed %d)", ITERS // 20, SEED),
       function()
        start()
        local dir = io.open("/dev/shm", "r") and "/dev/shm" or (os.getenv("TMPDIR") or "/tmp")
        local root = string.format("%s/attn_fuzz_learn_%d", dir, math.random(1, 1e9))
        local folder = root .. "-model"
        assert(os.execute("mkdir -p '" .. folder .. "'"))
        local originals = {}
        for i, m in ipairs(MODELS) do
            originals[i] = {config = read(m[1] .. "/config.json"), weights = read(m[1] .. "/model.safetensors")}
        end
        local loaded = 0
        for _ = 1, ITERS // 20 do
            local r = math.random(1, 4)
            if r == 1 then
                local i = math.random(1, #MODELS)
                write(folder .. "/config.json", mutated_config(originals[i].config))
                write(folder .. "/model.safetensors", mutated_weights(originals[i].weights))
                if within(DEADLINE * 4, MODELS[i][2], folder) then loaded = loaded + 1 end
                within(DEADLINE * 4, pick(MODELS)[2], folder) -- another family's loader on these files
            elseif r == 2 then
                local parts = {}
                for k = 1, math.random(0, 30) do parts[k] = pick(TOKENIZER_PIECES) end
                write(folder .. "/tokenizer.json", table.concat(parts))
                local ok, tok = within(DEADLINE * 4, tokenizers.Tokenizer.from_file, folder .. "/tokenizer.json")
                if ok then
                    loaded = loaded + 1
                    within(DEADLINE, tok.encode, tok, pick({"ab", "a b", "\255", ""}))
                    within(DEADLINE, tok.decode, tok, pick({{0, 1}, {4194304}, {-1}, {{}}, "x"}))
                end
            elseif r == 3 then
                within(DEADLINE, pick({safetensors.load_file, safetensors.torch_load}),
                       pick({folder .. "/model.safetensors", folder .. "/config.json", folder, "", random_value()}))
            else
                within(DEADLINE, function()
                    local loader = torch.utils.data.DataLoader(random_dataset(), random_options(LOADER_KEYS))
                    local n = 0
                    for x in loader do
                        n = n + 1
                        if n > 10 then break end
                    end
                    return loader[pick({1, 0, "batch_size"})]
                end)
            end
        end
        os.execute("rm -rf '" .. folder .. "'")
        testing.set_memory_cap(0)
        print(string.format("# %d loads, %d loaded", ITERS // 20, loaded))
    end)

    -- the kernel's requests as attn.kernel receives them from src/cli/kernel.c (decoded JSON, after the
    -- signature check), with the C wire replaced by a recorder: random types, channels and contents
    local REQUEST_TYPES = {"execute_request", "complete_request", "inspect_request", "is_complete_request",
                           "kernel_info_request", "history_request", "comm_info_request", "interrupt_request",
                           "shutdown_request", "nonsense_request", "", "execute_reply"}
    local CODE_PIECES = {"1 + 1", "local a = 1\n", "a", "error('x')", "torch.ones(2)", "torch.ones(2) +", "=2", "\255",
                         "for i = 1, 3 do end", "return", "x_fuzz_kernel = 1\n", "x_fuzz_kernel", "(", "\n", "--[[",
                         "torch.rand(2, 2):softmax(1)", "string.rep('x', 3)", "é", "\0"}

    local function random_content()
        local c = {}
        for _ = 1, math.random(0, 5) do
            local k = pick({"code", "cursor_pos", "silent", "store_history", "allow_stdin", "stop_on_error", "restart",
                            "detail_level", "user_expressions"})
            local code = {}
            for i = 1, math.random(0, 4) do code[i] = pick(CODE_PIECES) end
            c[k] = pick({table.concat(code), table.concat(code), math.random(-5, 50), true, false, {}, 2 ^ 63, 0 / 0})
        end
        c.allow_stdin = false -- io.read in a cell would ask the recorder
        return c
    end

    it(string.format("%d random kernel requests (seed %d)", ITERS // 10, SEED), function()
        start()
        local sent = 0
        local wire = {version = "fuzz", log = function() end, hold_queued = function() end,
                      send = function(channel, msg_type, content) sent = sent + 1 return true end,
                      input = function() return nil end, take = function() return "", "" end,
                      run = function(f, ...) return pcall(f, ...) end}
        local saved = {}
        for _, name in ipairs({"attn.kernel", "attn.kernel.wire", "attn.json", "attn.kernel.execute",
                               "attn.kernel.introspect", "attn.kernel.output", "attn.kernel.display"}) do
            saved[name] = package.loaded[name]
            package.loaded[name] = nil
        end
        package.loaded["attn.kernel.wire"] = wire
        package.loaded["attn.json"] = package.loaded["attn.json"] or {array = function(t) return t end}
        local repl = require("attn.repl")
        local chunkname = repl.chunkname
        local ok, err = pcall(function()
            local kernel = require("attn.kernel")
            for _ = 1, ITERS // 10 do
                local msg = {channel = pick({"shell", "control", "stdin", "iopub", "x"}), ids = {"id"},
                             header = pick({{msg_type = pick(REQUEST_TYPES), msg_id = "m"}, {}, "x", {msg_type = 5}}),
                             parent_header = {}, metadata = pick({{}, "x"}), content = pick({random_content(), {}}),
                             content_has_nul = math.random() < 0.1}
                local ok2, res = within(DEADLINE * 2, pick({kernel.handle, kernel.abort}), msg)
                if not ok2 then assert.are.equal("string", type(res)) end
            end
        end)
        repl.chunkname = chunkname
        for name, v in pairs(saved) do package.loaded[name] = v end
        package.loaded["attn.kernel.wire"], x_fuzz_kernel = saved["attn.kernel.wire"], nil
        testing.set_memory_cap(0)
        assert(ok, err)
        assert.is_true(sent > 0)
        print(string.format("# %d kernel requests, %d messages sent", ITERS // 10, sent))
    end)
end)
