-- formulas_extra.lua — backward formulas for the autograd engine (module attn.autograd.formulas_extra):
-- the losses, log_softmax, gather, var/std, max/min, where, and the recurrent cells. Each is a plain
-- function of tensors (no graph, no requires_grad): it takes the gradient of the output and what the
-- forward saw, and returns the gradient of each differentiable input, in the order of the forward's
-- arguments (nil for an input that has none). Indices, dims and class ids are 1-based, as the forward
-- functions take them. Each comment names PyTorch's formula (tools/autograd/derivatives.yaml and
-- torch/csrc/autograd/FunctionsManual.cpp at v1.13) and each is checked against PyTorch's own gradients
-- (tests/lua/formulas_spec.lua, tests/data/torch/grads.txt from scripts/torch_reference_grads.py).
--
--   cross_entropy_backward(grad_out, logits, targets, opts)   -> grad_logits
--   nll_loss_backward(grad_out, input, targets, opts)         -> grad_input
--   mse_loss_backward(grad_out, input, target, opts)          -> grad_input, grad_target
--   log_softmax_backward(grad_out, output, dim)               -> grad_input
--   gather_backward(grad_out, input, dim, index)              -> grad_input
--   var_backward(grad_out, input, opts)                       -> grad_input   opts: {dim =, correction =, keepdim =}
--   std_backward(grad_out, output, input, opts)               -> grad_input
--   max_backward(grad_out, input, dim, indices, keepdim)      -> grad_input   (min: the same function)
--   max_all_backward(grad_out, input, output)                 -> grad_input   (x:max() without a dim)
--   where_backward(grad_out, condition)                       -> grad_input, grad_other
--   gru_cell_backward(grad_hy, input, hx, w_ih, w_hh, b_ih, b_hh)
--                                  -> grad_input, grad_hx, grad_w_ih, grad_w_hh, grad_b_ih, grad_b_hh
--   lstm_cell_backward(grad_hy, grad_cy, input, hx, cx, w_ih, w_hh, b_ih, b_hh)
--                                  -> grad_input, grad_hx, grad_cx, grad_w_ih, grad_w_hh, grad_b_ih, grad_b_hh
--
-- opts of the losses are the forward's: {ignore_index = -100, reduction = "mean"}. Registering one with
-- the engine is one line, e.g. cross_entropy's node calling
-- formulas_extra.cross_entropy_backward(grad, saved.logits, saved.targets, saved.opts).
local torch = require("attn.bind").torch
local C = require("attn.bind").learn -- log_softmax_backward: src/core/softmax_grad.c

local M = {}

local function reduction_of(opts) return (opts and opts.reduction) or "mean" end
local function ignore_of(opts) return (opts and opts.ignore_index) or -100 end

-- nll_loss_backward (LossNLL.cpp, nll_loss_backward_out_frame; derivatives.yaml "nll_loss_forward":
-- self: nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight)): zeros,
-- and at each (row, target) -grad_out, divided by the number of targets not ignored for "mean"
-- (-(grad / total_weight), in float, as PyTorch writes it); an ignored row stays zero. Written into
-- the zeros with scatter, as PyTorch does: one value per target, not a comparison per class (for
-- chapter 5's logits, 512 targets among 50,257 classes).
function M.nll_loss_backward(grad_out, input, targets, opts)
    local reduction, ignore = reduction_of(opts), ignore_of(opts)
    local class_dim = input.ndim == 1 and 1 or 2
    local t = input.ndim == 1 and targets:reshape(1) or targets:unsqueeze(class_dim)
    local kept = t:ne(ignore)
    local value
    if reduction == "none" and input.ndim > 1 then
        value = -grad_out:unsqueeze(class_dim)
    elseif reduction == "mean" then
        local counted = targets:ne(ignore):sum():item()
        value = -(grad_out / counted)
    else
        value = -grad_out
    end
    -- an ignored target writes a zero, at class 1 (its own id may be any number)
    return torch.zeros(input.shape):scatter(class_dim, torch.where(kept, t, 1), torch.where(kept, value, 0.0))
end

-- log_softmax's backward (derivatives.yaml "_log_softmax": _log_softmax_backward_data(grad, result, dim);
-- SoftMaxKernel.cpp _vec_host_softmax_backward_lastdim / _vec_log_softmax_backward):
-- grad_out - exp(output) * sum(grad_out, dim), in C with the kernels' order of operations.
function M.log_softmax_backward(grad_out, output, dim)
    return C.log_softmax_backward(grad_out, output, dim)
