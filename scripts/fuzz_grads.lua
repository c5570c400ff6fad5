-- fuzz_grads.lua — the gradient fuzzer: attn's autograd against central finite differences, on random
-- shapes, values and options of every differentiable op listed below (scripts/fuzz_grads.lua's OPS).
--   ./attn scripts/fuzz_grads.lua [TRIALS_PER_CASE] [SEED]      (default 20 trials, seed 1)
-- Each trial: inputs drawn at random (kept away from the points where an op has no derivative), a random
-- weight w, loss = (op(inputs) * w):sum(); every input element moved by ±h, the loss's change / 2h is the
-- numerical gradient, compared with autograd's within |a - n| <= 2e-2 * (1 + |n|) (float32 forward
-- passes, h = 1e-2: the difference quotient's own error is ~h² * f''' and ~1e-7 * |loss| / h). Prints one
-- line per failure, and "cases: N (N refused: no backward), trials: N, checks: N, failures: N" last; exit
-- status 1 on a failure. The cases: every op attn's autograd records, with its options (reductions,
-- ignore_index, alpha, dims, keepdim, unbiased, diagonal, causal, ...), and the in-place ops on results.
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
local function fixed(shape) return function() return {{values(shape, -1, 1), shape}} end end
-- distinct values at least 0.05 apart (> 2h): max and min have no derivative where two elements tie, and
-- moving one by h must not change which is the largest
local function spread(shape)
    return function()
        local v = values(shape, 0, 1)
        local order = {}
        for i = 1, #v do order[i] = i end
        for i = #order, 2, -1 do
            local j = math.random(1, i)
            order[i], order[j] = order[j], order[i]
        end
        for i = 1, #v do v[i] = -1 + 0.05 * order[i] + 0.01 * math.random() end
        return {{v, shape}}
    end
