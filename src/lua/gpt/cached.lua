-- cached.lua — generation with the KV cache (module attn.gpt.cached), as the bonus chapter
-- ch04/03_kv-cache of "Build a Large Language Model (From Scratch)" writes it:
--   gpt.generate_text_simple_cached(model, idx, max_new_tokens [, context_size [, use_cache = true]])
-- The prompt goes through the model once (filling every block's cache), then each new token alone:
-- a step computes one row of queries against the cached keys instead of the whole sequence again.
-- Greedy, as generate_text_simple: the same ids (see tests/lua/variants_spec.lua for how close the
-- logits are, and why they are not always equal to the last bit).
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local check = require("attn.check")

local cached = {}
-- Under no_grad, as the chapter's generate_text_simple_cached runs the model (with torch.no_grad():):
-- otherwise every step would record a graph, and each block's cache, a cat of the one before, would
-- keep every earlier step's graph alive (memory and time growing with the tokens generated).
local no_grad_call = require("attn.autograd.grad_mode").call_with

-- The loop of generate_text_simple_cached, arguments checked.
local function generate(model, idx, max_new_tokens, ctx_len, use_cache, fn)
    local function last(n) -- idx[:, -n:]
        local len = idx.shape[2]
        return len <= n and idx or idx:narrow(2, len - n + 1, n)
    end
    if use_cache == false then
        for _ = 1, max_new_tokens do
            local logits = model(last(ctx_len))
            idx = torch.cat({idx, torch.argmax(logits:select(2, logits.shape[2]), -1, true)}, 2)
        end
        return idx
    end
    if idx.shape[2] + max_new_tokens > model.cfg.context_length + 1 then
        errors.raisef("%s: %d tokens and %d new ones do not fit the cache of %d positions (the context length)",
                      fn, idx.shape[2], max_new_tokens, model.cfg.context_length)
    end
    model:reset_kv_cache()
    local logits = model(last(ctx_len), {use_cache = true})   -- the prompt, once
    for i = 1, max_new_tokens do
        local next_idx = torch.argmax(logits:select(2, logits.shape[2]), -1, true)
        idx = torch.cat({idx, next_idx}, 2)
        if i < max_new_tokens then logits = model(next_idx, {use_cache = true}) end -- only the new token
    end
    return idx
end

--- gpt.generate_text_simple_cached(model, idx, max_new_tokens [, context_size [, use_cache]])
function cached.generate_text_simple_cached(model, idx, max_new_tokens, context_size, use_cache)
    local fn = "generate_text_simple_cached"
    if not check.is_module(model) or type(model.reset_kv_cache) ~= "function" then
        errors.raisef("%s: expected a GPTModel (a model with a KV cache), got %s", fn, check.describe(model))
    end
    if type(idx) == "table" and not torch.is_tensor(idx) then idx = torch.tensor{idx} end
    check.tensor(fn, "idx", idx)
    if idx.dtype ~= torch.int64 or idx.ndim ~= 2 or idx.shape[2] == 0 then
        errors.raisef("%s: idx must be an int64 tensor of token ids of shape [batch, n] with n >= 1, got %s %s", fn,
                      tostring(idx.dtype), check.describe(idx))
    end
    if math.type(max_new_tokens) ~= "integer" or max_new_tokens < 0 then
        errors.raisef("%s: max_new_tokens must be a whole number >= 0, got %s", fn, check.describe(max_new_tokens))
    end
    local ctx_len = context_size and check.size(fn, "context_size", context_size) or model.cfg.context_length
    if use_cache ~= nil and type(use_cache) ~= "boolean" then
        errors.raisef("%s: use_cache must be true or false, got %s", fn, check.describe(use_cache))
    end
    model:eval()
    return no_grad_call(false, generate, model, idx, max_new_tokens, ctx_len, use_cache, fn)
end

return cached
