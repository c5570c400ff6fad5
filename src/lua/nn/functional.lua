-- functional.lua — nn.functional (module attn.nn.functional): PyTorch's torch.nn.functional, the
-- layers as plain functions. gelu and silu are C (src/bind/layers.c), the rest call torch's.
local torch = require("attn.bind").torch
local C = require("attn.bind").functional

return {
    softmax = function(x, dim) return torch.softmax(x, dim) end,
    dropout = function(x, p, training) return torch.dropout(x, p, training) end,
    relu = function(x) return torch.relu(x) end,
    gelu = C.gelu,
    silu = C.silu,
    layer_norm = function(...) return torch.layer_norm(...) end,
    embedding = function(input, weight) return torch.embedding(weight, input) end,
}
