-- tokenizers.Tokenizer (src/lua/tokenizers/) on Qwen3's and Llama 3's real tokenizer.json, and the
-- Hugging Face cache lookup (src/lua/hf.lua).
-- Expected ids: tests/data/tokenizers/reference.jsonl, made by scripts/gen-hf-tokenizer-reference.sh with
-- @lenml/tokenizers (transformers.js's tokenizers) for the strings of strings.jsonl; the chat prompts:
-- chat_template.jsonl, Qwen3's Jinja template rendered by Jinja2, and their ids (chat_template_ids.jsonl).
-- attn's ids are the files' + 1. The tokenizer files: make test fetches them into build/hf-tokenizers
-- (scripts/fetch-hf-tokenizers.sh); they are not committed. The strings avoid U+FEFF, which JavaScript's
-- regex counts as white space and PCRE2 (attn) and Oniguruma (Hugging Face's Rust library) do not.
local tokenizers, torch, gpt = tokenizers, torch, gpt
local json = require("attn.bind").json
local hf = require("attn.hf")

local DIR = os.getenv("ATTN_HF_TOKENIZERS_DIR") or "build/hf-tokenizers"
local QWEN, LLAMA = DIR .. "/qwen3/tokenizer.json", DIR .. "/llama3/tokenizer.json"
local qwen = tokenizers.Tokenizer.from_file(QWEN)
local llama = tokenizers.Tokenizer.from_file(LLAMA)
local TOK = {qwen3 = qwen, llama3 = llama}

local function read_jsonl(path)
    local list = {}
    for line in io.lines(path) do list[#list + 1] = json.decode(line) end
    return list
end

local function plus_one(ids)
    local out = {}
    for i, id in ipairs(ids) do out[i] = id + 1 end
    return out
end

local function unhex(h)
    return (h:gsub("%x%x", function(x) return string.char(tonumber(x, 16)) end))
end

local function slurp(path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("a")
    f:close()
    return s
end

local function tmpdir()
    local d = os.tmpname()
    os.remove(d)
    assert(os.execute("mkdir -p '" .. d .. "'"))
    return d
end

local function write(path, text)
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
end

local function raises(pattern, f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok, "expected an error matching " .. pattern)
    assert.matches(pattern, tostring(err), 1, true)
end

local cases = read_jsonl("tests/data/tokenizers/reference.jsonl")

describe("tokenizers.Tokenizer on Qwen3's and Llama 3's tokenizer.json", function()
    it("reads both files", function()
        assert.are.equal(151669, qwen:get_vocab_size())
        assert.are.equal(128256, llama:get_vocab_size())
    end)

    for _, name in ipairs({"qwen3", "llama3"}) do
        it("gives @lenml/tokenizers' ids (+1) for " .. name .. " on " .. #cases .. " strings, and its decode", function()
            assert.is_true(#cases >= 60)
            local tok = TOK[name]
            for _, c in ipairs(cases) do
                local text = c.hex and unhex(c.hex) or c.text
                local ids = tok:encode(text)
                assert.are.same(plus_one(c[name]), ids, c.hex or c.text)
                assert.are.equal(c[name .. "_decoded"], tok:decode(ids), c.hex or c.text)
                -- add_special_tokens = false changes nothing: neither file's post-processor adds tokens
                assert.are.same(ids, tok:encode(text, {add_special_tokens = false}))
            end
        end)
    end

    it("decode inverts encode: the text itself (Llama 3), its NFC form (Qwen3), U+FFFD for invalid bytes", function()
        local nfc = require("attn.bind").unicode.normalize
        for _, c in ipairs(cases) do
            if not c.hex then
                assert.are.equal(c.text, llama:decode(llama:encode(c.text)), c.text)
                assert.are.equal(nfc("NFC", c.text), qwen:decode(qwen:encode(c.text)), c.text)
            end
        end
        assert.are.equal("e\u{301}", llama:decode(llama:encode("e\u{301}")))
        assert.are.equal("\u{e9}", qwen:decode(qwen:encode("e\u{301}")))
        assert.are.equal("A\u{FFFD}B", qwen:decode(qwen:encode("A\xFFB")))
    end)

    it("gives readable labels: whole Chinese words, spaces as spaces, cut characters as \\xHH bytes", function()
        local text = "你的旅程从一步开始"
        local labels = qwen:tokens(text)
        assert.are.equal(#qwen:encode(text), #labels)
        assert.are.equal(text, table.concat(labels))
        for _, l in ipairs(labels) do assert.is_truthy(utf8.len(l)) end
        assert.are.same({"Your", " journey", " starts", " with", " one", " step"},
                        llama:tokens("Your journey starts with one step"))
        assert.are.same({"a", "<|im_end|>", "\n"}, qwen:tokens("a<|im_end|>\n"))
        -- a character Llama 3 cuts in two: the label of each part is its bytes, written \xHH
        local ids = llama:encode("龘")
        assert.is_true(#ids > 1)
        local parts = llama:tokens("龘")
        local bytes = table.concat(parts):gsub("\\x(%x%x)", function(h) return string.char(tonumber(h, 16)) end)
        assert.are.equal("龘", bytes)
        assert.are.equal("\\x", parts[1]:sub(1, 2))
    end)

    it("cuts out special tokens written in the text, the longest first", function()
        local im_end = qwen:token_to_id("<|im_end|>")
        assert.are.same({qwen:encode("a")[1], im_end, qwen:encode("b")[1]}, qwen:encode("a<|im_end|>b"))
        assert.are.equal("<|im_end|>", qwen:id_to_token(im_end))
        assert.are.equal("a<|im_end|>b", qwen:decode(qwen:encode("a<|im_end|>b")))
        assert.are.equal("ab", qwen:decode(qwen:encode("a<|im_end|>b"), {skip_special_tokens = true}))
        -- <think> is an added token that is not special: skip_special_tokens keeps it, as Hugging Face does
        assert.are.equal("<think>x", qwen:decode(qwen:encode("<think>x"), {skip_special_tokens = true}))
    end)

    it("maps tokens as the file writes them to ids and back", function()
        local id = llama:token_to_id("Ġstep")
        assert.are.same({id}, llama:encode(" step"))
        assert.are.equal("Ġstep", llama:id_to_token(id))
        assert.is_nil(llama:token_to_id("no such token here"))
        assert.is_nil(llama:id_to_token(0))
        assert.is_nil(llama:id_to_token(128257))
    end)

    it("adds Llama 3.2's <|begin_of_text|> when the file's post-processor says so (TemplateProcessing)", function()
        local text = slurp(LLAMA)
        local template = '"post_processor": {"type": "Sequence", "processors": [{"type": "ByteLevel", '
            .. '"add_prefix_space": true, "trim_offsets": false, "use_regex": true}, {"type": "TemplateProcessing", '
            .. '"single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", '
            .. '"type_id": 0}}], "pair": [], "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", '
            .. '"ids": [128000], "tokens": ["<|begin_of_text|>"]}}}]}'
        local changed, n = text:gsub('"post_processor":%s*%b{}', function() return template end, 1)
        assert.are.equal(1, n)
        local tok = tokenizers.Tokenizer.from_str(changed)
        local bos = llama:token_to_id("<|begin_of_text|>")
        for _, c in ipairs(cases) do
            if not c.hex then
                local want = plus_one(c.llama3)
                assert.are.same(want, tok:encode(c.text, {add_special_tokens = false}), c.text)
                table.insert(want, 1, bos)
                assert.are.same(want, tok:encode(c.text), c.text)
            end
        end
    end)

    it("writes Qwen3's chat template for one user turn as Jinja2 renders it, and its ids", function()
        local prompts = read_jsonl("tests/data/tokenizers/chat_template.jsonl")
        local ids = read_jsonl("tests/data/tokenizers/chat_template_ids.jsonl")
        assert.are.equal(18, #prompts)
        for i, p in ipairs(prompts) do
            local opts = {add_generation_prompt = p.add_generation_prompt, enable_thinking = p.enable_thinking}
            local messages = {{role = "user", content = p.content}}
            if p.system then table.insert(messages, 1, {role = "system", content = p.system}) end
            opts.tokenize = false
            assert.are.equal(p.text, qwen:apply_chat_template(messages, opts), p.text)
            opts.tokenize = nil
            assert.are.equal(p.text, ids[i].text)
            assert.are.same(plus_one(ids[i].qwen3), qwen:apply_chat_template(messages, opts), p.text)
        end
        raises("attn writes Qwen's chat format (ChatML) only", llama.apply_chat_template, llama,
               {{role = "user", content = "hi"}})
        raises("one user turn", qwen.apply_chat_template, qwen, {{role = "assistant", content = "hi"}})
        raises("one user turn", qwen.apply_chat_template, qwen,
               {{role = "user", content = "a"}, {role = "user", content = "b"}})
        raises("message 1 must be a table", qwen.apply_chat_template, qwen, {"hi"})
        raises("got no message", qwen.apply_chat_template, qwen, {})
        raises("unknown option tokenise", qwen.apply_chat_template, qwen, {{role = "user", content = "a"}}, {tokenise = false})
    end)

    it("merges a 40,000-character word (one pre-token) like a short one", function()
        -- the priority queue's result equals the merges of the same word cut in the reference's way: a
        -- run of one Chinese character repeated is the repetition of its short runs' tokens
        local short = qwen:encode(string.rep("你", 40))
        local long = qwen:encode(string.rep("你", 40000))
        assert.are.equal(40000 // 40 * #short, #long)
        for i = 1, #long do assert.are.equal(short[(i - 1) % #short + 1], long[i]) end
        assert.are.equal(string.rep("你", 40000), qwen:decode(long))
    end)

    it("takes ids as a list, a number or an int64 tensor, and refuses ids outside the vocabulary", function()
        local ids = qwen:encode("你的旅程")
        assert.are.equal("你的旅程", qwen:decode(torch.tensor(ids)))
        assert.are.equal("你的旅程", qwen:decode(torch.tensor{ids}))
        assert.are.equal("你的", qwen:decode(ids[1]))
        assert.are.equal("", qwen:decode({}))
        raises("token id 0 (item 1) is not in the vocabulary", qwen.decode, qwen, {0})
        raises("token id 151670 (item 2) is not in the vocabulary", qwen.decode, qwen, {1, 151670})
        raises("expected int64 token ids", qwen.decode, qwen, torch.tensor{1.0})
        raises("Tokenizer:encode: expected a string, got", qwen.encode, qwen, 5)
        raises("call it with a colon", qwen.encode, "text")
        raises("unknown option allowed_special", qwen.encode, qwen, "a", {allowed_special = "all"})
    end)
end)

describe("the C helpers: regex:split and unicode.normalize", function()
    local bind = require("attn.bind")

    it("split keeps the text between matches (Hugging Face's Isolated), findall drops it", function()
        local re = bind.regex.compile("a+")
        assert.are.same({"x", "aa", "yb", "a", "z"}, re:split("xaaybaz"))
        assert.are.same({"aa", "a"}, re:findall("xaaybaz"))
        assert.are.same({"aa"}, re:split("aa"))
        assert.are.same({"你好"}, re:split("你好"))
        assert.are.same({}, re:split(""))
        local ok, err = pcall(re.split, re, "a\xFFa")
        assert.is_false(ok)
        assert.matches("split: the text is not valid UTF-8 (byte 2)", err, 1, true)
    end)

    it("normalize gives Unicode's four forms (utf8proc) and refuses invalid UTF-8", function()
        local n = bind.unicode.normalize
        assert.are.equal("\u{E9}", n("NFC", "e\u{301}"))
        assert.are.equal("e\u{301}", n("NFD", "\u{E9}"))
        assert.are.equal("fi", n("NFKC", "\u{FB01}"))
        assert.are.equal("\u{FB01}", n("NFC", "\u{FB01}"))
        assert.are.equal("你的旅程", n("NFC", "你的旅程"))
        local ok, err = pcall(n, "NFC", "\xFF")
        assert.is_false(ok)
        assert.matches("normalize: ", err, 1, true)
        assert.is_false((pcall(n, "NFX", "a")))
    end)
end)

describe("tokenizers.Tokenizer on GPT-2's vocabulary written as a tokenizer.json", function()
    -- Hugging Face's gpt2 tokenizer.json is OpenAI's encoder.json and vocab.bpe in one file; made here from
    -- the two files make test fetches for tiktoken (scripts/fetch-gpt2-vocab.sh), it must give tiktoken's ids
    -- (tests/data/tiktoken/gpt2.jsonl, js-tiktoken's): merges ranked by pair (Hugging Face) and by merged
    -- token (tiktoken) agree on GPT-2's vocabulary.
    local vocab_dir = os.getenv("ATTN_TIKTOKEN_DIR") or "build/gpt2-vocab"
    local merges = {}
    for line in io.lines(vocab_dir .. "/vocab.bpe") do
        if not line:find("^#version") and line ~= "" then
            merges[#merges + 1] = '"' .. line:gsub('[\\"]', "\\%0") .. '"'
        end
    end
    local text = '{"added_tokens": [{"id": 50256, "content": "<|endoftext|>", "single_word": false, "lstrip": false, '
        .. '"rstrip": false, "normalized": true, "special": true}], "normalizer": null, "pre_tokenizer": {"type": '
        .. '"ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}, "post_processor": '
        .. '{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true}, "decoder": '
        .. '{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}, "model": '
        .. '{"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": "", "end_of_word_suffix": '
        .. '"", "fuse_unk": false, "vocab": ' .. slurp(vocab_dir .. "/encoder.json") .. ', "merges": ['
        .. table.concat(merges, ", ") .. "]}}"
    local gpt2 = tokenizers.Tokenizer.from_str(text)

    it("gives tiktoken's ids on its test strings, and decode inverts encode", function()
        local list = read_jsonl("tests/data/tiktoken/gpt2.jsonl")
        assert.is_true(#list >= 40)
        for _, c in ipairs(list) do
            local ids = gpt2:encode(c.text)
            assert.are.same(plus_one(c.ids), ids, c.text)
            assert.are.equal(c.text, gpt2:decode(ids), c.text)
        end
        assert.are.equal(50257, gpt2:get_vocab_size())
    end)
end)

describe("tokenizers.Tokenizer refuses a malformed tokenizer.json", function()
    local dir = tmpdir()
    local function file(name, text)
        local path = dir .. "/" .. name
        write(path, text)
        return path
    end
    local from_file = tokenizers.Tokenizer.from_file
    local bytes = {}
    do -- GPT-2's stand-ins for the 256 bytes, as a JSON vocabulary: a minimal byte-level model
        local map = require("attn.tokenizers.bytelevel").unicode_to_byte()
        local cps = {}
        for cp in pairs(map) do cps[#cps + 1] = cp end
        table.sort(cps, function(a, b) return map[a] < map[b] end)
        for i, cp in ipairs(cps) do bytes[i] = json.decode('"\\u' .. string.format("%04x", cp) .. '"') end
    end
    local function vocab_json(list)
        local parts = {}
        for i, t in ipairs(list) do parts[i] = string.format("%q: %d", t, i - 1) end
        return "{" .. table.concat(parts, ", ") .. "}"
    end
    local PRE = '"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true}'
    local function tokenizer_json(model, extra)
        return "{" .. PRE .. ', "model": ' .. model .. (extra or "") .. "}"
    end
    local with_ab = {table.unpack(bytes)}
    with_ab[#with_ab + 1] = "ab"

    it("reads a minimal byte-level file (the checks below change one thing of it)", function()
        local tok = from_file(file("ok.json", tokenizer_json('{"type": "BPE", "vocab": ' .. vocab_json(with_ab)
                                                             .. ', "merges": ["a b"]}')))
        assert.are.same({257}, tok:encode("ab"))
        assert.are.same({98, 257}, tok:encode("aab"))
    end)

    it("names the file and the reason", function()
        raises("cannot open " .. dir .. "/none.json", from_file, dir .. "/none.json")
        raises("cannot read " .. dir, from_file, dir)
        raises("Tokenizer.from_file: expected the name of a tokenizer.json file, got", from_file, 42)
        raises(dir .. "/bad.json: not a tokenizer.json: not valid JSON", from_file, file("bad.json", "{nope"))
        raises(dir .. "/list.json: not a tokenizer.json: not a JSON object", from_file, file("list.json", "3"))
        raises("it has no model", from_file, file("nomodel.json", "{" .. PRE .. "}"))
        raises("its model has no vocab", from_file, file("novocab.json", tokenizer_json('{"type": "BPE", "merges": []}')))
        raises("its model has no merges", from_file,
               file("nomerges.json", tokenizer_json('{"type": "BPE", "vocab": ' .. vocab_json(bytes) .. "}")))
        raises("its model is WordPiece; attn reads BPE models", from_file,
               file("wp.json", tokenizer_json('{"type": "WordPiece", "vocab": {}}')))
        raises("merge 1 (a x) joins tokens that are not in the vocabulary", from_file,
               file("merge.json", tokenizer_json('{"type": "BPE", "vocab": ' .. vocab_json(bytes) .. ', "merges": ["a x"]}')))
        raises("has no token for the byte 0x", from_file,
               file("bytes.json", tokenizer_json('{"type": "BPE", "vocab": {"a": 0}, "merges": []}')))
        raises("byte_fallback", from_file, file("fallback.json", tokenizer_json(
            '{"type": "BPE", "byte_fallback": true, "vocab": ' .. vocab_json(bytes) .. ', "merges": []}')))
        raises("the normalizer Lowercase is not one attn has", from_file, file("lower.json", tokenizer_json(
            '{"type": "BPE", "vocab": ' .. vocab_json(bytes) .. ', "merges": []}', ', "normalizer": {"type": "Lowercase"}')))
        raises("its pre-tokenizer has no ByteLevel step", from_file, file("split.json",
            '{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "\\\\s+"}, "behavior": "Isolated"}, '
            .. '"model": {"type": "BPE", "vocab": ' .. vocab_json(bytes) .. ', "merges": []}}'))
        raises("the pre-tokenizer Metaspace is not one attn has", from_file, file("meta.json",
            '{"pre_tokenizer": {"type": "Metaspace"}, "model": {"type": "BPE", "vocab": ' .. vocab_json(bytes)
            .. ', "merges": []}}'))
        raises("its pre-tokenizer regex does not compile", from_file, file("regex.json",
            '{"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(("}, '
            .. '"behavior": "Isolated"}, {"type": "ByteLevel", "use_regex": false}]}, "model": {"type": "BPE", "vocab": '
            .. vocab_json(bytes) .. ', "merges": []}}'))
    end)

    it("refuses every part of the file replaced by a value of another kind with a message, never a Lua error", function()
        local slots = {
            vocab = vocab_json(with_ab), merge = '"a b"',
            model = '{"type": "BPE", "vocab": $vocab, "merges": [$merge]}',
            added = '{"id": 257, "content": "<x>", "special": true}',
            normalizer = '{"type": "Sequence", "normalizers": [$norm]}', norm = '{"type": "NFC"}',
            pre = '{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": $pattern, "behavior": '
                .. '"Isolated"}, $bytelevel]}',
            pattern = '{"Regex": "\\\\s+"}', bytelevel = '{"type": "ByteLevel", "use_regex": false}',
            post = '{"type": "TemplateProcessing", "single": [$piece, {"Sequence": {"id": "A"}}], "special_tokens": '
                .. '{"<x>": $special}}',
            piece = '{"SpecialToken": {"id": "<x>"}}', special = '{"ids": [257]}',
            decoder = '{"type": "ByteLevel"}',
        }
        local top = '{"model": $model, "added_tokens": [$added], "normalizer": $normalizer, "pre_tokenizer": $pre, '
            .. '"post_processor": $post, "decoder": $decoder}'
        local function render(over)
            local text = top
            for _ = 1, 4 do
                text = text:gsub("%$(%w+)", function(k) return over[k] or slots[k] end)
            end
            return text
        end
        local tok = tokenizers.Tokenizer.from_str(render({}))
        assert.are.same({258, 257}, tok:encode("<x>ab", {add_special_tokens = false}))
        assert.are.same({258, 258, 257}, tok:encode("<x>ab"))
        local values = {"1", '"x"', "[]", "{}", "null", "true", "[1]", "[{}]", '{"type": 3}', '[[1, 2]]', '{"a": 1.5}'}
        local checked = 0
        for slot in pairs(slots) do
            for _, v in ipairs(values) do
                local ok, err = pcall(tokenizers.Tokenizer.from_str, render({[slot] = v}))
                if not ok then
                    assert.matches("Tokenizer.from_str: (string): ", tostring(err), 1, true)
                    assert.is_nil(tostring(err):find("attempt to", 1, true), err)
                    assert.is_nil(tostring(err):find("[attn]", 1, true), err)
                end
                checked = checked + 1
            end
        end
        assert.are.equal(13 * #values, checked) -- every slot of the file above, each with every value
    end)

    it("refuses a file larger than it reads before reading it", function()
        local load = require("attn.tokenizers.load")
        local saved = load.MAX_BYTES
        load.MAX_BYTES = 1024
        local ok, err = pcall(from_file, QWEN)
        load.MAX_BYTES = saved
        assert.is_false(ok)
        assert.matches(QWEN .. ": the file is 11 MB; attn reads tokenizer.json files up to 0 MB", err, 1, true)
        -- a device (a file without an end to seek to) is refused before a byte is read (core/safe_read.c)
        ok, err = pcall(from_file, "/dev/zero")
        assert.is_false(ok)
        assert.matches("Tokenizer.from_file: cannot open /dev/zero: it is a character device, and attn reads only regular files",
                       err, 1, true)
    end)
end)

describe("the Hugging Face cache (hf.lua)", function()
    local cache = tmpdir()
    local commit = string.rep("ab12", 10)
    local snap = cache .. "/models--Qwen--Qwen3-0.6B/snapshots/" .. commit
    assert(os.execute("mkdir -p '" .. snap .. "' '" .. cache .. "/models--Qwen--Qwen3-0.6B/refs'"))
    write(cache .. "/models--Qwen--Qwen3-0.6B/refs/main", commit .. "\n")
    write(snap .. "/tokenizer.json", slurp(QWEN))

    it("finds a model's snapshot through refs/main, or by its commit", function()
        assert.are.equal(snap, hf.find("Qwen/Qwen3-0.6B", "tokenizer.json", {cache_dir = cache}))
        assert.are.equal(snap, hf.find("Qwen/Qwen3-0.6B", "tokenizer.json", {cache_dir = cache, revision = commit}))
        local missing, looked = hf.find("Qwen/Qwen3-0.6B", "config.json", {cache_dir = cache})
        assert.is_nil(missing)
        assert.are.equal(snap, looked)
        assert.is_nil(hf.find("Qwen/Qwen3-1.7B", "tokenizer.json", {cache_dir = cache}))
        assert.is_nil(hf.find("../etc", "tokenizer.json", {cache_dir = cache}))
        local tok = tokenizers.Tokenizer.from_pretrained("Qwen/Qwen3-0.6B", {cache_dir = cache})
        assert.are.same(qwen:encode("你的旅程从一步开始"), tok:encode("你的旅程从一步开始"))
    end)

    it("says where it looked when the model is not there", function()
        raises("Tokenizer.from_pretrained: for Qwen/Qwen3-1.7B, found no tokenizer.json", tokenizers.Tokenizer.from_pretrained,
               "Qwen/Qwen3-1.7B", {cache_dir = cache})
        raises("attn looked in:\n    Qwen/Qwen3-1.7B\n    " .. cache .. "/models--Qwen--Qwen3-1.7B",
               tokenizers.Tokenizer.from_pretrained, "Qwen/Qwen3-1.7B", {cache_dir = cache})
        raises("To get it:\n    huggingface-cli download Qwen/Qwen3-1.7B", tokenizers.Tokenizer.from_pretrained,
               "Qwen/Qwen3-1.7B", {cache_dir = cache})
        raises("unknown option cache (it has cache_dir, revision)", tokenizers.Tokenizer.from_pretrained, "Qwen/Qwen3-0.6B",
               {cache = cache})
    end)

    it("takes the cache from HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub", function()
        local attn = arg and arg[-1]
        if not attn or not attn:find("attn$") then return end -- run inside attn (tests/run.sh)
        local function cache_of(env)
            local p = io.popen("env -u HF_HUB_CACHE -u HUGGINGFACE_HUB_CACHE -u HF_HOME -u XDG_CACHE_HOME " .. env .. " "
                               .. attn .. " -e 'io.write(require(\"attn.hf\").cache_dir())'")
            local out = p:read("a")
            p:close()
            return out
        end
        assert.are.equal("/x/hub", cache_of("HF_HUB_CACHE=/x/hub HF_HOME=/y"))
        assert.are.equal("/y/hub", cache_of("HF_HOME=/y"))
        assert.are.equal("/z/huggingface/hub", cache_of("XDG_CACHE_HOME=/z"))
        assert.are.equal("/h/.cache/huggingface/hub", cache_of("HOME=/h"))
    end)

    it("lets GPTModel.from_pretrained find GPT-2 in the cache, and a directory of the name first", function()
        local folder = cache .. "/models--openai-community--gpt2"
        assert(os.execute("mkdir -p '" .. folder .. "/snapshots/" .. commit .. "' '" .. folder .. "/refs'"))
        write(folder .. "/refs/main", commit)
        for _, f in ipairs({"config.json", "model.safetensors"}) do
            write(folder .. "/snapshots/" .. commit .. "/" .. f, slurp("tests/data/gpt2/tiny/" .. f))
        end
        local saved = hf.cache_dir
        hf.cache_dir = function() return cache end
        local ok, model = pcall(gpt.GPTModel.from_pretrained, "openai-community/gpt2")
        local direct = gpt.GPTModel.from_pretrained("tests/data/gpt2/tiny")
        assert.are.equal("tests/data/gpt2/tiny", hf.resolve("tests/data/gpt2/tiny", "config.json"))
        assert.are.equal("no/such/dir", hf.resolve("no/such/dir", "config.json"))
        hf.cache_dir = saved
        assert(ok, model)
        local ids = torch.tensor{{1, 2, 3}}
        assert.is_true(torch.equal(direct(ids), model(ids)))
    end)
end)

describe("token ids that are not numbers (round 4)", function()
    it("a table among the ids is named, not shown as its address", function()
        local tok = tokenizers.Tokenizer.from_file(QWEN)
        local ok, e = pcall(tok.decode, tok, {{1}})
        assert.is_false(ok)
        assert.matches("Tokenizer:decode: item 1 must be a token id %(a whole number%), got a table", tostring(e))
        assert.is_nil(tostring(e):find("0x", 1, true))
        local enc = tiktoken.get_encoding("gpt2")
        ok, e = pcall(enc.decode, enc, {5, {1}})
        assert.is_false(ok)
        assert.matches("decode: item 2 must be a token id %(a whole number%), got a table", tostring(e))
    end)
end)
