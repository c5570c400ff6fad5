-- trace_page.lua — tr:save(path): a tracer's stages as one web page (module
-- attn.attention.trace_page), one step per stage as tr:step() prints it, weight matrices as SVG
-- heatmaps; the same page as a lesson's (html/page.lua: presentation mode, no network), for a
-- paper or a slide. The stages not computed yet are computed; the tracer stays at the stage it was.
local figures = require("attn.attention.figures")
local page = require("attn.html.page")

local trace_page = {}

-- trace_page.save(tr, path) -> the size written, or nil and why not.
function trace_page.save(tr, path)
    local stages = tr._stages
    local doc = {title = tostring(tr):match("^[^\n]*"):gsub(":.*$", ""), steps = {}}
    local drawn = figures.open()
    local write, pos = tr._write, tr.pos
    local ok, err = pcall(function()
        for i, st in ipairs(stages) do
            local text
            rawset(tr, "_write", function(s) text = s end)
            tr:step(i)
            -- the stage's first line is its title: "[i/N] name  formula  shape [..]"
            local head, rest = text:match("^([^\n]*)\n?(.*)$")
            doc.steps[i] = {n = i, of = #stages, title = (head:gsub("^%[%d+/%d+%]%s*", ""):gsub("%s+", " ")),
                            code = {}, before = {}, items = {{kind = "output", parts = drawn:parts(rest)}}}
        end
    end)
    rawset(tr, "_write", write)
    tr.pos = pos
    drawn:close()
    if not ok then error(err, 0) end
    local size, werr = page.write(path, page.render(doc), "tr:save")
    if not size then return nil, werr end
    return size
end

return trace_page
