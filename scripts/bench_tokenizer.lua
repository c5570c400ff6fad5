-- bench_tokenizer.lua — GPT-2's BPE on one long word: attn's tokenizer (src/lua/tiktoken/bpe.lua, a
-- priority queue of merges) against the algorithm it replaced (below: every adjacent pair rescanned
-- after each merge, quadratic in the word's length), in the same run, on the same word.
--   ATTN_TIKTOKEN_DIR=build/gpt2-vocab ./attn scripts/bench_tokenizer.lua [LETTERS]   (default 40000)
-- The word is LETTERS pseudo-random lowercase letters (a fixed generator). Prints both times, their
-- ratio, the growth of attn's time from LETTERS/4 to LETTERS letters (4 when linear, 16 when
-- quadratic), and "met" when the ids agree, the new algorithm is at least 20 times faster and its
-- growth is under 8.
local letters = math.tointeger(tonumber(arg and arg[1] or "40000")) or 40000
local enc = tiktoken.get_encoding("gpt2")

local function word(n)
    local out, state = {}, 20261127
    for i = 1, n do
        state = (state * 1103515245 + 12345) % 2147483648
        out[i] = string.char(97 + state % 26)
    end
    return table.concat(out)
end

-- The replaced algorithm, as it was (tiktoken's byte_pair_merge written directly).
local function merge_quadratic(ranks, piece)
    local whole = ranks[piece]
    if whole then return {whole} end
    local starts = {}
    for i = 1, #piece + 1 do starts[i] = i end
    while #starts > 2 do
        local best, at = math.huge, nil
        for i = 1, #starts - 2 do
            local r = ranks[piece:sub(starts[i], starts[i + 2] - 1)]
            if r and r < best then best, at = r, i end
        end
        if not at then break end
        table.remove(starts, at + 1)
    end
    local out = {}
    for i = 1, #starts - 1 do out[i] = ranks[piece:sub(starts[i], starts[i + 1] - 1)] end
    return out
end

local function timed(f)
    local t0 = os.clock()
    local r = f()
    return os.clock() - t0, r
end

local function encode_new(text)
    enc.cache, enc.cached = {}, 0 -- measure the merge, not the cache
    return enc:encode_ordinary(text)
end

local long, quarter = word(letters), word(letters // 4)
local t_new, ids_new = timed(function() return encode_new(long) end)
local t_quarter = timed(function() return encode_new(quarter) end)
local t_old, ranks_old = timed(function() return merge_quadratic(enc.ranks, long) end)
local same = #ranks_old == #ids_new
for i = 1, #ranks_old do same = same and ranks_old[i] + 1 == ids_new[i] end

local speedup, growth = t_old / t_new, t_new / math.max(t_quarter, 1e-9)
print(string.format("tokenizer: a %d-letter word, %d tokens, ids %s", letters, #ids_new,
                    same and "identical" or "DIFFERENT"))
print(string.format("  replaced algorithm (quadratic)  %8.3f s", t_old))
print(string.format("  attn (priority queue)           %8.3f s   ratio %.0fx", t_new, speedup))
print(string.format("  attn's growth from %d to %d letters: %.1fx (linear 4, quadratic 16)", letters // 4, letters,
                    growth))
print(string.format("tokenizer budget (ids identical, >= 20x faster, growth < 8): %s",
                    (same and speedup >= 20 and growth < 8) and "met" or "not met"))
