-- plot_svg.lua — attention.plot's line plot as SVG (module attn.draw.plot_svg): the same
-- description the terminal draws in braille (draw/plot.lua), for a web page (html/page.lua), a
-- notebook cell (kernel/output.lua) or a file ({svg = "f.svg"}). Self-contained: no script, no font,
-- nothing from a network; every label is escaped.
--
--   plot_svg.render(d) -> the <svg> element as text; d: plot_data.describe's description (or
--       attention.plot's options table, checked here the same way)
--   plot_svg.write(d)  -> nothing; writes render(d) to the file d.svg (errors name attention.plot)
--
-- The picture: a title, the y label above the y axis, the y axis with ticks at round numbers (1, 2
-- or 5 times a power of ten), the x axis with a tick at each point's x when there are few points
-- (d_k = 3, 64, 768, 4096 on a log scale) and at round numbers (or powers of ten) otherwise, a
-- line and a marker per point for each series, and a legend that names the series by their marker.
-- The markers are the terminal's shapes (● ○ ▲ △ ■ □), so series stay apart without colour; the
-- colours are mostly Okabe and Ito's (told apart with colour blindness too). Text and axes use
-- currentColor, so the picture follows the page's light or dark theme, as the heatmaps do. Each
-- marker has a <title> with its numbers (a tooltip, 6 digits) and data-x / data-y attributes (every
-- digit: a test can round them as a table prints them).
local escape = require("attn.text.escape").html
local width = require("attn.text.width").of
local i18n = require("attn.i18n")
local plot_data = require("attn.draw.plot_data")
local bind = require("attn.bind")
local errors = require("attn.errors")

local plot_svg = {}

-- Okabe and Ito's first four, then a darker yellow and a grey: each at least 3:1 (WCAG's contrast for
-- graphics) against the page's white and its dark theme's #0d1117 alike.
local COLOURS = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#b8860b", "#8c8c8c"}
local CHAR, LINE, R = 8, 20, 4.5  -- pixels: a character at 13px, a line of text, a marker's radius

local ticks = plot_data.ticks

-- A marker's shape at (x, y): the terminal's ● ○ ▲ △ ■ □ (filled, then open, for each shape).
local function marker(i, x, y, colour)
    local fill = i % 2 == 1 and colour or "none"
    local shape = (i - 1) // 2 % 3
    local paint = string.format('fill="%s" stroke="%s" stroke-width="1.5"', fill, colour)
    if shape == 0 then
        return string.format('<circle class="marker" cx="%.1f" cy="%.1f" r="%.1f" %s', x, y, R, paint)
    elseif shape == 1 then
        return string.format('<path class="marker" d="M%.1f %.1fL%.1f %.1fL%.1f %.1fZ" %s', x, y - R - 1,
                             x + R + 0.5, y + R - 0.5, x - R - 0.5, y + R - 0.5, paint)
    end
    return string.format('<rect class="marker" x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s', x - R + 0.5,
                         y - R + 0.5, 2 * R - 1, 2 * R - 1, paint)
end

local function fmt(v) return string.format("%.6g", v) end

