-- heatmaps.lua — lesson.heatmaps' layout (module attn.lesson.heatmaps): several matrices drawn with
-- attention.heatmap, each under its title, next to each other when they fit in the lesson's width,
-- else one below the other.
--
--   heatmaps.text(list, color, width) -> the text to print (ending in a newline)
--       list   {{title, t [, opts]}, ...}, opts as attention.heatmap's
--       color  the default of each matrix's opts.color (the lesson library's: a terminal's colour,
--              never in captured text)
--       width  the columns they may take side by side (lesson.width)
--       opts   {frames = title}: the matrices are frames of one picture changing (attention weights
--              during training): printed under the title as usual, and on a web page (--html) shown
--              one at a time with a slider over them (each figure carries the title, html/page.lua)

local torch = require("attn.bind").torch
local errors = require("attn.errors")
local options = require("attn.options")
local text = require("attn.text.width")
local heatmap = require("attn.draw.heatmap")
local figures = require("attn.draw.figures")

local heatmaps = {}
local width = text.of

-- Each matrix as its lines (the title first) and the widest of them.
local function blocks_of(list, color, frames)
    local blocks, widths = {}, {}
    for i, item in ipairs(list) do
        if type(item) ~= "table" or not torch.is_tensor(item[2]) then
            errors.raisef("lesson.heatmaps: item %d must be {title, tensor [, opts]}", i)
        end
        local opts = {title = tostring(item[1])}
        for k, v in pairs(item[3] or {}) do opts[k] = v end
        if opts.color == nil then opts.color = color end
        opts.frames = frames
        local drawn = heatmap.render(item[2], opts)
        -- kept as data for a page (--html): the title goes with it
        local lines = figures.is_marker(drawn) and {} or {opts.title}
        for l in (drawn .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = l end
        local w = 0
        for _, l in ipairs(lines) do
            w = math.max(w, width(text.plain(l)))
        end
        blocks[i], widths[i] = lines, w
    end
    return blocks, widths
end

function heatmaps.text(list, color, columns, opts)
    if type(list) ~= "table" or #list == 0 then
        errors.raisef("lesson.heatmaps: expected a list such as {{\"BERT\", w1}, {\"GPT\", w2}}, got %s", type(list))
    end
    if opts ~= nil and type(opts) ~= "table" then
        errors.raisef("lesson.heatmaps: argument 2 must be an options table such as {frames = \"title\"}, got %s", type(opts))
    end
    options.check("lesson.heatmaps", opts, {"frames"})
    local frames = opts and opts.frames
    if frames ~= nil and type(frames) ~= "string" then
        errors.raisef("lesson.heatmaps: frames must be a title (a string), got %s", type(frames))
    end
    local blocks, widths = blocks_of(list, color, frames)
    local out = {frames and (frames .. "\n") or nil}
    local total, gap = -4, "    "
    for _, w in ipairs(widths) do total = total + w + #gap end
    if total > columns then
        for i, lines in ipairs(blocks) do
            out[#out + 1] = (i > 1 and "\n" or "") .. table.concat(lines, "\n") .. "\n"
        end
        return table.concat(out)
    end
    local height = 0
    for _, lines in ipairs(blocks) do height = math.max(height, #lines) end
    for r = 1, height do
        local row = {}
        for i, lines in ipairs(blocks) do
            local l = lines[r] or ""
            local pad = i < #blocks and string.rep(" ", widths[i] - width(text.plain(l))) or ""
            row[i] = l .. pad
        end
        out[#out + 1] = (table.concat(row, gap):gsub("%s+$", "")) .. "\n"
    end
    return table.concat(out)
end

return heatmaps
