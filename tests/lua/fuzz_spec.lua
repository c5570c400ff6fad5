-- Nothing a user types may crash attn: every public function, indexing and operator called with
-- random arguments (tensors of odd shapes, transposed, narrowed and expanded views, bool masks,
-- nan/inf/huge numbers, the integers at the edges of int32, int64 and float's exact range, huge shapes,
-- strings, tables, functions, modules), and in-place methods on views that overlap themselves or their
-- source. Each call may raise a Lua error; none may crash the process (a crash kills this whole suite,
-- which the runner counts as a failure). Every call runs under a deadline (bind.testing.call_within):
-- a call that computes for long (a sum over 2^40 expanded elements) is stopped as Ctrl-C would stop it;
-- one that ignores the stop hangs, and scripts/fuzz.sh's timeout reports it. Random shapes may ask for
-- any size: attn's memory is capped at 1 GB here, so the fuzzer never takes the shared machine's.
-- make test runs a fixed-seed slice, also under ASan+UBSan. Long runs: scripts/fuzz.sh N, or
--   ATTN_FUZZ_ITERS=200000 ATTN_FUZZ_SEED=7 ./attn /usr/bin/busted tests/lua/fuzz_spec.lua
local torch, nn = torch, nn
local ITERS = tonumber(os.getenv("ATTN_FUZZ_ITERS")) or 10000
local SEED = tonumber(os.getenv("ATTN_FUZZ_SEED")) or 20261122
local DEADLINE = tonumber(os.getenv("ATTN_FUZZ_DEADLINE")) or 0.5 -- seconds per call
local testing = require("attn.bind").testing

