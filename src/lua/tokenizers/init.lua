-- init.lua — tokenizers.Tokenizer (module attn.tokenizers, the global tokenizers): a Hugging Face
-- tokenizer.json (Qwen3's, Llama 3's, GPT-2's: byte-level BPE) read and run as Hugging Face's tokenizers
-- library runs it. The names are that library's (Tokenizer.from_file, encode, decode, token_to_id, ...);
-- ids are attn's, the file's + 1, as for GPT-2 (tiktoken). Encoding a text:
--   1. bytes that are not UTF-8 become U+FFFD, one per maximal invalid sequence (what Python's
--      errors="replace", Rust's from_utf8_lossy and a JavaScript TextDecoder make of such bytes: a
--      Hugging Face tokenizer only ever sees text, so this is the text it would see);
--   2. the added tokens (<|im_start|>, <|endoftext|>, <think>, ...) are cut out of the text, wherever they
--      are, the longest first where two start at the same place;
--   3. the rest is normalized (NFC for Qwen), cut by the pre-tokenizer's regex into pieces, and each
--      piece's bytes are merged in the file's merge order (bpe.lua);
--   4. with add_special_tokens (the default) the post-processor's tokens go around (Llama 3.2's
--      <|begin_of_text|>; Qwen3 adds none).
local bind = require("attn.bind")
local errors = require("attn.errors")
local check = require("attn.check")
local i18n = require("attn.i18n")
local trf = i18n.trf
local load = require("attn.tokenizers.load")
local bpe = require("attn.tokenizers.bpe")
local bytelevel = require("attn.tokenizers.bytelevel")
local hf = require("attn.hf")
local replace_invalid = require("attn.tiktoken.bpe").replace_invalid

local tokenizers = {}

-- N marks a message for translation (xgettext -kN); raisef translates it.
local function N(msgid) return msgid end

local function raisef(fn, fmt, ...)
    errors.raise(fn .. ": " .. trf(fmt, ...))
end

local Tokenizer = {}
Tokenizer.__index = Tokenizer
Tokenizer.__name = "Tokenizer"

function Tokenizer.__tostring(t)
    return string.format("<Tokenizer %s: %d tokens>", t.path, t.vocab_size)
end

-- ---- added tokens ------------------------------------------------------------------------------------