end

-- cross_entropy = nll_loss(log_softmax(logits, class dim)) (LossNLL.cpp cross_entropy_loss), so its
-- gradient is the chain of the two above, as PyTorch's autograd runs it.
function M.cross_entropy_backward(grad_out, logits, targets, opts)
    local dim = logits.ndim == 1 and 1 or 2
    local logp = torch.log_softmax(logits, dim)
    return M.log_softmax_backward(M.nll_loss_backward(grad_out, logp, targets, opts), logp, dim)
end

-- mse_loss_backward (Loss.cpp; derivatives.yaml "mse_loss": self: mse_loss_backward(grad, self, target,
-- reduction), target: -mse_loss_backward(...)): norm * (input - target) * grad_out, norm = 2 / numel for
-- "mean" (a double cast to float, as the kernel's alpha) else 2.
function M.mse_loss_backward(grad_out, input, target, opts)
    local reduction = reduction_of(opts)
    local norm = reduction == "mean" and 2.0 / input:numel() or 2.0
    local g = (input - target) * norm * grad_out
    return g, -g
end

-- gather's backward (derivatives.yaml "gather": self: gather_backward(grad, self, dim, index,
-- sparse_grad) = zeros_like(self).scatter_add(dim, index, grad)).
function M.gather_backward(grad_out, input, dim, index)
    return torch.zeros_like(input):scatter_add(dim, index, grad_out)
end

-- var_backward (FunctionsManual.cpp): (2.0 / (N - correction)) * grad * (self - self.mean(dim, true)),
-- grad unsqueezed back along dim when keepdim is false. opts as the forward's: dim (nil: over all),
-- correction (default 1: unbiased), keepdim.
function M.var_backward(grad_out, input, opts)
    opts = opts or {}
    local correction = opts.correction or (opts.unbiased == false and 0 or 1)
    if opts.dim == nil then
        local dof = input:numel() - correction
        return grad_out * (2.0 / dof) * (input - input:mean())
    end
    local dim = opts.dim < 0 and opts.dim + input.ndim + 1 or opts.dim
    local g = grad_out
    if not opts.keepdim and input.ndim > 1 then g = g:unsqueeze(dim) end
    local dof = input.shape[dim] - correction
    return g * (2.0 / dof) * (input - input:mean(dim, true))
end

-- std_backward (FunctionsManual.cpp): var_backward of (grad / (result * 2)), zero where result is 0.
function M.std_backward(grad_out, output, input, opts)
    local g = (grad_out / (output * 2)):masked_fill(output:eq(0), 0)
    return M.var_backward(g, input, opts)
end

-- max/min along a dim (derivatives.yaml "max.dim": value_selecting_reduction_backward(grad, dim, indices,
-- self.sizes(), keepdim)): zeros with grad scattered to the indices (1-based, as x:max(dim) returns them).
function M.max_backward(grad_out, input, dim, indices, keepdim)
    local g, i = grad_out, indices
    if not keepdim and input.ndim > 0 then
        dim = dim < 0 and dim + input.ndim + 1 or dim
        g, i = g:unsqueeze(dim), i:unsqueeze(dim)
    end
    return torch.zeros_like(input):scatter(dim, i, g)
end
M.min_backward = M.max_backward

-- max/min over everything (derivatives.yaml "max": evenly_distribute_backward(grad, self, result)): the
-- gradient shared equally among the elements equal to the result (NaN counting as equal to NaN):
-- zeros.masked_fill_(mask, grad / mask.sum()).
function M.max_all_backward(grad_out, input, output)
    local mask = input:eq(output)
    if output:ne(output):item() then mask = mask:logical_or(input:ne(input)) end
    local share = (grad_out / mask:sum()):item()
    return torch.zeros_like(input):masked_fill(mask, share)
end
M.min_all_backward = M.max_all_backward

-- where (derivatives.yaml "where.self": self: where(condition, grad, 0), other: where(condition, 0, grad)).
function M.where_backward(grad_out, condition)
    return torch.where(condition, grad_out, 0.0), torch.where(condition, 0.0, grad_out)
end

