-- generate.lua — text generation with chapter 4's GPTModel (module attn.gpt.generate), as chapters 4
-- and 5 write it:
--   gpt.generate_text_simple(model, idx, max_new_tokens, context_size)   greedy (ch. 4)
--   gpt.generate(model, idx, max_new_tokens, context_size [, {temperature, top_k, eos_id}])   (ch. 5)
--   gpt.text_to_token_ids(text, tokenizer), gpt.token_ids_to_text(ids, tokenizer)
--   gpt.Generator{model =, idx = or text =, tokenizer =, ...}   the same loop one token at a time:
--                                            g:step() shows the last position's top candidates and the
--                                            new row of the causal mask, and returns the new id
-- Ids are attn's (1-based); with the same torch.manual_seed the sampled ids are PyTorch's + 1 (top-k
-- through torch.topk, sampling through torch.multinomial, both as PyTorch 1.13 computes them).
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local check = require("attn.check")
local model_lib = require("attn.gpt.model")

local gen = {}

local function check_model(fn, model)
    if not check.is_module(model) then
        errors.raisef("%s: expected a model (GPTModel), got %s", fn, check.describe(model))
    end
end

-- idx: a tensor [batch, n], or a Lua list of ids {1, 2} (one sequence); a nested table {{1, 2}} was
-- wrapped once more and reported as "a tensor of shape [1, 1, 2]", which the user never wrote
local function check_idx(fn, idx)
    if type(idx) == "table" and not torch.is_tensor(idx) then
        if type(idx[1]) == "table" then
            errors.raisef("%s: idx as a Lua table is one sequence of ids, such as {1, 2}; got a nested table "
                          .. "(for a batch, give torch.tensor{{1, 2}, {3, 4}})", fn)
        end
        idx = torch.tensor{idx}
    end
    check.tensor(fn, "idx", idx)
    if idx.dtype ~= torch.int64 or idx.ndim ~= 2 or idx.shape[2] == 0 then
        errors.raisef("%s: idx must be an int64 tensor of token ids of shape [batch, n] with n >= 1, got %s %s", fn,
                      tostring(idx.dtype), check.describe(idx))
    end
    return idx
end

local function count(fn, what, v)
    if math.type(v) ~= "integer" and not (type(v) == "number" and v == math.floor(v)) or v < 0 then
        errors.raisef("%s: %s must be a whole number >= 0, got %s", fn, what, check.describe(v))
    end
    return math.tointeger(v)
end

-- The last context_size tokens of idx (idx[:, -context_size:]).
local function crop(idx, context_size)
    local n = idx.shape[2]
    if n <= context_size then return idx end
    return idx:narrow(2, n - context_size + 1, context_size)
end

-- The logits of the last position, [batch, vocab]. Under no_grad, as the book's generate functions
-- run the model (with torch.no_grad():): generating records no graph.
local no_grad_call = require("attn.autograd.grad_mode").call_with
local function last_logits(model, idx, context_size)
    local logits = no_grad_call(false, model, crop(idx, context_size))
    return logits:select(2, logits.shape[2])
end

--- gpt.generate_text_simple(model, idx, max_new_tokens, context_size)
function gen.generate_text_simple(model, idx, max_new_tokens, context_size)
    local fn = "generate_text_simple"
    check_model(fn, model)
    idx = check_idx(fn, idx)
    max_new_tokens = count(fn, "max_new_tokens", max_new_tokens)
    context_size = check.size(fn, "context_size", context_size)
    for _ = 1, max_new_tokens do
        local logits = last_logits(model, idx, context_size)
        local probas = torch.softmax(logits, -1)
        local idx_next = torch.argmax(probas, -1, true)
        idx = torch.cat({idx, idx_next}, 2)
    end
    return idx
end

-- One step of chapter 5's generate: the next ids [batch, 1] from the last logits.
local function choose(logits, temperature, top_k)
    if top_k then
        local top_logits = torch.topk(logits, top_k)
        local min_val = top_logits:select(2, top_k):unsqueeze(-1) -- top_logits[:, -1], one per row
        logits = logits:masked_fill(logits:lt(min_val), -math.huge)
    end
    if temperature > 0.0 then
        logits = logits / temperature
        local probs = torch.softmax(logits, -1)
        return torch.multinomial(probs, 1), probs
    end
    return torch.argmax(logits, -1, true), torch.softmax(logits, -1)
end

local function generate_opts(fn, model, opts)
    opts = check.options(fn, opts, "{temperature = 1.4, top_k = 25}", {"temperature", "top_k", "eos_id"})
    local temperature = opts.temperature or 0.0
    if type(temperature) ~= "number" or not (temperature >= 0) or temperature == math.huge then
        errors.raisef("%s: temperature must be a number >= 0, got %s", fn, check.describe(temperature))
    end
    local top_k = opts.top_k and check.size(fn, "top_k", opts.top_k)
    local vocab = model.cfg and model.cfg.vocab_size
    if top_k and vocab and top_k > vocab then
        errors.raisef("%s: top_k (%d) is larger than the vocabulary (%d)", fn, top_k, vocab)
    end
    return temperature, top_k, opts.eos_id
end

--- gpt.generate(model, idx, max_new_tokens, context_size [, {temperature = 0.0, top_k = nil, eos_id = nil}])
function gen.generate(model, idx, max_new_tokens, context_size, opts)
    local fn = "generate"
    check_model(fn, model)
    idx = check_idx(fn, idx)
    max_new_tokens = count(fn, "max_new_tokens", max_new_tokens)
    context_size = check.size(fn, "context_size", context_size)
    local temperature, top_k, eos_id = generate_opts(fn, model, opts)
    for _ = 1, max_new_tokens do
        local idx_next = choose(last_logits(model, idx, context_size), temperature, top_k)
        if eos_id and idx_next:numel() == 1 and idx_next:item() == eos_id then break end
        idx = torch.cat({idx, idx_next}, 2)
    end
    return idx
end

--- gpt.text_to_token_ids(text, tokenizer) -> [1, n] int64
function gen.text_to_token_ids(text, tokenizer)
    if type(tokenizer) ~= "table" or not tokenizer.encode then
        errors.raisef("text_to_token_ids: expected a tokenizer (tiktoken.get_encoding(\"gpt2\")), got %s",
                      check.describe(tokenizer))
    end
    local encoded = tokenizer:encode(text, {allowed_special = {"<|endoftext|>"}})
    if #encoded == 0 then errors.raise("text_to_token_ids: the text has no tokens") end
    return torch.tensor(encoded):unsqueeze(1) -- add the batch dimension
end

--- gpt.token_ids_to_text(token_ids, tokenizer) -> text
function gen.token_ids_to_text(token_ids, tokenizer)
    if type(tokenizer) ~= "table" or not tokenizer.decode then
        errors.raisef("token_ids_to_text: expected a tokenizer, got %s", check.describe(tokenizer))
    end
    check.tensor("token_ids_to_text", "token_ids", token_ids)
    return tokenizer:decode(token_ids:squeeze(1))
end

gen.check_ids = model_lib.check_ids
-- For gpt/step.lua (not part of the table gpt): the same pieces, one token at a time.
gen.internal = {choose = choose, last_logits = last_logits, crop = crop, check_idx = check_idx,
                generate_opts = generate_opts, count = count}
return gen
