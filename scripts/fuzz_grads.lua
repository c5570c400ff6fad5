-- fuzz_grads.lua — the gradient fuzzer: attn's autograd against central finite differences, on random
-- shapes, values and options of every differentiable op listed below (scripts/fuzz_grads.lua's OPS).
--   ./attn scripts/fuzz_grads.lua [TRIALS_PER_CASE] [SEED]      (default 20 trials, seed 1)
-- Each trial: inputs drawn at random (kept away from the points where an op has no derivative), a random
-- weight w, loss = (op(inputs) * w):sum(); every input element moved by ±h, the loss's change / 2h is the
-- numerical gradient, compared with autograd's within |a - n| <= 2e-2 * (1 + |n|) (float32 forward
-- passes, h = 1e-2: the difference quotient's own error is ~h² * f''' and ~1e-7 * |loss| / h). Prints one
-- line per failure, and "cases: N, trials: N, checks: N, failures: N" last; exit status 1 on a failure.
-- Reference values for the tests come from PyTorch (scripts/torch_reference_*.py); this is the wide net,
-- run by tests/robust/test_fuzz_grads.sh (tests/run.sh).
local trials = tonumber(arg and arg[1]) or 20
math.randomseed(tonumber(arg and arg[2]) or 1)
local F = nn.functional

local function rnd_shape(max_dims)
    local s = {}
    for d = 1, math.random(1, max_dims or 2) do s[d] = math.random(1, 3) end
    return s
end

local function values(shape, lo, hi)
    local n = 1
    for _, d in ipairs(shape) do n = n * d end
    local v = {}
    for i = 1, n do v[i] = lo + (hi - lo) * math.random() end
    return v
end

local function tensor_of(v, shape) return torch.tensor(v):reshape(table.unpack(shape)) end

-- each case: inputs = function() -> {{values, shape}, ...}, and f(t1, t2, ...) -> a tensor
local function away_from_zero(shape) -- |x| in [0.3, 2]: abs, relu, clamp's edges, division
    local v = values(shape, 0.3, 2)
    for i = 1, #v do if math.random() < 0.5 then v[i] = -v[i] end end
    return v
end
local function one(lo, hi, dims) return function() local s = rnd_shape(dims) return {{values(s, lo, hi), s}} end end
local function two_same(lo, hi) return function() local s = rnd_shape() return {{values(s, lo, hi), s}, {values(s, lo, hi), s}} end end

-- two inputs of one shape at least 0.3 apart, element by element (maximum/minimum have no derivative
-- where they meet)
local function two_apart()
    local s = rnd_shape()
    local a, d = values(s, -2, 2), away_from_zero(s)
    local b = {}
    for i = 1, #a do b[i] = a[i] + d[i] end
    return {{a, s}, {b, s}}
