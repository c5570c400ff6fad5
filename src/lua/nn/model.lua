-- model.lua — the whole Transformer of Python Deep Learning, ch. 7 ("Putting it all together"), as fields
-- of nn (module attn.nn.model):
--
--   nn.EncoderDecoder   encoder, decoder and the two embedding stacks; forward(source, target, masks)
--   nn.build_model      the book's build_model(source_vocabulary, target_vocabulary, N, d_model, d_ff, h,
--                       dropout): its classes made in its order, copy.deepcopy as m:clone(), then
--                       xavier_uniform_ on every parameter with more than one dim
--   nn.GreedyDecoder    autoregressive decoding one token at a time (the Annotated Transformer's
--   nn.greedy_decode    greedy_decode): encode once, then feed the target so far and take the most
--                       probable next token, the causal target mask growing by one row each step
--
-- Ids are 1-based, as everywhere in attn (PyTorch's id i is attn's i + 1); masks are the book's: true (1)
-- lets a position be seen.
local torch = require("attn.bind").torch
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local Module = require("attn.nn.module").Module
local Sequential = require("attn.nn.layers").Sequential
local T = require("attn.nn.transformer")
local MultiHeadedAttention = require("attn.nn.attention").MultiHeadedAttention
local init = require("attn.nn.weight_init")
local model = {} -- this file's part of the table nn (nn/init.lua)

local EncoderDecoder = Module:extend("EncoderDecoder")

--- nn.EncoderDecoder(encoder, decoder, source_embeddings, target_embeddings)
function EncoderDecoder:__init(encoder, decoder, source_embeddings, target_embeddings)
    self.encoder = check.module("EncoderDecoder", "encoder", encoder)
    self.decoder = check.module("EncoderDecoder", "decoder", decoder)
    self.source_embeddings = check.module("EncoderDecoder", "source_embeddings", source_embeddings)
    self.target_embeddings = check.module("EncoderDecoder", "target_embeddings", target_embeddings)
end

-- The Annotated Transformer splits forward in two, so that decoding can encode once.
function EncoderDecoder:encode(source, source_mask)
    return self.encoder(self.source_embeddings(source), source_mask)
end

function EncoderDecoder:decode(encoder_states, source_mask, target, target_mask)
    return self.decoder(self.target_embeddings(target), encoder_states, source_mask, target_mask)
end

function EncoderDecoder:forward(source, target, source_mask, target_mask)
    return self:decode(self:encode(source, source_mask), source_mask, target, target_mask)
end

model.EncoderDecoder = EncoderDecoder

local BUILD_USAGE = "build_model(source_vocabulary, target_vocabulary [, N = 6, d_model = 512, d_ff = 2048, "
    .. "h = 8, dropout = 0.1])"

--- nn.build_model(source_vocabulary, target_vocabulary [, N, d_model, d_ff, h, dropout]) — the book's
--- build_model, line for line; keyword arguments by position or in a trailing table.
function model.build_model(...)
    local a = check.args("build_model", BUILD_USAGE,
                         {"source_vocabulary", "target_vocabulary", "N", "d_model", "d_ff", "h", "dropout"},
                         {N = 6, d_model = 512, d_ff = 2048, h = 8, dropout = 0.1}, ...)
    local src_vocab = check.size("build_model", "source_vocabulary", a.source_vocabulary)
    local tgt_vocab = check.size("build_model", "target_vocabulary", a.target_vocabulary)
    local N, d_model = check.size("build_model", "N", a.N), check.size("build_model", "d_model", a.d_model)
    local d_ff, h = check.size("build_model", "d_ff", a.d_ff), check.size("build_model", "h", a.h)
    local dropout = check.probability("build_model", "dropout", a.dropout)
    if d_model % h ~= 0 then
        errors.raisef("build_model: d_model = %d must be divisible by h = %d", d_model, h)
    end
    -- The book's order, which is the order the layers draw their initial weights in:
    local attn = MultiHeadedAttention(h, d_model)
    local ff = T.PositionwiseFFN(d_model, d_ff, dropout)
    local position = T.PositionalEncoding(d_model, dropout)
    local m = EncoderDecoder(
        T.Encoder(T.EncoderBlock(d_model, attn:clone(), ff:clone(), dropout), N),
        T.Decoder(T.DecoderBlock(d_model, attn:clone(), attn:clone(), ff:clone(), dropout), N, tgt_vocab),
        Sequential(T.Embeddings(d_model, src_vocab), position:clone()),
        Sequential(T.Embeddings(d_model, tgt_vocab), position:clone()))
    -- Initialize parameters with random weights
    for _, p in ipairs(m:parameters()) do
        if p:dim() > 1 then
            init.xavier_uniform_(p)
        end
    end
    return m
