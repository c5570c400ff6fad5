-- plot.lua — attention.plot: a line plot in the terminal (module attn.draw.plot), for numbers a
-- reader would rather look at than read (a gradient norm against d_k, a loss against steps).
--
-- The lines are drawn in Unicode braille: each character cell holds 2 × 4 dots, so a plot of w × h
-- cells has 2w × 4h points of resolution. Each data point is marked with its series' marker (●, ○, ▲,
-- △, ■, □), which the legend names, so several series stay apart without colour. The y axis runs from a
-- round number to a round number and is labelled at round numbers (1, 2 or 5 times a power of ten, as
-- the SVG's), each on the row it falls in; the x axis at each data point's x that fits (or at both ends). The
-- options are checked in plot_data.lua, which the SVG of the same plot (plot_svg.lua) reads too.
local i18n = require("attn.i18n")
local plot_data = require("attn.draw.plot_data")
local figures = require("attn.draw.figures")
local plot_svg = require("attn.draw.plot_svg")

local MARKERS = plot_data.MARKERS
-- the braille dot of (column 0..1, row 0..3) in a cell (Unicode's numbering of the 8 dots)
local DOT = {[0] = {[0] = 0x01, 0x02, 0x04, 0x40}, {[0] = 0x08, 0x10, 0x20, 0x80}}
local label = plot_data.label

-- The terminal's drawing of a checked description (plot_data.describe's).
local function draw(d)
    local xs, series, w, h, n = d.x, d.series, d.width, d.height, #d.x
    local fx = function(v) return v end
    if d.logx then fx = math.log end
    local xmin, xmax, ymin, ymax = math.huge, -math.huge, math.huge, -math.huge
    for i = 1, n do
        xmin, xmax = math.min(xmin, fx(xs[i])), math.max(xmax, fx(xs[i]))
        for _, s in ipairs(series) do ymin, ymax = math.min(ymin, s.ys[i]), math.max(ymax, s.ys[i]) end
    end
    if xmax == xmin then xmax = xmin + 1 end
    if ymax == ymin then ymax = ymin + 1 end
    -- the y axis from a round number below the data to one above it, labelled at round numbers
    local _, step = plot_data.ticks(ymin, ymax, math.max(2, h // 2))
    ymin, ymax = math.floor(ymin / step + 1e-9) * step, math.ceil(ymax / step - 1e-9) * step
    local W, H = 2 * w, 4 * h -- dots
    local function dot_x(v) return math.floor((fx(v) - xmin) / (xmax - xmin) * (W - 1) + 0.5) end
    local function dot_y(v) return math.floor((ymax - v) / (ymax - ymin) * (H - 1) + 0.5) end
    local cells, marks = {}, {}
    local function set(px, py)
        local cx, cy = px // 2, py // 4
        local key = cy * w + cx
        cells[key] = (cells[key] or 0) | DOT[px % 2][py % 4]
    end
    for si, s in ipairs(series) do
        for i = 1, n do
            local x0, y0 = dot_x(xs[i]), dot_y(s.ys[i])
            marks[(y0 // 4) * w + x0 // 2] = MARKERS[si]
            if i < n then -- a straight segment to the next point, one dot per step along the longer side
                local x1, y1 = dot_x(xs[i + 1]), dot_y(s.ys[i + 1])
                local steps = math.max(math.abs(x1 - x0), math.abs(y1 - y0), 1)
                for k = 0, steps do
                    set(math.floor(x0 + (x1 - x0) * k / steps + 0.5), math.floor(y0 + (y1 - y0) * k / steps + 0.5))
                end
            end
        end
    end
    local ylabels = {}
    for _, v in ipairs(plot_data.ticks(ymin, ymax, math.max(2, h // 2))) do
        local row = dot_y(v) // 4
        if not ylabels[row] then ylabels[row] = label(v) end
    end
    local lw = 0
    for _, l in pairs(ylabels) do lw = math.max(lw, #l) end
    local lines = {}
    if d.title then lines[#lines + 1] = string.rep(" ", lw + 1) .. d.title end
    if d.ylabel then lines[#lines + 1] = string.rep(" ", lw + 1) .. d.ylabel end
    for cy = 0, h - 1 do
        local row = {}
        for cx = 0, w - 1 do
            local key = cy * w + cx
            row[#row + 1] = marks[key] or (cells[key] and utf8.char(0x2800 + cells[key])) or " "
        end
        local l = ylabels[cy] or ""
        lines[#lines + 1] = string.rep(" ", lw - #l) .. l .. (ylabels[cy] and "┤" or "│") .. table.concat(row)
    end
    lines[#lines + 1] = string.rep(" ", lw) .. "└" .. string.rep("─", w)
    -- x labels under their points, left to right, each where it does not overlap the one before
    local xl, used = {}, -1
    for i = 1, n do
        local l, at = label(xs[i]), dot_x(xs[i]) // 2
        at = math.max(0, math.min(at - #l // 2, w - #l))
        if at > used then
            xl[#xl + 1] = string.rep(" ", at - used - 1) .. l
            used = at + #l
        end
    end
    lines[#lines + 1] = string.rep(" ", lw + 1) .. table.concat(xl)
    if d.xlabel then
        lines[#lines + 1] = string.rep(" ", lw + 1) .. d.xlabel .. (d.logx and i18n.tr(" (log scale)") or "")
    end
    local legend = {}
    for si, s in ipairs(series) do legend[si] = MARKERS[si] .. " " .. s.name end
    lines[#lines + 1] = string.rep(" ", lw + 1) .. table.concat(legend, "   ")
    return table.concat(lines, "\n")
end

-- attention.plot{x = {...}, series = {{name, {y...}}, ...} [, xlabel =, ylabel =, title =, logx =, width =,
-- height =, svg =]} -> the plot as a string (lines joined by "\n"); see ?attention.plot. While a web page
-- or a notebook cell is recorded (draw/figures.lua), the description is kept with the text, so
-- that where the text is printed the page shows the SVG instead. {svg = "f.svg"}: the SVG is written
-- to that file (draw/plot_svg.lua) and nothing is returned.
local function plot(opts)
    local d = plot_data.describe(opts)
    if d.svg then return plot_svg.write(d) end
    return figures.plot(d, draw(d))
end

return plot
