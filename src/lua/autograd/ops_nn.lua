-- ops_nn.lua — the backward of the layers' ops and of the attention stages that are not products
-- (module attn.autograd.ops_nn): softmax, masked_fill, dropout, layer_norm, embedding, gelu, silu,
-- tril/triu, and attention.scale, mask, softmax, dropout, split_heads, merge_heads, fused.
local C = require("attn.bind")
local graph = require("attn.autograd.graph")
local registry = require("attn.autograd.registry")
local sum_to = require("attn.autograd.ops_math").sum_to

local torch, methods = C.torch, C.methods
local A, F = C.attention, C.functional
local raw = registry.raw

local M = {}

-- _softmax_backward_data: (g - sum(g * y, dim)) * y, summed in PyTorch's kernel order (src/core/backward.c)
function M.softmax_backward(g, y, dim)
    return C.autograd.softmax_backward(g, y, dim)
end

local function softmax_dim(x, a)
    if type(a) == "table" then return a.dim end
    return a
end

for _, tbl in ipairs({torch, methods}) do
    registry.op(tbl, "softmax", "SoftmaxBackward0", {1}, function(node, g, x, a)
        return {M.softmax_backward(g, node.ctx:output(), softmax_dim(x, a))}
    end, {save_output = true})
end
registry.op(A, "softmax", "SoftmaxBackward0", {1}, function(node, g, s, a)
    return {M.softmax_backward(g, node.ctx:output(), softmax_dim(s, a) or -1)}
end, {save_output = true})

-- masked_fill(x, mask, v): the filled places get no gradient
local function masked_fill_backward(node, g, x, mask)
    return {sum_to(g:masked_fill(mask, 0), node.ctx.shapes[1])}
end
for _, tbl in ipairs({torch, methods}) do
    registry.op(tbl, "masked_fill", "MaskedFillBackward0", {1}, masked_fill_backward, {save = {2}})
end
registry.op(A, "mask", "MaskedFillBackward0", {1}, masked_fill_backward, {save = {2}})
-- the in-place form, as the book's CausalAttention writes it: attn_scores.masked_fill_(mask, -inf)
registry.inplace(methods, "masked_fill_", function(self, mask)
    registry.record(self, "MaskedFillBackward0", {1}, function(node, g)
        return {g:masked_fill(node:saved(1), 0)}
    end, {save = {2}}, table.pack(self, mask))
end)

-- dropout in training: PyTorch's _dropout_impl is input * noise (MulBackward0), noise =
-- bernoulli_(1 - p) / (1 - p). attn's dropout of ones is that noise, drawn from the same stream, so
-- input * noise here is the forward's result to the bit, and its gradient is grad * noise.
registry.wrap(torch, "dropout", function(orig, x, p, train)
    local opts = type(p) == "table" and p or nil
    local pp = opts and opts.p or p
    local tr = opts and opts.train
    if not opts then tr = train end
    if pp == nil then pp = 0.5 end
    if tr == nil then tr = true end
    if pp == 0 or not tr or x:numel() == 0 then return orig(x, p, train) end
    local noise = orig(torch.ones_like(x), pp, true)
    return x * noise
end)
registry.wrap(A, "dropout", function(orig, w, p)
    if p == 0 then return w end -- as PyTorch's dropout with p = 0: the input itself, its graph kept
    if type(p) ~= "number" then return orig(w, p) end
    return w * orig(torch.ones_like(w), p)
end)

-- ---- layer_norm -----------------------------------------------------------------------------------

-- NativeLayerNormBackward0: PyTorch's CPU kernel, in C (src/core/layers.c: the row's mean and rstd as the
-- forward computed them, and its sums in its order, so every bit is PyTorch's).
local function layer_norm_backward(g, x, n_norm, weight, eps)
    return C.autograd.layer_norm_backward(g, x, n_norm, weight, eps)
end

registry.wrap(torch, "layer_norm", function(orig, x, shape, weight, bias, eps)
    local out = orig(x, shape, weight, bias, eps)
    local opts = type(shape) == "table" and shape.normalized_shape and shape or nil
    if opts then
        weight, bias, eps, shape = opts.weight, opts.bias, opts.eps, opts.normalized_shape
    end
    local n_norm = type(shape) == "number" and 1 or #shape
    eps = eps or 1e-5
    local has_w, has_b = weight ~= nil, bias ~= nil
    registry.record(out, "NativeLayerNormBackward0", {1, 2, 3}, function(node, g)
        local w = has_w and node:saved(2) or nil
        local dx, dw, db = layer_norm_backward(g, node:saved(1), n_norm, w, eps)
        return {dx, dw, has_b and db or nil}
    end, {save = has_w and {1, 2} or {1}}, table.pack(x, weight, bias))
    return out
end)

