-- ipynb.lua — a lesson as a Jupyter notebook (module attn.kernel.ipynb, `attn --ipynb OUT LESSON...`):
-- nbformat 4, kernel attn. The title, sections and paragraphs become Markdown cells; each step's code
-- a code cell (the code `attn --markdown` shows: the step's body without its lesson.check lines),
-- with the outputs of a run of the lesson: what it printed as a stdout stream, each heatmap as an SVG
-- picture with the terminal's drawing as text/plain — what the kernel (kernel/output.lua) sends when
-- the cell runs, so running the notebook top to bottom gives the same outputs. The checks follow each
-- step as a Markdown list (✓, ≡ or ✗), as the handout shows them.
--
--   ipynb.notebook(path) -> the notebook's JSON text, how many checks failed
local record = require("attn.lesson.record")
local source = require("attn.lesson.source")
local json = require("attn.json")
local figures = require("attn.draw.figures")
local cut = require("attn.kernel.parts").outputs
local step = require("attn.kernel.step")
local trf = require("attn.i18n").trf
local wire_version = "0.1"

local ipynb = {}

-- nbformat keeps text as a list of lines, each with its "\n" but the last.
local function lines(text)
    local out = json.array{}
    for line in text:gmatch("[^\n]*\n?") do
        if line ~= "" then out[#out + 1] = line end
    end
    return out
end

local function markdown_cell(text)
    return {cell_type = "markdown", metadata = {}, source = lines(text)}
end

local function check_line(c)
    if not c.ok then return "✗ " .. c.what end
    if c.identity then return "≡ " .. c.what .. (c.note and c.note ~= "" and " (" .. c.note .. ")" or "") end
    return "✓ " .. c.what
end

-- While the lesson is recorded, a tracer's steps are written between these markers (no lesson prints
-- them), so that they become the HTML display the kernel shows for a step (kernel/step.lua).
local STEP_OPEN, STEP_CLOSE = "\3step\3", "\3/step\3"

local function mark_steps()
    local attention = rawget(_G, "attention")
    local trace = attention.trace
    attention.trace = function(args, ...)
        if type(args) == "table" and args.write == nil then
            local copy = {}
            for k, v in pairs(args) do copy[k] = v end
            copy.write = function(s) io.write(STEP_OPEN, s, STEP_CLOSE) end
            args = copy
        end
        return trace(args, ...)
    end
    return function() attention.trace = trace end
end

-- The printed parts with each step's (between the markers) gathered into {step = {parts}}.
local function gather_steps(list)
    local out, inside = {}, nil
    local function add(p)
        if inside then inside.step[#inside.step + 1] = p else out[#out + 1] = p end
    end
    for _, p in ipairs(list) do
        if type(p) ~= "string" then
            add(p)
        else
            local at = 1
            while at <= #p do
                local marker = inside and STEP_CLOSE or STEP_OPEN
                local s, e = p:find(marker, at, true)
                if not s then
                    add(p:sub(at))
                    break
                end
                if s > at then add(p:sub(at, s - 1)) end
                if inside then inside = nil else
                    inside = {step = {}}
                    out[#out + 1] = inside
                end
                at = e + 1
            end
        end
    end
    return out
end

-- Text as a stdout stream; each figure a display_data, each tracer step its HTML display: what the
-- kernel sends (kernel/parts.lua, kernel/step.lua).
local function outputs_of(list)
    local out, pending = json.array{}, {}
    local function flush()
        for _, p in ipairs(cut(pending)) do
            if p[1] == "text" then
                out[#out + 1] = {output_type = "stream", name = "stdout", text = lines(p[2])}
            else
                out[#out + 1] = {output_type = "display_data", metadata = {},
                                 data = {["image/svg+xml"] = lines(figures.svg(p[2])),
                                         ["text/plain"] = lines(p[2].plain)}}
            end
        end
        pending = {}
    end
    for _, p in ipairs(gather_steps(list)) do
        if type(p) == "table" and p.step then
            flush()
            local b = step.bundle(p.step)
            out[#out + 1] = {output_type = "display_data", metadata = {},
                             data = {["text/html"] = lines(b["text/html"]), ["text/plain"] = lines(b["text/plain"])}}
        else
            pending[#pending + 1] = p
        end
    end
    flush()
    return out
end

function ipynb.notebook(path)
    local restore = mark_steps()
    local ok, doc, result = pcall(record.file, path)
    restore()
    if not ok then error(doc, 0) end
    local src = source.read(path)
    local cells, count = json.array{}, 0
    local head = "# " .. (doc.title or path)
    if doc.source then head = head .. "\n\n" .. trf("Source: %s", doc.source) end
    cells[1] = markdown_cell(head .. "\n\n" .. trf("A notebook written by `%s`; its outputs come from that run.",
                                                   "attn --ipynb " .. path))
    local step, parts, checks = nil, {}, {}
    local function flush()
        if not step then return end
        count = count + 1
        local code = src and step.first_line and source.body(src, step.first_line, step.last_line, src.checks)
                     or step.code
        cells[#cells + 1] = {cell_type = "code", execution_count = count, metadata = {},
                             source = lines(table.concat(code, "\n")), outputs = outputs_of(parts)}
        if #checks > 0 then
            local list = {}
            for i, c in ipairs(checks) do list[i] = "- " .. check_line(c) end
            cells[#cells + 1] = markdown_cell(table.concat(list, "\n"))
        end
        step, parts, checks = nil, {}, {}
    end
    for _, item in ipairs(doc.items) do
        if item.kind == "section" then
            flush()
            cells[#cells + 1] = markdown_cell("## " .. item.text)
        elseif item.kind == "say" then
            flush()
            cells[#cells + 1] = markdown_cell(item.text)
        elseif item.kind == "step" then
            flush()
            step = item
            cells[#cells + 1] = markdown_cell("### " .. trf("Step %d · %s", item.n, item.title))
        elseif item.kind == "output" and step then
            for _, p in ipairs(item.parts) do parts[#parts + 1] = p end
        elseif item.kind == "check" then
            if step then checks[#checks + 1] = item
            else cells[#cells + 1] = markdown_cell("- " .. check_line(item)) end
        end
    end
    flush()
    local nb = {
        nbformat = 4, nbformat_minor = 5, cells = cells,
        metadata = {kernelspec = {name = "attn", display_name = "attn (Lua 5.4)", language = "lua"},
                    language_info = {name = "lua", version = _VERSION:match("[%d.]+"), mimetype = "text/x-lua",
                                     file_extension = ".lua", pygments_lexer = "lua", codemirror_mode = "lua"},
                    attn = {version = wire_version, lesson = doc.name, skipped = result.status == "skipped"}},
    }
    -- nbformat 4.5 wants an id on every cell: the lesson's name and the cell's place, so a notebook
    -- written again is the same file
    for i, c in ipairs(cells) do c.id = string.format("%s-%d", (doc.name or "cell"):gsub("[^%w-]", "-"), i) end
    return json.encode(nb, true) .. "\n", result.failed
end

return ipynb
