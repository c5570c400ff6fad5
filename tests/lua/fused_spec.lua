-- fused_spec.lua — attention.fused against the staged path written with plain torch operations:
--   scores = q:matmul(k:transpose(-2, -1)) * scale
--   scores = scores:masked_fill(torch.triu(torch.ones(n, m), 1):bool(), -inf)    (causal only)
--   out    = torch.softmax(scores, -1):matmul(v)
-- on 60 seeded random shapes (inputs uniform in [-1, 1]), each element within 1e-5; and against
-- attention.forward, the stage operations composed, on 50 more. The shapes include
-- n = 1, m = 1, d = 1, d = 64 and 128, n ≠ m, odd sizes, broadcast batch dims, more batch·heads than
-- threads, and the book's split heads x:view(b, n, h, dh):transpose(2, 3) as inputs.
-- Run inside attn: ./attn /usr/bin/busted -o TAP tests/lua/fused_spec.lua
local torch = torch
local TOLERANCE = 1e-5

local function staged(q, k, v, causal, scale)
    local n, m = q.shape[q:dim() - 1], k.shape[k:dim() - 1]
    local scores = q:matmul(k:transpose(-2, -1)) * scale
    if causal then
        scores = scores:masked_fill(torch.triu(torch.ones(n, m), 1):bool(), -math.huge)
    end
    return torch.softmax(scores, -1):matmul(v)
end

local function uniform(...)
    return torch.rand(...) * 2 - 1
end

