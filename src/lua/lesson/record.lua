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
--   a figure: draw/figures.lua's (a heatmap's cells, values, labels and colour scale)
--   doc.intro   the items before the first step; doc.steps: {{n =, of =, title =, code =,
--               before = {the sections and paragraphs since the step before}, items = {its output
--               and checks}}, ...}; doc.after: sections and paragraphs after the last step
--   doc.title, doc.source, doc.name ("03_causal_attention"), doc.path

local lesson = require("attn.lesson")
local run = require("attn.lesson.run")
local compare = require("attn.lesson.compare")
local figures = require("attn.draw.figures")

local record = {}

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
    -- not while lesson.capture runs (text the lesson itself reads), nor when not wanted
    local drawn = figures.open(function() return figures_wanted and not lesson.capturing() end)
    local read_to = 0

    local function drain()
        local stop = spool:seek("end")
        if stop == read_to then return end
        spool:seek("set", read_to)
        local text = spool:read(stop - read_to) or ""
        read_to = spool:seek("end")
        doc.items[#doc.items + 1] = {kind = "output", parts = drawn:parts(text)}
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

    local saved_output = io.output()
    io.output(spool)
    local ok, result = pcall(run.file, path, {mode = "record", sink = sink})
    io.output(saved_output)
    drawn:close()
    drain()
    spool:close()
    if not ok then error(result, 0) end   -- Ctrl-C
    group(doc)
    return doc, result
end

return record
