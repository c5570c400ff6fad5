-- parts.lua — printed text with heatmaps in it, as a cell's outputs (module attn.kernel.parts): the one
-- rule the kernel (kernel/output.lua) and the notebooks of --ipynb (kernel/ipynb.lua) share, so that a
-- notebook run again shows what it was written with.
--
--   parts.outputs(list) -> {{"text", s} | {"figure", fig}, ...}
--       list: strings and figures (draw/figures.lua's parts). Consecutive strings are joined;
--       the line break that ends a heatmap's drawing (attention.heatmap writes "\n" after it) goes
--       with the picture; empty text is dropped.
local parts = {}

function parts.outputs(list)
    local out, text, after_figure = {}, {}, false
    local function flush()
        local s = table.concat(text)
        if s ~= "" then out[#out + 1] = {"text", s} end
        text = {}
    end
    for _, p in ipairs(list) do
        if type(p) == "string" then
            if after_figure then p = p:gsub("^\n", "") end
            text[#text + 1] = p
            after_figure = false
        else
            flush()
            out[#out + 1] = {"figure", p}
            after_figure = true
        end
    end
    flush()
    return out
end

return parts