-- A matcher for a list of added tokens: by first byte, each group longest first.
local function matcher(list)
    local groups, firsts = {}, {}
    for _, a in ipairs(list) do
        local b = a.content:sub(1, 1)
        if not groups[b] then
            groups[b] = {}
            firsts[#firsts + 1] = "%" .. b -- %x is x itself for a non-alphanumeric x, and a class for a letter
            if b:match("%w") then firsts[#firsts] = b end
        end
        table.insert(groups[b], a)
    end
    for _, g in pairs(groups) do
        table.sort(g, function(x, y) return #x.content > #y.content or (#x.content == #y.content and x.id < y.id) end)
    end
    return {groups = groups, set = #firsts > 0 and "[" .. table.concat(firsts) .. "]" or nil}
end

-- Cuts text at the matcher's tokens: appends {text = ...} and {id = ...} parts to out.
local function cut(m, text, out)
    if not m.set then
        if text ~= "" then out[#out + 1] = {text = text} end
        return out
    end
    local at, from = 1, 1
    while true do
        local p = text:find(m.set, from)
        if not p then break end
        local found
        for _, a in ipairs(m.groups[text:sub(p, p)]) do
            if text:sub(p, p + #a.content - 1) == a.content then found = a break end
        end
        if found then
            if p > at then out[#out + 1] = {text = text:sub(at, p - 1)} end
            out[#out + 1] = {id = found.id}
            at = p + #found.content
            from = at
        else
            from = p + 1
        end
    end
    if at <= #text then out[#out + 1] = {text = text:sub(at)} end
    return out
end

-- ---- loading -------------------------------------------------------------------------------------------

local loaded = {} -- path -> {text = the file's contents, tok = the Tokenizer}: a second load is a read

local function build(fn, path, text)
    local t = load.parse(fn, path, text)
    local raw, normalized = {}, {}
    for _, a in ipairs(t.added) do table.insert(a.normalized and normalized or raw, a) end
    t.raw_matcher, t.normalized_matcher = matcher(raw), matcher(normalized)
    t.added_by_content = {}
    for _, a in ipairs(t.added) do t.added_by_content[a.content] = a.id end
    t.path = path
    t.cache, t.cached = {}, 0
    return setmetatable(t, Tokenizer)
end

--- tokenizers.Tokenizer.from_file(path) -> a Tokenizer
function Tokenizer.from_file(path)
    local fn = "Tokenizer.from_file"
    if type(path) ~= "string" then raisef(fn, N("expected the name of a tokenizer.json file, got %s"), check.describe(path)) end
    local f, err = bind.files.open(path) -- a FIFO refused before it blocks (core/safe_read.c)
    if not f then raisef(fn, N("cannot open %s"), tostring(err)) end -- err names the file and the reason
    local _, unreadable = f:read(0) -- a directory opens, and fails here
    local size = not unreadable and f:seek("end")
    if not size then
        f:close()
        raisef(fn, N("cannot read %s (is it a directory?)"), path)
    end
    if size > load.MAX_BYTES then
        f:close()
        raisef(fn, N("%s: the file is %d MB; attn reads tokenizer.json files up to %d MB"), path, (size + 1048575) // 1048576,
               load.MAX_BYTES // 1048576)
    end
    f:seek("set")
    -- at most one byte past the limit: a device such as /dev/zero has no end to seek to
    local text = f:read(load.MAX_BYTES + 1) or ""
    f:close()
    local hit = loaded[path]
    if hit and hit.text == text then return hit.tok end
    local tok = build(fn, path, text)
    loaded[path] = {text = text, tok = tok}
    return tok
end

--- tokenizers.Tokenizer.from_str(json) -> a Tokenizer from the text of a tokenizer.json
function Tokenizer.from_str(json)
    local fn = "Tokenizer.from_str"
    if type(json) ~= "string" then raisef(fn, N("expected the text of a tokenizer.json, got %s"), check.describe(json)) end
    return build(fn, "(string)", json)
end

--- tokenizers.Tokenizer.from_pretrained(name [, {cache_dir = ...}]) -> the tokenizer.json of a model in the
--- Hugging Face cache (or of a directory)
function Tokenizer.from_pretrained(name, opts)
    local fn = "Tokenizer.from_pretrained"
    -- also where make run and scripts/fetch-hf-tokenizers.sh put Qwen3's (places.lua)
    local dir = hf.model_dir(fn, name, "tokenizer.json", opts, require("attn.places").tokenizer(name))
    return Tokenizer.from_file(dir .. "/tokenizer.json")
end

-- ---- encoding ------------------------------------------------------------------------------------------

local function options(fn, opts, known)
    if opts == nil then return {} end
    if type(opts) ~= "table" then raisef(fn, N("options must be a table, got %s"), check.describe(opts)) end
    for k in pairs(opts) do
        if not known[k] then
            local names = {}
            for n in pairs(known) do names[#names + 1] = n end
            table.sort(names)
            raisef(fn, N("unknown option %s (it has %s)"), tostring(k), table.concat(names, ", "))
        end
    end
    return opts
end

-- The ids (the file's, 0-based) of one piece of pre-tokenized text.
function Tokenizer:_piece(piece, ids)
    local cached = self.cache[piece]
    if not cached then
        local whole = self.ignore_merges and self.id_of[piece]
        if whole then
            cached = {whole}
        else
            local symbols, byte_id = {}, self.byte_id
            for i = 1, #piece do symbols[i] = byte_id[piece:byte(i)] end
            cached = bpe.merge(self.merges, symbols)
        end
        if #piece <= 256 then -- long pieces are rare and would fill the cache
            if self.cached >= 100000 then self.cache, self.cached = {}, 0 end
            self.cache[piece], self.cached = cached, self.cached + 1
        end
    end
    for _, id in ipairs(cached) do ids[#ids + 1] = id end
end

function Tokenizer:_ordinary(text, ids)
    local pieces = {text}
    for _, step in ipairs(self.pre) do
        local out = {}
        for _, p in ipairs(pieces) do
            if step.prefix_space then
                out[#out + 1] = p:sub(1, 1) == " " and p or " " .. p
            else
                for _, q in ipairs(step.regex:split(p)) do out[#out + 1] = q end
            end
        end
        pieces = out
    end
    for _, p in ipairs(pieces) do
        if p ~= "" then self:_piece(p, ids) end
    end
end

local function normalize(self, text)
    for _, form in ipairs(self.normalizers) do text = bind.unicode.normalize(form, text) end
    return text
end

local function check_text(fn, text)
    if type(text) ~= "string" then raisef(fn, N("expected a string, got %s"), check.describe(text)) end
    return replace_invalid(text)
end

-- The file's ids (0-based) of a text.
function Tokenizer:_encode(text, add_special)
    local ids = {}
    for _, part in ipairs(cut(self.raw_matcher, text, {})) do
        if part.id then
            ids[#ids + 1] = part.id
        else
            for _, sub in ipairs(cut(self.normalized_matcher, normalize(self, part.text), {})) do
                if sub.id then ids[#ids + 1] = sub.id else self:_ordinary(sub.text, ids) end
            end
        end
    end
    if add_special and (#self.post.before > 0 or #self.post.after > 0) then
        local out = {}
        for _, id in ipairs(self.post.before) do out[#out + 1] = id end
        for _, id in ipairs(ids) do out[#out + 1] = id end
        for _, id in ipairs(self.post.after) do out[#out + 1] = id end
        ids = out
    end
    return ids
end

local ENCODE_OPTIONS = {add_special_tokens = true}

--- tok:encode(text [, {add_special_tokens = true}]) -> {id, ...} (attn's ids: the file's + 1)
function Tokenizer:encode(text, opts)
    local fn = "Tokenizer:encode"
    if getmetatable(self) ~= Tokenizer then raisef(fn, N("call it with a colon: tok:encode(text)")) end
    text = check_text(fn, text)
    opts = options(fn, opts, ENCODE_OPTIONS)
    local ids = self:_encode(text, opts.add_special_tokens ~= false)
    for i, id in ipairs(ids) do ids[i] = id + 1 end
    return ids
end

-- ---- decoding ------------------------------------------------------------------------------------------

-- The ids of a call as a Lua list of attn ids: a table of integers, one integer, or a 1-D (or [1, n])
-- int64 tensor.
function Tokenizer:_ids(fn, ids)
    if bind.torch.is_tensor(ids) then
        if ids.dtype ~= bind.torch.int64 then raisef(fn, N("expected int64 token ids, got a %s tensor"), tostring(ids.dtype)) end
        if ids.ndim > 2 or (ids.ndim == 2 and ids.shape[1] ~= 1) then
            raisef(fn, N("expected one sequence of ids (1-D or [1, n]), got %s"), check.shape(ids))
        end
        ids = ids:flatten():tolist()
    elseif math.type(ids) == "integer" then
        ids = {ids}
    elseif type(ids) ~= "table" then
        raisef(fn, N("expected a list of token ids, got %s"), check.describe(ids))
    end
    for i, id in ipairs(ids) do
        if math.type(id) ~= "integer" or not self.bytes_of[id - 1] then
            raisef(fn, N("token id %s (item %d) is not in the vocabulary of %s (ids 1 to %d)"), tostring(id), i, self.path,
                   self.vocab_size)
        end
    end
    return ids
end

local DECODE_OPTIONS = {skip_special_tokens = true}

--- tok:decode(ids [, {skip_special_tokens = false}]) -> text
function Tokenizer:decode(ids, opts)
    local fn = "Tokenizer:decode"
    if getmetatable(self) ~= Tokenizer then raisef(fn, N("call it with a colon: tok:decode(ids)")) end
    ids = self:_ids(fn, ids)
    opts = options(fn, opts, DECODE_OPTIONS)
    local parts = {}
    for _, id in ipairs(ids) do
        if not (opts.skip_special_tokens and self.special[id - 1]) then parts[#parts + 1] = self.bytes_of[id - 1] end
    end
    return replace_invalid(table.concat(parts))
end

-- A token's bytes as a label (text/token_label.lua: "从" cut in two is "\xE4\xBB" and "\xBE").
local label = require("attn.text.token_label").of_bytes

-- The bytes of token id (attn's, 1-based), nil for an id outside the vocabulary (text/token_label.lua).
function Tokenizer:_token_bytes(id)
    return math.type(id) == "integer" and self.bytes_of[id - 1] or nil
end

--- tok:tokens(text [, {add_special_tokens = true}]) -> {label, ...}: each token of encode(text) as text
function Tokenizer:tokens(text, opts)
    local fn = "Tokenizer:tokens"
    if getmetatable(self) ~= Tokenizer then raisef(fn, N("call it with a colon: tok:tokens(text)")) end
    text = check_text(fn, text)
    opts = options(fn, opts, ENCODE_OPTIONS)
    local out = {}
    for i, id in ipairs(self:_encode(text, opts.add_special_tokens ~= false)) do out[i] = label(self.bytes_of[id]) end
    return out
end

--- tok:id_to_token(id) -> the token as the file writes it ("Ġstep"), or nil
function Tokenizer:id_to_token(id)
    if math.type(id) ~= "integer" then return nil end
    local bytes = self.bytes_of[id - 1]
    if not bytes then return nil end
    if self.special[id - 1] or self.id_of[bytes] ~= id - 1 then return bytes end -- added tokens: as written
    local chars = {}
    local map = self._to_char
    if not map then
        map = {}
        for cp, b in pairs(bytelevel.unicode_to_byte()) do map[b] = utf8.char(cp) end
        self._to_char = map
    end
    for i = 1, #bytes do chars[i] = map[bytes:byte(i)] end
    return table.concat(chars)
end

--- tok:token_to_id(token) -> attn's id of a token as the file writes it, or nil
function Tokenizer:token_to_id(token)
    if type(token) ~= "string" then return nil end
    local id = self.added_by_content[token]
    if id then return id + 1 end
    self._char_map = self._char_map or bytelevel.char_map()
    local bytes = bytelevel.to_bytes(self._char_map, token)
    id = bytes and self.id_of[bytes]
    return id and id + 1
end

--- tok:get_vocab_size() -> the number of ids, added tokens included
function Tokenizer:get_vocab_size()
    return self.vocab_size
end

-- ---- Qwen's chat format -----------------------------------------------------------------------------------

local CHAT_OPTIONS = {add_generation_prompt = true, tokenize = true, enable_thinking = true}

--- tok:apply_chat_template(messages [, {add_generation_prompt = false, tokenize = true, enable_thinking}])
-- Qwen3's template (the Jinja text of its tokenizer_config.json) as it renders one user turn, with an
-- optional system message before it: not a Jinja engine, the one format written out (ChatML):
--   <|im_start|>system\nSYSTEM<|im_end|>\n            (when messages[1] is the system's)
--   <|im_start|>user\nCONTENT<|im_end|>\n
--   <|im_start|>assistant\n                           (add_generation_prompt)
--   <think>\n\n</think>\n\n                           (add_generation_prompt and enable_thinking = false)
function Tokenizer:apply_chat_template(messages, opts)
    local fn = "Tokenizer:apply_chat_template"
    if getmetatable(self) ~= Tokenizer then raisef(fn, N("call it with a colon: tok:apply_chat_template(messages)")) end
    opts = options(fn, opts, CHAT_OPTIONS)
    for _, token in ipairs({"<|im_start|>", "<|im_end|>"}) do
        if not self.added_by_content[token] then
            raisef(fn, N("%s has no %s token: attn writes Qwen's chat format (ChatML) only"), self.path, token)
        end
    end
    if type(messages) ~= "table" then
        raisef(fn, N('expected a list of messages such as {{role = "user", content = "..."}}, got %s'), check.describe(messages))
    end
    local list = {}
    for i, m in ipairs(messages) do
        if type(m) ~= "table" or type(m.content) ~= "string" then
            raisef(fn, N("message %d must be a table with a role and a string content"), i)
        end
        list[i] = m
    end
    local first = list[1] and list[1].role == "system" and 2 or 1
    if #list == 0 then raisef(fn, N("attn writes one user turn (optionally after a system message); got no message")) end
    if #list ~= first or list[first].role ~= "user" then
        local roles = {}
        for i, m in ipairs(list) do roles[i] = tostring(m.role) end
        raisef(fn, N("attn writes one user turn (optionally after a system message); got %d messages with roles %s"), #list,
               table.concat(roles, ", "))
    end
    local parts = {}
    if first == 2 then parts[#parts + 1] = "<|im_start|>system\n" .. list[1].content .. "<|im_end|>\n" end
    parts[#parts + 1] = "<|im_start|>user\n" .. list[first].content .. "<|im_end|>\n"
    if opts.add_generation_prompt then
        parts[#parts + 1] = "<|im_start|>assistant\n"
        if opts.enable_thinking == false then parts[#parts + 1] = "<think>\n\n</think>\n\n" end
    end
    local text = table.concat(parts)
    if opts.tokenize == false then return text end
    -- transformers tokenizes a rendered template without adding special tokens: the template has them
    local ids = self:_encode(replace_invalid(text), false)
    for i, id in ipairs(ids) do ids[i] = id + 1 end
    return ids
end

tokenizers.Tokenizer = Tokenizer
tokenizers.label = label
return tokenizers
