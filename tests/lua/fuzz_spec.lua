-- Nothing a user types may crash attn: every public function, indexing and operator called with
-- random arguments (tensors of odd shapes, transposed views, bool masks, nan/inf/huge numbers,
-- strings, tables, functions, modules). Each call may raise a Lua error; none may crash the process
-- (a crash kills this whole suite, which the runner counts as a failure). make test runs it also
-- under ASan+UBSan. A longer run: ATTN_FUZZ_ITERS=200000 ./attn /usr/bin/busted tests/lua/fuzz_spec.lua
local torch, nn = torch, nn
local ITERS = tonumber(os.getenv("ATTN_FUZZ_ITERS")) or 20000

local function public_functions()
    local methods = require("attn.bind").methods
    local fns = {}
    for k, v in pairs(torch) do
        if type(v) == "function" and k ~= "set_printoptions" then fns[#fns + 1] = {"torch." .. k, v} end
    end
    for k, v in pairs(methods) do fns[#fns + 1] = {"Tensor:" .. k, v} end
    for k, v in pairs(nn) do
        if type(v) == "function" then fns[#fns + 1] = {"nn." .. k, v} end
    end
    for k, v in pairs(attention) do
        if type(v) == "function" and k ~= "heatmap" then fns[#fns + 1] = {"attention." .. k, v} end
    end
    -- attention.heatmap prints what it draws: call the drawing itself, which returns the text
    fns[#fns + 1] = {"attention.heatmap (render)", require("attn.attention.heatmap").render}
    table.sort(fns, function(a, b) return a[1] < b[1] end)
    return fns
end

local function random_shape()
    local s = {}
    for i = 1, math.random(0, 4) do s[i] = math.random(0, 4) end
    return s
end

local pool = {}
local function random_value()
    local r = math.random(1, 22)
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
    return pool[math.random(1, #pool)]
end

describe("random calls", function()
    it(string.format("%d calls with random arguments raise errors, never crash", ITERS), function()
        math.randomseed(20261122)
        torch.manual_seed(0)
        pool = {torch.ones(2, 3), torch.zeros(3), torch.rand(2, 2, 2)}
        local fns = public_functions()
        local errors = 0
        for _ = 1, ITERS do
            local f = fns[math.random(1, #fns)]
            local n = math.random(0, 4)
            local args = {}
            for k = 1, n do args[k] = random_value() end
            local ok, res = pcall(f[2], table.unpack(args, 1, n))
            if not ok then
                errors = errors + 1
                assert.are.equal("string", type(res), f[1] .. " raised a non-string error")
            elseif torch.is_tensor(res) and math.random() < 0.3 then
                pool[#pool < 50 and #pool + 1 or math.random(1, 50)] = res
                assert.are.equal("string", type(tostring(res)))
            end
            local t = pool[math.random(1, #pool)]
            pcall(function() return t[random_value()] end)
            pcall(function() t[random_value()] = random_value() end)
            pcall(function() return t + random_value(), random_value() * t, t ^ random_value(), -t, #t, t .. "" end)
        end
        assert.is_true(errors > 0 and errors < ITERS)
        torch.set_bernoulli_flavor("mkl")
        -- and attn still computes the book's numbers afterwards
        local x = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}}
        assert.are.equal("tensor([0.9544, 1.4950])", tostring(x:matmul(torch.tensor{0.55, 0.87, 0.66})))
    end)
end)