end

-- ---- greedy decoding -------------------------------------------------------------------------------

-- A plain class, not a module: it holds a model and the target decoded so far.
local Greedy = {__name = "GreedyDecoder"}
Greedy.__index = Greedy

local function id_tensor(fn, what, t)
    check.tensor(fn, what, t)
    if t.dtype ~= torch.int64 or t.ndim ~= 2 or t.shape[1] ~= 1 then
        errors.raisef("%s: %s must be an int64 tensor of token ids of shape [1, n], got %s %s", fn, what,
                      tostring(t.dtype), check.describe(t))
    end
    return t
end

local function token_id(fn, what, v)
    if math.type(v) ~= "integer" and not (type(v) == "number" and math.tointeger(v)) then
        errors.raisef("%s: %s must be a token id (a whole number), got %s", fn, what, check.describe(v))
    end
    return math.tointeger(v)
end

local function new_decoder(fn, m, source, source_mask, start_symbol, opts)
    check.module(fn, "model", m)
    if type(m.encode) ~= "function" or type(m.decode) ~= "function" then
        errors.raisef("%s: model must have encode and decode methods, such as nn.EncoderDecoder", fn)
    end
    id_tensor(fn, "source", source)
    check.tensor(fn, "source_mask", source_mask)
    opts = check.options(fn, opts, "{end_symbol = 3}", {"end_symbol"})
    local self = setmetatable({model = m, source_mask = source_mask}, Greedy)
    self.end_symbol = opts.end_symbol ~= nil and token_id(fn, "end_symbol", opts.end_symbol) or nil
    self.memory = m:encode(source, source_mask) -- the encoder runs once
    self.ys = torch.tensor({{token_id(fn, "start_symbol", start_symbol)}}) -- the target so far, [1, 1]
    self.done = false
    return self
end

--- nn.GreedyDecoder(model, source, source_mask, start_symbol [, {end_symbol = id}]) — a decoder to step.
setmetatable(Greedy, {__call = function(_, ...) return new_decoder("GreedyDecoder", ...) end,
                      __tostring = function() return "class GreedyDecoder" end})
model.GreedyDecoder = Greedy

--- d:step() — feeds the target so far, appends the most probable next token and returns its id.
function Greedy:step()
    if self.done then
        errors.raise("step: the decoder has produced its end symbol; start a new one with nn.GreedyDecoder")
    end
    local n = self.ys.shape[2]
    self.target_mask = T.subsequent_mask(n) -- [1, n, n]: one row more than the step before
    local out = self.model:decode(self.memory, self.source_mask, self.ys, self.target_mask)
    self.log_probs = out:select(2, n) -- [1, vocabulary]: the prediction after the last token
    local next_word = self.log_probs:argmax(-1) -- the first of equal maxima, as torch.max(prob, dim=1)
    self.ys = torch.cat({self.ys, next_word:view(1, 1)}, 2)
    local id = next_word:item()
    self.done = id == self.end_symbol
    return id
end

function Greedy:__tostring()
    return string.format("GreedyDecoder: %d token(s) so far%s", self.ys.shape[2], self.done and ", done" or "")
end

--- nn.greedy_decode(model, source, source_mask, max_len, start_symbol [, {end_symbol = id}]) -> ys [1, n]
function model.greedy_decode(m, source, source_mask, max_len, start_symbol, opts)
    max_len = check.size("greedy_decode", "max_len", max_len)
    local d = new_decoder("greedy_decode", m, source, source_mask, start_symbol, opts)
    for _ = 1, max_len - 1 do
        d:step()
        if d.done then break end
    end
    return d.ys
end

return model
