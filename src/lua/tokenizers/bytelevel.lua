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

-- character (as UTF-8) -> the byte it stands for (a one-byte string)
function bytelevel.char_map()
    local map = {}
    for cp, b in pairs(bytelevel.unicode_to_byte()) do map[utf8.char(cp)] = string.char(b) end
    return map
end

-- A vocabulary token's bytes, or nil when it has a character that stands for no byte (then the
-- token is its own text, as Hugging Face's ByteLevel decoder takes it). map: bytelevel.char_map().
-- Loading reads every token of a vocabulary through this, so it avoids a table per token: printable
-- ASCII stands for itself, and gsub maps the rest; a character left unmapped shows as a result longer
-- than the count of characters (or as a control or space byte, which stand for no byte).
function bytelevel.to_bytes(map, token)
    if not token:find("[^!-~]") then return token end
    if token:find("[%z\1-\32\127]") or not utf8.len(token) then return nil end
    local out, n = token:gsub(utf8.charpattern, map)
    if #out ~= n then return nil end
    return out
end

return bytelevel
