-- run.lua — the command-line lesson modes (module attn.lesson.run, called from src/cli/lessons.c):
-- run one lesson file in a mode, list lessons.
--
--   run.file(path, {mode = "step"|"line"|"check"|"run"|"record", tap = bool, first = n,
--                   from = n, clear = bool, reset = function, sink = function})
--       -> {status =, passed =, failed =, identities =, reason =}
--          status: "ok", "quit" (the user pressed q), "error", "skipped" (lesson.skip(reason): the
--          lesson cannot run here, e.g. a model's files are missing) or, in the step modes, "interrupted"
--          (Ctrl-C: it stops every lesson); identities: how many of the
--          passed + failed were lesson.agree's (the rest are lesson.check's)
--          from, clear: --from N and --clear (step modes); reset: puts the core's settings (the
--          generator, the dropout flavour, the print options) back to the lesson's start
--          (src/cli/lessons.c), before it runs again for step mode's b, r and g
--          sink: mode "record" (lesson/record.lua): the run as data, an error as a failed check
--   run.list(paths)                 prints "path  title" and, below the title, its source
--   run.resolve(name, dir)          the lesson file a name means: a path (with a / or .lua), or
--                                   dir/name[.lua] in attn's own lessons
--
-- In check mode the lesson's print and the library's drawings print nothing (the C side also gives
-- each lesson a state of its own, so that no lesson sees another's globals).

local lesson = require("attn.lesson")
local source = require("attn.lesson.source")
local keys = require("attn.lesson.keys")
local screen = require("attn.lesson.screen")
local term = require("attn.term")
local errors = require("attn.errors")
local files = require("attn.bind").files
local sandbox = require("attn.verify.sandbox")
local width = require("attn.text.width").of
local wrap = require("attn.text.wrap")
local tr, trf = require("attn.i18n").tr, require("attn.i18n").trf

local run = {}
local stdout, stderr = io.stdout, io.stderr

local function basename(path)
    return (path:match("([^/]*)$"):gsub("%.lua$", ""))
end

-- The line of the lesson being run when an error happened: the innermost frame in its chunk.
local function lesson_line(chunkname, level)
    while true do
        local info = debug.getinfo(level, "Sl")
        if not info then return nil end
        if info.source == chunkname and info.currentline > 0 then return info.currentline end
        level = level + 1
    end
end

---------------------------------------------------------------------------------------------------
-- --step=line: a line hook that stops before each line of the lesson's own code
---------------------------------------------------------------------------------------------------

local function skippable(text)
    return text:match("^%s*$") or text:match("^%s*%-%-") or text:match("^%s*end[%s%),;]*$")
        or text:match("^%s*else%s*$") or text:match("^%s*}[%s%),;]*$") or text:match("^%s*%)[%s,;]*$")
end

local function line_hook(chunkname, src)
    local S = lesson.state()
    local stop, stop_end, prev = nil, nil, nil   -- the last statement shown; the last line seen
    return function(_, line)
        if not S.stopping and (S.run_to_step or S.skipping or S.replaying) then return end
        local info = debug.getinfo(2, "S")
        if info.source ~= chunkname then return end
        if S.stopping then error(S.stopping, 0) end   -- q, b, r or g inside a pcall of the lesson
        -- back on the first line of a statement just shown, from its own continuation lines
        -- (`x = f{...}` over several lines runs on them, then assigns on the first): not again
        local again = line == stop and prev and prev > stop and prev <= stop_end
        prev = line
        if again or src.library[line] or src.continues[line] then return end
        local text = src.lines[line] or ""
        if skippable(text) then return end
        -- the whole statement: this line and the lines that continue it
        local lines, last = {text}, line
        while src.continues[last + 1] and not src.hidden[last + 1] do
            last = last + 1
            lines[#lines + 1] = src.lines[last]
        end
        stop, stop_end = line, last
        local indent = #text:match("^[ \t]*")
        for i, l in ipairs(lines) do lines[i] = l:sub(math.min(indent, #l:match("^[ \t]*")) + 1) end
        local shown = lesson.code_lines(lines)
        for i, l in ipairs(shown) do
            local num = i == 1 and string.format("%4d", line + i - 1) or "    "
            lesson.emit(lesson.paint("2", num .. " │"), l:sub(2), "\n")
        end
        keys.before_line(S)
    end
end

---------------------------------------------------------------------------------------------------
-- Running a lesson
---------------------------------------------------------------------------------------------------

local function summary(S)
    local text = trf("end of lesson · checks: %d passed, %d failed", S.passed, S.failed)
    if S.identities > 0 then text = text .. trf(" (%d of them identities)", S.identities) end
    lesson.emit("\n", lesson.paint("1;36", lesson.rule("═", text)), "\n")
end

-- The environment a lesson's chunk runs in: its globals are the program's (_G: what one step sets,
-- the next reads, as in a plain script run), its print obeys the run (lesson.print: nothing in check
-- mode or while a section is skipped). written records each global's value before the lesson's
-- first write to it, so that a run again from the start (b, r, g) starts from the same globals.
local function lesson_env(written)
    local env = {print = lesson.print}
    return setmetatable(env, {__index = _G, __newindex = function(_, k, v)
        if written[k] == nil then written[k] = {rawget(_G, k)} end
        _G[k] = v
    end})
end

local function restore_globals(written)
    for k, old in pairs(written) do _G[k] = old[1] end
end

-- An error that stopped the lesson, reported as the mode reports it: in check mode one more failed
-- check, named by the lesson's line when known (where); otherwise the message on stderr.
local function report(mode, path, err, where)
    if mode == "check" or mode == "record" then
        local msg = err:match("^[^\n]*")
        local plain = msg:gsub("^" .. path:gsub("%p", "%%%0") .. ":%d+: ", "")
        lesson.report_error(where and plain or msg, where)
    else
        screen.show()
        stdout:flush()
        stderr:write("attn: ", err, "\n")
    end
end

-- A lesson that calls os.exit would end the whole run, and with the status it chose: --check would
-- exit 0 after a failed check and never run the lessons after it. While a lesson runs, os.exit raises
-- an error instead, which the mode reports as any other (a failed check in check mode).
local function refuse_exit(code)
    error(string.format("os.exit(%s): a lesson cannot end the program; it ends when its last step has run",
                        code == nil and "" or tostring(code)), 2)
end

-- Runs the lesson's chunk; returns "ok", "quit" (q pressed) or "error" (reported). In check mode
-- io.output() (where the library's drawings go: attention.heatmap, a tracer's steps) is /dev/null.
local function run_chunk(chunk, path, mode)
    local chunkname = "@" .. path
    local src = source.read(path)
    local output = io.output()
    if mode == "check" then pcall(io.output, "/dev/null") end
    if mode == "line" and src then debug.sethook(line_hook(chunkname, src), "l") end
    local where
    local real_exit = os.exit
    os.exit = refuse_exit
    local ok, e = xpcall(chunk, function(e)
        -- q; b, r, g; Ctrl-C (src/cli/main.c)
        if e == lesson.QUIT or e == lesson.JUMP or errors.is_interrupt(e) then return e end
        if getmetatable(e) == lesson.SKIP then return e end
        where = lesson_line(chunkname, 2)
        return debug.traceback(errors.text(e), 2)
    end)
    debug.sethook()
    os.exit = real_exit
    if io.output() ~= output then
        io.output():close()
        io.output(output)
    end
    if ok then return "ok" end
    if errors.is_interrupt(e) then error(e, 0) end   -- stops every lesson, not just this one
    if e == lesson.JUMP then return "jump" end
    if getmetatable(e) == lesson.SKIP then return "skipped", e.reason end
    if e == lesson.QUIT then
        lesson.emit("\n")
        return "quit"
    end
    report(mode, path, e, where)
    return "error"
end

-- The lesson's chunk in its globals: attn's own lessons (and any with --trusted) in the program's
-- globals, text or binary; a lesson given by path in verify/sandbox.lua's restricted ones, as a note
-- of a stranger (its globals start afresh at each pass, as the program's are restored), text only.
local function load_lesson(path, how)
    if files.lesson_trusted(path) then return loadfile(path, "bt", lesson_env(how.written)) end
    local f, err = files.open(path)
    if not f then return nil, err end
    local text, rerr = f:read("a")
    f:close()
    if not text then return nil, path .. ": " .. tostring(rerr) end
    return load(text, "@" .. path, "t", sandbox.lesson_env(path, lesson.print))
end

-- Runs the lesson's chunk once from its start: a pass. Returns its state and how it ended.
local function pass(path, opts, how)
    local S = lesson.begin{name = basename(path), mode = how.mode, tap = opts.tap, first = opts.first,
                           target = how.target, source = how.source, nav = how.nav,
                           show_title = how.first_pass and how.target > 1,
                           pause = how.mode == "step" and keys.after_step or nil, sink = opts.sink}
    if S.replaying and screen.active() then screen.status(keys.replaying(how.target)) end
    local chunk, err = load_lesson(path, how)
    if chunk then
        local restricted = not files.lesson_trusted(path)
        if restricted then sandbox.confine(path) end
        local ok, status, reason = pcall(run_chunk, chunk, path, how.mode)
        if restricted then sandbox.release() end
        if not ok then error(status, 0) end
        local began = lesson.state()
        if began ~= S then -- the lesson called lesson.begin: its checks went to a run of its own
            lesson.report_error(trf("the lesson called lesson.begin, which only the runner may call"))
            S.passed, S.failed = S.passed + began.passed, S.failed + began.failed
            S.identities = S.identities + began.identities
        end
        S.skip_reason = reason
        -- a lesson that returned before its last step: in check mode the checks it skipped are not
        -- there to fail, so the lesson itself does (lesson.skip ends it as "skipped", not "ok")
        if status == "ok" and (how.mode == "check" or how.mode == "record") and how.source and S.step < how.source.steps then
            lesson.report_error(string.format("the lesson ended after step %d of its %d steps", S.step,
                                              how.source.steps))
        end
        return S, status
    end
    if how.mode == "check" or how.mode == "record" then lesson.report_error(err) else report(how.mode, path, err) end
    return S, "error"
end

-- In the step modes b, r and g end a pass with "jump": the lesson runs again from its start, from
-- the globals and core settings it started with, up to the step asked for.
local function passes(path, opts, how)
    local S, status
    repeat
        how.written = {}
        S, status = pass(path, opts, how)
        if status == "jump" then
            restore_globals(how.written)
            if opts.reset then opts.reset() end
            how.target, how.first_pass = S.jump, false
        end
    until status ~= "jump"
    return S, status
end

function run.file(path, opts)
    opts = opts or {}
    local mode = opts.mode or "run"
    local stepping = mode == "step" or mode == "line"
    source.forget(path)
    local src = source.read(path)
    if stepping and opts.from and src and opts.from > src.steps then
        report(mode, path, keys.from_too_far(opts.from, path, src.steps))
        return {status = "error", passed = 0, failed = 0, identities = 0}
    end
    if stepping and term.tty then screen.open(keys.more_line()) end
    local how = {mode = mode, target = stepping and opts.from or 1, source = src, first_pass = true,
                 nav = {clear = stepping and opts.clear or false, titles = {}}}
    local ok, S, status = pcall(passes, path, opts, how)
    if not ok then   -- Ctrl-C: every lesson stops (the C side)
        screen.close(true)
        if not (stepping and errors.is_interrupt(S)) then error(S, 0) end
        S, status = lesson.state(), "interrupted"
        stdout:flush()
        stderr:write("attn: ", keys.interrupted(S.step), "\n")
    end
    if status == "ok" and stepping then summary(S) end
    screen.close()
    return {status = status, passed = S.passed, failed = S.failed, identities = S.identities, reason = S.skip_reason}
end

---------------------------------------------------------------------------------------------------
-- Finding and listing lessons
---------------------------------------------------------------------------------------------------

local function exists(path)
    local f = require("attn.bind").files.open(path) -- core/safe_read.c: a FIFO refused, never waited on
    if f then f:close() end
    return f ~= nil
end

-- A path (a name with a "/" or ending in .lua) is that file; any other name is one of attn's own
-- lessons, in dir (found next to the executable by src/cli/lessons.c), never a file of the working
-- folder: running attn inside someone else's checkout must not run its lessons/ by a lesson's name.
function run.resolve(name, dir)
    if name:find("/", 1, true) or name:match("%.lua$") then return name end
    for _, p in ipairs({dir and dir .. "/" .. name .. ".lua", dir and dir .. "/" .. name}) do
        if p and exists(p) then return p end
    end
    return name   -- loadfile reports it missing
end

-- The line --check prints before "N passed, N failed" when some checks were identities (src/cli/lessons.c).
function run.check_summary(total, identities)
    return trf("%d checks: %d against the book or PyTorch, %d identities", total, total - identities, identities)
end

-- The line --check prints for a lesson that lesson.skip stopped (src/cli/lessons.c).
function run.skipped_line(n, path, reason)
    return trf("skipped %d: %s: %s", n, path, reason)
end

-- --list's lines: each lesson's path (relative to the current folder when it is inside it, as the user
-- would type it) and title; below, its sources, wrapped at cols when given (a terminal's width: wrapped
-- by the terminal itself they would leave "，§3.4" alone on a line), never before closing punctuation.
function run.list_lines(paths, cols)
    local here = files.realpath(".")
    local shown = {}
    for i, p in ipairs(paths) do
        local full = files.realpath(p)
        shown[i] = (here and full and full:sub(1, #here + 1) == here .. "/") and full:sub(#here + 2) or p
    end
    local w = 0
    for _, p in ipairs(shown) do w = math.max(w, width(p)) end
    local lines = {}
    for i, p in ipairs(paths) do
        local info, err = source.read(p)
        local title = info and (info.title and tr(info.title) or tr("(no lesson.title)"))
            or trf("(cannot read: %s)", tostring(err))
        lines[#lines + 1] = shown[i] .. string.rep(" ", w - width(shown[i]) + 2) .. title
        -- the source names a book and its sections: too long to share the title's line
        if info and info.origin then
            local origin = tr(info.origin)
            local parts = cols and wrap.line(origin, math.max(30, cols - w - 3)) or {origin}
            for _, part in ipairs(parts) do lines[#lines + 1] = string.rep(" ", w + 2) .. lesson.paint("2", part) end
        end
    end
    return lines
end

function run.list(paths)
    local cols = term.size and select(2, term.size())
    for _, l in ipairs(run.list_lines(paths, cols)) do stdout:write(l, "\n") end
    return #paths
end

return run