end
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
    -- the rest of the ops autograd records (src/lua/autograd), and their options
    {"cross_entropy sum ignore_index", fixed({3, 4}), function(a)
        return F.cross_entropy(a, torch.tensor{1, -100, 2}, {reduction = "sum"}) end},
    {"cross_entropy none", fixed({3, 4}), function(a) return F.cross_entropy(a, torch.tensor{1, 4, 2}, {reduction = "none"}) end},
    {"nll_loss", fixed({3, 4}), function(a) return F.nll_loss(a, torch.tensor{2, 4, 1}) end},
    {"nll_loss sum ignore_index", fixed({3, 4}), function(a)
        return F.nll_loss(a, torch.tensor{2, 3, 1}, {reduction = "sum", ignore_index = 3}) end},
    {"mse_loss sum", two_same(-2, 2), function(a, b) return F.mse_loss(a, b, {reduction = "sum"}) end},
    {"mse_loss none", two_same(-2, 2), function(a, b) return F.mse_loss(a, b, {reduction = "none"}) end},
    {"layer_norm weight bias", function() return {{values({2, 4}, -2, 2), {2, 4}}, {values({4}, 0.5, 2), {4}},
        {values({4}, -1, 1), {4}}} end, function(a, w, b) return F.layer_norm(a, {4}, w, b) end},
    {"linear", function() return {{values({2, 3}, -1, 1), {2, 3}}, {values({4, 3}, -1, 1), {4, 3}},
        {values({4}, -1, 1), {4}}} end, function(x, w, b) return F.linear(x, w, b) end},
    {"embedding", fixed({5, 3}), function(w) return F.embedding(torch.tensor{{1, 5}, {5, 2}}, w) end},
    {"dropout eval", one(-2, 2), function(a) return F.dropout(a, 0.5, false) end},
    {"neg", one(-2, 2), function(a) return -a end},
    {"div number", one(-2, 2), function(a) return a / 3 end},
    {"rsub number", one(-2, 2), function(a) return 2 - a end},
    {"addmm", function() return {{values({2, 4}, -1, 1), {2, 4}}, {values({2, 3}, -1, 1), {2, 3}}, {values({3, 4}, -1, 1), {3, 4}}} end,
        function(a, b, c) return torch.addmm(a, b, c) end},
    {"mm", function() return {{values({2, 3}, -1, 1), {2, 3}}, {values({3, 2}, -1, 1), {3, 2}}} end, function(a, b) return a:mm(b) end},
    {"bmm", function() return {{values({2, 2, 3}, -1, 1), {2, 2, 3}}, {values({2, 3, 2}, -1, 1), {2, 3, 2}}} end,
        function(a, b) return torch.bmm(a, b) end},
    {"matmul batched", function() return {{values({2, 2, 3}, -1, 1), {2, 2, 3}}, {values({3, 2}, -1, 1), {3, 2}}} end,
        function(a, b) return a:matmul(b) end},
    {"dot", function() local n = math.random(1, 4) return {{values({n}, -1, 1), {n}}, {values({n}, -1, 1), {n}}} end,
        function(a, b) return a:dot(b) end},
    {"sum keepdim", one(-2, 2, 3), function(a) return a:sum({dim = 1, keepdim = true}) end},
    {"mean dim", one(-2, 2, 3), function(a) return a:mean(1) end},
    {"std dim", fixed({3, 4}), function(a) return a:std(2) end},
    {"std biased", fixed({3, 4}), function(a) return a:std(1, false, true) end},
    {"var", fixed({3, 4}), function(a) return a:var() end},
    {"var dim keepdim", fixed({3, 4}), function(a) return torch.var(a, 2, true, true) end},
    {"max", spread({3, 4}), function(a) return a:max() end},
    {"max dim", spread({3, 4}), function(a) return (a:max(2)) end},
    {"min dim keepdim", spread({3, 4}), function(a) return (a:min(1, true)) end},
    {"softmax dim 1", one(-2, 2, 3), function(a) return torch.softmax(a, 1) end},
    {"cat dim 2", function() return {{values({2, 3}, -1, 1), {2, 3}}, {values({2, 1}, -1, 1), {2, 1}}} end,
        function(a, b) return torch.cat({a, b}, 2) end},
    {"stack dim 2", two_same(-1, 1), function(a, b) return torch.stack({a, b}, -1) end},
    {"clone", one(-1, 1), function(a) return a:clone() end},
    {"contiguous", fixed({2, 3}), function(a) return a:t():contiguous() end},
    {"t", fixed({2, 3}), function(a) return a:t() * 1 end},
    {"permute", fixed({2, 3, 2}), function(a) return a:permute(3, 1, 2) * 1 end},
    {"view", fixed({2, 3}), function(a) return a:view(3, 2) * 1 end},
    {"flatten", fixed({2, 3, 2}), function(a) return a:flatten(2) * 1 end},
    {"squeeze unsqueeze", fixed({2, 1, 3}), function(a) return a:squeeze(2):unsqueeze(1) * 1 end},
    {"expand", fixed({1, 3}), function(a) return a:expand(4, 3) * 1 end},
    {"narrow", fixed({4, 3}), function(a) return a:narrow(1, 2, 2) * 1 end},
    {"select", fixed({4, 3}), function(a) return a:select(2, 3) * 1 end},
    {"flip", fixed({3, 4}), function(a) return a:flip(2) * 1 end},
    {"tril", fixed({3, 4}), function(a) return a:tril() end},
    {"triu diagonal", fixed({3, 4}), function(a) return a:triu(1) end},
    {"gather", fixed({3, 4}), function(a) return a:gather(2, torch.tensor{{1, 1}, {4, 2}, {3, 3}}) end},
    {"scatter", function() return {{values({3, 4}, -1, 1), {3, 4}}, {values({3, 2}, -1, 1), {3, 2}}} end,
        function(a, src) return a:scatter(2, torch.tensor{{1, 2}, {4, 3}, {2, 1}}, src) end},
    {"scatter_add", function() return {{values({3, 4}, -1, 1), {3, 4}}, {values({3, 2}, -1, 1), {3, 2}}} end,
        function(a, src) return a:scatter_add(2, torch.tensor{{1, 1}, {4, 3}, {2, 2}}, src) end},
    {"masked_fill", fixed({2, 3}), function(a) return a:masked_fill(torch.tensor{{true, false, true}, {false, false, true}}, 0.5) end},
    {"to float", fixed({2, 3}), function(a) return a:float() * 1 end},
    {"in-place add_ sub_", two_same(-1, 1), function(a, b) local c = a * 1; c:add_(b, {alpha = 2}); c:sub_(b) return c end},
    {"in-place sub_ alpha", two_same(-1, 1), function(a, b) local c = a * 1; c:sub_(b, {alpha = -1.5}) return c end},
    -- mul_/div_ by a tensor that requires grad are refused (attn would need the overwritten value): by numbers
    {"in-place mul_ div_", one(-1, 1), function(a) local c = a * 1; c:mul_(3); c:div_(-2.5) return c end},
    {"in-place masked_fill_", fixed({2, 3}), function(a)
        local c = a * 2; c:masked_fill_(torch.tensor{{true, false, false}, {false, true, false}}, -1) return c end},
    {"in-place copy_", two_same(-1, 1), function(a, b) local c = a * 1; c:copy_(b * 3) return c + a end},
    {"attention scores scale", function() return {{values({2, 3}, -1, 1), {2, 3}}, {values({4, 3}, -1, 1), {4, 3}}} end,
        function(q, k) return attention.scale(attention.scores(q, k), 3) end},
    {"attention mask", fixed({3, 3}), function(s) return attention.mask(s, torch.ones(3, 3):triu(1):bool(), -5) end},
    {"attention weighted_sum", function() return {{values({2, 3}, 0, 1), {2, 3}}, {values({3, 4}, -1, 1), {3, 4}}} end,
        function(w, v) return attention.weighted_sum(w, v) end},
    {"attention split merge heads", fixed({1, 3, 4}), function(x) return attention.merge_heads(attention.split_heads(x, 2)) * 1 end},
    {"attention.additive", function() return {{values({1, 2, 3}, -1, 1), {1, 2, 3}}, {values({1, 3, 2}, -1, 1), {1, 3, 2}},
        {values({4, 3}, -1, 1), {4, 3}}, {values({4, 2}, -1, 1), {4, 2}}, {values({4}, -1, 1), {4}}} end,
        function(q, k, wq, wk, v) return attention.additive(q, k, wq, wk, v) end},
    {"attention.general", function() return {{values({2, 3}, -1, 1), {2, 3}}, {values({3, 4}, -1, 1), {3, 4}},
        {values({5, 4}, -1, 1), {5, 4}}} end, function(s, w, h) return attention.general(s, w, h) end},
    {"in-place fill_ (a zero gradient)", one(-1, 1), function(a) local c = a * 2; c:fill_(0.5) return c + a end},
    {"attention.fused causal", function() return {{values({3, 4}, -1, 1), {3, 4}}, {values({3, 4}, -1, 1), {3, 4}},
        {values({3, 4}, -1, 1), {3, 4}}} end, function(q, k, v) return attention.fused(q, k, v, {causal = true}) end},
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

-- An op attn's autograd refuses ("has no backward ... yet": an error, never a silently dropped graph) is
-- counted and listed, not compared; any other error stops the run.
local refused = {}
for _, case in ipairs(OPS) do
    local name, make, f = case[1], case[2], case[3]
    for t = 1, trials do
        local inputs = make()
        local leaves = {}
        for i, inp in ipairs(inputs) do leaves[i] = tensor_of(inp[1], inp[2]):requires_grad_() end
        local w
        local ok, err = pcall(function()
            local out = f(table.unpack(leaves))
            w = torch.randn(out.shape)
            ;(out * w):sum():backward()
        end)
        if not ok then
            if not tostring(err):find("has no backward", 1, true) then error(err, 0) end
            refused[#refused + 1] = name
            print(string.format("REFUSED %s: %s", name, tostring(err)))
            break
        end
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
print(string.format("cases: %d (%d refused: no backward), trials: %d, checks: %d, failures: %d", #OPS, #refused,
                    (#OPS - #refused) * trials, checks, failures))
if failures > 0 then os.exit(1) end
