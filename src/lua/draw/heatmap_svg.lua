-- heatmap_svg.lua — a heatmap as SVG (module attn.draw.heatmap_svg): the same matrix the
-- terminal draws (draw/heatmap.lua), for a web page (lesson/html.lua) or a file a paper or a
-- slide can take. Each cell holds its value as PyTorch prints it; labels and values are escaped.
--
--   heatmap_svg.render(fig [, {title =}]) -> the <svg> element as text (title: above the matrix;
--       default fig.title)
--       fig: what heatmap.record's recorder receives: {cells =, values =, rows =, cols =, lo =, hi =}; a cell
--       whose exact (PyTorch's print) differs from what it shows has it as its tooltip (<title>)
--
-- The colour scale runs from light yellow through green to dark blue (ColorBrewer's YlGnBu, which
-- people with red-green colour blindness read the same way: it changes in lightness, not only in
-- hue), like the terminal's ivory-to-blue; -inf (a masked weight) is grey, nan dark red. Labels use
-- currentColor, so the picture follows the page's light or dark theme.
local escape = require("attn.text.escape").html
local width = require("attn.text.width").of
local level = require("attn.draw.heatmap").level -- where a value lies in the scale, as in the terminal

local svg = {}

local SCALE = {{255, 255, 217}, {237, 248, 177}, {199, 233, 180}, {127, 205, 187}, {65, 182, 196},
               {29, 145, 192}, {34, 94, 168}, {37, 52, 148}, {8, 29, 88}}
local CHAR, CELL_H, PAD = 8, 26, 14   -- pixels: a monospace character at 13px, a cell's height, padding

-- The fill of a cell and the colour of its text.
local function colours(v, x)
    if x == nil then return v == -math.huge and "#9e9e9e" or "#67001f", v == -math.huge and "#000000" or "#ffffff" end
    local pos = x * (#SCALE - 1)
    local i = math.min(#SCALE - 2, math.floor(pos))
    local f = pos - i
    local a, b = SCALE[i + 1], SCALE[i + 2]
    local rgb = {}
    for k = 1, 3 do rgb[k] = math.floor(a[k] + (b[k] - a[k]) * f + 0.5) end
    return string.format("#%02x%02x%02x", rgb[1], rgb[2], rgb[3]), x > 0.5 and "#ffffff" or "#000000"
end

local function widest(list, n)
    local w = 0
    for i = 1, n do w = math.max(w, list and width(tostring(list[i])) or 0) end
    return w
end

function svg.render(fig, opts)
    opts = {title = (opts and opts.title) or fig.title}
    local n, m = #fig.cells, #fig.cells[1]
    local cw = 0
    for i = 1, n do cw = math.max(cw, widest(fig.cells[i], m)) end
    cw = math.max(cw, widest(fig.cols, m)) * CHAR + PAD
    local left = fig.rows and widest(fig.rows, n) * CHAR + 12 or 0
    local top = (fig.cols and CELL_H or 0) + (opts.title and CELL_H or 0)
    local W, H = left + m * cw + 2, top + n * CELL_H + 2
    local out = {string.format('<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" width="%d" height="%d" ' ..
        'viewBox="0 0 %d %d" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="13" ' ..
        'data-rows="%d" data-cols="%d" role="img"%s>', W, H, W, H, n, m,
        opts.title and (' aria-label="' .. escape(opts.title) .. '"') or "")}
    if opts.title then
        out[#out + 1] = string.format('<text class="title" x="%d" y="17" fill="currentColor" font-weight="bold">%s</text>',
                                      left, escape(opts.title))
    end
    local label_y = top - 8
    for j = 1, m do
        if fig.cols then
            out[#out + 1] = string.format('<text class="col" x="%d" y="%d" text-anchor="middle" fill="currentColor">%s</text>',
                                          math.floor(left + (j - 0.5) * cw), label_y, escape(fig.cols[j]))
        end
    end
    for i = 1, n do
        local y = top + (i - 1) * CELL_H
        if fig.rows then
            out[#out + 1] = string.format('<text class="row" x="%d" y="%d" text-anchor="end" fill="currentColor">%s</text>',
                                          left - 8, y + 17, escape(fig.rows[i]))
        end
        out[#out + 1] = '<g class="r">'
        for j = 1, m do
            local v = fig.values[i][j]
            local fill, ink = colours(v, level(v, fig.lo, fig.hi))
            local x = left + (j - 1) * cw
            -- the exact number on hover when the cell shows it rounded (heatmap.lua's fixed decimals)
            local exact = fig.exact and fig.exact[i][j] ~= fig.cells[i][j] and fig.exact[i][j]
            out[#out + 1] = string.format('%s<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' ..
                '<text class="v" x="%d" y="%d" text-anchor="middle" fill="%s">%s</text>%s',
                exact and ("<g><title>" .. escape(exact) .. "</title>") or "",
                x, y, cw, CELL_H, fill, x + cw // 2, y + 17, ink, escape(fig.cells[i][j]), exact and "</g>" or "")
        end
        out[#out + 1] = '</g>'
    end
    out[#out + 1] = '</svg>'
    return table.concat(out, "\n")
end

return svg
