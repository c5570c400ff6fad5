-- step.lua — chapter 5's generate, one token at a time (module attn.gpt.step):
--   g = gpt.Generator{model = m, text = "Every effort moves you", tokenizer = enc, max_new_tokens = 10,
--                     temperature = 0.0, top_k = nil, context_size = (the model's), show = 5}
--   g:step()   one new token: the context the model reads, the new row of the causal mask (the last
--              position sees every earlier token, nothing after it), the top `show` candidates with
--              their probabilities, and the one chosen; returns its id
--   g:run()    the remaining steps; g.idx the ids so far; g:text() their text
-- The ids are those of gpt.generate with the same arguments and the same torch.manual_seed.
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local check = require("attn.check")
local width = require("attn.text.width")
local I = require("attn.gpt.generate").internal

local step = {}

local Generator = {__name = "Generator"}
Generator.__index = Generator

local function piece(self, id)
    if not self.tokenizer then return "#" .. id end
    local ok, s = pcall(self.tokenizer.decode, self.tokenizer, {id})
    return ok and string.format("%q", s):gsub("\\\n", "\\n") or "#" .. id
end

--- gpt.Generator{model =, idx = or text =, tokenizer =, max_new_tokens =, temperature =, top_k =, eos_id =}
function step.Generator(args)
    local fn = "Generator"
    if type(args) ~= "table" then errors.raisef("%s: expected a table of arguments {model = ..., text = ...}", fn) end
    require("attn.options").check(fn, args, {"model", "idx", "text", "tokenizer", "max_new_tokens", "temperature",
                                             "top_k", "eos_id", "context_size", "show"})
    local model = args.model
    if not check.is_module(model) then errors.raisef("%s: model must be a GPTModel, got %s", fn, check.describe(model)) end
    local idx = args.idx
    if args.text ~= nil then
        if idx ~= nil then errors.raisef("%s: give idx or text, not both", fn) end
        if not args.tokenizer then errors.raisef("%s: text needs a tokenizer (tokenizer = tiktoken.get_encoding(\"gpt2\"))", fn) end
        idx = torch.tensor(args.tokenizer:encode(args.text, {allowed_special = {"<|endoftext|>"}})):unsqueeze(1)
    end
    idx = I.check_idx(fn, idx)
    if idx.shape[1] ~= 1 then errors.raisef("%s: steps through one sequence (batch 1), got a batch of %d", fn, idx.shape[1]) end
    local temperature, top_k, eos_id = I.generate_opts(fn, model,
        {temperature = args.temperature, top_k = args.top_k, eos_id = args.eos_id})
    local self = setmetatable({model = model, idx = idx, tokenizer = args.tokenizer, temperature = temperature,
                               top_k = top_k, eos_id = eos_id, steps = 0,
                               max_new_tokens = I.count(fn, "max_new_tokens", args.max_new_tokens or 10),
                               context_size = check.size(fn, "context_size",
                                   args.context_size or (model.cfg and model.cfg.context_length)),
                               show = check.size(fn, "show", args.show or 5)}, Generator)
    return self
end

function Generator:text()
    if not self.tokenizer then errors.raise("Generator:text: the generator has no tokenizer") end
    return self.tokenizer:decode(self.idx[1])
end

function Generator:__tostring()
    return string.format("Generator: %d tokens, %d of %d new", self.idx.shape[2], self.steps, self.max_new_tokens)
end

--- g:step() -> the new id, or nil when finished
function Generator:step()
    if self.done or self.steps >= self.max_new_tokens then
        io.write("(finished: ", self.steps, " new tokens)\n")
        self.done = true
        return nil
    end
    local context = I.crop(self.idx, self.context_size)
    local n = context.shape[2]
    local logits = I.last_logits(self.model, self.idx, self.context_size)
    local idx_next, probs = I.choose(logits, self.temperature, self.top_k)
    local id = idx_next:item()
    self.steps = self.steps + 1
    local out = {}
    out[#out + 1] = string.format("[%d/%d] the model reads %d tokens%s\n", self.steps, self.max_new_tokens, n,
                                  n < self.idx.shape[2] and " (the last context_size)" or "")
    local labels = {}
    for i = 1, n do labels[i] = piece(self, context[1][i]) end
    out[#out + 1] = "  causal mask, the row of the last position " .. labels[n] .. ": sees " ..
                    string.rep("■", n) .. " (all " .. n .. " tokens up to itself)\n"
    local k = math.min(self.show, probs.shape[2])
    local vals, ids = torch.topk(probs, k)
    out[#out + 1] = self.temperature > 0 and
        string.format("  next-token probabilities (temperature %g%s):\n", self.temperature,
                      self.top_k and (", top_k " .. self.top_k) or "") or
        "  next-token probabilities (greedy: the most likely is taken):\n"
    for j = 1, k do
        local cand = ids[1][j]
        local label = piece(self, cand)
        out[#out + 1] = string.format("    %s%s %6.2f%%%s\n", label, string.rep(" ", math.max(1, 16 - width.of(label))),
                                      100 * vals[1][j], cand == id and "  <- chosen" or "")
    end
    if self.eos_id and id == self.eos_id then
        out[#out + 1] = "  end of text: generation stops\n"
        self.done = true
    else
        self.idx = torch.cat({self.idx, idx_next}, 2)
        out[#out + 1] = "  new token: " .. piece(self, id) .. "\n"
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
