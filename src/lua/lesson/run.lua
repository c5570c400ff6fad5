-- run.lua — the command-line lesson modes (module attn.lesson.run, called from src/cli/lessons.c):
-- run one lesson file in a mode, list lessons.
--
--   run.file(path, {mode = "step"|"line"|"check"|"run", tap = bool, first = n})
--       -> {status =, passed =, failed =, identities =}
--          status: "ok", "quit" (the user pressed q) or "error"; identities: how many of the
--          passed + failed were lesson.agree's (the rest are lesson.check's)
--   run.list(paths)                 prints "path  title" and, below the title, its source
--   run.resolve(name, dir)          the lesson file a name means: a path, or dir/name[.lua]
--
-- In check mode the lesson's print and the library's drawings print nothing (the C side also gives
-- each lesson a state of its own, so that no lesson sees another's globals).

local lesson = require("attn.lesson")
local source = require("attn.lesson.source")
local errors = require("attn.errors")
local width = require("attn.text.width").of

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

local LINE_PROMPT = "[Enter] next line · c continue to the next step · q quit"

local function skippable(text)
    return text:match("^%s*$") or text:match("^%s*%-%-") or text:match("^%s*end[%s%),;]*$")
        or text:match("^%s*else%s*$") or text:match("^%s*}[%s%),;]*$") or text:match("^%s*%)[%s,;]*$")
end

local function line_hook(chunkname, src)
    local S = lesson.state()
    local stop, stop_end, prev = nil, nil, nil   -- the last statement shown; the last line seen
    return function(_, line)
        if S.run_to_step or S.skipping then return end
        local info = debug.getinfo(2, "S")
        if info.source ~= chunkname then return end
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
        while true do
            local key = lesson.ask(LINE_PROMPT)
            if key == "q" then error(lesson.QUIT, 0) end
            if key == "c" then S.run_to_step = true return end
            if key == "\n" or key == " " then return end
        end
    end
end

---------------------------------------------------------------------------------------------------
-- Running a lesson
---------------------------------------------------------------------------------------------------

local function summary(S)
    local text = string.format("end of lesson · checks: %d passed, %d failed", S.passed, S.failed)
    if S.identities > 0 then text = text .. string.format(" (%d of them identities)", S.identities) end
    lesson.emit("\n", lesson.paint("1;36", lesson.rule("═", text)), "\n")
end

-- The environment a lesson's chunk runs in: its globals are the program's (_G: what one step sets,
-- the next reads, as in a plain script run), its print obeys the run: nothing in check mode or while
-- a section is skipped.
local function lesson_env()
    local env = {print = function(...) if not lesson.quiet() then print(...) end end}
    return setmetatable(env, {__index = _G, __newindex = _G})
end

-- An error that stopped the lesson, reported as the mode reports it: in check mode one more failed
-- check, named by the lesson's line when known (where); otherwise the message on stderr.
local function report(mode, path, err, where)
    if mode == "check" then
        local msg = err:match("^[^\n]*")
        local plain = msg:gsub("^" .. path:gsub("%p", "%%%0") .. ":%d+: ", "")
        lesson.report_error(where and plain or msg, where)
    else
        stdout:flush()
        stderr:write("attn: ", err, "\n")
    end
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
    local ok, e = xpcall(chunk, function(e)
        if e == lesson.QUIT or errors.is_interrupt(e) then return e end   -- q; Ctrl-C (src/cli/main.c)
        where = lesson_line(chunkname, 2)
        return debug.traceback(errors.text(e), 2)
    end)
    debug.sethook()
    if io.output() ~= output then
        io.output():close()
        io.output(output)
    end
    if ok then return "ok" end
    if errors.is_interrupt(e) then error(e, 0) end   -- stops every lesson, not just this one
    if e == lesson.QUIT then
        lesson.emit("\n")
        return "quit"
    end
    report(mode, path, e, where)
    return "error"
end

function run.file(path, opts)
    opts = opts or {}
    local mode = opts.mode or "run"
    local S = lesson.begin{name = basename(path), mode = mode, tap = opts.tap, first = opts.first}
    source.forget(path)
    local chunk, err = loadfile(path, "bt", lesson_env())
    local status = "error"
    if chunk then
        status = run_chunk(chunk, path, mode)
    elseif mode == "check" then
        lesson.report_error(err)
    else
        report(mode, path, err)
    end
    if status == "ok" and (mode == "step" or mode == "line") then summary(S) end
    return {status = status, passed = S.passed, failed = S.failed, identities = S.identities}
end

---------------------------------------------------------------------------------------------------
-- Finding and listing lessons
---------------------------------------------------------------------------------------------------

local function exists(path)
    local f = io.open(path, "rb")
    if f then f:close() end
    return f ~= nil
end

function run.resolve(name, dir)
    if exists(name) then return name end
    for _, p in ipairs({dir and dir .. "/" .. name, dir and dir .. "/" .. name .. ".lua"}) do
        if p and exists(p) then return p end
    end
    return name   -- loadfile reports it missing
end

function run.list(paths)
    local w = 0
    for _, p in ipairs(paths) do w = math.max(w, width(p)) end
    for _, p in ipairs(paths) do
        local info, err = source.read(p)
        local title = info and (info.title or "(no lesson.title)") or ("(cannot read: " .. tostring(err) .. ")")
        stdout:write(p, string.rep(" ", w - width(p) + 2), title, "\n")
        -- the source names a book and its sections: too long to share the title's line
        if info and info.origin then
            stdout:write(string.rep(" ", w + 2), lesson.paint("2", info.origin), "\n")
        end
    end
    return #paths
end

return run
