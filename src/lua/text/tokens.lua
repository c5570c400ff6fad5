-- tokens.lua — a small Lua tokenizer (module attn.text.tokens): just enough for the REPL to find
-- `local` at block depth 0 (repl.rewrite_locals) and for the lesson library to find the calls of
-- lesson.* in a lesson's source (lesson/source.lua). Strings, long strings and comments are tokens
-- or skipped as a whole, so a "local" or a "lesson.step" inside them is never taken for code.
--
--   tokens.tokenize(src) -> {{kind = "name"|"string"|"number"|"sym", text =, s =, e =}, ...}
--                           (s, e: the token's first and last byte in src; comments and white space
--                           make no token)
local tokens = {}

-- Returns the position just after the long bracket that opens at i ("[[", "[==["), or nil.
local function long_bracket_end(src, i)
    local eqs = src:match("^%[(=*)%[", i)
    if not eqs then return nil end
    local _, close = src:find("]" .. eqs .. "]", i + #eqs + 2, true)
    return close and close + 1 or #src + 1   -- unfinished: runs to the end
end

-- Returns the position just after the quoted string that opens at i.
local function quoted_end(src, i)
    local q = src:sub(i, i)
    local j = i + 1
    while true do
        local k = src:find("[" .. q .. "\\\n]", j)
        if not k then return #src + 1 end
        local c = src:sub(k, k)
        if c == "\\" then j = k + 2            -- skips \" \\ and an escaped newline alike
        elseif c == "\n" then return k         -- unfinished string: Lua's error, not ours
        else return k + 1 end
    end
end

-- Returns the list of tokens {kind = "name"|"string"|"number"|"sym", text, s, e} of src.
function tokens.tokenize(src)
    local tokens, i, n = {}, 1, #src
    while i <= n do
        local c = src:sub(i, i)
        local kind, j
        if c:match("%s") then
            j = src:find("[^%s]", i) or n + 1
        elseif src:sub(i, i + 1) == "--" then
            j = long_bracket_end(src, i + 2) or (src:find("\n", i, true) or n + 1)
        elseif c == "[" and src:match("^%[=*%[", i) then
            kind, j = "string", long_bracket_end(src, i)
        elseif c == '"' or c == "'" then
            kind, j = "string", quoted_end(src, i)
        elseif c:match("%d") or (c == "." and src:sub(i + 1, i + 1):match("%d")) then
            j = i + 1
            while j <= n do
                local d = src:sub(j, j)
                if d:match("[%w%.]") or (d:match("[%+%-]") and src:sub(j - 1, j - 1):match("[eEpP]")) then
                    j = j + 1
                else
                    break
                end
            end
            kind = "number"
        elseif c:match("[%a_]") then
            kind, j = "name", src:find("[^%w_]", i) or n + 1
        else
            kind, j = "sym", i + 1
        end
        if kind then
            tokens[#tokens + 1] = {kind = kind, text = src:sub(i, j - 1), s = i, e = j - 1}
        end
        i = j
    end
    return tokens
end

return tokens
