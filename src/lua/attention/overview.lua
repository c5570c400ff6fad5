-- overview.lua — attention.overview{module = model, text = or ids = [, tokenizer =, layers =, heads =]}
-- (module attn.attention.overview): every layer × head of a model's attention as a small map on one
-- screen, bertviz's model view in the terminal. Each map is one head's weights for the text, a row
-- per query token and a column per key token, one character a cell from light to dark (░▒▓█ ; blank
-- where the causal mask hides the key). Heads that look at the previous token show a diagonal just
-- under the main one; heads that look at the first token a dark first column. The model says what
-- its maps are (model:attention_maps(args): GPTModel's are computed by the stages of its
-- MultiHeadAttention, see gpt/inspect.lua).
local errors = require("attn.errors")
local check = require("attn.check")
local width = require("attn.text.width")
local trf = require("attn.i18n").trf

-- What overview returns: the maps ({layers =, tokens =}) with a one-line print, so that the prompt, which
-- prints an expression's value, does not follow the drawing with every weight of every head.
local Maps = {__name = "attention.overview"}
function Maps.__tostring(m)
    return trf("<attention.overview: %d layers × %d heads on %d tokens; maps.layers[l][h] is one head's weights>",
               #m.layers, m.layers[1] and m.layers[1].shape[1] or 0, #m.tokens)
end

local SHADES = {"·", "░", "▒", "▓", "█"}
local MAX_TOKENS = 32

-- fail(fmt, ...): the error of attention.overview, its format translated (scripts/po.sh extracts fail's first argument)
local function fail(fmt, ...)
    errors.raisef("%s: %s", "attention.overview", trf(fmt, ...))
end

-- One head's map: n lines of n characters.
local function map_lines(w)
    local n = w.shape[1]
    local lines = {}
    for i = 1, n do
        local row = {}
        for j = 1, n do
            if j > i then
                row[j] = " "
            else
                local v = w[i][j]
                row[j] = SHADES[math.min(#SHADES, math.floor(v * #SHADES) + 1)]
            end
        end
        lines[i] = table.concat(row)
    end
    return lines
end

local function list_option(name, v, max)
    if v == nil then
        local all = {}
        for i = 1, max do all[i] = i end
        return all
    end
    if type(v) == "number" then v = {v} end
    if type(v) ~= "table" then fail("%s must be a number or a list of numbers, got %s", name, check.describe(v)) end
    for _, i in ipairs(v) do
        if math.type(i) ~= "integer" or i < 1 or i > max then
            fail("%s must be numbers from 1 to %d, got %s", name, max, check.describe(i))
        end
    end
    return v
end

--- attention.overview{module = model, text = "..." or ids = {...} [, tokenizer =, layers =, heads =, width = 78]}
local function overview(args)
    if type(args) ~= "table" then fail("expected a table such as {module = model, text = \"...\"}") end
    local known = {module = true, text = true, ids = true, tokenizer = true, layers = true, heads = true,
                   width = true, write = true}
    for k in pairs(args) do
        if not known[k] then fail("unknown option %s (module, text, ids, tokenizer, layers, heads, width, write)", tostring(k)) end
    end
    local m = args.module
    if not check.is_module(m) or type(m.attention_maps) ~= "function" then
        fail("module must be a whole model with attention maps (a gpt.GPTModel), got %s", check.describe(m))
    end
    local maps = m:attention_maps(args)
    local n = #maps.tokens
    if n > MAX_TOKENS then
        fail("%d tokens make maps too large for one screen (at most %d): use a shorter text, "
             .. "or attention.trace{module =, layer =, head =} for one head", n, MAX_TOKENS)
    end
    local layers = list_option("layers", args.layers, #maps.layers)
    local h = maps.layers[1].shape[1]
    local heads = list_option("heads", args.heads, h)
    local cols = args.width or 78
    local write = args.write or function(s) io.write(s, "\n") end
    local out = {}
    local legend = {}
    for i, t in ipairs(maps.tokens) do legend[i] = i .. "=" .. (t:gsub("%c", " ")) end
    out[#out + 1] = trf("attention of every layer × head: %d tokens, a row per query, a column per key (· light … █ dark; blank: hidden by the causal mask)", n)
    out[#out + 1] = trf("tokens: %s", table.concat(legend, "  "))
    local cell = math.max(n, 3) + 2
    local per_line = math.max(1, (cols - 4) // cell)
    for _, l in ipairs(layers) do
        local w = maps.layers[l]
        for first = 1, #heads, per_line do
            local last = math.min(#heads, first + per_line - 1)
            local head_line = {first == 1 and string.format("L%-3d", l) or "    "}
            local body = {}
            for r = 1, n do body[r] = {"    "} end
            for hi = first, last do
                local hh = heads[hi]
                local label = "h" .. hh
                head_line[#head_line + 1] = label .. string.rep(" ", cell - width.of(label))
                local lines = map_lines(w[hh])
                for r = 1, n do body[r][#body[r] + 1] = lines[r] .. string.rep(" ", cell - n) end
            end
            out[#out + 1] = (table.concat(head_line):gsub("%s+$", ""))
            for r = 1, n do out[#out + 1] = (table.concat(body[r]):gsub("%s+$", "")) end
        end
    end
    write(table.concat(out, "\n"))
    return setmetatable(maps, Maps)
end

return overview
