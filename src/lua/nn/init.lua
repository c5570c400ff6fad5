-- init.lua — the table nn (module attn.nn; also torch.nn, as the book writes it): what its parts
-- define, each in its file.
--   nn/module.lua       nn.Module, nn.Parameter, nn.is_parameter, nn.deepcopy (nn/members.lua: what a module holds)
--   nn/state_dict.lua   m:state_dict(), m:load_state_dict(sd) (methods of nn.Module)
--   nn/layers.lua       nn.Linear, nn.Dropout, nn.ModuleList
--   nn/attention.lua    the books' attention classes: nn.SelfAttention_v1 ... nn.MLPAttention
--   nn/attention_variants.lua  the bonus chapters' attention: nn.GroupedQueryAttention, nn.MultiHeadLatentAttention
--   nn/transformer.lua  the Transformer's layers: nn.LayerNorm, nn.Embedding, the blocks, ...
--   nn/block_trace.lua  attention.trace of nn.EncoderBlock (a method of the class; no name of its own)
--   nn/rnn.lua          the recurrent layers: nn.GRUCell, nn.GRU, nn.LSTMCell, nn.LSTM
--   nn/functional.lua   nn.functional
--   nn/weight_init.lua  nn.init: xavier_uniform_, kaiming_uniform_, normal_, zeros_, ...
--   nn/model.lua        the whole Transformer: nn.Sequential, nn.EncoderDecoder, nn.build_model, greedy decoding
--   nn/losses.lua       nn.CrossEntropyLoss, nn.NLLLoss, nn.MSELoss (their functions: nn/functional.lua)
local nn = {functional = require("attn.nn.functional"), init = require("attn.nn.weight_init")}
for _, part in ipairs({"module", "state_dict", "layers", "attention", "attention_variants", "transformer", "block_trace", "rnn", "model", "losses"}) do
    for name, value in pairs(require("attn.nn." .. part)) do
        assert(nn[name] == nil, "nn." .. name .. " is defined twice")
        nn[name] = value
    end
end
return nn
