-- step.lua — chapter 5's generate, one token at a time (module attn.gpt.step):
--   g = gpt.Generator{model = m, text = "Every effort moves you", tokenizer = enc, max_new_tokens = 10,
--                     temperature = 0.0, top_k = nil, context_size = (the model's), show = 5,
--                     use_cache = false}
--   g:step()   one new token: the context the model reads, the new row of the causal mask (the last
--              position sees every earlier token, nothing after it), the top `show` candidates with
--              their probabilities, and the one chosen; returns its id
--   g:run()    the remaining steps; g.idx the ids so far; g:text() their text
-- The ids are those of gpt.generate with the same arguments and the same torch.manual_seed.
-- Any model with chapter 4's interface works: GPTModel, qwen3.Qwen3Model, llama.Llama3Model; the
-- tokenizer a tiktoken encoding or a tokenizers.Tokenizer (by default the tokenizer.json of the
-- directory a Qwen3 or Llama 3 model was loaded from). With use_cache = true the prompt goes through
-- the model once and then only each new token, its query against the keys and values of the model's
-- KV cache (the bonus chapter ch04/03_kv-cache's generate_text_simple_cached, stepped): the same ids
-- as without the cache (its logits equal to rounding, see gpt/cached.lua).
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local check = require("attn.check")
local width = require("attn.text.width")
local trf = require("attn.i18n").trf
local I = require("attn.gpt.generate").internal
local no_grad_call = require("attn.autograd.grad_mode").call_with
local tokenizers = require("attn.tokenizers")
local options = require("attn.options")

local step = {}

local Generator = {__name = "Generator"}
Generator.__index = Generator

local function piece(self, id)
    if not self.tokenizer then return "#" .. id end
    local ok, s = pcall(self.tokenizer.decode, self.tokenizer, {id})
    return ok and string.format("%q", s):gsub("\\\n", "\\n") or "#" .. id
end

-- A Hugging Face tokenizer (tokenizers.Tokenizer) takes no tiktoken options; its special tokens are
-- always recognised.
local function is_hf(tokenizer)
    return getmetatable(tokenizer) == tokenizers.Tokenizer
end

local function encode(tokenizer, text)
    if is_hf(tokenizer) then return tokenizer:encode(text) end
    return tokenizer:encode(text, {allowed_special = {"<|endoftext|>"}})
end

-- The tokenizer.json of the directory from_pretrained read (Qwen3, Llama 3), loaded once.
local function model_tokenizer(model)
    local path = rawget(model, "tokenizer_file")
    if not path then return nil end
    local tok = rawget(model, "tokenizer")
    if not tok then
        tok = tokenizers.Tokenizer.from_file(path)
        rawset(model, "tokenizer", tok)
    end
    return tok
end

--- gpt.Generator{model =, idx = or text =, tokenizer =, max_new_tokens =, temperature =, top_k =, eos_id =}
function step.Generator(args)
    local fn = "Generator"
    if type(args) ~= "table" then errors.raisef("%s: expected a table of arguments {model = ..., text = ...}", fn) end
    options.check(fn, args, {"model", "idx", "text", "tokenizer", "max_new_tokens", "temperature",
                                             "top_k", "eos_id", "context_size", "show", "use_cache"})
    local model = args.model
    if not check.is_module(model) then errors.raisef("%s: model must be a GPTModel, got %s", fn, check.describe(model)) end
    local tokenizer = args.tokenizer
    if tokenizer == nil then tokenizer = model_tokenizer(model) end
    local idx = args.idx
    if args.text ~= nil then
        if idx ~= nil then errors.raisef("%s: give idx or text, not both", fn) end
        if not tokenizer then errors.raisef("%s: text needs a tokenizer (tokenizer = tiktoken.get_encoding(\"gpt2\"))", fn) end
        if type(args.text) ~= "string" then errors.raisef("%s: text must be a string, got %s", fn, check.describe(args.text)) end
        local ids = encode(tokenizer, args.text)
        if #ids == 0 then errors.raisef("%s: the text has no tokens", fn) end
        idx = torch.tensor(ids):unsqueeze(1)
    end
    idx = I.check_idx(fn, idx)
    if idx.shape[1] ~= 1 then errors.raisef("%s: steps through one sequence (batch 1), got a batch of %d", fn, idx.shape[1]) end
    local use_cache = args.use_cache
    if use_cache ~= nil and type(use_cache) ~= "boolean" then
        errors.raisef("%s: use_cache must be true or false, got %s", fn, check.describe(use_cache))
    end
    if use_cache and (type(model.reset_kv_cache) ~= "function" or not model.cfg or not model.cfg.context_length) then
        errors.raisef("%s: use_cache needs a model with a KV cache (GPTModel, Qwen3Model, Llama3Model), got %s", fn,
                      check.describe(model))
    end
    local temperature, top_k, eos_id = I.generate_opts(fn, model,
        {temperature = args.temperature, top_k = args.top_k, eos_id = args.eos_id})
    local self = setmetatable({model = model, idx = idx, tokenizer = tokenizer, temperature = temperature,
                               top_k = top_k, eos_id = eos_id, steps = 0, use_cache = use_cache or false,
                               max_new_tokens = I.count(fn, "max_new_tokens", args.max_new_tokens or 10),
                               context_size = check.size(fn, "context_size",
                                   args.context_size or (model.cfg and model.cfg.context_length)),
                               show = check.size(fn, "show", args.show or 5)}, Generator)
    if self.use_cache and idx.shape[2] + self.max_new_tokens > model.cfg.context_length + 1 then
        -- the cache cannot drop its oldest tokens the way the uncached loop crops the context
        errors.raisef("%s: %d tokens and %d new ones do not fit the cache of %d positions (the context length)",
                      fn, idx.shape[2], self.max_new_tokens, model.cfg.context_length)
    end
    return self
end

function Generator:text()
    if not self.tokenizer then errors.raise("Generator:text: the generator has no tokenizer") end
    return self.tokenizer:decode(self.idx[1])
end

function Generator:__tostring()
    return string.format("Generator: %d tokens, %d of %d new", self.idx.shape[2], self.steps, self.max_new_tokens)
end

-- The logits of the last position [1, vocab], and the lines saying what the model read. Without the
-- cache: the whole context (its last context_size tokens). With it: the prompt once, then the token
-- the last step chose, alone, its query against the cached keys.
function Generator:_logits()
    local model = self.model
    if not self.use_cache then
        local context = I.crop(self.idx, self.context_size)
        local n = context.shape[2]
        local labels = {}
        for i = 1, n do labels[i] = piece(self, context[1][i]) end
        local what = n < self.idx.shape[2] and trf("[%d/%d] the model reads %d tokens (the last context_size)\n", self.steps,
                                                   self.max_new_tokens, n)
                     or trf("[%d/%d] the model reads %d tokens\n", self.steps, self.max_new_tokens, n)
        return I.last_logits(model, self.idx, self.context_size),
               what .. trf("  causal mask, the row of the last position %s: sees %s (all %d tokens up to itself)\n",
                           labels[n], string.rep("■", n), n)
    end
    local n = self.idx.shape[2]
    local logits, what
    if self.steps == 1 then
        model:reset_kv_cache()
        logits = no_grad_call(false, model, self.idx, {use_cache = true})
        what = trf("[%d/%d] the prompt, %d tokens, goes through the model once: each layer's KV cache now holds the keys and values of %d tokens\n",
                   self.steps, self.max_new_tokens, n, n)
    else
        logits = no_grad_call(false, model, self.idx:narrow(2, n, 1), {use_cache = true})
        what = trf("[%d/%d] only the new token %s goes through the model: its query meets %d keys, %d from the cache and its own\n",
                   self.steps, self.max_new_tokens, piece(self, self.idx[1][n]), n, n - 1)
    end
    return logits:select(2, logits.shape[2]), what
end

--- g:step() -> the new id, or nil when finished
function Generator:step()
    if self.done or self.steps >= self.max_new_tokens then
        io.write(trf("(finished: %d new tokens)\n", self.steps))
        self.done = true
        return nil
    end
    self.steps = self.steps + 1
    local logits, what = self:_logits()
    local idx_next, probs = I.choose(logits, self.temperature, self.top_k)
    local id = idx_next:item()
    local out = {what}
    local k = math.min(self.show, probs.shape[2])
    local vals, ids = torch.topk(probs, k)
    out[#out + 1] = self.temperature > 0 and
        (self.top_k and trf("  next-token probabilities (temperature %g, top_k %d):\n", self.temperature, self.top_k)
                     or trf("  next-token probabilities (temperature %g):\n", self.temperature)) or
        trf("  next-token probabilities (greedy: the most likely is taken):\n")
    for j = 1, k do
        local cand = ids[1][j]
        local label = piece(self, cand)
        local p = 100 * vals[1][j]
        -- below 0.1% (a random model's candidates, near 1 / vocab_size) two decimals would all read 0.00
        out[#out + 1] = string.format(p < 0.1 and "    %s%s %6.4f%%%s\n" or "    %s%s %6.2f%%%s\n", label,
                                      string.rep(" ", math.max(1, 16 - width.of(label))), p,
                                      cand == id and trf("  <- chosen") or "")
    end
    if self.eos_id and id == self.eos_id then
        out[#out + 1] = trf("  end of text: generation stops\n")
        self.done = true
    else
        self.idx = torch.cat({self.idx, idx_next}, 2)
        out[#out + 1] = trf("  new token: %s\n", piece(self, id))
    end
    io.write(table.concat(out))
    return id
end

--- g:run() -> g.idx
function Generator:run()
    while not self.done and self.steps < self.max_new_tokens do
        if not self:step() then break end
    end
    return self.idx
end

step.Generator_class = Generator
return step