-- A [lead..., rows, cols] input; "heads" makes it the way the book does, as a transposed view of a
-- [b, rows, h * cols] tensor (lead must be {b, h} then).
local function input(lead, rows, cols, heads)
    if heads then
        local b, h = lead[1], lead[2]
        return uniform(b, rows, h * cols):view(b, rows, h, cols):transpose(2, 3)
    end
    local shape = {}
    for i, s in ipairs(lead) do shape[i] = s end
    shape[#shape + 1] = rows
    shape[#shape + 1] = cols
    return uniform(table.unpack(shape))
end

local function pick(list) return list[math.random(#list)] end

local function shape_text(t)
    local parts = {}
    for i = 1, t:dim() do parts[i] = tostring(t.shape[i]) end
    return "[" .. table.concat(parts, ", ") .. "]"
end

-- Random case i: {q, k, v, causal, scale (nil = default), text}
local function random_case()
    local sizes = {1, 1, 2, 3, 5, 7, 9, 16, 17, 31, 33, 64, 65, 100, 129}
    local dims = {1, 2, 3, 5, 8, 16, 31, 64, 64, 128}
    local n, m, d, dv = pick(sizes), pick(sizes), pick(dims), pick(dims)
    local kind = math.random(4)
    local q, k, v
    if kind == 1 then -- split heads [b, h, n, dh], dv = d as in multi-head attention
        local b, h = math.random(3), math.random(4)
        q, k, v = input({b, h}, n, d, true), input({b, h}, m, d, true), input({b, h}, m, d, true)
    elseif kind == 2 then -- k and v shared by every head: leading dims broadcast
        local b, h = math.random(3), math.random(4)
        q, k, v = input({b, h}, n, d), input({b, 1}, m, d), input({1, 1}, m, dv)
    elseif kind == 3 then -- one matrix each, no batch
        q, k, v = input({}, n, d), input({}, m, d), input({}, m, dv)
    else -- a batch of 3-D inputs, v transposed
        local b = math.random(5)
        q, k, v = input({b}, n, d), input({b}, m, d), input({b}, dv, m):transpose(2, 3)
    end
    local scale = math.random(3) == 1 and (math.random() * 2 - 0.5) or nil
    return q, k, v, math.random(2) == 1, scale
end

local function max_diff(a, b)
    return (a - b):abs():max():item()
end

describe("attention.fused", function()
    it("equals the staged path within 1e-5 on 60 random shapes", function()
        torch.manual_seed(42)
        math.randomseed(42)
        local worst, count = 0, 0
        for _ = 1, 60 do
            local q, k, v, causal, scale = random_case()
            local d = q.shape[q:dim()]
            local got = attention.fused(q, k, v, {causal = causal, scale = scale})
            local want = staged(q, k, v, causal, scale or 1 / math.sqrt(d))
            assert.are.same(want.shape, got.shape)
            local diff = max_diff(got, want)
            assert(diff <= TOLERANCE, string.format("q %s k %s v %s causal=%s scale=%s: differs by %g",
                shape_text(q), shape_text(k), shape_text(v), tostring(causal), tostring(scale), diff))
            if diff > worst then worst = diff end
            count = count + 1
        end
        assert.are.equal(60, count)
        assert(worst <= TOLERANCE)
    end)

    it("equals attention.forward (the stages) within 1e-5 on 50 random shapes", function()
        torch.manual_seed(43)
        math.randomseed(43)
        for _ = 1, 50 do
            local q, k, v, causal, scale = random_case()
            local got = attention.fused(q, k, v, {causal = causal, scale = scale})
            local want = attention.forward{q = q, k = k, v = v, mask = causal and "causal" or nil, scale = scale or true}
            local diff = max_diff(got, want)
            assert(diff <= TOLERANCE, string.format("q %s k %s v %s causal=%s scale=%s: differs by %g",
                shape_text(q), shape_text(k), shape_text(v), tostring(causal), tostring(scale), diff))
        end
    end)

    it("handles the edge sizes n = 1, m = 1, d = 1, d = 128 and many heads", function()
        torch.manual_seed(7)
        for _, s in ipairs({{1, 1, 1, 1, 1, 1}, {2, 3, 1, 9, 5, 4}, {2, 3, 9, 1, 5, 4}, {1, 2, 37, 53, 64, 64},
                            {1, 2, 53, 37, 128, 128}, {2, 12, 40, 40, 64, 64}, {1, 1, 129, 257, 1, 3}}) do
            local b, h, n, m, d, dv = table.unpack(s)
            local q, k, v = uniform(b, h, n, d), uniform(b, h, m, d), uniform(b, h, m, dv)
            for _, causal in ipairs({false, true}) do
                local diff = max_diff(attention.fused(q, k, v, {causal = causal}),
                                      staged(q, k, v, causal, 1 / math.sqrt(d)))
                assert(diff <= TOLERANCE, table.concat(s, ",") .. " causal=" .. tostring(causal) .. ": " .. diff)
            end
        end
    end)

    it("uses the top-left causal mask when n ≠ m (PyTorch's is_causal)", function()
        -- v = identity: the output rows are the softmax weights themselves
        local q, k = torch.zeros(3, 2), torch.zeros(5, 2)
        local out = attention.fused(q, k, torch.eye(5), {causal = true})
        -- equal scores: row i spreads its weight evenly over keys 1 .. i
        assert.are.equal(tostring(torch.tensor{{1, 0, 0, 0, 0}, {0.5, 0.5, 0, 0, 0}, {1 / 3, 1 / 3, 1 / 3, 0, 0}}),
                         tostring(out))
        local tall = attention.fused(torch.zeros(4, 2), torch.zeros(2, 2), torch.eye(2), {causal = true})
        assert.are.equal(tostring(torch.tensor{{1, 0}, {0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}}), tostring(tall))
    end)

    it("gives multi-head output that merges without a copy", function()
        local b, n, h, dh = 2, 5, 3, 4
        local x = uniform(b, n, h * dh):view(b, n, h, dh):transpose(2, 3)
        local out = attention.fused(x, x, x, {causal = true})
        assert.are.same({b, h, n, dh}, {out.shape[1], out.shape[2], out.shape[3], out.shape[4]})
        assert.is_true(out:transpose(2, 3):is_contiguous())
        local merged = out:transpose(2, 3):contiguous():view(b, n, h * dh)
        local want = staged(x, x, x, true, 1 / math.sqrt(dh)):transpose(2, 3):contiguous():view(b, n, h * dh)
        assert(max_diff(merged, want) <= TOLERANCE)
    end)

    it("gives nan for a row with a nan score and zeros for no keys, as the staged path", function()
        local q, k, v = uniform(3, 2), uniform(4, 2), uniform(4, 2)
        q[{2, 1}] = 0 / 0
        local out = attention.fused(q, k, v)
        assert.is_true(out[2][1] ~= out[2][1] and out[2][2] ~= out[2][2])
        assert.is_true(out[1][1] == out[1][1] and out[3][2] == out[3][2])
        local none = attention.fused(uniform(3, 2), torch.zeros(0, 2), torch.zeros(0, 5))
        assert.are.equal(tostring(torch.zeros(3, 5)), tostring(none))
    end)

    it("rejects bad input with errors that name attention.fused and the shapes", function()
        local q, k, v = torch.ones(2, 5, 3), torch.ones(2, 6, 3), torch.ones(2, 6, 4)
        local cases = {
            {function() attention.fused(q, torch.ones(2, 6, 4), v) end,
             "attention.fused: q [2, 5, 3] and k [2, 6, 4] must have the same last dim d (3 ≠ 4)"},
            {function() attention.fused(q, k, torch.ones(2, 7, 4)) end,
             "attention.fused: k [2, 6, 3] and v [2, 7, 4] must have the same number of keys m, their dim -2 (6 ≠ 7)"},
            {function() attention.fused(q, torch.ones(3, 6, 3), torch.ones(3, 6, 4)) end,
             "attention.fused: the leading (batch) dims of q [2, 5, 3], k [3, 6, 3] and v [3, 6, 4] cannot be broadcast"},
            {function() attention.fused(torch.ones(3), k, v) end,
             "attention.fused: q must be [..., n, d] with at least 2 dims, got [3]"},
            {function() attention.fused(q, k) end, "attention.fused: v must be a tensor, got no value"},
            {function() attention.fused(q, "k", v) end, "attention.fused: k must be a tensor, got string"},
            {function() attention.fused(q, k, v, true) end,
             "attention.fused: argument 4 must be an options table {causal = ..., scale = ...}, got boolean"},
            {function() attention.fused(q, k, v, {casual = true}) end,
             "attention.fused: unknown option 'casual' (did you mean 'causal'?)"},
            {function() attention.fused(q, k, v, {tile = 64}) end,
             "attention.fused: unknown option 'tile' (the options are: causal, scale)"},
            {function() attention.fused(q, k, v, {[5] = true}) end,
             "attention.fused: options are given by name, as {dim = 1}; got the key 5"},
            {function() attention.fused(q, k, v, {causal = 1}) end,
             "attention.fused: option causal must be true or false, got 1"},
            {function() attention.fused(q, k, v, {scale = "x"}) end,
             'attention.fused: option scale must be a number, got string "x"'},
            {function() attention.fused(q, k, v, {scale = 0 / 0}) end,
             "attention.fused: option scale must be a number, got nan"},
            {function() attention.fused(q:gt(0), k, v) end,
             "attention.fused: q must be a float tensor, got a bool tensor [2, 5, 3]"},
            {function() attention.fused(torch.ones(1, 1):expand(1e6, 1), torch.ones(1, 1):expand(1e6, 1),
                                        torch.ones(1, 1):expand(1e6, 1e6)) end,
             "attention.fused: 1e12 elements (4 TB) is more than this machine can hold"},
        }
        for _, c in ipairs(cases) do
            local ok, err = pcall(c[1])
            assert.is_false(ok)
            assert(tostring(err):find(c[2], 1, true), "expected «" .. c[2] .. "», got «" .. tostring(err) .. "»")
        end
        -- and attn keeps working
        assert.are.equal(tostring(torch.ones(2, 5, 4)), tostring(attention.fused(q, k, torch.ones(2, 6, 4))))
    end)
end)