-- The recurrent cells. PyTorch's CPU GRUCell and LSTMCell have no backward of their own: at::gru_cell and
-- at::lstm_cell (aten/src/ATen/native/RNN.cpp, GRUCell / LSTMCell::operator() on a CPU tensor) are
-- compositions of linear, unsafe_chunk, sigmoid_, tanh_, add_ and mul_, and autograd runs each op's
-- formula. These functions run those same formulas in the order the graph's nodes run (the last op first);
-- where two paths meet (hx reaches hy directly and through the hidden-gate linear) the sum is taken in
-- one order, which an engine may take in the other: within 1e-6 of PyTorch (tests/lua/formulas_spec.lua).
local function linear_backward(g, x, w)
    -- addmm(b, x, w.T): grad_x = g @ w, grad_w = g.T @ x, grad_b = g.sum(0)
    return g:matmul(w), g.T:matmul(x), g:sum(1)
end

-- GRUCell: gi = x W_ih^T + b_ih, gh = h W_hh^T + b_hh (chunks r, z, n); r = σ(gh_r + gi_r),
-- z = σ(gh_z + gi_z), n = tanh(gh_n * r + gi_n), hy = (h - n) * z + n.
function M.gru_cell_backward(grad_hy, input, hx, w_ih, w_hh, b_ih, b_hh)
    local gi = torch.addmm(b_ih, input, w_ih.T)
    local gh = torch.addmm(b_hh, hx, w_hh.T)
    local H = hx.shape[2]
    local function chunk(t, k) return t:narrow(2, (k - 1) * H + 1, H) end
    local r = (chunk(gh, 1) + chunk(gi, 1)):sigmoid()
    local z = (chunk(gh, 2) + chunk(gi, 2)):sigmoid()
    local hn = chunk(gh, 3)
    local n = (hn * r + chunk(gi, 3)):tanh()
    -- hy = (hx - n) * z + n
    local g_n = grad_hy + (-(grad_hy * z))          -- from "+ n" and from "(hx - n)"
    local g_z = grad_hy * (hx - n)
    local g_hx = grad_hy * z
    local g_npre = g_n * (1 - n * n)                -- tanh_backward: grad * (1 - y * y)
    local g_gin = g_npre
    local g_r = g_npre * hn
    local g_ghn = g_npre * r
    local g_rpre = g_r * (1 - r) * r                -- sigmoid_backward: grad * (1 - y) * y
    local g_zpre = g_z * (1 - z) * z
    local g_gi = torch.cat({g_rpre, g_zpre, g_gin}, 2)
    local g_gh = torch.cat({g_rpre, g_zpre, g_ghn}, 2)
    local g_x, g_wih, g_bih = linear_backward(g_gi, input, w_ih)
    local g_h2, g_whh, g_bhh = linear_backward(g_gh, hx, w_hh)
    return g_x, g_hx + g_h2, g_wih, g_whh, g_bih, g_bhh
end

-- LSTMCell: gates = x W_ih^T + b_ih + h W_hh^T + b_hh (chunks i, f, g, o); i, f, o = σ(.), g = tanh(.),
-- cy = f * c + i * g, hy = o * tanh(cy).
function M.lstm_cell_backward(grad_hy, grad_cy, input, hx, cx, w_ih, w_hh, b_ih, b_hh)
    local gates = torch.addmm(b_ih, input, w_ih.T) + torch.addmm(b_hh, hx, w_hh.T)
    local H = hx.shape[2]
    local function chunk(k) return gates:narrow(2, (k - 1) * H + 1, H) end
    local i, f, g, o = chunk(1):sigmoid(), chunk(2):sigmoid(), chunk(3):tanh(), chunk(4):sigmoid()
    local cy = f * cx + i * g
    local tcy = cy:tanh()
    local g_o = grad_hy * tcy
    local g_cy = grad_hy * o * (1 - tcy * tcy)
    if grad_cy ~= nil then g_cy = g_cy + grad_cy end
    local g_f, g_cx = g_cy * cx, g_cy * f
    local g_i, g_g = g_cy * g, g_cy * i
    local g_gates = torch.cat({g_i * (1 - i) * i, g_f * (1 - f) * f, g_g * (1 - g * g), g_o * (1 - o) * o}, 2)
    local g_x, g_wih, g_bih = linear_backward(g_gates, input, w_ih)
    local g_h, g_whh, g_bhh = linear_backward(g_gates, hx, w_hh)
    return g_x, g_h, g_cx, g_wih, g_whh, g_bih, g_bhh
end

return M
