-- bpe.lua — GPT-2's byte-level BPE, as tiktoken computes it (module attn.tiktoken.bpe).
--
-- An Encoding holds `ranks`: each token's bytes -> its rank (PyTorch's id; attn's id is rank + 1).
-- Encoding text:
--   1. split out the special tokens the caller allows (<|endoftext|>); refuse the others;
--   2. cut each ordinary stretch into pieces with GPT-2's regex (contractions, letters, numbers,
--      other symbols, each with one leading space, and runs of spaces), through PCRE2;
--   3. each piece's bytes are merged pairwise: repeatedly the adjacent pair whose joined bytes have
--      the lowest rank becomes one part (the leftmost when ranks tie), until no joined pair has a rank
--      (a priority queue finds that pair, so a long word takes n log n steps, not n^2).
--      That is tiktoken's byte_pair_merge; ranking a pair by its joined token's id gives the merges of
--      vocab.bpe in their order, because GPT-2's ids were given in merge order.
local bind = require("attn.bind")
local errors = require("attn.errors")
local options = require("attn.options")
local describe = require("attn.check").describe

local bpe = {}

-- tiktoken's pattern for "gpt2" (r50k_base), the one GPT-2's encoder.py used.
bpe.GPT2_PATTERN = [['(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+]]

local Encoding = {}
Encoding.__index = Encoding
Encoding.__name = "Encoding"

function Encoding.__tostring(e)
    return string.format("<Encoding '%s'>", e.name)
end

-- ranks: bytes -> rank; special: name -> rank.
function bpe.Encoding(name, ranks, special, n_vocab)
    local self = setmetatable({name = name, ranks = ranks, special = special, n_vocab = n_vocab,
                               regex = bind.regex.compile(bpe.GPT2_PATTERN), bytes_of = {}, cache = {},
                               cached = 0}, Encoding)
    for bytes, rank in pairs(ranks) do self.bytes_of[rank] = bytes end
    for token, rank in pairs(special) do self.bytes_of[rank] = token end
    self.eot_token = special["<|endoftext|>"] and special["<|endoftext|>"] + 1
    return self
end

-- A binary min-heap of candidate merges, each an integer key rank * (#piece + 1) + start: the lowest
-- rank first, and among equal ranks the leftmost pair, the order in which tiktoken's loop picks them.
local function heap_push(keys, stamps, key, stamp)
    local n = #keys + 1
    keys[n], stamps[n] = key, stamp
    while n > 1 do
        local up = n // 2
        if keys[up] <= key then break end
        keys[n], stamps[n], keys[up], stamps[up] = keys[up], stamps[up], key, stamp
        n = up
    end
end

local function heap_pop(keys, stamps)
    local key, stamp, n = keys[1], stamps[1], #keys
    keys[1], stamps[1] = keys[n], stamps[n]
    keys[n], stamps[n] = nil, nil
    n = n - 1
    local i = 1
    while true do
        local l, small = 2 * i, i
        if l <= n and keys[l] < keys[small] then small = l end
        if l + 1 <= n and keys[l + 1] < keys[small] then small = l + 1 end
        if small == i then break end
        keys[i], stamps[i], keys[small], stamps[small] = keys[small], stamps[small], keys[i], stamps[i]
        i = small
    end
    return key, stamp
end

-- The ranks of one piece's bytes (tiktoken's byte_pair_encode): the merges of tiktoken's
-- byte_pair_merge, in the same order, but found in O(n log n) rather than by rescanning every pair
-- after each merge (quadratic: a 40,000-letter word took most of a minute). The parts are a linked list
-- of start positions (nxt, prv); pair[s] is the rank of joining the part at s with the next one (nil:
-- no such token); every change of pair[s] bumps stamp[s], so that heap entries made before it are
-- recognised as stale and skipped when they come up.
local function merge(ranks, piece)
    local whole = ranks[piece]
    if whole then return {whole} end
    local n = #piece
    local nxt, prv, pair, stamp = {}, {}, {}, {}
    local keys, stamps, width = {}, {}, n + 1
    for i = 1, n do nxt[i], prv[i], stamp[i] = i + 1, i - 1, 0 end
    local function rank_at(s) -- rank of the part at s joined with its next part, or nil
        local e = nxt[s]
        if e > n then return nil end
        return ranks[piece:sub(s, nxt[e] - 1)]
    end
    local function update(s)
        local r = rank_at(s)
        stamp[s] = stamp[s] + 1
        pair[s] = r
        if r then heap_push(keys, stamps, r * width + s, stamp[s]) end
    end
    for i = 1, n - 1 do update(i) end
    while keys[1] do
        local key, st = heap_pop(keys, stamps)
        local s = key % width
        if stamp[s] == st and pair[s] then -- still current: s is alive and its pair unchanged
            local gone = nxt[s] -- the right part joins s
            nxt[s] = nxt[gone]
            if nxt[s] <= n then prv[nxt[s]] = s end
            pair[gone], stamp[gone] = nil, stamp[gone] + 1
            update(s)
            if prv[s] >= 1 then update(prv[s]) end
        end
    end
    local out, s = {}, 1
    while s <= n do
        out[#out + 1] = ranks[piece:sub(s, nxt[s] - 1)]
        s = nxt[s]
    end
    return out
end

-- Appends the attn ids (rank + 1) of an ordinary stretch of text to ids.
function Encoding:_ordinary(text, ids)
    for _, piece in ipairs(self.regex:findall(text)) do
        local ranks = self.cache[piece]
        if not ranks then
            ranks = merge(self.ranks, piece)
            if self.cached > 100000 then self.cache, self.cached = {}, 0 end
            self.cache[piece], self.cached = ranks, self.cached + 1
        end
        for _, r in ipairs(ranks) do ids[#ids + 1] = r + 1 end
    end
end

local function check_text(fn, text)
    if type(text) ~= "string" then
        errors.raisef("%s: expected a string, got %s", fn, type(text))
    end
    if not utf8.len(text) then
        errors.raisef("%s: the text is not valid UTF-8 (byte %d)", fn, select(2, utf8.len(text)))
    end
end

-- The special tokens an encode call allows: "all", a list {"<|endoftext|>"} or a set {["<|endoftext|>"] = true}.
local function allowed_set(self, allowed)
    local set = {}
    if allowed == "all" then
        for token in pairs(self.special) do set[token] = true end
    elseif type(allowed) == "table" then
        for k, v in pairs(allowed) do
            local token = type(k) == "number" and v or k
            if not self.special[token] then
                errors.raisef("encode: %q is not a special token of %s (it has %s)", tostring(token), self.name,
                              table.concat(self:special_tokens(), ", "))
            end
            set[token] = true
        end
    elseif allowed ~= nil then
        errors.raisef('encode: allowed_special must be "all" or a list of special tokens, got %s', type(allowed))
    end
    return set
end

function Encoding:special_tokens()
    local list = {}
    for token in pairs(self.special) do list[#list + 1] = token end
    table.sort(list)
    return list
end

--- enc:encode(text [, {allowed_special = {"<|endoftext|>"} or "all"}]) -> {id, ...} (attn's ids: rank + 1)
function Encoding:encode(text, opts)
    check_text("encode", text)
    if opts ~= nil and type(opts) ~= "table" then
        errors.raisef('encode: options must be a table such as {allowed_special = {"<|endoftext|>"}}, got %s',
                      type(opts))
    end
    options.check("encode", opts, {"allowed_special"})
    local allowed = allowed_set(self, opts and opts.allowed_special)
    -- tiktoken refuses a special token's text that is not allowed: it would otherwise be encoded as
    -- ordinary text, which is almost never what was meant.
    for token in pairs(self.special) do
        if not allowed[token] and text:find(token, 1, true) then
            errors.raisef("encode: the text contains the special token %s; pass {allowed_special = {%q}} to "
                          .. "encode it as the special token (id %d), or use encode_ordinary to encode it as "
                          .. "plain text", token, token, self.special[token] + 1)
        end
    end
    local ids, at = {}, 1
    while at <= #text do
        local first, first_end, token
        for t in pairs(allowed) do
            local s, e = text:find(t, at, true)
            if s and (not first or s < first) then first, first_end, token = s, e, t end
        end
        if not first then break end
        self:_ordinary(text:sub(at, first - 1), ids)
        ids[#ids + 1] = self.special[token] + 1
        at = first_end + 1
    end
    self:_ordinary(text:sub(at), ids)
    return ids
end

--- enc:encode_ordinary(text): special tokens' text encoded as plain text.
function Encoding:encode_ordinary(text)
    check_text("encode_ordinary", text)
    local ids = {}
    self:_ordinary(text, ids)
    return ids
end

-- The ids of a call as a Lua list: a table of integers or a 1-D (or [1, n]) int64 tensor.
local function id_list(self, fn, ids)
    if bind.torch.is_tensor(ids) then
        if ids.dtype ~= bind.torch.int64 then
            errors.raisef("%s: expected int64 token ids, got a %s tensor", fn, tostring(ids.dtype))
        end
        ids = ids:flatten():tolist()
    elseif type(ids) == "number" then
        ids = {ids}
    elseif type(ids) ~= "table" then
        errors.raisef("%s: expected a list of token ids, got %s", fn, type(ids))
    end
    for i, id in ipairs(ids) do
        if type(id) ~= "number" then -- a table showed as its address
            errors.raisef("%s: item %d must be a token id (a whole number), got %s", fn, i, describe(id))
        end
        if math.type(id) ~= "integer" or not self.bytes_of[id - 1] then
            errors.raisef("%s: token id %s (item %d) is not in %s's vocabulary (ids 1 to %d)", fn, tostring(id), i,
                          self.name, self.n_vocab)
        end
    end
    return ids
end

--- enc:decode_bytes(ids) -> the bytes of the tokens, joined.
function Encoding:decode_bytes(ids)
    local parts = {}
    for i, id in ipairs(id_list(self, "decode_bytes", ids)) do parts[i] = self.bytes_of[id - 1] end
    return table.concat(parts)
end

-- Bytes as text the way Python's bytes.decode("utf-8", errors="replace") makes it (as tiktoken's
-- decode does): each maximal invalid sequence becomes one U+FFFD.
local REPLACEMENT = "\u{FFFD}"
local function replace_invalid(s)
    if utf8.len(s) then return s end
    local out, i, n = {}, 1, #s
    while i <= n do
        local c = s:byte(i)
        local len, lo, hi = 0, 0x80, 0xBF
        if c < 0x80 then len = 1
        elseif c >= 0xC2 and c <= 0xDF then len = 2
        elseif c >= 0xE0 and c <= 0xEF then
            len = 3
            if c == 0xE0 then lo = 0xA0 elseif c == 0xED then hi = 0x9F end
        elseif c >= 0xF0 and c <= 0xF4 then
            len = 4
            if c == 0xF0 then lo = 0x90 elseif c == 0xF4 then hi = 0x8F end
        end
        if len == 0 then
            out[#out + 1] = REPLACEMENT
            i = i + 1
        else
            local j = i + 1
            while j < i + len and j <= n do
                local b = s:byte(j)
                local l, h = 0x80, 0xBF
                if j == i + 1 then l, h = lo, hi end
                if b < l or b > h then break end
                j = j + 1
            end
            if j == i + len then out[#out + 1] = s:sub(i, j - 1) else out[#out + 1] = REPLACEMENT end
            i = j
        end
    end
    return table.concat(out)
end

--- enc:decode(ids) -> text (invalid UTF-8, from a token cut inside a character, becomes U+FFFD)
function Encoding:decode(ids)
    local parts = {}
    for i, id in ipairs(id_list(self, "decode", ids)) do parts[i] = self.bytes_of[id - 1] end
    return replace_invalid(table.concat(parts))
end

--- enc:decode_single_token_bytes(id)
function Encoding:decode_single_token_bytes(id)
    return self.bytes_of[id_list(self, "decode_single_token_bytes", {id})[1] - 1]
end

bpe.Encoding_class = Encoding
bpe.replace_invalid = replace_invalid
return bpe
