-- trace_page.lua — tr:save(path): a tracer's stages as one web page (module
-- attn.html.trace_page), one step per stage as tr:step() prints it, weight matrices as SVG
-- heatmaps; the same page as a lesson's (html/page.lua: presentation mode, no network), for a
-- paper or a slide. The stages not computed yet are computed; the tracer stays at the stage it was.
-- A trace with a loss (loss =) has its backward steps after the forward ones, as tr:backward(k) prints them.
local figures = require("attn.draw.figures")
local page = require("attn.html.page")

local trace_page = {}

-- trace_page.save(tr, path) -> the size written, or nil and why not.
function trace_page.save(tr, path)
    local stages = tr._stages
    local doc = {title = tostring(tr):match("^[^\n]*"):gsub(":.*$", ""), steps = {}}
    local drawn = figures.open()
    local write, pos, bpos = tr._write, tr.pos, rawget(tr, "bpos")
    local ok, err = pcall(function()
        local n = #stages * (tr.loss and 2 or 1)
        local function add(show, k)
            local text
            rawset(tr, "_write", function(s) text = s end)
            show(tr, k)
            -- the stage's first line is its title: "[i/N] name  formula  shape [..]" ("[←i/N]" backward)
            local head, rest = text:match("^([^\n]*)\n?(.*)$")
            local title = head:gsub("^%[(←?)%d+/%d+%]%s*", "%1 "):gsub("^ ", ""):gsub("%s+", " ")
            doc.steps[#doc.steps + 1] = {n = #doc.steps + 1, of = n, title = title, code = {}, before = {},
                                         items = {{kind = "output", parts = drawn:parts(rest)}}}
        end
        for i = 1, #stages do add(tr.step, i) end
        if tr.loss then
            for k = 1, #stages do add(tr.backward, k) end
        end
    end)
    rawset(tr, "_write", write)
    tr.pos = pos
    if rawget(tr, "grads") then rawset(tr, "bpos", bpos or 0) end
    drawn:close()
    if not ok then error(err, 0) end
    local size, werr = page.write(path, page.render(doc), "tr:save")
    if not size then return nil, werr end
    return size
end

return trace_page
