-- ids.lua — token ids as the models take them (module attn.gpt.ids): what chapter 4's GPTModel and
-- the Qwen3 and Llama 3 models of llm/ share, and their traces and overviews (gpt/inspect.lua,
-- llm/inspect.lua) with them.
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local check = require("attn.check")

local ids = {}

-- ids.check(fn, model, in_idx): token ids [batch, n] (int64, attn's 1-based ids; a Lua list is taken as
-- one text), no more than model.cfg.context_length; fn names the caller in the errors.
function ids.check(fn, model, in_idx)
    if type(in_idx) == "table" and not torch.is_tensor(in_idx) then in_idx = torch.tensor{in_idx} end
    check.tensor(fn, "in_idx (token ids)", in_idx)
    if in_idx.dtype ~= torch.int64 or in_idx.ndim ~= 2 then
        errors.raisef("%s: expected token ids as an int64 tensor of shape [batch, n], got %s %s", fn,
                      tostring(in_idx.dtype), check.describe(in_idx))
    end
    local n, ctx = in_idx.shape[2], model.cfg.context_length
    if n > ctx then
        errors.raisef("%s: the input has %d tokens, more than the model's context length of %d", fn, n, ctx)
    end
    if n == 0 then errors.raisef("%s: the input has no tokens", fn) end
    return in_idx
end

return ids
