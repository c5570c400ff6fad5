-- init.lua — the library a lesson is written with (global `lesson`, module attn.lesson).
--
-- A lesson is a plain Lua script in lessons/NN_topic.lua:
--   lesson.title("Simple self-attention without trainable weights", {source = "ch. 3 §3.3.1–3.3.2"})
--   lesson.section("3.3.1  A simple self-attention mechanism without trainable weights")
--   lesson.say[[What is computed next and why.]]
--   lesson.step("attention scores ω2j = x^(2) · x^(j)", function()
--       attn_scores_2 = inputs:matmul(inputs[2])     -- Python: inputs @ inputs[1]
--       lesson.show("attn_scores_2", attn_scores_2)
--       lesson.check("ω2 (In [3])", attn_scores_2, [=[tensor([0.9544, 1.4950, ...])]=])
--   end)
-- Where the book prints no numbers, a lesson compares its seeded results with PyTorch's:
--       lesson.check("LayerNorm", y, lesson.reference("lessons_pdl_ch7.txt", "blocks.ln"), {tol = 1e-5})
-- (tests/data/torch/<file>, written by a script under scripts/). The expected side of a check is
-- always the book's or PyTorch's; two computations of attn are compared with lesson.agree, an
-- identity, printed "≡ what (largest difference ...)":
--       lesson.agree("matmul = the loop", inputs:matmul(query), attn_scores_2, {tol = 1e-7})
-- lesson.heatmaps draws matrices side by side. Run as a script it prints as it goes. The
-- command-line modes (--step, --step=line, --check, --list) run it through lesson/run.lua, which
-- begins the run in its mode (lesson.begin) before the lesson starts:
--   "run"    print everything (a plain script run)
--   "step"   pause after every step for a key (lesson/keys.lua: next, back, go to, list, ...)
--   "line"   pause before every line of the lesson's own code (lesson/run.lua's line hook)
--   "check"  print nothing but failed checks (or TAP, with {tap = true})
-- Colour and keys are the terminal's (attn.term); reading PyTorch's numbers is lesson/reference.lua;
-- on a terminal, step mode's output goes through lesson/screen.lua (a screenful at a time).

local torch = require("attn.bind").torch
local errors = require("attn.errors")
local options = require("attn.options")
local term = require("attn.term")
local text = require("attn.text.width")
local compare = require("attn.lesson.compare")
local source = require("attn.lesson.source")
local reference = require("attn.lesson.reference")
local screen = require("attn.lesson.screen")
local heatmaps = require("attn.lesson.heatmaps")
local i18n = require("attn.i18n")
local prose = require("attn.lesson.prose")
local tr, trf = i18n.tr, i18n.trf

local lesson = {}

lesson.width = 80         -- of the section and step rules
-- The error a lesson is stopped with when the user presses q (the runner treats it as success), and
-- the one that stops it to run it again from its start up to another step (b, r, g: lesson/keys.lua).
lesson.QUIT = setmetatable({}, {__tostring = function() return "quit" end})
lesson.JUMP = setmetatable({}, {__tostring = function() return "jump" end})
-- The error lesson.skip stops a lesson with: the lesson cannot run here (files it needs are missing),
-- which --check counts as skipped, not failed. Its reason is in the field reason.
lesson.SKIP = {__tostring = function(e) return "skipped: " .. e.reason end}

local stdout = io.stdout

-- The run in progress: made by lesson.begin (the runner calls it; a plain script run uses the one
-- made when this module loads). The runner and the tests read it through lesson.state(). It is the
-- one piece of state the library keeps, since a lesson calls lesson.step and lesson.check without
-- saying which run they belong to.
local S

