-- step.lua — a tracer's step as a cell shows it (module attn.kernel.step): text/html with the step's
-- title, its matrices as text and its weights as SVG heatmaps, and text/plain, the terminal's text.
-- The kernel (kernel/output.lua) and the notebooks of --ipynb (kernel/ipynb.lua) both build it here.
--
--   step.bundle(list) -> {["text/html"] =, ["text/plain"] =}
--       list: what the step printed, strings and figures (draw/figures.lua), its first line the
--       title ("[i/N] name  formula  shape [..]")
local figures = require("attn.draw.figures")
local escape = require("attn.text.escape").html
local cut = require("attn.kernel.parts").outputs

local step = {}

function step.bundle(list)
    local html, plain = {'<div class="attn-step">'}, {}
    local first = true
    for _, p in ipairs(cut(list)) do
        if p[1] == "text" then
            local t = p[2]
            if first then   -- the title line, in bold
                local head, rest = t:match("^([^\n]*)\n?(.*)$")
                html[#html + 1] = '<pre style="font-weight:bold">' .. escape(head) .. "</pre>"
                plain[#plain + 1] = head
                t = rest
            end
            t = t:gsub("^\n+", ""):gsub("\n+$", "")
            if t ~= "" then
                html[#html + 1] = "<pre>" .. escape(t) .. "</pre>"
                plain[#plain + 1] = t
            end
        else
            html[#html + 1] = "<div>" .. figures.svg(p[2]) .. "</div>"
            plain[#plain + 1] = (p[2].plain:gsub("\n+$", ""))
        end
        first = false
    end
    html[#html + 1] = "</div>"
    return {["text/html"] = table.concat(html), ["text/plain"] = table.concat(plain, "\n")}
end

return step
