-- functional.lua — nn.functional (module attn.nn.functional): PyTorch's torch.nn.functional, the
-- layers as plain functions. gelu and silu are C (src/bind/layers.c), the rest call torch's.
local torch = require("attn.bind").torch
local C = require("attn.bind").functional
local check = require("attn.check")
local errors = require("attn.errors")
local warnings = require("attn.warnings")

-- PyTorch 1.13's F.linear: for a 2-D input, or a contiguous 3-D one (its rows flattened), with a bias it is
-- addmm(bias, x, W.T): the bias is in the result before BLAS adds the product in, which differs from
-- x @ W.T + b in the last bit beyond ~320 input features. Otherwise x @ W.T, then + b.
local function linear_of(x, weight, bias)
    if bias and (x.ndim == 2 or (x.ndim == 3 and x:is_contiguous())) then
        local y = torch.addmm(bias, x:reshape(-1, x.shape[-1]), weight.T)
        return x.ndim == 2 and y or y:view(x.shape[1], x.shape[2], y.shape[2])
    end
    local y = x:matmul(weight.T)
    if bias then
        y = y + bias
    end
    return y
end

local function linear(x, weight, bias)
    check.tensor("linear", "input", x)
    check.tensor("linear", "weight", weight)
    if bias ~= nil then check.tensor("linear", "bias", bias) end
    -- an error of the product it makes (addmm, matmul, +) names linear, which the user called
    return errors.call("linear", linear_of, x, weight, bias)
end

-- The losses (C: src/core/loss.c through src/bind/learn.c). Class ids are 1-based, as everywhere in attn;
-- ignore_index is compared with the targets as written (PyTorch's default -100 stays -100).
local L = require("attn.bind").learn

-- Reads the options table of a loss: only the names in `known` (name -> default), each checked.
local function loss_options(fn, usage, opts, known)
    if opts ~= nil and (type(opts) ~= "table" or getmetatable(opts) ~= nil) then
        errors.raisef("%s: the options must be a table such as {reduction = \"sum\"}, got %s (%s)", fn,
                      check.describe(opts), usage)
    end
    local out = {}
    for k, v in pairs(opts or {}) do
        if known[k] == nil then errors.raisef("%s: unknown option %s (%s)", fn, tostring(k), usage) end
        out[k] = v
    end
    for k, default in pairs(known) do
        if out[k] == nil then out[k] = default end
    end
    if type(out.reduction) ~= "string" then
        errors.raisef("%s: reduction must be \"mean\", \"sum\" or \"none\", got %s", fn, check.describe(out.reduction))
    end
    if out.ignore_index ~= nil and math.type(out.ignore_index) ~= "integer" then
        errors.raisef("%s: ignore_index must be an integer, got %s", fn, check.describe(out.ignore_index))
    end
    return out
end

local CE_USAGE = 'cross_entropy(input, target, {ignore_index = -100, reduction = "mean"})'
local NLL_USAGE = 'nll_loss(input, target, {ignore_index = -100, reduction = "mean"})'
local MSE_USAGE = 'mse_loss(input, target, {reduction = "mean"})'

-- PyTorch's F.cross_entropy with class ids: log_softmax over the class dim, then nll_loss.
local function cross_entropy(input, target, opts)
    check.tensor("cross_entropy", "input", input)
    check.tensor("cross_entropy", "target", target)
    local o = loss_options("cross_entropy", CE_USAGE, opts, {ignore_index = -100, reduction = "mean"})
    return L.cross_entropy(input, target, o.ignore_index, o.reduction, "cross_entropy")
end

local function nll_loss(input, target, opts)
    check.tensor("nll_loss", "input", input)
    check.tensor("nll_loss", "target", target)
    local o = loss_options("nll_loss", NLL_USAGE, opts, {ignore_index = -100, reduction = "mean"})
    return L.nll_loss(input, target, o.ignore_index, o.reduction, "nll_loss")
end

local function mse_loss(input, target, opts)
    check.tensor("mse_loss", "input", input)
    check.tensor("mse_loss", "target", target)
    -- PyTorch 1.13's F.mse_loss (and l1_loss, smooth_l1_loss, huber_loss, which attn does not have) warns
    -- before it broadcasts: [3] against [3, 1] gives a [3, 3] of differences, rarely what was meant
    local input_size, target_size = tostring(input.shape), tostring(target.shape)
    if input_size ~= target_size then
        warnings.warn("Using a target size (%s) that is different to the input size (%s). This will likely lead to "
                      .. "incorrect results due to broadcasting. Please ensure they have the same size.",
                      target_size, input_size)
    end
    local o = loss_options("mse_loss", MSE_USAGE, opts, {reduction = "mean"})
    return L.mse_loss(input, target, o.reduction, "mse_loss")
end

return {
    cross_entropy = cross_entropy,
    nll_loss = nll_loss,
    mse_loss = mse_loss,
    log_softmax = function(x, dim) return torch.log_softmax(x, dim) end,
    linear = linear,
    softmax = function(x, dim) return torch.softmax(x, dim) end,
    dropout = function(x, p, training) return torch.dropout(x, p, training) end,
    relu = function(x) return torch.relu(x) end,
    gelu = C.gelu,
    silu = C.silu,
    layer_norm = function(...) return torch.layer_norm(...) end,
    embedding = function(input, weight) return torch.embedding(weight, input) end,
}
