-- figures.lua — heatmaps kept as data while text is printed (module attn.attention.figures), for
-- the pages that draw them again as SVG: a lesson's (lesson/record.lua, `attn --html`) and a
-- tracer's (attention/trace_page.lua, tr:save). While a collection is open, every shaded matrix
-- heatmap.render would draw becomes a figure, and a short marker stands in the text in its place.
--
--   local c = figures.open([accept])   accept(): false to draw as text after all (text a lesson
--                                       reads back with lesson.capture)
--   c:parts(text) -> {"text", figure, "text", ...}    the text cut at its markers
--   c:close()                          heatmaps are drawn as text again
--
--   a figure: {kind = "heatmap", cells = {{"0.19", ...}, ...} (PyTorch's print of each cell),
--              values = {{0.19, ...}, ...}, rows =, cols = (labels or nil), lo =, hi = (the colour
--              scale's ends), title = (the one lesson.heatmaps gives it, or nil), frames = (the
--              title of the frames it is one of: lesson.heatmaps' {frames =}), plain = the
--              terminal's drawing without colour}
local heatmap = require("attn.attention.heatmap")

local figures = {}
local Collection = {}
Collection.__index = Collection

-- Where a figure was drawn, in the printed text: a marker no lesson prints.
local MARK_OPEN, MARK_CLOSE = "\1heatmap ", "\2"

local function figure_of(d)
    local opts = {}
    for k, v in pairs(d.opts) do opts[k] = v end
    opts.color = false
    local saved = heatmap.record(nil)
    local ok, plain = pcall(heatmap.render, d.t, opts)
    heatmap.record(saved)
    return {kind = "heatmap", cells = d.cells, values = d.values, rows = d.rows, cols = d.cols, lo = d.lo,
            hi = d.hi, title = d.opts.title, frames = d.opts.frames, plain = ok and plain or ""}
end

function figures.open(accept)
    local c = setmetatable({list = {}}, Collection)
    c.saved = heatmap.record(function(d)
        if accept and not accept() then return nil end
        c.list[#c.list + 1] = figure_of(d)
        return MARK_OPEN .. #c.list .. MARK_CLOSE
    end)
    return c
end

function Collection:parts(text)
    local parts, at = {}, 1
    while true do
        local s, e, n = text:find(MARK_OPEN .. "(%d+)" .. MARK_CLOSE, at)
        if not s then break end
        if s > at then parts[#parts + 1] = text:sub(at, s - 1) end
        parts[#parts + 1] = self.list[tonumber(n)]
        at = e + 1
    end
    if at <= #text then parts[#parts + 1] = text:sub(at) end
    return parts
end

-- figures.is_marker(text): text is what render returned in place of a drawing.
function figures.is_marker(text)
    return text:match("^" .. MARK_OPEN .. "%d+" .. MARK_CLOSE .. "$") ~= nil
end

function Collection:close()
    heatmap.record(self.saved)
end

return figures
