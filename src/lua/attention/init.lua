-- init.lua — the table attention (module attn.attention): the stages of attention, each its own
-- operation, and what is built on them.
--   src/bind/attention.c, fused.c    the stages (scores, scale, masks, softmax, weighted_sum,
--                                    dropout, heads, dot/general/additive) and attention.fused, in C
--   attention/forward.lua            attention.forward: the stages composed
--   attention/trace.lua              attention.trace: the stages one at a time
--   draw/heatmap.lua            attention.heatmap: a matrix drawn in the terminal (heatmap_svg.lua:
--                                    as SVG, {svg = "w.svg"})
--   draw/plot.lua               attention.plot: a line plot in the terminal, in braille (plot_svg.lua:
--                                    as SVG, on web pages, in notebooks, {svg = "p.svg"})
--   attention/overview.lua           attention.overview: every layer × head of a model, small
--   attention/pipeline.lua           the stages, described once, that all of the above read
--   attention/variants.lua           attention.rope, band_mask, alibi_slopes, kv_cache_bytes, ...
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local heatmap = require("attn.draw.heatmap")
local heatmap_svg = require("attn.draw.heatmap_svg")
local figures = require("attn.draw.figures")
local check = require("attn.check")

local attention = {}
for name, f in pairs(require("attn.bind").attention) do
    attention[name] = f
end
attention.forward = require("attn.attention.forward")
attention.plot = require("attn.draw.plot") -- a line plot in the terminal (braille) or as SVG, for lessons' numbers
attention.trace = require("attn.attention.trace")
attention.overview = require("attn.attention.overview")
-- the variants of today's models (attention/variants.lua); their stages are attention/pipeline.lua's
local variants = require("attn.attention.variants")
local bind = require("attn.bind")
local options = require("attn.options")
for _, name in ipairs({"rope", "rope_params", "band_mask", "layer_pattern", "alibi_slopes", "kv_cache_bytes",
                       "kv_groups", "repeat_interleave", "online_softmax"}) do
    attention[name] = variants[name]
end

-- {svg = "w.svg"}: the matrix as an SVG file (draw/heatmap_svg.lua) instead of in the terminal.
local function write_svg(t, opts)
    if type(opts.svg) ~= "string" or opts.svg == "" then
        errors.raisef("attention.heatmap: svg must be the name of the file to write, such as \"w.svg\", got %s",
                      check.describe(opts.svg))
    end
    local o = {}
    for k, v in pairs(opts) do o[k] = v end
    o.shade = true
    local drawn = figures.open()
    local ok, text = pcall(heatmap.render, t, o)
    drawn:close()
    if not ok then error(text, 0) end
    if not drawn.list[1] then
        errors.raisef("attention.heatmap: a %s matrix has no cells to draw as SVG (empty, or " ..
                      "so big that it prints summarised); draw a part of it, such as t[{{1, 20}, {1, 20}}]", check.shape(t))
    end
    local ok, err = bind.files.write(opts.svg, '<?xml version="1.0" encoding="UTF-8"?>\n' ..
        heatmap_svg.render(drawn.list[1]) .. "\n", "attention.heatmap") -- src/core/safe_write.c
    if not ok then errors.raise(err) end
end

--- attention.heatmap(t [, {rows =, cols =, color =, range =, svg =}]) — draws a matrix in the terminal,
--- or writes it as an SVG file.
function attention.heatmap(t, opts)
    if opts ~= nil and type(opts) ~= "table" then
        errors.raisef("attention.heatmap: options must be a table such as {rows = tokens, cols = tokens}, got %s",
                      type(opts))
    end
    options.check("attention.heatmap", opts, {"rows", "cols", "color", "range", "svg"})
    if opts and opts.svg ~= nil then return write_svg(t, opts) end
    io.write(heatmap.render(t, opts), "\n")
end

return attention
