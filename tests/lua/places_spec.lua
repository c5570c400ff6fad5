-- Where attn finds the files it does not ship (src/lua/places.lua): GPT-2's vocabulary, the Hugging Face
-- tokenizers make run and make test fetch, GPT-2 small and Qwen3-0.6B; and the errors that say where it
-- looked and how to get them. Each case runs a fresh attn with a made-up environment (HOME, the
-- variables), so the machine's own caches play no part.
local TMP = (os.getenv("TMPDIR") or "/tmp") .. "/attn_places_spec_" .. math.random(1e9)
local TINY_DIR = "tests/data/gpt2/tiny"   -- a tiny GPT-2 in Hugging Face's files (tests/lua/gpt_spec.lua)

local attn = arg and arg[-1]
local checkout = io.popen("pwd"):read("l")

local function sh(cmd) assert(os.execute(cmd), cmd) end

-- attn run with only the environment given (and PATH): its output and error text, and whether it succeeded.
local function run(env, code, exe)
    local p = io.popen("env -i PATH=\"$PATH\" " .. env .. " " .. (exe or attn) .. " -e '" .. code .. "' 2>&1")
    local out = p:read("a")
    local ok = p:close()
    return out, ok == true
end

describe("attn's places for the files it does not ship", function()
    setup(function()
        assert(attn and attn:find("attn$"), "run inside attn: attn /usr/bin/busted tests/lua/places_spec.lua")
        -- a copy of attn in a folder of its own, as make install puts it (PREFIX/bin/attn), with nothing beside it
        sh("mkdir -p " .. TMP .. "/prefix/bin && cp " .. attn .. " " .. TMP .. "/prefix/bin/attn")
    end)
    teardown(function() os.execute("rm -rf '" .. TMP .. "'") end)

    it("in order: the variable, attn's cache ($XDG_CACHE_HOME or ~/.cache), build/ beside attn", function()
        local list = 'for _, d in ipairs(require(\"attn.places\").dirs(\"tiktoken\")) do print(d.dir) end'
        local exe_dir = io.popen("dirname \"$(realpath " .. attn .. ")\""):read("l")
        -- the checkout's build/: beside ./attn, or the one build/asan/attn sits in (the ASan twin's run)
        local build = exe_dir:match("/build/asan$") and exe_dir:gsub("/asan$", "") or exe_dir .. "/build"
        assert.are.equal("/v\n/h/.cache/attn/tiktoken\n" .. build .. "/gpt2-vocab\n",
                         run("HOME=/h ATTN_TIKTOKEN_DIR=/v", list))
        assert.are.equal("/x/attn/tiktoken\n" .. build .. "/gpt2-vocab\n", run("HOME=/h XDG_CACHE_HOME=/x", list))
        list = list:gsub("tiktoken", "hf-tokenizers")
        assert.are.equal("/h/.cache/attn/hf-tokenizers\n" .. build .. "/hf-tokenizers\n", run("HOME=/h", list))
    end)

    it("an installed attn (PREFIX/bin/attn) looks in PREFIX/share/attn", function()
        local p = io.popen("env -i HOME=/h " .. TMP .. "/prefix/bin/attn -e 'for _, d in ipairs(require(\"attn.places\")"
                           .. ".dirs(\"tiktoken\")) do print(d.dir) end'")
        local out = p:read("a")
        p:close()
        assert.are.equal("/h/.cache/attn/tiktoken\n" .. TMP .. "/prefix/share/attn/gpt2-vocab\n", out)
    end)

    it("finds what make test and make run fetched into build/, with no variable set", function()
        -- make test fetches both before the suites run (Makefile), as make run does
        local out, ok = run("HOME=" .. TMP, 'print(tiktoken.get_encoding(\"gpt2\").n_vocab, ' ..
                            'tokenizers.Tokenizer.from_pretrained(\"Qwen/Qwen3-0.6B\"):get_vocab_size())')
        assert.is_true(ok, out)
        assert.are.equal("50257\t151669\n", out)
    end)

    it("GPTModel.from_pretrained(\"gpt2\"): ~/.cache/attn/gpt2, $ATTN_GPT2_DIR and the Hugging Face cache", function()
        local code = 'print(gpt.GPTModel.from_pretrained(\"gpt2\").cfg.emb_dim)'
        sh("mkdir -p " .. TMP .. "/a/.cache/attn/gpt2 && cp " .. TINY_DIR .. "/* " .. TMP .. "/a/.cache/attn/gpt2/")
        local out = run("HOME=" .. TMP .. "/a", code)
        assert.are.equal("64\n", out)
        out = run("HOME=/nonexistent ATTN_GPT2_DIR=" .. checkout .. "/" .. TINY_DIR, code)
        assert.are.equal("64\n", out)
        local snap = TMP .. "/b/.cache/huggingface/hub/models--gpt2/snapshots/" .. string.rep("ab", 20)
        sh("mkdir -p " .. snap .. " && cp " .. TINY_DIR .. "/* " .. snap .. "/")
        sh("mkdir -p " .. TMP .. "/b/.cache/huggingface/hub/models--gpt2/refs && printf " .. string.rep("ab", 20)
           .. " > " .. TMP .. "/b/.cache/huggingface/hub/models--gpt2/refs/main")
        out = run("HOME=" .. TMP .. "/b", code)
        assert.are.equal("64\n", out)
    end)

    it("scripts/pack-offline.sh: one folder that, as ~/.cache/attn, is all an attn without network needs", function()
        -- (what make test fetched into build/ is copied: no network here)
        sh("sh scripts/pack-offline.sh " .. TMP .. "/lab/.cache/attn > /dev/null")
        local out, ok = run("HOME=" .. TMP .. "/lab", 'print(tiktoken.get_encoding(\"gpt2\").n_vocab, ' ..
                            'tokenizers.Tokenizer.from_pretrained(\"Qwen/Qwen3-0.6B\"):get_vocab_size())',
                            TMP .. "/prefix/bin/attn")
        assert.is_true(ok, out)
        assert.are.equal("50257\t151669\n", out)
    end)

    it("a missing GPT-2, Qwen3 or vocabulary: where attn looked and the command that gets it", function()
        local out, ok = run("HOME=/h", 'gpt.GPTModel.from_pretrained(\"gpt2\")')
        assert.is_false(ok)
        for _, want in ipairs({"found no GPT-2 small (config.json and model.safetensors) for gpt2. attn looked in:",
                               "    /h/.cache/attn/gpt2\n", "    /h/.cache/huggingface/hub/models--gpt2\n",
                               "mkdir -p /h/.cache/attn/gpt2 && cd /h/.cache/attn/gpt2",
                               "curl -LO https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors"}) do
            assert.matches(want, out, 1, true)
        end
        out, ok = run("HOME=/h ATTN_QWEN3_DIR=/q", 'qwen3.Qwen3Model.from_pretrained(\"Qwen/Qwen3-0.6B\")')
        assert.is_false(ok)
        for _, want in ipairs({"for Qwen/Qwen3-0.6B, found no config.json. attn looked in:",
                               "    /h/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B", "    /q  ($ATTN_QWEN3_DIR)\n",
                               "    /h/.cache/attn/qwen3\n", "huggingface-cli download Qwen/Qwen3-0.6B"}) do
            assert.matches(want, out, 1, true)
        end
        -- (the installed copy: the checkout's attn finds the vocabulary make test fetched)
        out, ok = run("HOME=/h ATTN_TIKTOKEN_DIR=/v XDG_CACHE_HOME=/x", 'tiktoken.get_encoding(\"gpt2\")',
                      TMP .. "/prefix/bin/attn")
        assert.is_false(ok)
        for _, want in ipairs({"    /v  ($ATTN_TIKTOKEN_DIR)\n", "    /x/attn/tiktoken\n",
                               "    /x/huggingface/hub/models--gpt2\n", "    " .. TMP .. "/prefix/share/attn/gpt2-vocab\n",
                               "sh scripts/fetch-gpt2-vocab.sh /x/attn/tiktoken"}) do
            assert.matches(want, out, 1, true)
        end
    end)
end)
