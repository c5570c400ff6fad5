-- bytelevel.lua — GPT-2's printable stand-ins for bytes, which byte-level BPE vocabularies (GPT-2's,
-- Qwen's, Llama 3's tokenizer.json) are written in (module attn.tokenizers.bytelevel): "Ġ" is the
-- space byte, "Ċ" the newline, "ä½ł" the three bytes of 你. The printable ASCII and Latin-1 bytes stand
-- for themselves, the others (controls, space, ...) get the code points from 256 on, in byte order
-- (bytes_to_unicode in GPT-2's encoder.py and in Hugging Face's tokenizers).
local bytelevel = {}

-- code point -> byte
function bytelevel.unicode_to_byte()
    local map, n = {}, 0
    for b = 0, 255 do
        if (b >= 33 and b <= 126) or (b >= 161 and b <= 172) or (b >= 174 and b <= 255) then
            map[b] = b
        else
            map[256 + n] = b
            n = n + 1
        end
    end
    return map
end

-- A vocabulary token's bytes, or nil when it has a character that stands for no byte (then the
-- token is its own text, as Hugging Face's ByteLevel decoder takes it).
function bytelevel.to_bytes(map, token)
    if not utf8.len(token) then return nil end
    local out = {}
    for _, cp in utf8.codes(token) do
        local b = map[cp]
        if not b then return nil end
        out[#out + 1] = string.char(b)
    end
    return table.concat(out)
end

return bytelevel