local function public_functions()
    local methods = require("attn.bind").methods
    local fns = {}
    -- torch.save writes where it is told: a random string ("x") became a file in the working directory (the
    -- checkout); the files part below saves into a folder of its own
    for k, v in pairs(torch) do
        if type(v) == "function" and k ~= "set_printoptions" and k ~= "save" then fns[#fns + 1] = {"torch." .. k, v} end
    end
    for k, v in pairs(methods) do fns[#fns + 1] = {"Tensor:" .. k, v} end
    for k, v in pairs(nn) do
        if type(v) == "function" then fns[#fns + 1] = {"nn." .. k, v} end
    end
    for k, v in pairs(attention) do
        if type(v) == "function" and k ~= "heatmap" then fns[#fns + 1] = {"attention." .. k, v} end
    end
    -- attention.heatmap prints what it draws: call the drawing itself, which returns the text
    fns[#fns + 1] = {"attention.heatmap (render)", require("attn.draw.heatmap").render}
    table.sort(fns, function(a, b) return a[1] < b[1] end)
    return fns
end

-- The integers where sizes, counts and offsets overflow: 0, -1, 2^31, 2^32, 2^53, 2^62, the largest and
-- smallest int64, and their neighbours.
local EDGES = {0, 1, -1, 2 ^ 31, 2 ^ 32, 2 ^ 53, 2 ^ 62, math.maxinteger, math.mininteger}
local function edge_integer()
    local v = EDGES[math.random(1, #EDGES)]
    v = math.tointeger(v) or math.maxinteger
    local near = math.random(-2, 2)
    if (near > 0 and v > math.maxinteger - near) or (near < 0 and v < math.mininteger - near) then near = 0 end
    v = v + near
    if math.random() < 0.2 then return v + 0.0 end -- the same as a float
    return v
end

local function random_shape()
    local s = {}
    for i = 1, math.random(0, 4) do s[i] = math.random(0, 4) end
    return s
end

-- A shape with one or two sizes at an edge: mostly refused, sometimes a huge view.
local function huge_shape()
    local s = random_shape()
    s[math.random(1, #s + 1)] = edge_integer()
    if math.random() < 0.3 then s[math.random(1, #s)] = edge_integer() end
    return s
end

local pool = {}

-- A view of a pool tensor that overlaps itself or other tensors: expanded (stride 0), narrowed, the
-- transpose, a slice that shares part of the tensor's memory.
local function overlapping_view()
    local t = pool[math.random(1, #pool)]
    local ok, v = pcall(function()
        local r = math.random(1, 5)
        if r == 1 then return torch.ones(1):expand(({3, 2 ^ 20, 2 ^ 40, edge_integer()})[math.random(1, 4)]) end
        if r == 2 and t.ndim >= 1 then
            local n = t.shape[1]
            local start = math.random(1, math.max(n, 1))
            return t:narrow(1, start, math.random(0, n - start + 1))
        end
        if r == 3 and t.ndim >= 2 then return t:transpose(1, 2) end
        if r == 4 and t.ndim >= 1 then return t:unsqueeze(1):expand(math.random(1, 3), table.unpack(t.shape)) end
        return t
    end)
    return ok and v or t
end

-- An options table: names the functions know, PyTorch's aliases, near misses, names of
-- nothing, keys that are not names, with random values.
local OPTION_NAMES = {"dim", "axis", "keepdim", "keepdims", "dims", "Keepdim", "alpha", "dtype", "dtpye", "diagonal",
                      "diag", "p", "train", "training", "rtol", "atol", "k", "largest", "sorted", "num_samples",
                      "replacement", "unbiased", "correction", "approximate", "causal", "scale", "bias", "Bias", "eps",
                      "weight", "normalized_shape", "from", "to", "mean", "std", "x", "", "\0", "a.b", 1, 2.5, true}
local function random_options(value)
    local o = {}
    for _ = 1, math.random(0, 3) do
        local k = OPTION_NAMES[math.random(1, #OPTION_NAMES)]
        if math.type(k) == "integer" and k == 1 then k = 3 end -- [1] would make it a list, not options
        o[k] = value()
    end
    return o
end

local function random_value()
    local r = math.random(1, 28)
    if r == 28 then return random_options(function() return ({1, -1, 2, true, false, 0.5, "tanh", torch.int64,
                                                              torch.bool, 0 / 0})[math.random(1, 10)] end) end
    if r <= 6 then
        local t = torch.rand(random_shape())
        if math.random() < 0.2 then t = t:gt(0.5) end
        if math.random() < 0.2 and t.ndim >= 2 then t = t:transpose(1, t.ndim) end
        return t
    end
    if r == 7 then return math.random(-3, 5) end
    if r == 8 then return ({0 / 0, math.huge, -math.huge, 1e300, -1e18, 2 ^ 53, 0.5, -0.0, 1e-40})[math.random(1, 9)] end
    if r == 9 then return "x" end
    if r == 10 then return nil end
    if r == 11 then return true end
    if r == 12 then return random_shape() end
    if r == 13 then return {dim = math.random(-3, 3), keepdim = math.random() < 0.5, diagonal = math.random(-2, 2)} end
    if r == 14 then return {torch.rand(2), torch.rand(2)} end
    if r == 15 then return torch.Size(random_shape()) end
    if r == 16 then return torch.tensor(math.random()) end
    if r == 17 then return {} end
    if r == 18 then return {{1, 2}, {3}} end
    if r == 19 then return torch.ones(3, 3):bool() end
    if r == 20 then return function() end end
    if r == 21 then return nn.Linear(2, 2) end
    if r == 22 or r == 23 then return edge_integer() end
    if r == 24 then return huge_shape() end
    if r == 25 then return overlapping_view() end
    if r == 26 then return {dim = edge_integer(), diagonal = edge_integer()} end
    return pool[math.random(1, #pool)]
end

-- The in-place methods (their names end in "_"), called on overlapping views with overlapping sources.
local function inplace_methods()
    local names = {}
    for k, v in pairs(require("attn.bind").methods) do
        if type(v) == "function" and k:match("_$") then names[#names + 1] = k end
    end
    table.sort(names)
    return names
end

describe("random calls", function()
    -- a random call may be torch.set_grad_enabled(false) or an unclosed torch.no_grad(): gradients are
    -- switched back on after each test, so the specs after this one see the default grad mode
    after_each(function() torch.set_grad_enabled(true) end)
    it(string.format("%d calls with random arguments raise errors, never crash (seed %d)", ITERS, SEED), function()
        math.randomseed(SEED)
        torch.manual_seed(0)
        -- 1 GB more than this process holds now: the cap counts resident memory, and by the time the
        -- whole suite reaches this file under ASan (its shadow memory and quarantine) it holds over 1 GB
        local statm = io.open("/proc/self/statm")
        local pages = statm and tonumber((statm:read("l") or ""):match("^%d+%s+(%d+)")) or 0
        if statm then statm:close() end
        testing.set_memory_cap(pages * 4096 + 1e9)
        pool = {torch.ones(2, 3), torch.zeros(3), torch.rand(2, 2, 2)}
        local fns = public_functions()
        local inplace = inplace_methods()
        local within = testing.call_within
        local errors, stopped = 0, 0
        for _ = 1, ITERS do
            local f = fns[math.random(1, #fns)]
            local n = math.random(0, 4)
            local args = {}
            for k = 1, n do args[k] = random_value() end
            local ok, res = within(DEADLINE, f[2], table.unpack(args, 1, n))
            if not ok then
                errors = errors + 1
                assert.are.equal("string", type(res), f[1] .. " raised a non-string error")
                if res:match("interrupted") then stopped = stopped + 1 end
            elseif torch.is_tensor(res) and math.random() < 0.3 then
                pool[#pool < 50 and #pool + 1 or math.random(1, 50)] = res
                assert.are.equal("string", type(select(2, within(DEADLINE, tostring, res)) or ""))
            end
            -- an in-place method on a view that may overlap itself, with a source that may overlap it
            local name = inplace[math.random(1, #inplace)]
            local view = overlapping_view()
            within(DEADLINE, function() return view[name](view, math.random() < 0.5 and overlapping_view() or random_value(),
                                                          random_value()) end)
            local t = pool[math.random(1, #pool)]
            within(DEADLINE, function() return t[random_value()] end)
            within(DEADLINE, function() t[random_value()] = random_value() end)
            within(DEADLINE, function() return t + random_value(), random_value() * t, t ^ random_value(), -t, #t, t .. "" end)
        end
        testing.set_memory_cap(0)
        assert.is_true(errors > 0 and errors < ITERS)
        torch.set_bernoulli_flavor("mkl")
        -- and attn still computes the book's numbers afterwards
        local x = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}}
        assert.are.equal("tensor([0.9544, 1.4950])", tostring(x:matmul(torch.tensor{0.55, 0.87, 0.66})))
        print(string.format("# %d calls, %d errors, %d stopped at the %g s deadline", ITERS, errors, stopped, DEADLINE))
    end)

    -- The Lua library's constructors with random options tables (their sizes small and fixed): a
    -- misspelt or unknown option is an error, never ignored, never a crash.
    it(string.format("%d library constructors with random options tables (seed %d)", ITERS // 10, SEED), function()
        math.randomseed(SEED)
        local makers = {
            function(o) return nn.Linear(3, 2, o) end, function(o) return nn.LayerNorm(4, o) end,
            function(o) return nn.Embedding(5, 2, o) end, function(o) return nn.GELU(o) end,
            function(o) return nn.PositionwiseFFN(4, 8, 0.0, o) end, function(o) return nn.SublayerConnection(4, 0.0, o) end,
            function(o) return nn.MultiHeadAttention(3, 2, 6, 0.0, 2, o) end,
            function(o) return nn.BERTEmbedding(10, 4, o) end,
            function(o) return attention.fused(torch.rand(2, 3), torch.rand(2, 3), torch.rand(2, 3), o) end,
            function(o) return torch.rand(2, 3):sum(o) end, function(o) return torch.rand(2, 3):add(torch.rand(3), o) end,
        }
        local refused = 0
        for _ = 1, ITERS // 10 do
            local o = random_options(random_value)
            local ok, err = testing.call_within(DEADLINE, makers[math.random(1, #makers)], o)
            if not ok then
                refused = refused + 1
                assert.are.equal("string", type(err))
            end
        end
        assert.is_true(refused > 0)
    end)

    -- GPT-2's tokenizer on random text: random bytes (refused unless UTF-8), long words of one letter or
    -- of many (the merge loop was quadratic), digits, spaces, special tokens' pieces; what is encoded
    -- decodes back to the text. Needs the vocabulary (tests/run.sh points ATTN_TIKTOKEN_DIR at it).
    local have_vocab, enc = pcall(tiktoken.get_encoding, "gpt2")
    local tokenizer_test = have_vocab and it or pending
    tokenizer_test(string.format("%d random texts through GPT-2's tokenizer (seed %d)", ITERS // 20, SEED), function()
        math.randomseed(SEED)
        local pieces = {"a", "ab", "é", "日本", " ", "  ", "\n", "\t", "'s", "'ll", "1", "12", "<|endoftext|>", "<|", "|>",
                        "!", "?!", "\u{1F600}", "\xe6", "\xff", "\0", "\r\n", string.rep("z", math.random(100, 3000))}
        local encoded = 0
        for _ = 1, ITERS // 20 do
            local parts = {}
            for i = 1, math.random(0, 12) do
                parts[i] = math.random() < 0.2 and string.char(math.random(0, 255)) or pieces[math.random(1, #pieces)]
            end
            local text = table.concat(parts)
            local ok, ids = testing.call_within(DEADLINE * 4, enc.encode, enc, text,
                                                math.random() < 0.5 and {allowed_special = "all"} or nil)
            if ok then
                encoded = encoded + 1
                assert.are.equal(text, enc:decode_bytes(ids))
            else
                assert.are.equal("string", type(ids))
                assert.is_nil(ids:find("interrupted", 1, true), "the tokenizer took over the deadline on " .. #text
                              .. " bytes")
            end
        end
        assert.is_true(encoded > 0)
    end)
end)

-- The files and notes: safetensors names (NUL bytes, invalid UTF-8, the reserved __metadata__, long
-- ones) through save_file and back through load_file, bytes of a saved file flipped before loading,
-- notes in Markdown (verify/blocks.lua's reading and rewrite.lua's --update of random text), and the
-- restricted globals of --verify's notes (verify/sandbox.lua) called with random arguments: each may
-- raise a Lua error, none may crash; a restricted call never writes a file or runs a program.
local function random_name()
    local parts = {"a", "w", "\0", "\255", "é", "__metadata__", "", ".", "/", "\n", string.rep("x", 300), "\xed\xa0\x80"}
    local s = {}
    for k = 1, math.random(0, 3) do s[k] = parts[math.random(1, #parts)] end
    return table.concat(s)
end

local function random_markdown()
    local parts = {"```lua\n", "```output\n", "```\n", "~~~lua\n", "print(1)\n", "1\n", "> ", "- ", "  ", "\r\n",
                   "\0", "\255", "\239\187\191", "```lua skip\n", "```output unchecked\n", "text\n", "\n"}
    local s = {}
    for k = 1, math.random(0, 12) do s[k] = parts[math.random(1, #parts)] end
    return table.concat(s)
end

describe("random files and notes", function()
    it(string.format("%d calls on safetensors names, flipped files, notes and restricted globals (seed %d)", ITERS, SEED),
       function()
        math.randomseed(SEED)
        pool = pool or {torch.ones(2, 3), torch.zeros(3)} -- random_value's (the test above makes it too)
        local within = testing.call_within
        local dir = io.open("/dev/shm", "r") and "/dev/shm" or (os.getenv("TMPDIR") or "/tmp")
        local path = string.format("%s/attn_fuzz_%d.safetensors", dir, math.random(1, 1e9))
        local notes_dir = dir .. "/attn_fuzz_notes_" .. math.random(1, 1e9)
        local blocks, rewrite = require("attn.verify.blocks"), require("attn.verify.rewrite")
        local sandbox = require("attn.verify.sandbox")
        local env = sandbox.env(notes_dir .. "/n.md", false, function() end)
        -- the notes' confinement of reads (and a ban on writes) only around the restricted calls: this
        -- process goes on to other specs, and the safetensors calls here read and write outside
        sandbox.release()
        local restricted = {}
        for _, lib in ipairs({"io", "os"}) do
            for k, v in pairs(env[lib]) do
                if type(v) == "function" and k ~= "write" then restricted[#restricted + 1] = v end
            end
        end
        for _, k in ipairs({"load", "loadfile", "dofile", "require", "print"}) do restricted[#restricted + 1] = env[k] end
        local calls = 0
        for i = 1, ITERS do
            local r = math.random(1, 10)
            if r == 1 and i % 10 == 0 then -- a save and a load: file system work, one call in a hundred
                local t = {}
                for _ = 1, math.random(0, 3) do t[random_name()] = random_value() end
                local meta = math.random() < 0.3 and {[random_name()] = random_name()} or nil
                if within(DEADLINE, safetensors.save_file, t, path, meta) then
                    within(DEADLINE, safetensors.load_file, path)
                    local f = io.open(path, "r+b")
                    if f then -- a byte flipped somewhere
                        local size = f:seek("end")
                        if size > 0 then
                            f:seek("set", math.random(0, size - 1))
                            f:write(string.char(math.random(0, 255)))
                        end
                        f:close()
                        within(DEADLINE, safetensors.load_file, path)
                    end
                end
            elseif r <= 4 then
                local md = random_markdown()
                local ok, notes = within(DEADLINE, blocks.read, md)
                if ok and notes then
                    local outputs = {}
                    for k in ipairs(notes.cells or {}) do
                        if math.random() < 0.5 then outputs[k] = random_markdown() end
                    end
                    within(DEADLINE, rewrite.apply, notes, outputs)
                end
            else
                local f = restricted[math.random(1, #restricted)]
                local args = {}
                for k = 1, math.random(0, 3) do
                    args[k] = math.random() < 0.5 and random_name() or random_value()
                end
                sandbox.confine(notes_dir .. "/n.md")
                within(DEADLINE, f, table.unpack(args))
                sandbox.release()
            end
            calls = calls + 1
        end
        os.remove(path)
        assert.is_nil(io.open(notes_dir, "r")) -- nothing made where the notes would be
        assert.are.equal(ITERS, calls)
        print(string.format("# %d calls on files and notes", calls))
    end)
end)
