-- output.lua — what a cell shows while it runs (module attn.kernel.output): the text the user's code
-- wrote (caught on stdout and stderr by src/cli/kernel_capture.c) as "stream" messages, heatmaps and
-- plots (attention.plot) as SVG pictures, tracer steps as HTML, display(x) — all on iopub, in the order they were made.
--
--   output.begin(msg, silent)   a cell starts (msg: its execute_request; silent: show nothing)
--   output.flush()              sends what was written since the last flush
--   output.display(bundle)      sends a display_data ({["text/plain"] = ..., ...}) after the text before it
--   output.step(text)           a tracer's step (text as tr:step() prints it) as HTML with a text fallback
--   output.value(text)          the data of the cell's execute_result (its value as text; a plot as SVG)
--   output.finish()             the cell has ended: the rest of its text is sent
--   output.clean(s)             s as valid UTF-8 (JSON can carry nothing else)
--
-- While a cell runs, every heatmap the terminal would draw is kept as data instead
-- (draw/figures.lua), with a marker in the text where it was drawn, and every plot the cell makes
-- is kept with its text: flush cuts the text there.
local wire = require("attn.kernel.wire")
local json = require("attn.json")
local figures = require("attn.draw.figures")
local step = require("attn.kernel.step")
local cut = require("attn.kernel.parts").outputs

local output = {}
local current = nil  -- {msg =, silent =, drawn = the figures collection}

-- Bytes that are not UTF-8 (a user printing binary) become U+FFFD, and NUL (cJSON strings end at it) too.
function output.clean(s)
    if utf8.len(s) and not s:find("\0", 1, true) then return s end
    local out, i = {}, 1
    while i <= #s do
        local ok, n = utf8.len(s, i)
        if ok then
            out[#out + 1] = s:sub(i)
            break
        end
        out[#out + 1] = s:sub(i, n - 1)
        out[#out + 1] = "\u{FFFD}"
        i = n + 1
    end
    return (table.concat(out):gsub("%z", "\u{FFFD}"))
end

local function send(msg_type, content)
    if current and not current.silent then wire.send("iopub", msg_type, content, current.msg) end
end

local function stream(name, text)
    if text ~= "" then send("stream", {name = name, text = output.clean(text)}) end
end

-- A heatmap: the web page's SVG, and the terminal's drawing without colour for a client without SVG.
local function figure_bundle(fig)
    return {["image/svg+xml"] = figures.svg(fig), ["text/plain"] = output.clean(fig.plain)}
end

local function parts_of(text)
    if current and current.drawn then return current.drawn:parts(text) end
    return {text}
end

function output.begin(msg, silent)
    wire.take()   -- whatever came between cells (nothing, normally) belongs to none
    -- a plot kept in a variable in an earlier cell is a picture too when this cell shows it
    current = {msg = msg, silent = silent, drawn = figures.open(nil, {recent = true})}
end

function output.flush()
    local out, err = wire.take()
    for _, p in ipairs(cut(parts_of(out))) do
        if p[1] == "text" then stream("stdout", p[2])
        else send("display_data", {data = figure_bundle(p[2]), metadata = {}, transient = {}}) end
    end
    stream("stderr", err)
end

-- output.value(text) -> the execute_result's data for a cell's value as the prompt prints it: a plot
-- (attention.plot's text, made in this cell) as its picture with the text as fallback; anything else
-- as text/plain, with the plots in it sent as pictures before it.
function output.value(text)
    local list = cut(parts_of(text))
    if #list == 1 and list[1][1] == "figure" then return figure_bundle(list[1][2]) end
    local rest = {}
    for _, p in ipairs(list) do
        if p[1] == "text" then rest[#rest + 1] = p[2]
        else send("display_data", {data = figure_bundle(p[2]), metadata = {}, transient = {}}) end
    end
    return {["text/plain"] = output.clean((table.concat(rest):gsub("\n$", "")))}
end

function output.display(bundle)
    output.flush()
    for k, v in pairs(bundle) do bundle[k] = output.clean(v) end
    send("display_data", {data = bundle, metadata = {}, transient = {}})
end

-- A tracer's step (kernel/step.lua): the weight matrices in its text are markers while a cell runs.
function output.step(text)
    if not current then
        io.write(text, "\n")
        return
    end
    output.display(step.bundle(parts_of(text)))
end

function output.finish()
    if not current then return end
    output.flush()
    current.drawn:close()
    current = nil
end

output.array = json.array
return output