-- lesson.begin([{name =, mode = "run", tap = false, first = 1, target =, source =, nav =, pause =,
--               show_title =, sink =, out =}]) -> the new run's state. A run is one pass through the lesson's chunk;
-- step mode's b, r and g start another one with a target (lesson/run.lua).
function lesson.begin(opts)
    opts = opts or {}
    S = {
        name = opts.name,     -- "01_simple_attention": how check mode names failures
        mode = opts.mode or "run",
        out = opts.out or stdout, -- where the lesson prints (attn --verify: a file per block)
        tap = opts.tap or false, -- check mode: TAP lines instead of failures only
        step = 0,             -- steps run so far
        skipping = false,     -- "s" pressed: run the rest of this section without output or pauses
        passed = 0, failed = 0,
        identities = 0,       -- of passed + failed: lesson.agree's (the rest are lesson.check's)
        tap_first = opts.first or 1, -- TAP number of this lesson's first check
        run_to_step = false,  -- --step=line: "c" pressed, no more stops until the next step
        target = opts.target or 1, -- the first step shown: the steps before it run without output
        replaying = (opts.target or 1) > 1, -- running without output up to the target
        show_title = opts.show_title, -- the lesson's title shows even while replaying (--from)
        source = opts.source, -- lesson/source.lua's info on the lesson file: its steps and titles
        nav = opts.nav or {titles = {}}, -- what outlives a pass: --clear's state, the titles seen
        pause = opts.pause,   -- step mode: called after each step shown (lesson/keys.lua)
        stopping = nil,       -- lesson.QUIT or lesson.JUMP once raised: raised again if caught
        jump = nil,           -- the step b, r or g asked for
        sink = opts.sink,     -- mode "record" (lesson/record.lua): sink(kind, ...) gets the run as data
    }
    return S
end
lesson.begin()

function lesson.state() return S end

---------------------------------------------------------------------------------------------------
-- Output
---------------------------------------------------------------------------------------------------

local function quiet()
    return S.mode == "check" or S.skipping or S.replaying
end
lesson.quiet = quiet

-- Everything the library prints goes through emit: to the run's out (stdout, through the screen's
-- spool in step mode on a terminal, unless lesson.begin named a file), or into lesson.capture's buffer.
local captured = nil
local function emit(...)
    if captured then
        for i = 1, select("#", ...) do captured[#captured + 1] = tostring((select(i, ...))) end
    elseif S.sink then
        S.sink("text", ...)
    elseif screen.active() then
        screen.write(...)
    else
        S.out:write(...)
    end
end
lesson.emit = emit

local function write(...)
    if not quiet() then emit(...) end
end

-- The lesson's print (lesson/run.lua gives it to the lesson's chunk): Lua's print, through emit, and
-- nothing when the run is quiet.
function lesson.print(...)
    if quiet() then return end
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    emit(table.concat(parts, "\t"), "\n")
end

function lesson.capturing() return captured ~= nil end

-- Mode "record": the lesson's structure (title, sections, paragraphs, steps, checks) goes to the
-- run's sink as data instead of being drawn as text; true when it did.
local function mark(kind, data)
    if not S.sink or captured then return false end
    S.sink(kind, data)
    return true
end

-- lesson.capture(fn, ...) -> the text the lesson library printed while fn(...) ran (no colour).
function lesson.capture(fn, ...)
    if type(fn) ~= "function" then
        errors.raisef("lesson.capture: argument 1 must be a function, got %s", type(fn))
    end
    local saved = captured
    captured = {}
    local ok, err = pcall(fn, ...)
    local out = table.concat(captured)
    captured = saved
    if not ok then error(err, 0) end
    return out
end

-- Colour: the terminal's, never in captured text.
local function colored()
    return term.color and not captured
end

local function paint(code, s)
    if colored() then return "\27[" .. code .. "m" .. s .. "\27[0m" end
    return s
end
lesson.paint = paint

local width = text.of

-- "══ title ═════" filling the line width.
local function rule(ch, text)
    local head = ch .. ch .. " " .. text .. " "
    return head .. string.rep(ch, math.max(3, lesson.width - width(head)))
end
lesson.rule = rule

-- The echo of a step's code (lesson/source.lua), its Python comments dimmed.
local function dim(s) return paint("2", s) end
local function code_lines(lines) return source.code_lines(lines, dim) end
lesson.code_lines = code_lines

---------------------------------------------------------------------------------------------------
-- The library
---------------------------------------------------------------------------------------------------

local function check_string(fn, i, v)
    if type(v) ~= "string" then
        errors.raisef("lesson.%s: argument %d must be a string, got %s", fn, i, type(v))
    end
end

