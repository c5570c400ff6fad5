-- functional.lua — nn.functional (module attn.nn.functional): PyTorch's torch.nn.functional, the
-- layers as plain functions. gelu and silu are C (src/bind/layers.c), the rest call torch's.
local torch = require("attn.bind").torch
local C = require("attn.bind").functional
local check = require("attn.check")
local errors = require("attn.errors")

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

return {
    linear = linear,
    softmax = function(x, dim) return torch.softmax(x, dim) end,
    dropout = function(x, p, training) return torch.dropout(x, p, training) end,
    relu = function(x) return torch.relu(x) end,
    gelu = C.gelu,
    silu = C.silu,
    layer_norm = function(...) return torch.layer_norm(...) end,
    embedding = function(input, weight) return torch.embedding(weight, input) end,
}