function plot_svg.render(d)
    if not plot_data.is_description(d) then d = plot_data.describe(d) end
    local xs, n = d.x, #d.x
    local fx = d.logx and math.log or function(v) return v end
    local xmin, xmax, ymin, ymax = math.huge, -math.huge, math.huge, -math.huge
    for i = 1, n do
        xmin, xmax = math.min(xmin, fx(xs[i])), math.max(xmax, fx(xs[i]))
        for _, s in ipairs(d.series) do ymin, ymax = math.min(ymin, s.ys[i]), math.max(ymax, s.ys[i]) end
    end
    if xmax == xmin then xmin, xmax = xmin - 0.5, xmax + 0.5 end
    if ymax == ymin then ymin, ymax = ymin - 0.5, ymax + 0.5 end
    -- y: the data's range and a twentieth more on each side (no point on the frame), ticks inside it
    local pad = (ymax - ymin) / 20
    ymin, ymax = ymin - pad, ymax + pad
    local yt = ticks(ymin, ymax, 5)
    -- x: a tick under each point when they are few, round numbers (or powers of ten) when many
    local xt = {}
    if n <= 12 then
        for i = 1, n do xt[i] = xs[i] end
    elseif d.logx then
        for k = math.ceil(xmin / math.log(10) - 1e-9), math.floor(xmax / math.log(10) + 1e-9) do xt[#xt + 1] = 10 ^ k end
        if #xt < 2 then xt = {xs[1], xs[n]} end
    else
        xt = ticks(xmin, xmax, 6)
    end
    local ylabels, lw = {}, 0
    for i, v in ipairs(yt) do
        ylabels[i] = plot_data.label(v)
        lw = math.max(lw, width(ylabels[i]))
    end
    local pw = math.max(240, math.min(960, 10 * d.width))
    local ph = math.max(120, math.min(480, 20 * d.height))
    local left = lw * CHAR + 16
    local top = 10 + (d.title and LINE + 4 or 0) + (d.ylabel and LINE or 0)
    local xlabel = d.xlabel and (d.xlabel .. (d.logx and i18n.tr(" (log scale)") or "")) or nil
    -- the legend: one row, or one series a row when they do not fit
    local entries, row_w = {}, 0
    for i, s in ipairs(d.series) do
        entries[i] = 34 + width(s.name) * CHAR
        row_w = row_w + entries[i] + 16
    end
    local W = left + pw + 24
    for _, t in ipairs({d.title or "", d.ylabel or "", xlabel or ""}) do W = math.max(W, left + width(t) * CHAR + 8) end
    local one_row = left + row_w <= W
    local legend_top = top + ph + 8 + LINE + (xlabel and LINE or 0) + 6
    local H = legend_top + (one_row and LINE or LINE * #d.series) + 8
    local function px(v) return left + 8 + (fx(v) - xmin) / (xmax - xmin) * (pw - 16) end
    local function py(v) return top + 6 + (ymax - v) / (ymax - ymin) * (ph - 12) end

    local out = {string.format('<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="%d" height="%d" ' ..
        'viewBox="0 0 %d %d" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="13" ' ..
        'data-series="%d" data-points="%d" role="img" aria-label="%s">', W, H, W, H, #d.series, n,
        escape(d.title or d.ylabel or "plot"))}
    if d.title then
        out[#out + 1] = '<title>' .. escape(d.title) .. '</title>'
        out[#out + 1] = string.format('<text class="title" x="%d" y="%d" fill="currentColor" font-weight="bold">%s</text>',
                                      left, 10 + 15, escape(d.title))
    end
    if d.ylabel then
        out[#out + 1] = string.format('<text class="ylabel" x="%d" y="%d" fill="currentColor">%s</text>', left,
                                      top - 8, escape(d.ylabel))
    end
    -- the plot area, its grid and the y ticks
    out[#out + 1] = string.format('<rect class="area" x="%d" y="%d" width="%d" height="%d" fill="none" ' ..
        'stroke="currentColor" stroke-opacity="0.5"/>', left, top, pw, ph)
    out[#out + 1] = '<g class="yticks" fill="currentColor">'
    for i, v in ipairs(yt) do
        local y = py(v)
        out[#out + 1] = string.format('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="currentColor" ' ..
            'stroke-opacity="0.15"/><line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="currentColor"/>' ..
            '<text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>',
            left, left + pw, y, y, left - 5, left, y, y, left - 8, y + 4.5, escape(ylabels[i]))
    end
    out[#out + 1] = '</g>'
    -- the x ticks, each label where it does not overlap the one before
    out[#out + 1] = '<g class="xticks" fill="currentColor">'
    local used = -math.huge
    for _, v in ipairs(xt) do
        local x, l = px(v), plot_data.label(v)
        local half = width(l) * CHAR / 2
        out[#out + 1] = string.format('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="currentColor"/>', x, x,
                                      top + ph, top + ph + 5)
        if x - half > used + 6 then
            out[#out + 1] = string.format('<text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>', x,
                                          top + ph + 8 + 12, escape(l))
            used = x + half
        end
    end
    out[#out + 1] = '</g>'
    if xlabel then
        out[#out + 1] = string.format('<text class="xlabel" x="%.1f" y="%d" text-anchor="middle" fill="currentColor">%s</text>',
                                      left + pw / 2, top + ph + 8 + LINE + 14, escape(xlabel))
    end
    -- the series: a line through the points, a marker on each (with its numbers as a tooltip); of a
    -- long series (a loss at every step) about 30 points are marked, evenly, and the last
    local every = math.max(1, math.ceil(n / 30))
    local marked = (n - 1) // every + 1
    for si, s in ipairs(d.series) do
        local c = COLOURS[si]
        local pts = {}
        for i = 1, n do pts[i] = string.format("%.1f,%.1f", px(xs[i]), py(s.ys[i])) end
        out[#out + 1] = string.format('<g class="series" data-name="%s" data-points="%d" data-markers="%d">',
                                      escape(s.name), n, marked)
        out[#out + 1] = string.format('<polyline class="line" points="%s" fill="none" stroke="%s" stroke-width="2"/>',
                                      table.concat(pts, " "), c)
        local tag = ({"circle", "path", "rect"})[(si - 1) // 2 % 3 + 1]
        for k = 1, n, every do
            local i = k + every > n and n or k   -- the last point is always marked
            out[#out + 1] = marker(si, px(xs[i]), py(s.ys[i]), c) ..
                string.format(' data-x="%.17g" data-y="%.17g"><title>%s: %s = %s, %s</title></%s>', xs[i],
                              s.ys[i], escape(s.name), escape(d.xlabel or "x"), fmt(xs[i]), fmt(s.ys[i]), tag)
        end
        out[#out + 1] = '</g>'
    end
    -- the legend
    out[#out + 1] = '<g class="legend" fill="currentColor">'
    local x, y = left, legend_top
    for si, s in ipairs(d.series) do
        local c = COLOURS[si]
        out[#out + 1] = string.format('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"/>', x, x + 24,
                                      y + 10, y + 10, c)
        out[#out + 1] = marker(si, x + 12, y + 10, c) .. "/>"
        out[#out + 1] = string.format('<text class="name" x="%d" y="%d">%s</text>', x + 32, y + 15, escape(s.name))
        if one_row then x = x + entries[si] + 16 else y = y + LINE end
    end
    out[#out + 1] = '</g>'
    out[#out + 1] = '</svg>'
    return table.concat(out, "\n")
end

function plot_svg.write(d)
    local ok, err = bind.files.write(d.svg, '<?xml version="1.0" encoding="UTF-8"?>\n' ..
        plot_svg.render(d) .. "\n", "attention.plot") -- src/core/safe_write.c
    if not ok then errors.raise(err) end
end

return plot_svg
