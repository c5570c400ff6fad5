-- inspect.lua — what attention.trace and attention.overview show of a GPTModel (module attn.gpt.inspect):
--   GPTModel:trace_stages(tr)      attention.trace{module = model, layer = L, head = H, text = or ids =}:
--                                  the input of block L's attention (the residual stream after blocks
--                                  1..L-1, through norm1), head H's queries, keys and values, its scores,
--                                  masked, scaled, weights and context, with the tokens as labels
--   GPTModel:attention_maps(args)  every layer's attention weights [heads, n, n], for attention.overview
-- Each is computed with the model's own layers and attention's stages, the operations of
-- MultiHeadAttention's forward, so the weights are the ones the model uses.
local torch = require("attn.bind").torch
local attention = require("attn.bind").attention
local errors = require("attn.errors")
local check = require("attn.check")
local i18n = require("attn.i18n")
local stages = require("attn.attention.stages")
local pipeline = require("attn.attention.pipeline") -- the stages of attention, described once
local ids_lib = require("attn.gpt.ids")
local tiktoken = require("attn.tiktoken")
local token_label = require("attn.text.token_label")

local inspect = {}

local function N(msgid) return msgid end -- marks a message for the catalogs; attention.trace translates it

-- "fn: message", the message translated (scripts/po.sh extracts fail_at's second argument)
local function fail_at(fn, fmt, ...) errors.raisef("%s: %s", fn, i18n.trf(fmt, ...)) end

-- The ids a trace or an overview reads: ids = (a list or [1, n] tensor) or text = (with tokenizer =,
-- GPT-2's by default). Returns ids [1, n] and the tokens as labels.
function inspect.input(fn, model, args)
    local ids, tokenizer = args.ids, args.tokenizer
    if args.text ~= nil and ids ~= nil then fail_at(fn, "give text = or ids =, not both") end
    if args.text ~= nil then
        if type(args.text) ~= "string" then fail_at(fn, "text must be a string, got %s", check.describe(args.text)) end
        tokenizer = tokenizer or tiktoken.get_encoding("gpt2")
        ids = tokenizer:encode(args.text, {allowed_special = {"<|endoftext|>"}})
    end
    if ids == nil then fail_at(fn, "give the input as text = \"...\" or ids = {...}") end
    if type(ids) == "table" and not torch.is_tensor(ids) then ids = torch.tensor{ids} end
    if torch.is_tensor(ids) and ids.ndim == 1 then ids = ids:unsqueeze(1) end
    ids = ids_lib.check(fn, model, ids)
    if ids.shape[1] ~= 1 then fail_at(fn, "shows one sequence (batch 1), got a batch of %d", ids.shape[1]) end
    local vocab = model.cfg.vocab_size
    local tokens = {}
    for i = 1, ids.shape[2] do
        local id = ids[1][i]
        if id < 1 or id > vocab then fail_at(fn, "token id %d is outside the vocabulary (1 to %d)", id, vocab) end
        -- a piece of a character as its bytes, \xE4, as everywhere (text/token_label.lua)
        tokens[i] = tokenizer and token_label.of(tokenizer, id) or ("#" .. id)
    end
    return ids, tokens
end

-- The residual stream entering block `layer` ([1, n, d]).
local function stream_before(model, ids, layer)
    local n = ids.shape[2]
    local x = model.tok_emb(ids) + model.pos_emb(torch.arange(1, n + 1))
    x = model.drop_emb(x)
    for b = 1, layer - 1 do x = model.trf_blocks[b](x) end
    return x
end

-- Head h's Q, K, V ([n, head_dim]) of attention module att on x ([1, n, d]), and all heads' [1, h, n, hd].
local function heads_of(att, x)
    local q = attention.split_heads(att.W_query(x), att.num_heads)
    local k = attention.split_heads(att.W_key(x), att.num_heads)
    local v = attention.split_heads(att.W_value(x), att.num_heads)
    return q, k, v
end

-- The weights of every head of att on x: softmax(masked(Q·Kᵀ) / √d_k), [1, h, n, n], as its forward
-- computes them: the stages of attention/pipeline.lua up to the weights.
local function weights_of(att, x)
    local q, k, v = heads_of(att, x)
    local n = x.shape[2]
    local t = pipeline.run({mask_first = true, hidden = att.mask:bool()[{{1, n}, {1, n}}], fill = -math.huge,
                            upto = "weights"}, {q = q, k = k, v = v})
    return t.weights
end

local SHOW = 8 -- dims of a vector shown in a trace (all are in the tracer's field)
inspect.SHOW = SHOW

-- A trace shows the first SHOW dims of a vector (shared with llm/inspect.lua, Qwen3's and Llama 3's).
function inspect.narrow_view(t)
    if t.shape[-1] <= SHOW then return t end
    return t:narrow(-1, 1, SHOW)
end
local narrow_view = inspect.narrow_view

-- tr.layer and tr.head of a trace over a model with cfg.n_layers blocks of cfg.n_heads heads: L, H.
function inspect.layer_and_head(fn, model, tr)
    local L, H = tr.layer, tr.head
    local nl, nh = model.cfg.n_layers, model.cfg.n_heads
    if math.type(L) ~= "integer" or L < 1 or L > nl then
        fail_at(fn, "layer must be a block number from 1 to %d, got %s", nl, check.describe(L))
    end
    if math.type(H) ~= "integer" or H < 1 or H > nh then
        fail_at(fn, "head must be a head number from 1 to %d, got %s", nh, check.describe(H))
    end
    return L, H
end

function inspect.trace_stages(model, tr)
    local fn = "attention.trace"
    local L, H = inspect.layer_and_head(fn, model, tr)
    local ids, tokens = inspect.input(fn, model, tr)
    tr.ids, tr.tokens = ids, tr.tokens or tokens
    local block = model.trf_blocks[L]
    local att = block.att
    local hd = att.head_dim
    local d = model.cfg.emb_dim
    -- the notes as {format, ...}: attention.trace translates the format, then fills it in
    local shown = function(k, key) return {N("first %d of %d dims shown; all in tr.%s"), math.min(SHOW, k), k, key} end
    -- the input of block L's attention, computed now: the tracer labels its rows with the tokens
    tr.x = block.norm1(stream_before(model, ids, L))[1]
    local display = {x = {view = narrow_view, note = shown(d, "x")},
                     context = {view = narrow_view, note = shown(hd, "context")}}
    for i, p in ipairs({{"queries", "Q", "W_query"}, {"keys", "K", "W_key"}, {"values", "V", "W_value"}}) do
        display[p[1]] = {view = narrow_view, note = shown(hd, p[1]),
                         formula = string.format("%s = %s(X), head %d's %d columns", p[2], p[3], H, hd)}
    end
    local list = pipeline.build{
        input = string.format("X = norm1(h%d)   (block %d's input, after its LayerNorm)", L - 1, L),
        project = function(i, t) return ({heads_of(att, t.x:unsqueeze(1))})[i][1][H] end,
        project_weights = {string.format("W_query.weight[head %d]", H), string.format("W_key.weight[head %d]", H),
                           string.format("W_value.weight[head %d]", H)}, -- the rows of head H (backward's formulas)
        mask_first = true, hidden = stages.causal_hidden(att.mask), fill = tr.fill or -math.huge, scale = tr.scale,
        d_k = hd, display = display, fail = function(msg) fail(fn, msg) end}
    return list, {layer = true, head = true, text = true, ids = true, tokenizer = true}
end

-- attention.overview's data: {layers = {[l] = [h, n, n] weights}, tokens = {...}}.
function inspect.attention_maps(model, args)
    local fn = "attention.overview"
    local ids, tokens = inspect.input(fn, model, args)
    local x = model.drop_emb(model.tok_emb(ids) + model.pos_emb(torch.arange(1, ids.shape[2] + 1)))
    local layers = {}
    for l = 1, model.cfg.n_layers do
        local block = model.trf_blocks[l]
        layers[l] = weights_of(block.att, block.norm1(x))[1]
        x = block(x)
    end
    return {layers = layers, tokens = tokens}
end

return inspect
