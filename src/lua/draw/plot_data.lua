-- plot_data.lua — what attention.plot draws, checked once (module attn.draw.plot_data): the one
-- description that the terminal's drawing (draw/plot.lua) and the SVG picture of a web page or a
-- notebook (draw/plot_svg.lua) both read, so what one refuses the other refuses, with the same
-- message.
--
--   plot_data.describe(opts) -> {x = {numbers}, series = {{name =, ys = {numbers}}, ...}, xlabel =,
--       ylabel =, title = (strings or nil), logx = (boolean), width =, height = (characters),
--       svg = (a file name or nil)}
--       opts: attention.plot's table (see ?attention.plot); numbers may be 0-d tensors
--   plot_data.is_description(v) -> whether v is describe's result
--   plot_data.MARKERS   the series' markers in the terminal, in order (the SVG draws the same shapes)
--   plot_data.label(v)  a number as the axes label it ("%.4g")
--   plot_data.ticks(lo, hi, want) -> round numbers from lo to hi (1, 2 or 5 times a power of ten), step
--
-- The messages are marked with N for the catalogs (lib/attention.po; scripts/po.sh extracts N's
-- argument); errors.raisef translates them when raised.
local check = require("attn.check")
local errors = require("attn.errors")
local torch = require("attn.bind").torch

local plot_data = {}

local FN = "attention.plot"
local function N(msgid) return msgid end
plot_data.MARKERS = {"●", "○", "▲", "△", "■", "□"}
plot_data.DESCRIBED = {}   -- the metatable of describe's results
local KNOWN = {x = true, series = true, xlabel = true, ylabel = true, title = true, logx = true, width = true,
               height = true, svg = true}

function plot_data.label(v) return string.format("%.4g", v) end

-- Round numbers from lo to hi, about `want` of them: a step of 1, 2 or 5 times a power of ten; and the step.
function plot_data.ticks(lo, hi, want)
    local raw = (hi - lo) / want
    local p = 10 ^ math.floor(math.log(raw, 10))
    local step = 10 * p
    for _, m in ipairs({1, 2, 5}) do
        if m * p >= raw then step = m * p break end
    end
    local out = {}
    for k = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9) do
        local v = k * step
        if math.abs(v) < step * 1e-9 then v = 0 end
        out[#out + 1] = v
    end
    return out, step
end

local function numbers(name, list, n)
    if type(list) ~= "table" or #list == 0 then
        errors.raisef(N("%s: %s must be a non-empty list of numbers, got %s"), FN, name, check.describe(list))
    end
    if n and #list ~= n then
        errors.raisef(N("%s: %s has %d numbers but x has %d"), FN, name, #list, n)
    end
    local out = {}
    for i, v in ipairs(list) do
        if torch.is_tensor(v) then v = v:item() end
        if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
            errors.raisef(N("%s: %s[%d] must be a finite number, got %s"), FN, name, i, check.describe(v))
        end
        out[i] = v
    end
    return out
end

function plot_data.describe(opts)
    if type(opts) ~= "table" then
        errors.raisef(N("%s: expected a table such as {x = {1, 2, 3}, series = {{\"loss\", {3, 2, 1}}}}, got %s"),
                      FN, check.describe(opts))
    end
    for k in pairs(opts) do
        if not KNOWN[k] then errors.raisef(N("%s: unknown option %s"), FN, tostring(k)) end
    end
    local d = {x = numbers("x", opts.x), series = {}, logx = opts.logx and true or false,
               width = opts.width or 48, height = opts.height or 10}
    local n = #d.x
    local markers = plot_data.MARKERS
    if type(opts.series) ~= "table" or #opts.series == 0 or #opts.series > #markers then
        errors.raisef(N("%s: series must be a list of 1 to %d pairs {name, {y...}}, got %s"), FN, #markers,
                      check.describe(opts.series))
    end
    for i, s in ipairs(opts.series) do
        if type(s) ~= "table" or type(s[1]) ~= "string" then
            errors.raisef(N("%s: series[%d] must be a pair {name, {y...}}, got %s"), FN, i, check.describe(s))
        end
        d.series[i] = {name = s[1], ys = numbers(string.format("series[%d]", i), s[2], n)}
    end
    -- the words around the plot: text, or nothing (a table would print as "table: 0x...")
    for _, k in ipairs({"xlabel", "ylabel", "title", "svg"}) do
        local v = opts[k]
        if v ~= nil and type(v) ~= "string" and not (k ~= "svg" and type(v) == "number") then
            errors.raisef(N("%s: %s must be a string, got %s"), FN, k, check.describe(v))
        end
        d[k] = v ~= nil and tostring(v) or nil
    end
    if d.svg == "" then errors.raisef(N("%s: %s must be a string, got %s"), FN, "svg", check.describe(d.svg)) end
    for _, p in ipairs({{"width", d.width, 8}, {"height", d.height, 3}}) do
        if math.type(p[2]) ~= "integer" or p[2] < p[3] or p[2] > 400 then
            errors.raisef(N("%s: %s must be an integer from %d to 400, got %s"), FN, p[1], p[3], check.describe(p[2]))
        end
    end
    if d.logx then
        for i, v in ipairs(d.x) do
            if v <= 0 then errors.raisef(N("%s: logx needs x > 0, got x[%d] = %s"), FN, i, plot_data.label(v)) end
        end
    end
    return setmetatable(d, plot_data.DESCRIBED)
end

-- plot_data.is_description(v): v is describe's result (already checked)
function plot_data.is_description(v) return getmetatable(v) == plot_data.DESCRIBED end

return plot_data
