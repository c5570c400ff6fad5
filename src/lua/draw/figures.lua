-- figures.lua — heatmaps and plots kept as data while text is printed (module attn.draw.figures),
-- for the pages that draw them again as SVG: a lesson's (lesson/record.lua, `attn --html`), a
-- tracer's (html/trace_page.lua, tr:save) and a notebook cell's (kernel/output.lua). While a
-- collection is open, every shaded matrix heatmap.render would draw becomes a figure, and a short
-- marker stands in the text in its place. A plot (attention.plot) returns its text as always (a
-- lesson may keep it or print it twice); the collection keeps the text with the plot's description,
-- and where that text is printed, the figure takes its place.
--
--   local c = figures.open([accept] [, {recent = true}])
--                                      accept(): false to draw as text after all (text a lesson
--                                      reads back with lesson.capture); recent: a plot made before
--                                      the collection opened (one of the last 8) is found too
--   c:parts(text) -> {"text", figure, "text", ...}    the text cut at its markers
--   c:close()                          heatmaps are drawn as text again
--   figures.plot(d, text) -> text      attention.plot made text from the description d
--                                      (draw/plot_data.lua): the open collection keeps both, as
--                                      the figure {kind = "plot", plot = d, plain = text}; the text
--                                      attention.plot returns (the live hook's, below, when set)
--   figures.figure(d) -> the figure of what heatmap.record's recorder receives
--   figures.live(fn) -> the fn it replaces. While set and no collection keeps plots, a plot's text
--                       is fn(fig, text)'s (the web page's: its text behind a marker, web/figures.lua)
--   figures.svg(fig) -> the figure as an <svg> element (draw/heatmap_svg.lua, plot_svg.lua)
--
--   a figure: {kind = "heatmap", cells = {{"0.19", ...}, ...} (each cell as shown: heatmap.lua's),
--              exact = (PyTorch's print of each cell, the tooltip when it differs),
--              values = {{0.19, ...}, ...}, rows =, cols = (labels or nil), lo =, hi = (the colour
--              scale's ends), title = (the one lesson.heatmaps gives it, or nil), frames = (the
--              title of the frames it is one of: lesson.heatmaps' {frames =}), plain = the
--              terminal's drawing without colour}
local heatmap = require("attn.draw.heatmap")
local heatmap_svg = require("attn.draw.heatmap_svg")
local plot_svg = require("attn.draw.plot_svg")

local figures = {}
local Collection = {}
Collection.__index = Collection

-- Where a figure was drawn, in the printed text: a marker no lesson prints.
local MARK_OPEN, MARK_CLOSE = "\1heatmap ", "\2"

function figures.figure(d)
    local opts = {}
    for k, v in pairs(d.opts) do opts[k] = v end
    opts.color = false
    local saved = heatmap.record(nil)
    local ok, plain = pcall(heatmap.render, d.t, opts)
    heatmap.record(saved)
    return {kind = "heatmap", cells = d.cells, exact = d.exact, values = d.values, rows = d.rows, cols = d.cols, lo = d.lo,
            hi = d.hi, title = d.opts.title, frames = d.opts.frames, plain = ok and plain or ""}
end

-- The collection that keeps plots (the one opened last), or nil.
local plot_keeper = nil

function figures.open(accept, opts)
    local c = setmetatable({list = {}, plots = {}, known = {}, accept = accept, recent = opts and opts.recent},
                           Collection)
    c.saved_keeper, plot_keeper = plot_keeper, c
    c.saved = heatmap.record(function(d)
        if accept and not accept() then return nil end
        c.list[#c.list + 1] = figures.figure(d)
        return MARK_OPEN .. #c.list .. MARK_CLOSE
    end)
    return c
end

-- The last plots made, for a collection that shows a plot made before it opened (a notebook: a plot
-- kept in a variable in one cell, printed in the next).
local recent, RECENT = {}, 8

local function keep(c, d, text)
    if c.known[text] then return end
    c.known[text] = true
    c.list[#c.list + 1] = {kind = "plot", plot = d, plain = text}
    c.plots[#c.plots + 1] = {text = text, mark = MARK_OPEN .. #c.list .. MARK_CLOSE}
end

local live = nil

function figures.live(fn)
    local old = live
    live = fn
    return old
end

function figures.plot(d, text)
    table.insert(recent, 1, {d = d, text = text})
    recent[RECENT + 1] = nil
    local c = plot_keeper
    if c and not (c.accept and not c.accept()) then keep(c, d, text) end
    if live and not c then return live({kind = "plot", plot = d, plain = text}, text) end
    return text
end

-- The text with each kept plot's drawing replaced by its marker (plain search: a drawing is braille
-- and labels, and must match exactly).
local function mark_plots(c, text)
    for _, p in ipairs(c.plots) do
        local out, at = {}, 1
        while true do
            local s, e = text:find(p.text, at, true)
            if not s then break end
            out[#out + 1] = text:sub(at, s - 1)
            out[#out + 1] = p.mark
            at = e + 1
        end
        if at > 1 then text = table.concat(out) .. text:sub(at) end
    end
    return text
end

function Collection:parts(text)
    if self.recent then
        for _, r in ipairs(recent) do
            if not self.known[r.text] and text:find(r.text, 1, true) then keep(self, r.d, r.text) end
        end
    end
    text = mark_plots(self, text)
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
    if plot_keeper == self then plot_keeper = self.saved_keeper end
end

function figures.svg(fig)
    if fig.kind == "plot" then return plot_svg.render(fig.plot) end
    return heatmap_svg.render(fig)
end

return figures
