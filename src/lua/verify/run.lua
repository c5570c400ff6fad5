-- run.lua — `attn --verify notes.md` on one file (module attn.verify.run, called by src/cli/notes.c,
-- which gives each file a Lua state of its own).
--
--   run.file(path, {update =, trusted =, seconds =, megabytes =, over_time =})
--       -> {passed =, failed =, skipped =, new_text =, update_line =}
--     skipped: 1 when a block called lesson.skip (what the notes need is not on this machine: the
--     rest of the file does not run, and it counts as neither passed nor failed)
--     trusted: the notes get the program's globals, not verify/sandbox.lua's restricted ones
--     over_time(): true once the file's time budget (seconds) is spent (src/cli/notes.c)
--     report(text): where the lines of the report go (src/cli/notes.c's pipe; default io.stdout)
--     new_text, update_line: with update, the file's new text (nil when unchanged) and the line to
--     print once src/cli/notes.c has written it
--
-- The file's ```lua blocks run in order in one environment, as cells of a notebook: a block's
-- globals stay for the next. What a block prints (print, io.write, the lesson library, heatmaps,
-- the tracer) is compared with its output block (verify/output.lua). Each block that runs counts
-- once: passed when it raised no error and printed what its output block shows (or has none). A
-- failure is printed as "✗ file:line: ..." with the explanation under it; a file that cannot be
-- read as notes (verify/blocks.lua's problems) counts one failure per problem and runs nothing.
-- With update, output blocks that differ are rewritten and missing ones added (verify/rewrite.lua),
-- unless a block failed with an error: then the file is left as it was.

local blocks = require("attn.verify.blocks")
local output = require("attn.verify.output")
local rewrite = require("attn.verify.rewrite")
local sandbox = require("attn.verify.sandbox")
local lesson = require("attn.lesson")
local errors = require("attn.errors")
local warnings = require("attn.warnings")
local tr, trf = require("attn.i18n").tr, require("attn.i18n").trf
local python_habits = require("attn.text.python_habits")

local run = {}

-- Where the report's lines go: opts.report (src/cli/notes.c's pipe to attn's process, which prints them:
-- the notes' process has no handle on attn's standard output), else io.stdout.
local report = function(text) io.stdout:write(text) end

local function fail(path, line, message, lines)
    local out = {"✗ ", path, ":", tostring(line), ": ", message, "\n"}
    for _, l in ipairs(lines or {}) do out[#out + 1] = "    " .. l .. "\n" end
    report(table.concat(out))
end

-- The innermost line of the notes on the stack (the error handler's caller is level 2).
local function notes_line(chunkname)
    for level = 3, 200 do
        local info = debug.getinfo(level, "Sl")
        if not info then return nil end
        if info.source == chunkname and info.currentline > 0 then return info.currentline end
    end
end

-- Runs one block: what it printed, and nil or the error ({line =, message =, interrupted =}).
local function run_block(path, cell, env, opts)
    local code = cell.code
    -- blank lines first, so that the chunk's line numbers are the notes' own
    local chunk, err = load(string.rep("\n", code.line) .. code.code, "@" .. path, "t", env)
    if not chunk then
        return "", {line = tonumber(err:match(":(%d+):")) or code.line, message = errors.message(err)}
    end
    local sink = io.tmpfile()
    local saved = io.output()
    io.output(sink)
    -- named, so that lesson.skip ends the block (a plain script's lesson.skip ends attn)
    local S = lesson.begin{name = path, mode = "run", out = sink}
    local where
    local ok, e = xpcall(chunk, function(e)
        where = notes_line("@" .. path)
        return e
    end)
    io.output(saved)
    lesson.begin()
    -- a trusted note can close attn's output (io.close() through _G.io): the block fails, the file goes on
    if io.type(sink) ~= "file" then
        return "", {line = where or code.line, message = trf("the block closed attn's output (io.close)")}
    end
    sink:seek("set")
    local printed = sink:read("a") or ""
    sink:close()
    if ok then return printed, nil, S end
    if opts.over_time and opts.over_time() then return printed, {line = where or code.line, over_time = true} end
    if errors.is_interrupt(e) then return printed, {line = where or code.line, interrupted = true} end
    if getmetatable(e) == lesson.SKIP then return printed, {line = where or code.line, skipped = e.reason} end
    local text = errors.text(e)
    local at = tonumber(text:match("^" .. path:gsub("%p", "%%%0") .. ":(%d+): "))
    local message = errors.message(text)
    if message == "not enough memory" and opts.megabytes then
        message = trf("not enough memory (a notes file may take %d MB; --trusted lifts this)", opts.megabytes)
    end
    return printed, {line = at or where or code.line, message = message}
end

local function read_file(path)
    local f, err = require("attn.bind").files.open(path)
    if not f then return nil, err end
    local text, rerr = f:read("a")
    f:close()
    if not text then return nil, path .. ": " .. tostring(rerr) end
    return text
end

-- A block that raised an error, was interrupted or called lesson.skip, reported: the count it adds to
-- ("failed" or "skipped") and true when the rest of the file is not run.
local function report_problem(path, cell, problem, opts)
    if problem.over_time then
        fail(path, problem.line, trf("the time budget of a notes file (%d s) is spent in the ```lua block at line %d; the rest of %s is not run",
                                     opts.seconds or 0, cell.code.line, path))
        return "failed", true
    elseif problem.interrupted then
        fail(path, problem.line, trf("interrupted (Ctrl-C) in the ```lua block at line %d; the rest of %s is not run",
                                     cell.code.line, path))
        return "failed", true
    elseif problem.skipped then
        -- lesson.skip: what the notes need is not on this machine (a model's files)
        report(trf("skipped: %s:%s: %s — the rest of %s is not run", path, tostring(problem.line),
                   problem.skipped, path) .. "\n")
        return "skipped", true
    end
    -- a Python habit gets the prompt's hint (text/python_habits.lua: "Lua has no @: ...")
    local message = python_habits.hint(problem.message, cell.code.code or "")
    fail(path, problem.line, trf("error in the ```lua block at line %d: %s", cell.code.line, message))
    return "failed", false
end

-- A block that ran, judged by what it printed: true when it passes (unchecked, no output block, the
-- same output, or with update a new output block kept in outputs[i]).
local function check_output(path, i, cell, printed, opts, outputs)
    if cell.unchecked then return true end
    if not cell.output then   -- nothing to compare with
        if opts.update then outputs[i] = output.normal(printed) end
        return true
    end
    local ok, why = output.compare(cell.output.code, printed, cell.output.line + 1)
    if ok then return true end
    if opts.update then
        outputs[i] = output.normal(printed)
        return true
    end
    fail(path, why.line, trf("the output differs from the ```output block (the ```lua block at line %d)",
                             cell.code.line), why.text)
    return false
end

-- With update: the file's new text, with the output blocks in outputs, into result.new_text, and the line that says so into result.update_line. The file itself
-- is written by attn's process that never ran the notes (src/cli/notes.c), which prints the line once
-- the file is written: the notes' process writes nothing.
-- A block that raised an error has no entry in outputs: its output block stays as it was, and the
-- blocks that ran are still brought up to date (a wrong number fixed even when another block fails).
local function update_file(path, text, notes, outputs, errored, result)
    local new, changed, added = rewrite.apply(notes, outputs)
    if new ~= text then result.new_text = new end
    if errored > 0 then
        result.update_line = trf("%s: updated (output blocks rewritten: %d, added: %d; blocks with an error left as "
                                 .. "they were: %d)", path, changed, added, errored)
    else
        result.update_line = trf("%s: updated (output blocks rewritten: %d, added: %d)", path, changed, added)
    end
end

-- The lines src/cli/notes.c prints for a file whose process did not report its counts, or whose
-- rewrite it could not write (translated here, where the catalogs are): run.parent_line(what, path,
-- detail), detail a string (a number of seconds, a signal, an exit status, a reason).
local function N(msgid) return msgid end
local PARENT_LINES = {
    irregular = N("✗ %s: not a regular file (notes are Markdown files)"),
    cannot_run = N("✗ %s: cannot run the notes: %s"),
    over_time = N("✗ %s: the notes ran past their time budget (%s s) and were stopped"),
    died = N("✗ %s: the notes' process died (%s) before the end of the file"),
    exited = N("✗ %s: the notes ended attn's run of them before the end of the file (exit status %s)"),
    not_written = N("✗ %s:0: %s"),
}
function run.parent_line(what, path, detail)
    return trf(PARENT_LINES[what], path, detail)
end

function run.file(path, opts)
    opts = opts or {}
    if opts.report then report = opts.report end
    -- PyTorch's warnings are not output: a transcript's blocks never hold them; they go to the report
    warnings.set_sink(function(text) report(text) end)
    local result = {passed = 0, failed = 0, skipped = 0}
    local text, err = read_file(path)
    if not text then
        fail(path, 0, trf("cannot read: %s", tostring(err)))
        result.failed = 1
        return result
    end
    local notes, problems = blocks.read(text)
    if not notes then
        for _, p in ipairs(problems) do fail(path, p.line, p.message) end
        result.failed = #problems
        return result
    end
    local env = sandbox.env(path, opts.trusted, function(...) io.write(...) end)
    local outputs, errored = {}, 0
    for i, cell in ipairs(notes.cells) do
        if not cell.skip then
            local printed, problem = run_block(path, cell, env, opts)
            if problem then
                errored = errored + 1
                local count, stop = report_problem(path, cell, problem, opts)
                result[count] = result[count] + 1
                if stop then break end
            elseif check_output(path, i, cell, printed, opts, outputs) then
                result.passed = result.passed + 1
            else
                result.failed = result.failed + 1
            end
        end
    end
    if opts.update then update_file(path, text, notes, outputs, errored, result) end
    return result
end

return run
