-- ops_matmul.lua — the backward of the matrix products (module attn.autograd.ops_matmul): matmul, mm,
-- bmm, addmm (nn.Linear's), dot, and the attention stages that are products (attention.scores and
-- attention.weighted_sum). Each follows PyTorch 1.13's formula and its node name for the ranks given:
--   1-D · 1-D  DotBackward0        2-D @ 2-D  MmBackward0       2-D @ 1-D  MvBackward0
--   1-D @ 2-D  SqueezeBackward3    n-D @ 1/2-D (n >= 3) UnsafeViewBackward0 (folded into one mm)
--   otherwise  UnsafeViewBackward0 (a batched product, bmm)
-- mm's gradients are computed as FunctionsManual's mm_mat1_backward / mm_mat2_backward compute them,
-- including their column-major case (an input such as W.T gets its gradient as (g.t() @ x).t()),
-- because a different BLAS call can round differently.
local C = require("attn.bind")
local registry = require("attn.autograd.registry")
local sum_to = require("attn.autograd.ops_math").sum_to

local torch, methods = C.torch, C.methods
local A = C.attention

local M = {}

-- PyTorch's test "strides[0] == 1 && strides[1] == sizes[0]" for a 2-D tensor: its transpose is
-- contiguous (and it is not itself a plain row-major matrix)
local function column_major(x)
    return x.ndim == 2 and x:t():is_contiguous() and not (x:is_contiguous() and x.shape[1] > 1 and x.shape[2] > 1)
end

-- mm_mat1_backward(grad, mat2, mat1's layout) and mm_mat2_backward(grad, mat1, mat2's layout)
function M.mm_grads(g, a, b, a_colmajor, b_colmajor)
    local ga, gb
    if a then
        ga = a_colmajor and b:mm(g:t()):t() or g:mm(b:t())
    end
    if b then
        gb = b_colmajor and g:t():mm(a):t() or a:t():mm(g)
    end
    return ga, gb
end
local mm_grads = M.mm_grads

-- the gradients of a @ b for any ranks (matmul's decomposition in PyTorch 1.13)
function M.matmul_grads(g, a, b)
    local da, db = a.ndim, b.ndim
    if da == 1 and db == 1 then
        return g * b, g * a
    elseif da == 2 and db == 2 then
        return mm_grads(g, a, b, column_major(a), column_major(b))
    elseif da == 2 and db == 1 then
        return g:unsqueeze(2) * b:unsqueeze(1), a:t():matmul(g)
    elseif da == 1 and db == 2 then
        local ga, gb = mm_grads(g:unsqueeze(1), a:unsqueeze(1), b, false, column_major(b))
        return ga:squeeze(1), gb
    elseif da >= 3 and db <= 2 then
        -- folded: a's rows flattened into one mm (or mv)
        local k = a.shape[da]
        local a2 = a:reshape(-1, k)
        if db == 1 then
            local g2 = g:reshape(-1)
            return (g2:unsqueeze(2) * b:unsqueeze(1)):reshape(a.shape), a2:t():matmul(g2)
        end
        local g2 = g:reshape(-1, b.shape[2])
        local ga, gb = mm_grads(g2, a2, b, column_major(a2), column_major(b))
        return ga:reshape(a.shape), gb
    end
    -- batched (bmm over the broadcast batch dims): grad.bmm(b^T), a^T.bmm(grad), summed back
    local a3 = da == 1 and a:unsqueeze(1) or a
    local b3 = db == 1 and b:unsqueeze(2) or b
    local g3 = g
    if da == 1 then g3 = g3:unsqueeze(-2) end
    if db == 1 then g3 = g3:unsqueeze(-1) end
    local ga = g3:matmul(b3:transpose(-2, -1))
    local gb = a3:transpose(-2, -1):matmul(g3)
    if da == 1 then ga = ga:squeeze(-2) end
    if db == 1 then gb = gb:squeeze(-1) end
    return sum_to(ga, a.shape), sum_to(gb, b.shape)
end

function M.matmul_name(a, b)
    local da, db = a.ndim, b.ndim
    if da == 1 and db == 1 then return "DotBackward0" end
    if da == 2 and db == 2 then return "MmBackward0" end
    if da == 2 and db == 1 then return "MvBackward0" end
    if da == 1 and db == 2 then return "SqueezeBackward3" end
    return "UnsafeViewBackward0"
end

local function product(tbl, key, name)
    registry.op(tbl, key, name, {1, 2}, function(node, g, a, b)
        local ga, gb = M.matmul_grads(g, a, b)
        return {ga, gb}
    end, {save = {1, 2}})
end

for _, tbl in ipairs({torch, methods}) do
    product(tbl, "matmul", M.matmul_name)
    product(tbl, "mm", "MmBackward0")
    product(tbl, "bmm", "BmmBackward0")
    product(tbl, "dot", "DotBackward0")
end

-- addmm(bias, m1, m2): bias + m1 @ m2, nn.Linear's product (beta = alpha = 1)
local function addmm(tbl)
    registry.wrap(tbl, "addmm", function(orig, bias, m1, m2, ...)
        local out = orig(bias, m1, m2, ...)
        local c1, c2 = column_major(m1), column_major(m2)
        local bias_shape = bias.shape
        registry.record(out, "AddmmBackward0", {1, 2, 3}, function(node, g)
            local a, b = node:saved(1), node:saved(2)
            local ga, gb = mm_grads(g, a, b, c1, c2)
            return {sum_to(g, bias_shape), ga, gb}
        end, {save = {2, 3}}, table.pack(bias, m1, m2))
        return out
    end)
end
addmm(torch)
addmm(methods)

-- ---- the attention stages that are products -------------------------------------------------------

-- attention.scores(q, k) = q @ k^T: PyTorch's queries @ keys.transpose(-2, -1) (mm for 2-D, bmm else)
local function scores_grads(g, q, k)
    if q.ndim == 2 then
        -- mm(q, k.T): k.T is column-major, so its gradient is (g.t() @ q).t(), i.e. k's is g.t() @ q
        return g:mm(k), g:t():mm(q)
    end
    return g:matmul(k), q:transpose(-2, -1):matmul(g):transpose(-2, -1)
end

local function stage_name(x) return x.ndim == 2 and "MmBackward0" or "UnsafeViewBackward0" end

for _, key in ipairs({"scores", "dot"}) do
    registry.op(A, key, stage_name, {1, 2}, function(node, g, q, k)
        local gq, gk = scores_grads(g, q, k)
        return {gq, gk}
    end, {save = {1, 2}})
end

-- attention.weighted_sum(w, v) = w @ v
registry.op(A, "weighted_sum", stage_name, {1, 2}, function(node, g, w, v)
    local gw, gv = M.matmul_grads(g, w, v)
    return {gw, gv}
end, {save = {1, 2}})

return M
