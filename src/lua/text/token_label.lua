-- token_label.lua — a token shown as text (module attn.text.token_label), one rendering everywhere: a
-- tokenizer's tokens (tokenizers.Tokenizer:tokens), attention.overview's legend, a tracer's labels.
--   token_label.of_bytes(bytes)   the text when the bytes are UTF-8; otherwise the UTF-8 characters in
--                                 them as they are and each byte of a cut character as \xHH (Lua's
--                                 escape), so "从" cut in two is "\xE4\xBB" and "\xBE"
--   token_label.of(tokenizer, id) the label of token id (attn's, 1-based) of a tiktoken encoding or a
--                                 tokenizers.Tokenizer (its bytes), else of what tokenizer:decode{id} gives;
--                                 nil when the tokenizer cannot say
local token_label = {}

function token_label.of_bytes(bytes)
    if utf8.len(bytes) then return bytes end
    local out, i, n = {}, 1, #bytes
    while i <= n do
        local c = bytes:byte(i)
        local len = c < 0x80 and 1 or c >= 0xF0 and 4 or c >= 0xE0 and 3 or c >= 0xC0 and 2 or 0
        local ch = len > 0 and bytes:sub(i, i + len - 1)
        if ch and #ch == len and utf8.len(ch) then
            out[#out + 1] = ch
            i = i + len
        else
            out[#out + 1] = string.format("\\x%02X", c)
            i = i + 1
        end
    end
    return table.concat(out)
end

function token_label.of(tokenizer, id)
    local ok, bytes = false, nil
    if type(tokenizer.decode_single_token_bytes) == "function" then       -- tiktoken's Encoding
        ok, bytes = pcall(tokenizer.decode_single_token_bytes, tokenizer, id)
    elseif type(tokenizer._token_bytes) == "function" then               -- a tokenizers.Tokenizer
        ok, bytes = pcall(tokenizer._token_bytes, tokenizer, id)
    end
    if ok and type(bytes) == "string" then return token_label.of_bytes(bytes) end
    local decoded, piece = pcall(tokenizer.decode, tokenizer, {id})
    if decoded and type(piece) == "string" then return piece end
    return nil
end

return token_label
