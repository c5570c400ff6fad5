-- load.lua — a Hugging Face tokenizer.json read into the tables tokenizers.Tokenizer encodes with
-- (module attn.tokenizers.load). What attn reads, and refuses by name otherwise:
--   model          BPE, byte-level (every byte has its token, as GPT-2, Qwen and Llama 3 have), its merges
--                  as "a b" strings or as [a, b] pairs, ignore_merges (Llama 3's: a pre-token that is a
--                  whole token is not merged); no dropout, no continuing_subword_prefix or
--                  end_of_word_suffix, no byte_fallback
--   normalizer     none, NFC (Qwen's), NFD, NFKC, NFKD, or a Sequence of them
--   pre_tokenizer  ByteLevel (GPT-2's regex when use_regex), Split with a regex (behaviour Isolated:
--                  Qwen's and Llama 3's regexes), or a Sequence of those
--   post_processor none, ByteLevel (nothing to add to ids), TemplateProcessing (Llama 3.2's begin-of-text
--                  token), or a Sequence of those
--   decoder        none or ByteLevel
--   added_tokens   matched in the text before anything else, the longest first where two start together
-- Errors name the file and what is wrong with it (the caller's function name first).
local bind = require("attn.bind")
local errors = require("attn.errors")
local trf = require("attn.i18n").trf
local bytelevel = require("attn.tokenizers.bytelevel")
local bpe = require("attn.tokenizers.bpe")

-- N marks a message for translation (xgettext -kN); fail translates it.
local function N(msgid) return msgid end

local load = {}

load.MAX_BYTES = 256 * 1024 * 1024 -- the largest tokenizer.json read (real ones: 2 to 35 MB)

-- GPT-2's pre-tokenisation regex, which the ByteLevel pre-tokenizer uses when use_regex is true.
load.BYTELEVEL_PATTERN = [['s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+]]

local function fail(ctx, fmt, ...)
    errors.raise(ctx.fn .. ": " .. ctx.path .. ": " .. trf(fmt, ...))
end

local function typename(v)
    return type(v) == "table" and tostring(v.type) or type(v)
end

local function list_of(v)
    return type(v) == "table" and v or {}
end

local FORMS = {NFC = true, NFD = true, NFKC = true, NFKD = true}

-- normalizer -> list of forms, applied in order
local function normalizers(ctx, n, out)
    out = out or {}
    if n == nil then return out end
    if type(n) ~= "table" then fail(ctx, N("normalizer must be an object, got %s"), type(n)) end
    if n.type == "Sequence" then
        for _, m in ipairs(list_of(n.normalizers)) do normalizers(ctx, m, out) end
    elseif FORMS[n.type] then
        out[#out + 1] = n.type
    else
        fail(ctx, N("the normalizer %s is not one attn has (it has NFC, NFD, NFKC, NFKD and Sequence)"), typename(n))
    end
    return out
end

local function compile(ctx, pattern)
    local ok, re = pcall(bind.regex.compile, pattern)
    if not ok then fail(ctx, N("its pre-tokenizer regex does not compile: %s"), errors.message(re)) end
    return re
end

-- pre_tokenizer -> list of steps, {regex = compiled} or {prefix_space = true}; .bytelevel when it has one
local function pre_tokenizers(ctx, p, out)
    out = out or {}
    if type(p) ~= "table" then fail(ctx, N("pre_tokenizer must be an object, got %s"), type(p)) end
    if p.type == "Sequence" then
        for _, q in ipairs(list_of(p.pretokenizers)) do pre_tokenizers(ctx, q, out) end
    elseif p.type == "Split" then
        if p.invert then fail(ctx, N("an inverted Split pre-tokenizer: attn has none")) end
        if p.behavior ~= "Isolated" then
            fail(ctx, N("a Split pre-tokenizer with behavior %s: attn has Isolated only"), tostring(p.behavior))
        end
        local pat = type(p.pattern) == "table" and p.pattern or {}
        if type(pat.Regex) == "string" then
            out[#out + 1] = {regex = compile(ctx, pat.Regex)}
        elseif type(pat.String) == "string" then
            out[#out + 1] = {regex = compile(ctx, "\\Q" .. pat.String .. "\\E")}
        else
            fail(ctx, N("a Split pre-tokenizer without a Regex or String pattern"))
        end
    elseif p.type == "ByteLevel" then
        -- Hugging Face's ByteLevel step: a space before each piece that does not start with one (when
        -- add_prefix_space), then GPT-2's regex (when use_regex); the bytes become symbols in bpe.lua
        if p.add_prefix_space then out[#out + 1] = {prefix_space = true} end
        if p.use_regex ~= false then out[#out + 1] = {regex = compile(ctx, load.BYTELEVEL_PATTERN)} end
        out.bytelevel = true
    else
        fail(ctx, N("the pre-tokenizer %s is not one attn has (it has ByteLevel, Split and Sequence)"), typename(p))
    end
    return out
end

-- post_processor -> the ids put before and after the text's when add_special_tokens
local function post_processor(ctx, p, vocab, out)
    out = out or {before = {}, after = {}}
    if p == nil then return out end
    if type(p) ~= "table" then fail(ctx, N("post_processor must be an object, got %s"), type(p)) end
    if p.type == "ByteLevel" then return out end
    if p.type == "Sequence" then
        for _, q in ipairs(list_of(p.processors)) do post_processor(ctx, q, vocab, out) end
    elseif p.type == "TemplateProcessing" then
        local seen = false
        for _, piece in ipairs(list_of(p.single)) do
            if type(piece) ~= "table" then
                fail(ctx, N("its TemplateProcessing has a piece that is not an object"))
            elseif type(piece.Sequence) == "table" then
                seen = true
            elseif type(piece.SpecialToken) == "table" then
                local name = piece.SpecialToken.id
                local entry = type(p.special_tokens) == "table" and type(name) == "string" and p.special_tokens[name]
                entry = type(entry) == "table" and entry
                local ids = entry and entry.ids
                if type(ids) ~= "table" then
                    fail(ctx, N("its TemplateProcessing names the special token %s but does not give its ids"), tostring(name))
                end
                for _, id in ipairs(ids) do
                    if math.type(id) ~= "integer" or not vocab[id] then
                        fail(ctx, N("its TemplateProcessing gives %s the id %s, which is not a token"), tostring(name), tostring(id))
                    end
                    table.insert(seen and out.after or out.before, id)
                end
            end
        end
    else
        fail(ctx, N("the post-processor %s is not one attn has (it has ByteLevel, TemplateProcessing and Sequence)"),
             typename(p))
    end
    return out
end

-- The model: vocab (token -> id) into bytes_of (id -> bytes), id_of (bytes -> id), merges (bpe.lua's).
local function model(ctx, m, t)
    if type(m) ~= "table" then fail(ctx, N("it has no model")) end
    if m.type ~= nil and m.type ~= "BPE" then
        fail(ctx, N("its model is %s; attn reads BPE models (GPT-2's, Qwen's, Llama 3's)"), tostring(m.type))
    end
    if type(m.vocab) ~= "table" then fail(ctx, N("its model has no vocab")) end
    if type(m.merges) ~= "table" then fail(ctx, N("its model has no merges")) end
    if m.dropout ~= nil and m.dropout ~= 0 then fail(ctx, N("its BPE model has dropout %s; attn has none"), tostring(m.dropout)) end
    if m.byte_fallback then fail(ctx, N("its BPE model uses byte_fallback (a SentencePiece-style vocabulary); attn reads byte-level BPE")) end
    for _, k in ipairs({"continuing_subword_prefix", "end_of_word_suffix"}) do
        if m[k] ~= nil and m[k] ~= "" then fail(ctx, N("its BPE model has a %s; attn has none"), k) end
    end
    t.ignore_merges = m.ignore_merges == true
    local to_byte = bytelevel.char_map()
    local bytes_of, id_of, count, max_id = {}, {}, 0, -1
    for token, id in pairs(m.vocab) do
        if type(token) ~= "string" then fail(ctx, N("its model's vocab must be an object of token: id")) end
        if math.type(id) ~= "integer" or id < 0 or id >= bpe.SHIFT or bytes_of[id] then
            fail(ctx, N("the token %q has the id %s (ids must be distinct whole numbers from 0)"), token, tostring(id))
        end
        local b = bytelevel.to_bytes(to_byte, token)
        bytes_of[id] = b or token
        if b then id_of[b] = id end
        count = count + 1
        if id > max_id then max_id = id end
    end
    t.bytes_of, t.id_of = bytes_of, id_of
    t.byte_id = {}
    for b = 0, 255 do
        local id = id_of[string.char(b)]
        if not id then
            fail(ctx, N("its vocabulary has no token for the byte 0x%02X: attn reads byte-level BPE, where every byte has one"), b)
        end
        t.byte_id[b] = id
    end
    local merges, shift = {}, bpe.SHIFT
    for rank, entry in ipairs(m.merges) do
        local a, b
        if type(entry) == "string" then
            local space = entry:find(" ", 1, true)
            if space then a, b = entry:sub(1, space - 1), entry:sub(space + 1) end
        elseif type(entry) == "table" then
            a, b = entry[1], entry[2]
        end
        local left, right = a and m.vocab[a], b and m.vocab[b]
        local new = left and right and m.vocab[a .. b]
        if not new then
            fail(ctx, N("merge %d (%s) joins tokens that are not in the vocabulary"), rank,
                 type(entry) == "table" and tostring(entry[1]) .. " " .. tostring(entry[2]) or tostring(entry))
        end
        merges[left * shift + right] = (rank - 1) * shift + new
    end
    t.merges = merges
    t.model_size, t.max_id = count, max_id
end

local function added_tokens(ctx, list, t)
    t.added, t.special = {}, {}
    for i, a in ipairs(type(list) == "table" and list or {}) do
        if type(a) ~= "table" or type(a.content) ~= "string" or a.content == "" or math.type(a.id) ~= "integer"
            or a.id < 0 or a.id >= bpe.SHIFT then
            fail(ctx, N("added_tokens[%d] is not a token with a content and an id"), i)
        end
        for _, flag in ipairs({"single_word", "lstrip", "rstrip"}) do
            if a[flag] then fail(ctx, N("the added token %s has %s set; attn has no such matching"), a.content, flag) end
        end
        t.added[#t.added + 1] = {content = a.content, id = a.id, normalized = a.normalized == true,
                                 special = a.special == true}
        t.bytes_of[a.id] = a.content
        if a.id > t.max_id then t.max_id = a.id end
        if a.special then t.special[a.id] = true end
    end
end

-- text: the file's contents; path: its name in errors; fn: the user's function.
function load.parse(fn, path, text)
    local ctx = {fn = fn, path = path}
    if #text > load.MAX_BYTES then
        fail(ctx, N("the file is larger than %d MB, the most attn reads of a tokenizer.json"), load.MAX_BYTES // 1048576)
    end
    local ok, j = pcall(bind.json.decode, text, path)
    if not ok then fail(ctx, N("not a tokenizer.json: %s"), (errors.message(j):gsub("^.-: ", ""))) end
    if type(j) ~= "table" or j[1] ~= nil then fail(ctx, N("not a tokenizer.json: not a JSON object")) end
    local t = {}
    model(ctx, j.model, t)
    added_tokens(ctx, j.added_tokens, t)
    t.normalizers = normalizers(ctx, j.normalizer)
    local pre = j.pre_tokenizer and pre_tokenizers(ctx, j.pre_tokenizer) or {}
    if not pre.bytelevel then
        fail(ctx, N("its pre-tokenizer has no ByteLevel step: attn reads byte-level BPE (GPT-2's, Qwen's, Llama 3's)"))
    end
    t.pre = pre
    if j.decoder ~= nil and (type(j.decoder) ~= "table" or j.decoder.type ~= "ByteLevel") then
        fail(ctx, N("the decoder %s is not one attn has (it has ByteLevel)"), typename(j.decoder))
    end
    t.post = post_processor(ctx, j.post_processor, t.bytes_of)
    t.vocab_size = t.max_id + 1
    return t
end

return load