end
-- values 0.3 apart, shuffled (topk's choice does not change within ±h)
local function distinct(shape)
    local v = values(shape, 0, 0)
    for i = 1, #v do v[i] = -2 + 0.3 * i + 0.1 * math.random() end
    for i = #v, 2, -1 do local j = math.random(i) v[i], v[j] = v[j], v[i] end
    return v
end
-- a fixed mask for where (the same at every evaluation of a trial): true at every element but each third
local function mask_of(shape)
    local n = 1
    for _, d in ipairs(shape) do n = n * d end
    local v = {}
    for i = 1, n do v[i] = i % 3 == 1 and 0.0 or 1.0 end
    return torch.tensor(v):gt(0.5):reshape(table.unpack(shape))
end

local OPS = {
    {"add", two_same(-2, 2), function(a, b) return a + b end},
    {"add alpha", two_same(-2, 2), function(a, b) return a:add(b, {alpha = 2.5}) end},
    {"add self alpha", one(-2, 2), function(a) return a:add(a * a, {alpha = 3}) end},
    {"sub alpha", two_same(-2, 2), function(a, b) return torch.sub(a, b, {alpha = -1.5}) end},
    {"sub broadcast", function() return {{values({2, 3}, -2, 2), {2, 3}}, {values({3}, -2, 2), {3}}} end,
        function(a, b) return a - b end},
    {"mul", two_same(-2, 2), function(a, b) return a * b end},
    {"div", function() local s = rnd_shape() return {{values(s, -2, 2), s}, {away_from_zero(s), s}} end,
        function(a, b) return a / b end},
    {"pow number", one(0.5, 2), function(a) return a ^ 3 end},
    {"pow tensor", two_same(0.5, 2), function(a, b) return a ^ b end},
    {"pow number base", one(-1, 1), function(a) return 3 ^ a end},
    {"torch.pow base", one(-1, 1), function(a) return torch.pow(0.5, a) end},
    {"exp", one(-2, 2), function(a) return a:exp() end},
    {"log", one(0.5, 3), function(a) return a:log() end},
    {"sqrt", one(0.5, 3), function(a) return a:sqrt() end},
    {"tanh", one(-2, 2), function(a) return a:tanh() end},
    {"sigmoid", one(-2, 2), function(a) return torch.sigmoid(a) end},
    {"relu", function() local s = rnd_shape() return {{away_from_zero(s), s}} end, function(a) return torch.relu(a) end},
    {"abs", function() local s = rnd_shape() return {{away_from_zero(s), s}} end, function(a) return torch.abs(a) end},
    {"gelu", one(-2, 2), function(a) return F.gelu(a) end},
    {"silu", one(-2, 2), function(a) return F.silu(a) end},
    {"sum dim", one(-2, 2, 3), function(a) return a:sum(a.ndim) end},
    {"mean", one(-2, 2, 3), function(a) return a:mean() end},
    {"softmax", one(-2, 2, 3), function(a) return torch.softmax(a, -1) end},
    {"log_softmax", one(-2, 2, 3), function(a) return torch.log_softmax(a, -1) end},
    {"matmul", function() local n, k, m = math.random(1, 3), math.random(1, 3), math.random(1, 3)
        return {{values({n, k}, -1, 1), {n, k}}, {values({k, m}, -1, 1), {k, m}}} end, function(a, b) return a:matmul(b) end},
    {"transpose", function() return {{values({2, 3}, -1, 1), {2, 3}}} end, function(a) return a:transpose(1, 2) * 1 end},
    {"reshape", function() return {{values({2, 3}, -1, 1), {2, 3}}} end, function(a) return a:reshape(3, 2) * 1 end},
    {"index number", function() return {{values({3, 2}, -1, 1), {3, 2}}} end, function(a) return a[2] * 1 end},
    {"index range", function() return {{values({4, 2}, -1, 1), {4, 2}}} end, function(a) return a[{{2, 3}}] * 1 end},
    {"index tensor", function() return {{values({4, 2}, -1, 1), {4, 2}}} end,
        function(a) return a[{torch.tensor{1, 3, 1, 4}}] end},
    {"index tensor dim 2", function() return {{values({2, 4}, -1, 1), {2, 4}}} end,
        function(a) return a[{{}, torch.tensor{4, 4, 2}}] end},
    {"index two tensors", function() return {{values({3, 4}, -1, 1), {3, 4}}} end,
        function(a) return a[{torch.tensor{1, 3, 3}, torch.tensor{2, 2, 4}}] end},
    {"cat", two_same(-1, 1), function(a, b) return torch.cat({a, b}, 1) end},
    {"stack", two_same(-1, 1), function(a, b) return torch.stack({a, b}, 1) end},
    {"layer_norm", function() return {{values({2, 4}, -2, 2), {2, 4}}} end, function(a) return F.layer_norm(a, {4}) end},
    {"mse_loss", two_same(-2, 2), function(a, b) return F.mse_loss(a, b) end},
    {"cross_entropy", function() return {{values({3, 4}, -2, 2), {3, 4}}} end,
        function(a) return F.cross_entropy(a, torch.tensor{1, 4, 2}) end},
    {"sin", one(-4, 4), function(a) return a:sin() end},
    {"cos", one(-4, 4), function(a) return torch.cos(a) end},
    {"erf", one(-2, 2), function(a) return torch.erf(a) end},
    {"where", function() return {{values({2, 3}, -2, 2), {2, 3}}, {values({3}, -2, 2), {3}}} end,
        function(a, b) return torch.where(mask_of({2, 3}), a, b) end},
    {"where number", one(-2, 2), function(a) return torch.where(mask_of(a.shape), 0.5, a) end},
    {"where method", two_same(-2, 2), function(a, b) return a:where(mask_of(a.shape), b) end},
    {"maximum", two_apart, function(a, b) return torch.maximum(a, b) end},
    {"minimum", two_apart, function(a, b) return a:minimum(b) end},
    {"max other", two_apart, function(a, b) return a:max(b) end},
    {"maximum broadcast", function() return {{values({2, 3}, 0.5, 2), {2, 3}}, {values({3}, -2, -0.5), {3}}} end,
        function(a, b) return torch.maximum(a, b) end},
    {"topk", function() local s = {math.random(1, 3), math.random(2, 5)} return {{distinct(s), s}} end,
        function(a) return (torch.topk(a, 2)) end},
    {"topk smallest", function() local s = {math.random(2, 5)} return {{distinct(s), s}} end,
        function(a) return (a:topk(2, {largest = false})) end},
    {"addcmul", function() local s = rnd_shape() return {{values(s, -2, 2), s}, {values(s, -2, 2), s}, {values(s, -2, 2), s}} end,
        function(x, a, b) return torch.addcmul(x, a, b, {value = 0.7}) end},
    {"addcmul broadcast", function() return {{values({3}, -2, 2), {3}}, {values({2, 3}, -2, 2), {2, 3}}, {values({2, 1}, -2, 2), {2, 1}}} end,
        function(x, a, b) return x:addcmul(a, b) end},
    {"addcdiv", function() local s = rnd_shape() return {{values(s, -2, 2), s}, {values(s, -2, 2), s}, {away_from_zero(s), s}} end,
        function(x, a, b) return torch.addcdiv(x, a, b, {value = -1.5}) end},
    {"rope", two_same(-2, 2), function(x, a) return x * a:cos() + x:flip(-1) * a:sin() end},
}

local H, TOL = 1e-2, 2e-2
local checks, failures = 0, 0

local function loss_of(f, inputs, w)
    local ts = {}
    for i, inp in ipairs(inputs) do ts[i] = tensor_of(inp[1], inp[2]) end
    return (f(table.unpack(ts)) * w):sum():item()
end

for _, case in ipairs(OPS) do
    local name, make, f = case[1], case[2], case[3]
    for t = 1, trials do
        local inputs = make()
        local leaves = {}
        for i, inp in ipairs(inputs) do leaves[i] = tensor_of(inp[1], inp[2]):requires_grad_() end
        local out = f(table.unpack(leaves))
        local w = torch.randn(out.shape)
        ;(out * w):sum():backward()
        for i, inp in ipairs(inputs) do
            local g = leaves[i].grad
            local analytic = g and g:reshape(-1):tolist() or {}
            for k = 1, #inp[1] do
                local v = inp[1][k]
                inp[1][k] = v + H
                local up = loss_of(f, inputs, w)
                inp[1][k] = v - H
                local down = loss_of(f, inputs, w)
                inp[1][k] = v
                local numeric = (up - down) / (2 * H)
                local a = analytic[k] or 0
                checks = checks + 1
                if math.abs(a - numeric) > TOL * (1 + math.abs(numeric)) then
                    failures = failures + 1
                    print(string.format("FAIL %s (trial %d): input %d element %d: autograd %.6g, finite differences %.6g",
                                        name, t, i, k, a, numeric))
                end
            end
        end
    end
end
print(string.format("cases: %d, trials: %d, checks: %d, failures: %d", #OPS, #OPS * trials, checks, failures))
if failures > 0 then os.exit(1) end