-- The functions below translate their English text (attn.i18n's catalogs, lessons/README.md).
-- lesson.tr(msgid [, ...]) -> msgid translated, then formatted with the other arguments if any: for a
-- lesson's own text that no library function takes (a heatmap's title, a label with a number).
function lesson.tr(msgid, ...)
    check_string("tr", 1, msgid)
    return select("#", ...) > 0 and trf(msgid, ...) or tr(msgid)
end

-- lesson.printf(fmt, ...): a line of the lesson's own text with its numbers, translated then formatted
-- (lesson.tr's): lesson.printf("parameters: %d", count).
function lesson.printf(fmt, ...)
    check_string("printf", 1, fmt)
    lesson.print(lesson.tr(fmt, ...))
end

-- lesson.title(text [, {source = "ch. 3 §3.3"}]): the lesson's title, printed first.
function lesson.title(text, opts)
    check_string("title", 1, text)
    text = tr(text)
    S.title = text
    if type(opts) == "table" then options.check("lesson.title", opts, {"source"}) end
    local origin = type(opts) == "table" and opts.source or nil
    -- the texts the lesson comes from, by the titles its readers know (scripts/po.sh extracts them)
    if origin then origin = tr(tostring(origin)) end
    if mark("title", {text = text, source = origin}) then return end
    local out = S.show_title and S.mode ~= "check" and emit or write
    out(paint("1", text), "\n", paint("1", string.rep("━", width(text))), "\n")
    if origin then out(paint("2", origin), "\n") end
end

-- lesson.section("3.3.1  A simple ..."): a section header (numbered as in the book). Ends an "s".
function lesson.section(text)
    check_string("section", 1, text)
    text = tr(text)
    S.skipping = false
    S.section = text
    if mark("section", {text = text}) then return end
    write("\n", paint("1;36", rule("═", text)), "\n")
end

-- lesson.say[[prose]]: a paragraph for the reader, before the step it explains.
-- lesson.say(fmt, ...): the same, with the numbers the lesson computed (string.format's).
function lesson.say(text, ...)
    check_string("say", 1, text)
    text = lesson.tr(text, ...)
    local translated = i18n.translated(text)
    text = prose.dedent(text)
    if mark("say", {text = text}) then return end
    if quiet() then return end
    write("\n", translated and prose.layout(text, lesson.width) or text, "\n")
end

-- lesson.skip(reason [, ...]): the lesson cannot run on this machine (the files it needs are not
-- there). The reason (formatted as lesson.say's) is printed: the lesson says what to do; and the lesson
-- ends cleanly: --check counts it as skipped, neither passed nor failed.
local function skip_because(reason)
    write("\n", reason, "\n")
    if S.name == nil then -- run as a plain script (./attn lessons/NN_name.lua), not by a lesson mode
        io.stdout:flush()
        os.exit(0, true)
    end
    error(setmetatable({reason = reason:match("^[^\n]*")}, lesson.SKIP), 0)
end

function lesson.skip(reason, ...)
    check_string("skip", 1, reason)
    skip_because(prose.dedent(lesson.tr(reason, ...)))
end

-- lesson.needs{"gpt2 vocabulary", ...}: the files the lesson needs from here on that attn does not ship
-- (lesson/needs.lua names them); when one is missing the lesson is skipped (lesson.skip), saying where
-- attn looked and how to get it. One line outside the steps: the steps show the book's code only.
function lesson.needs(list)
    local what, why = require("attn.lesson.needs").missing(list)
    if what then skip_because(trf("This lesson needs %s, which attn did not find.", tr(what)) .. "\n" .. why) end
end

-- What the REPL would print for a value: tensors as PyTorch prints them.
local function render(v)
    if type(v) == "table" and not getmetatable(v) then
        local parts = {}
        for i = 1, #v do parts[i] = render(v[i]) end
        return "{" .. table.concat(parts, ", ") .. "}"
    end
    return compare.render(v)
end

-- lesson.show(name, value) or lesson.show(value): prints the value as the REPL would.
function lesson.show(name, ...)
    local value = ...
    if select("#", ...) == 0 then name, value = nil, name end
    if type(name) == "string" and name:find(" ") then name = tr(name) end   -- not a code name
    local text = render(value)
    -- the colon after a label: after translated text ending in a wide character (Chinese) the
    -- language's own ("%s:" is "%s：" in Chinese, with no space after it); after code (a name, a call
    -- kept as it is) Python's "name: value"
    local last = type(name) == "string" and name:match("[%z\1-\127\194-\244][\128-\191]*$")
    local wide = last and utf8.len(last) == 1 and width(last) == 2
    local label = wide and i18n.translated(name) and trf("%s:", name) or tostring(name) .. ":"
    local space = label:sub(-1) == ":" and " " or ""
    if name == nil then
        write(text, "\n")
    elseif text:find("\n", 1, true) then
        write(paint("2", label), "\n", text, "\n")
    else
        write(paint("2", label), space, text, "\n")
    end
end

-- The rule over a step: its number, of how many when the lesson's file is known, and its title. With
-- --clear it is the first line on the screen: the screen is cleared, then the rule, then what the
-- lesson printed since the last step (its section, its paragraphs).
local function step_head(title, src)
    local of = src and src.steps > 0 and ("/" .. src.steps) or ""
    local head = paint("33", rule("─", trf("step %s · %s", S.step .. of, title)))
    if not (S.nav.clear and screen.active()) or quiet() then return write("\n", head, "\n") end
    local before = screen.take()
    screen.clear()
    emit(head, "\n", before)
end

local function run_step(title, fn)
    local info = debug.getinfo(fn, "S")
    local src = source.get(info.source)
    local body = src and source.body(src, info.linedefined, info.lastlinedefined) or {}
    if not mark("step", {n = S.step, of = src and src.steps, title = title, code = body,
                         first_line = info.linedefined, last_line = info.lastlinedefined}) then
        step_head(title, src)
        local lines = code_lines(body)
        if #lines > 0 and S.mode ~= "line" then write(table.concat(lines, "\n"), "\n") end
    end
    if screen.active() and not quiet() then screen.show() end   -- the step's code, before it runs
    if not quiet() then return fn() end
    -- a quiet step (a skipped section, a replay) runs without output: the lesson's print is quiet,
    -- and the library's drawings (attention.heatmap, a tracer's steps) go to io.output(), here
    -- /dev/null; on an error the runner puts io.output() back
    local output, null = io.output(), io.open("/dev/null", "w")
    if null then io.output(null) end
    fn()
    io.output(output)
    if null then null:close() end
end

-- lesson.step(title, fn): echoes fn's source lines, then runs fn. Globals fn sets stay for later steps.
function lesson.step(title, fn)
    check_string("step", 1, title)
    title = tr(title)
    if type(fn) ~= "function" then
        errors.raisef("lesson.step: argument 2 must be a function, got %s", type(fn))
    end
    if S.stopping then error(S.stopping, 0) end   -- q, b, r or g pressed inside a pcall of the lesson
    S.step = S.step + 1
    S.run_to_step = false   -- --step=line: "c" runs to the next step
    S.nav.titles[S.step] = title
    local replaying = S.replaying
    run_step(title, fn)
    if replaying then
        S.replaying = S.step < S.target - 1   -- the target's paragraphs and section show
        return
    end
    if S.mode == "step" and not S.skipping and S.pause then S.pause(S) end
end

-- lesson.heatmaps{{title, t [, opts]}, ...}: matrices drawn with attention.heatmap (opts as there),
-- each under its title; next to each other when they fit in lesson.width columns, else one below
-- the other (lesson/heatmaps.lua). For patterns a lesson compares (a bidirectional and a causal mask).
-- {frames = title}: the same matrix at successive moments, frames the web page shows one at a time.
function lesson.heatmaps(list, opts)
    write(heatmaps.text(list, colored(), lesson.width, opts))
end

-- lesson.data, lesson.reference, lesson.check, lesson.agree and lesson.report_error: lesson/checks.lua,
-- which writes its lines through this file's output (the run's mode, colour, capture).
require("attn.lesson.checks").install(lesson, {state = function() return S end, mark = mark, emit = emit,
                                               write = write, paint = paint, check_string = check_string})

return lesson
