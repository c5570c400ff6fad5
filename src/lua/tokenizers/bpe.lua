-- bpe.lua — the merges of a Hugging Face BPE model, with a priority queue (module attn.tokenizers.bpe).
--
-- A word (one pre-token's bytes) starts as one symbol per byte, each the id of that byte's token. Then,
-- as Hugging Face's tokenizers library does (models/bpe/word.rs), the pair of neighbouring symbols whose
-- merge comes first in the file's merge list is joined, again and again, until no neighbouring pair has a
-- merge: ties (the same merge at two places) go to the leftmost. The queue holds every candidate pair as
-- one integer, rank * 2^32 + position, so the smallest integer is the next merge; a candidate whose
-- symbols have changed since it was queued is skipped when it comes out. Each merge queues at most two
-- new pairs, so a word of n bytes costs O(n log n), not the O(n²) of rescanning the word per merge:
-- a 40,000-character word takes a fraction of a second.
--
-- merges: pair key (left id * 2^22 + right id) -> rank * 2^22 + id of the merged token.
local bpe = {}

local SHIFT = 4194304 -- 2^22: ids are below it (load.lua checks)
local POS = 4294967296 -- 2^32: positions are below it (a word of 4 GB cannot be a Lua string here)

-- ids: the word's initial symbol ids (a list, modified). Returns the list of the merged symbols' ids.
function bpe.merge(merges, ids)
    local n = #ids
    if n < 2 then return ids end
    local nxt, prv = {}, {}
    for i = 1, n do nxt[i], prv[i] = i + 1, i - 1 end
    nxt[n] = 0
    local heap, size = {}, 0
    local function push(v)
        size = size + 1
        local i = size
        while i > 1 do
            local parent = i // 2
            local p = heap[parent]
            if p <= v then break end
            heap[i] = p
            i = parent
        end
        heap[i] = v
    end
    local function pop()
        local top = heap[1]
        local last = heap[size]
        heap[size] = nil
        size = size - 1
        if size > 0 then
            local i = 1
            while true do
                local c = 2 * i
                if c > size then break end
                local cv = heap[c]
                if c < size and heap[c + 1] < cv then c, cv = c + 1, heap[c + 1] end
                if cv >= last then break end
                heap[i] = cv
                i = c
            end
            heap[i] = last
        end
        return top
    end
    for i = 1, n - 1 do
        local m = merges[ids[i] * SHIFT + ids[i + 1]]
        if m then push((m // SHIFT) * POS + i) end
    end
    while size > 0 do
        local v = pop()
        local i = v % POS
        local rank = v // POS
        local j = nxt[i]
        -- still the same pair? (i alive, a right neighbour, and that pair's merge is this rank)
        if ids[i] and j ~= 0 then
            local m = merges[ids[i] * SHIFT + ids[j]]
            if m and m // SHIFT == rank then
                ids[i] = m % SHIFT
                ids[j] = false
                local k = nxt[j]
                nxt[i] = k
                if k ~= 0 then
                    prv[k] = i
                    local mk = merges[ids[i] * SHIFT + ids[k]]
                    if mk then push((mk // SHIFT) * POS + i) end
                end
                local h = prv[i]
                if h ~= 0 then
                    local mh = merges[ids[h] * SHIFT + ids[i]]
                    if mh then push((mh // SHIFT) * POS + h) end
                end
            end
        end
    end
    local out, i = {}, 1
    while i ~= 0 do
        out[#out + 1] = ids[i]
        i = nxt[i]
    end
    return out
end

bpe.SHIFT = SHIFT
return bpe
