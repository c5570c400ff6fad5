-- record.lua — a lesson's run as data (module attn.lesson.record), for the exports that lay a lesson
-- out again elsewhere: a web page (lesson/html.lua, `attn --html`). The lesson runs once, straight
-- through as `--check` runs it (no keys, nothing on the terminal); what it would print is collected
-- in order instead, with its structure kept.
--
--   record.file(path [, {figures = true}]) -> doc, result     result: run.file's {status, passed,
--                                        failed, identities}; figures = false: heatmaps stay text, as
--                                        the terminal prints them without colour (lesson/markdown.lua)
--
--   doc.items   everything in the order the lesson printed it, each a table with a kind:
--     {kind = "title",   text =, source =}        lesson.title
--     {kind = "section", text =}                  lesson.section
--     {kind = "say",     text =}                  lesson.say (dedented)
--     {kind = "step",    n =, of =, title =, code = {lines}, first_line =, last_line =}
--                                                 lesson.step: its number, the lesson's count of
--                                                 steps, its source lines as written (the
--                                                 echo's), where its function is in the file
--     {kind = "output",  parts = {...}}           what was printed (lesson.show, print, the tracer):
--                                                 strings, and figures where a heatmap was drawn
--     {kind = "check",   what =, ok =, identity =, note =, lines = {explanation}, got =, expected =}
--                                                 lesson.check (got and expected as text) and
--                                                 lesson.agree (identity = true); an error that
--                                                 stopped the lesson is a failed check too
--   a figure: {kind = "heatmap", cells = {{"0.19", ...}, ...} (PyTorch's print of each cell),
--              values = {{0.19, ...}, ...}, rows =, cols = (labels or nil), lo =, hi = (the colour
--              scale's ends), plain = the terminal's drawing without colour}
--   doc.intro   the items before the first step; doc.steps: {{n =, of =, title =, code =,
--               before = {the sections and paragraphs since the step before}, items = {its output
--               and checks}}, ...}; doc.after: sections and paragraphs after the last step
--   doc.title, doc.source, doc.name ("03_causal_attention"), doc.path

local lesson = require("attn.lesson")
local run = require("attn.lesson.run")
local compare = require("attn.lesson.compare")
local heatmap = require("attn.attention.heatmap")

local record = {}

-- Where a figure was drawn, in the printed text: a marker no lesson prints.
local MARK_OPEN, MARK_CLOSE = "\1heatmap ", "\2"

local function figure_of(d)
    local opts = {}
    for k, v in pairs(d.opts) do opts[k] = v end
    opts.color = false
    local saved = heatmap.record(nil)
    local ok, plain = pcall(heatmap.render, d.t, opts)
    heatmap.record(saved)
    return {kind = "heatmap", cells = d.cells, values = d.values, rows = d.rows, cols = d.cols, lo = d.lo,
            hi = d.hi, plain = ok and plain or ""}
end

-- The text printed since the last item, cut at the figures' markers.
local function parts_of(text, figures)
    local parts, at = {}, 1
    while true do
        local s, e, n = text:find(MARK_OPEN .. "(%d+)" .. MARK_CLOSE, at)
        if not s then break end
        if s > at then parts[#parts + 1] = text:sub(at, s - 1) end
        parts[#parts + 1] = figures[tonumber(n)]
        at = e + 1
    end
    if at <= #text then parts[#parts + 1] = text:sub(at) end
    return parts
end

-- A check's two sides as text: what attn computed and what it was compared with.
local function sides(pair)
    if not pair then return nil, nil end
    local function text(v)
        if type(v) == "table" and not getmetatable(v) then
            local ok, out = pcall(function()
                local s = {}
                for i = 1, #v do s[i] = compare.render(v[i]) end
                return "{" .. table.concat(s, ", ") .. "}"
            end)
            return ok and out or "<table>"
        end
        return compare.render(v)
    end
    return text(pair[1]), text(pair[2])
end

-- Groups the flat list into the lesson's steps (see the top of this file).
local function group(doc)
    local pending, current = {}, nil
    doc.intro, doc.steps = {}, {}
    for _, item in ipairs(doc.items) do
        if item.kind == "title" then
            doc.title, doc.source = item.text, item.source
        elseif item.kind == "step" then
            current = {n = item.n, of = item.of, title = item.title, code = item.code, before = pending, items = {}}
            doc.steps[#doc.steps + 1] = current
            pending = {}
        elseif item.kind == "section" or item.kind == "say" then
            pending[#pending + 1] = item
        elseif current then
            current.items[#current.items + 1] = item
        else
            doc.intro[#doc.intro + 1] = item
        end
    end
    if not current then
        for _, item in ipairs(pending) do doc.intro[#doc.intro + 1] = item end
        pending = {}
    end
    doc.after = pending
end

function record.file(path, opts)
    local figures_wanted = not (opts and opts.figures == false)
    local doc = {path = path, name = (path:match("([^/]*)$"):gsub("%.lua$", "")), items = {}}
    local spool = assert(io.tmpfile())
    local read_to = 0
    local figures = {}

    local function drain()
        local stop = spool:seek("end")
        if stop == read_to then return end
        spool:seek("set", read_to)
        local text = spool:read(stop - read_to) or ""
        read_to = spool:seek("end")
        doc.items[#doc.items + 1] = {kind = "output", parts = parts_of(text, figures)}
    end

    local function sink(kind, data, ...)
        if kind == "text" then
            spool:write(data, ...)
            return
        end
        drain()
        local item = {kind = kind}
        for k, v in pairs(data) do item[k] = v end
        if kind == "check" then
            item.got, item.expected = sides(data.pair)
            item.pair = nil
        end
        doc.items[#doc.items + 1] = item
    end

    local saved_recorder = heatmap.record(function(d)
        -- text the lesson itself reads (lesson.capture), or figures not wanted
        if lesson.capturing() or not figures_wanted then return nil end
        figures[#figures + 1] = figure_of(d)
        return MARK_OPEN .. #figures .. MARK_CLOSE
    end)
    local saved_output = io.output()
    io.output(spool)
    local ok, result = pcall(run.file, path, {mode = "record", sink = sink})
    io.output(saved_output)
    heatmap.record(saved_recorder)
    drain()
    spool:close()
    if not ok then error(result, 0) end   -- Ctrl-C
    group(doc)
    return doc, result
end

return record
