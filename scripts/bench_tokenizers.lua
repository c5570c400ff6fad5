-- bench_tokenizers.lua WORDS JS DIR — attn's half of scripts/bench-tokenizers.sh: WORDS the JSON list of
-- [name, unit, repeats], JS the reference's lines "tokenizer word ms ids", DIR where the tokenizer files are.
local words = require("attn.bind").json.decode(arg[1])
local js = {}
for name, what, ms, n in arg[2]:gmatch("(%S+) (%S+) (%S+) (%S+)") do js[name .. " " .. what] = {tonumber(ms), tonumber(n)} end
local clock = os.clock
for _, name in ipairs({"qwen3", "llama3"}) do
    local t0 = clock()
    local tok = tokenizers.Tokenizer.from_file(arg[3] .. "/" .. name .. "/tokenizer.json")
    print(string.format("%s: tokenizer.json loaded in %.0f ms", name, (clock() - t0) * 1000))
    for _, w in ipairs(words) do
        local text = string.rep(w[2], w[3])
        t0 = clock()
        local ids = tok:encode(text)
        local ms = (clock() - t0) * 1000
        local ref = js[name .. " " .. w[1]:gsub(" ", "_")]
        print(string.format("  %s, %d characters: attn %.0f ms (%d ids), @lenml/tokenizers %.0f ms (%d ids): %.2fx; "
                            .. "target <= 500 ms: %s", w[1], utf8.len(text), ms, #ids, ref[1], ref[2], ms / ref[1],
                            ms <= 500 and "met" or "not met"))
    end
end