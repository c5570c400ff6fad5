-- figures.lua — the web page's figures (module attn.web.figures): every heatmap and plot the page's
-- terminal draws is also handed to the page as the SVG `attn --html` and the Jupyter kernel draw
-- (draw/figures.lua, draw/heatmap_svg.lua, draw/plot_svg.lua: no second renderer), and its text
-- gets, before the drawing, a marker the page's terminal reads: an OSC sequence ("\27]7717;N\7"),
-- which terminals ignore and the text width functions skip (text/width.lua's plain). The page
-- shows figure N beside the terminal when the terminal shows its text (src/web/page/page.js), so a
-- drawing kept in a string and never printed shows nothing, and one printed twice shows twice.
-- Installed in the page's own Lua state only (src/web/page/page_figures.c): not in a note's, whose
-- printed text goes into the note's file, and never in the native attn.
--
--   web_figures.install(send) -> undo   send(n, svg): hands figure n's SVG to the page (worker.js);
--                                       undo() puts back what drew heatmaps and plots before
--
-- Text a lesson reads back (lesson.capture) gets no marker and sends nothing, as `attn --html`
-- keeps no figure there (lesson/record.lua).
local heatmap = require("attn.draw.heatmap")
local figures = require("attn.draw.figures")
local lesson = require("attn.lesson")

local web_figures = {}

local MARK = "\27]7717;%d\7"

function web_figures.install(send)
    local count = 0
    local function sent(fig)
        count = count + 1
        send(count, figures.svg(fig))
        return MARK:format(count)
    end
    -- a heatmap: its SVG, and the terminal's drawing (with colour when the terminal has it) after the marker
    local saved_recorder = heatmap.record(function(d)
        if lesson.capturing() then return nil end
        local mark = sent(figures.figure(d))
        local saved = heatmap.record(nil)
        local ok, text = pcall(heatmap.render, d.t, d.opts)
        heatmap.record(saved)
        if not ok then error(text, 0) end
        return mark .. text
    end)
    local saved_live = figures.live(function(fig, text)
        if lesson.capturing() then return text end
        return sent(fig) .. text
    end)
    return function()
        heatmap.record(saved_recorder)
        figures.live(saved_live)
    end
end

return web_figures
