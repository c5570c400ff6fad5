-- display.lua — rich output in a cell (module attn.kernel.display): display(x, ...) shows each value as
-- the REPL prints it (text/plain; a tracer also as HTML: its current stage), and a tracer made in a
-- cell shows each tr:step() as HTML — the step's title, its matrices, its weights as SVG heatmaps —
-- with the terminal's text as the fallback. attention.heatmap needs nothing here: while a cell runs,
-- its drawing becomes an SVG picture (kernel/output.lua).
--
--   display.install() -> display   wraps attention.trace (once, at kernel start); returns the function
--                                  the kernel makes the global display (src/cli/kernel.c)
--   display.bundle(v)     the MIME bundle of a value
local output = require("attn.kernel.output")
local repl = require("attn.repl")

local display = {}

function display.bundle(v)
    return {["text/plain"] = repl.show(v)}
end

--- display(x, ...) — shows each value in the cell's output, as the REPL prints it.
local function show(...)
    for i = 1, select("#", ...) do output.display(display.bundle((select(i, ...)))) end
end

function display.install()
    local attention = rawget(_G, "attention")
    if type(attention) ~= "table" then return show end
    local trace = attention.trace
    -- a tracer made without its own write shows its steps through output.step (as HTML)
    attention.trace = function(args, ...)
        if type(args) == "table" and args.write == nil then
            local copy = {}
            for k, v in pairs(args) do copy[k] = v end
            copy.write = output.step
            args = copy
        end
        return trace(args, ...)
    end
    return show
end

return display
