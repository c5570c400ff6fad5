-- inspect.lua — what attention.trace and attention.overview show of a Qwen3Model or Llama3Model (module
-- attn.llm.inspect), as gpt/inspect.lua does for GPT-2:
--   model:trace_stages(tr)      attention.trace{module = model, layer = L, head = H, text = or ids = [,
--                               tokenizer =]}: block L's attention input (after norm1), head H's queries
--                               (QK-normed in Qwen3), the keys and values of the key/value head it shares,
--                               RoPE, scores, scaled, masked, weights and context, tokens as labels
--   model:attention_maps(args)  every layer's weights [heads, n, n], for attention.overview
-- The weights are the ones the model's forward uses: the same pipeline records (attention/pipeline.lua).
-- Text needs the model's tokenizer: tokenizer = (a tokenizers.Tokenizer), else the tokenizer.json of the
-- directory from_pretrained read, when it has one.
local torch = require("attn.bind").torch
local A = require("attn.attention")
local errors = require("attn.errors")
local check = require("attn.check")
local trf = require("attn.i18n").trf
local pipeline = require("attn.attention.pipeline")
local V = require("attn.attention.variants")
local ids_lib = require("attn.gpt.ids")
local tokenizers = require("attn.tokenizers")
local token_label = require("attn.text.token_label")

local inspect = {}

local function N(msgid) return msgid end -- marks a message for the catalogs; attention.trace translates it

local function fail(fn, msg) errors.raise(fn .. ": " .. msg) end

local function tokenizer_of(fn, model, args)
    if args.tokenizer ~= nil then return args.tokenizer end
    local path = rawget(model, "tokenizer_file")
    if path then
        local tok = rawget(model, "tokenizer")
        if not tok then
            tok = tokenizers.Tokenizer.from_file(path)
            rawset(model, "tokenizer", tok)
        end
        return tok
    end
    fail(fn, trf("text needs the model's tokenizer: give tokenizer = tokenizers.Tokenizer.from_file(\"…/tokenizer.json\"), or ids ="))
end

-- ids [1, n] and the tokens as labels.
function inspect.input(fn, model, args)
    local ids = args.ids
    local tokenizer = args.tokenizer
    if args.text ~= nil and ids ~= nil then fail(fn, trf("give text = or ids =, not both")) end
    if args.text ~= nil then
        if type(args.text) ~= "string" then fail(fn, trf("text must be a string, got %s", check.describe(args.text))) end
        tokenizer = tokenizer_of(fn, model, args)
        ids = tokenizer:encode(args.text)
    end
    if ids == nil then fail(fn, trf("give the input as text = \"...\" or ids = {...}")) end
    if type(ids) == "table" and not torch.is_tensor(ids) then ids = torch.tensor{ids} end
    if torch.is_tensor(ids) and ids.ndim == 1 then ids = ids:unsqueeze(1) end
    ids = ids_lib.check(fn, model, ids)
    if ids.shape[1] ~= 1 then fail(fn, trf("shows one sequence (batch 1), got a batch of %d", ids.shape[1])) end
    local vocab = model.cfg.vocab_size
    local tokens = {}
    for i = 1, ids.shape[2] do
        local id = ids[1][i]
        if id < 1 or id > vocab then fail(fn, trf("token id %d is outside the vocabulary (1 to %d)", id, vocab)) end
        -- a piece of a character as its bytes, \xE4, as everywhere (text/token_label.lua)
        tokens[i] = tokenizer and token_label.of(tokenizer, id) or ("#" .. id)
    end
    return ids, tokens
end

-- GPT-2's trace helpers: the first SHOW dims of a vector, the layer and head checked
local gpt_inspect = require("attn.gpt.inspect")
local SHOW, narrow_view = gpt_inspect.SHOW, gpt_inspect.narrow_view

function inspect.trace_stages(model, tr)
    local fn = "attention.trace"
    local L, H = gpt_inspect.layer_and_head(fn, model, tr)
    local ids, tokens = inspect.input(fn, model, tr)
    tr.ids, tr.tokens = ids, tr.tokens or tokens
    local x = model.tok_emb(ids)
    for b = 1, L - 1 do x = model.trf_blocks[b](x) end
    local block = model.trf_blocks[L]
    local att = block.att
    local hd, g = att.head_dim, (H - 1) // att.group_size + 1 -- the key/value head query head H reads
    tr.x = block.norm1(x)[1]
    local q, k, v = att:heads(tr.x:unsqueeze(1))
    local mine = {q[1][H], k[1][g], v[1][g]}
    -- the notes as {format, ...}: attention.trace translates the format, then fills it in
    local shown = function(n, key) return {N("first %d of %d dims shown; all in tr.%s"), math.min(SHOW, n), n, key} end
    local qn = att.q_norm and "q_norm(" or "("
    local display = {x = {view = narrow_view, note = shown(model.cfg.emb_dim, "x")},
                     context = {view = narrow_view, note = shown(hd, "context")},
                     rotated_q = {view = narrow_view, note = {N("first %d of %d dims shown; all in tr.%s; the rotated keys are tr.rotated_k"),
                                                              math.min(SHOW, hd), hd, "rotated_q"}},
                     queries = {view = narrow_view, note = shown(hd, "queries"),
                                formula = trf("Q = %sW_query(X)), head %d", qn, H)},
                     keys = {view = narrow_view, note = shown(hd, "keys"),
                             formula = trf("K = %sW_key(X)), key/value head %d (shared by query heads %d-%d)",
                                                     att.k_norm and "k_norm(" or "(", g, (g - 1) * att.group_size + 1,
                                                     g * att.group_size)},
                     values = {view = narrow_view, note = shown(hd, "values"),
                               formula = trf("V = W_value(X), key/value head %d", g)}}
    local list = pipeline.build{
        input = string.format("X = norm1(h%d)   (block %d's input, after its RMSNorm)", L - 1, L),
        project = function(i) return mine[i] end, project_how = "chain", -- a QK-norm too: backward says ∂Q/∂X
        rope = att.rope, hidden = function(_, qq, kk) return V.band_mask(qq.shape[-2], kk.shape[-2]) end,
        fill = -math.huge, d_k = hd, display = display, fail = function(msg) fail(fn, msg) end}
    return list, {layer = true, head = true, text = true, ids = true, tokenizer = true}
end

-- attention.overview's data: {layers = {[l] = [h, n, n] weights}, tokens = {...}}: the model's forward,
-- on the staged path (the weights kept), each block's weights as its attention computed them.
function inspect.attention_maps(model, args)
    local ids, tokens = inspect.input("attention.overview", model, args)
    local x = model.tok_emb(ids)
    local layers = {}
    for l = 1, model.cfg.n_layers do
        local block = model.trf_blocks[l]
        local att = block.att
        local saved = rawget(att, "use_fused")
        rawset(att, "use_fused", false)
        local ok, out = pcall(block, x)
        rawset(att, "use_fused", saved)
        if not ok then error(out, 0) end
        layers[l] = rawget(att, "last_weights")[1]
        x = out
    end
    return {layers = layers, tokens = tokens}
end

return inspect