-- embedding(weight, ids): the rows of the gradient added into the rows of zeros they came from, in
-- the order of the ids (index_add_, as PyTorch's embedding_dense_backward on the CPU)
registry.wrap(torch, "embedding", function(orig, weight, ids)
    local out = orig(weight, ids)
    registry.record(out, "EmbeddingBackward0", {1}, function(node, g)
        local shape = node.ctx.shapes[1]
        local gw = torch.zeros(shape)
        local list = node:saved(1):reshape(-1):tolist()
        local rows = g:reshape(-1, shape[2])
        for i, id in ipairs(list) do
            gw:select(1, id):add_(rows:select(1, i))
        end
        return {gw}
    end, {save = {2}}, table.pack(weight, ids))
    return out
end)

-- ---- activations ----------------------------------------------------------------------------------

-- gelu_backward: exact: grad * (cdf + x * pdf), cdf = 0.5 * (1 + erf(x / sqrt 2)),
-- pdf = exp(-x^2 / 2) / sqrt(2 pi); tanh: PyTorch's formula of the tanh approximation's derivative
local function gelu_backward(node, g, x, opts)
    local approx = type(opts) == "table" and opts.approximate or opts
    if approx == "tanh" then
        local kBeta, kKappa = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5, 0.044715
        local x_sq = x * x
        local x_cube = x_sq * x
        local inner = (x + x_cube * kKappa) * kBeta
        local tanh_inner = inner:tanh()
        local left = x * 0.5
        local right = tanh_inner + 1
        local left_derivative = right * 0.5
        local tanh_derivative = (tanh_inner * tanh_inner):neg() + 1
        local inner_derivative = (x_sq * (3 * kKappa) + 1) * kBeta
        local right_derivative = left * tanh_derivative * inner_derivative
        return {g * (left_derivative + right_derivative)}
    end
    local cdf = ((x * math.sqrt(0.5)):erf() + 1) * 0.5
    local pdf = (x * x * -0.5):exp() * (2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5)
    return {g * (cdf + x * pdf)}
end
registry.op(F, "gelu", "GeluBackward0", {1}, gelu_backward, {save = {1}})

-- silu_backward: grad * sigmoid(x) * (1 + x * (1 - sigmoid(x)))
registry.op(F, "silu", "SiluBackward0", {1}, function(node, g, x)
    local s = x:sigmoid()
    return {g * s * ((s:neg() + 1) * x + 1)}
end, {save = {1}})

for _, tbl in ipairs({torch, methods}) do
    registry.op(tbl, "tril", "TrilBackward0", {1}, function(node, g, x, k) return {g:tril(k)} end)
    registry.op(tbl, "triu", "TriuBackward0", {1}, function(node, g, x, k) return {g:triu(k)} end)
end

-- ---- attention stages -------------------------------------------------------------------------------

-- scale(s, d_k) = s / d_k^0.5 (the book's attn_scores / keys.shape[-1]**0.5: DivBackward0)
registry.op(A, "scale", "DivBackward0", {1}, function(node, g, s, d_k)
    return {g / (d_k ^ 0.5)}
end)

-- split_heads(x, h) = x.view(b, n, h, d/h).transpose(1, 2)
registry.op(A, "split_heads", "TransposeBackward0", {1}, function(node, g)
    return {g:transpose(2, 3):reshape(node.ctx.shapes[1])}
end)

-- merge_heads(x) = x.transpose(1, 2).contiguous().view(b, n, h * d)
registry.op(A, "merge_heads", "ViewBackward0", {1}, function(node, g)
    local s = node.ctx.shapes[1]
    return {g:view(s[1], s[3], s[2], s[4]):transpose(2, 3)}
end)

-- attention.fused has no backward of its own: when an input requires grad it is computed by the
-- stages (which record theirs), the same numbers as the staged path and PyTorch's book classes.
registry.wrap(A, "fused", function(orig, q, k, v, opts)
    local s = A.scale(A.scores(q, k), q.shape[-1])
    if opts and opts.causal then
        local n, m = s.shape[-2], s.shape[-1]
        s = A.mask(s, A.causal_mask(n, m))
    end
    return A.weighted_sum(A.softmax(s, -1), v)
end)

-- attention.general and attention.additive are C compositions of recorded ops: with grad, the same
-- ops are called one by one (the C functions' own passes, so the same numbers), and each records.
registry.wrap(A, "general", function(orig, s, W, h)
    orig(s, W, h) -- the C function's checks and errors
    return A.scores(s:matmul(W), h)
end)

registry.wrap(A, "additive", function(orig, q, k, W_q, W_k, v)
    orig(q, k, W_q, W_k, v)
    local qp, kp = q:matmul(W_q:transpose(1, 2)), k:matmul(W_k:transpose(1, 2))
    local feat = (qp:unsqueeze(-2) + kp:unsqueeze(-3)):tanh()
    return feat:matmul(v:reshape(v.shape[v.ndim], 1)):squeeze(-1)
end)

return M
