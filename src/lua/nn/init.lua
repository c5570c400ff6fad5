-- init.lua — the table nn (module attn.nn; also torch.nn, as the book writes it): what its parts
-- define, each in its file.
--   nn/module.lua       nn.Module, nn.Parameter, nn.is_parameter, nn.deepcopy
--   nn/layers.lua       nn.Linear, nn.Dropout, nn.ModuleList
--   nn/attention.lua    the books' attention classes: nn.SelfAttention_v1 ... nn.MLPAttention
--   nn/transformer.lua  the Transformer's layers: nn.LayerNorm, nn.Embedding, the blocks, ...
--   nn/functional.lua   nn.functional
local nn = {functional = require("attn.nn.functional")}
for _, part in ipairs({"module", "layers", "attention", "transformer"}) do
    for name, value in pairs(require("attn.nn." .. part)) do
        assert(nn[name] == nil, "nn." .. name .. " is defined twice")
        nn[name] = value
    end
end
return nn
