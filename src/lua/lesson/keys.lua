-- keys.lua — the keys of step mode (module attn.lesson.keys): what --step asks after each step and
-- --step=line before each line of the lesson's code, and what each key does.
--
--   keys.after_step(S)    --step: Enter or space next, b back, r repeat, g N Enter go to step N,
--                         l the list of steps, s the rest of the section unseen, c clear the screen
--                         before each step (on/off), ? the keys, q quit
--   keys.before_line(S)   --step=line: Enter or space run the line, c run to the next step, and b, r,
--                         g, l, ?, q as above
--   keys.ask(prompt)      one key, asked below prompt (erased once answered on a terminal)
--
-- b, r and g stop the run with lesson.JUMP and S.jump set to the step wanted; the runner
-- (lesson/run.lua) runs the lesson again from its start, without output up to the step before that
-- one. Lessons compute the same thing every time (each seeds the generator it uses), so a step shown
-- again prints what it printed the first time, and each step's checks are counted once, in the run
-- that reached the end.

local lesson = require("attn.lesson")
local term = require("attn.term")
local screen = require("attn.lesson.screen")
local width = require("attn.text.width").of

local keys = {}
local stdout = io.stdout

-- The messages of step mode, whole sentences each, translated through attn.i18n's catalogs (the
-- constants below are marked with tr's twin N so that xgettext finds them: lessons/README.md).
local tr, trf = require("attn.i18n").tr, require("attn.i18n").trf
local function N(msgid) return msgid end

local STEP_KEYS = N("[Enter] next · b back · r repeat · g go to · l list · s next section · c clear · ? keys · q quit")
local STEP_KEYS_SHORT = N("[Enter] next · b back · r repeat · g go to · l list · ? all keys · q quit")
local LINE_KEYS = N("[Enter] next line · c continue to the next step · b back · r repeat · g go to · l list · ? keys · q quit")
local FIRST_STEP = N("this is the first step: there is none before it (r shows it again)")
local LINE_KEYS_SHORT = N("[Enter] next line · c next step · b back · g go to · ? all keys · q quit")
local STEP_HELP = N[[
Keys after a step:
  Enter, space  the next step
  b             back one step
  r             this step again
  g             go to a step: type its number, then Enter
  l             the list of steps
  s             the rest of this section without output
  c             clear the screen before each step (again: stop clearing it)
  ?             these keys
  q             quit
Going back runs the lesson again from its start, without output, up to the step before the one
shown; a lesson computes the same every time, so that step prints what it printed before.]]
local LINE_HELP = N[[
Keys before a line of the lesson:
  Enter, space  run this line
  c             run the rest of this step, stop at the next one
  b             back to the first line of the step before this one
  r             this step again, from its first line
  g             go to the first line of a step: type its number, then Enter
  l             the list of steps
  ?             these keys
  q             quit]]
local GOTO_PROMPT = N("go to step (1 to %d, Enter alone: stay here): ")
local NO_SUCH_STEP = N("there is no step %s: this lesson's steps are 1 to %d")
local LIST_HEAD = N("the steps of this lesson (▸ marks this one):")
local UNKNOWN_TITLE = N("(a title the lesson computes when it runs)")
local CLEAR_ON = N("from the next step on, the screen is cleared before each step")
local CLEAR_OFF = N("from the next step on, the screen is no longer cleared")

local paint, emit = lesson.paint, lesson.emit

-- The key line that fits the terminal: all the keys, or the main ones and "?" (below 97 columns).
local function key_line(long, short)
    local cols = term.size and select(2, term.size())
    if cols and width(tr(long)) > cols then return tr(short) end
    return tr(long)
end

-- Shows prompt below what the lesson printed (a screenful at a time on a terminal).
local function show_prompt(prompt)
    prompt = paint("2", prompt)
    if screen.active() then
        screen.prompt(prompt)
    else
        emit(prompt)
        stdout:flush()
    end
end

function keys.ask(prompt)
    show_prompt(prompt)
    local key = term.readkey and term.readkey() or "\n"
    if screen.active() then stdout:write("\r\27[K") else emit("\n") end
    screen.seen()
    return key
end

-- Stops the run with how (lesson.QUIT or lesson.JUMP); lesson.step and the line hook raise it again
-- if the lesson's own pcall caught it.
local function stop(S, how)
    S.stopping = how
    error(how, 0)
end

local function jump(S, n)
    S.jump = n
    stop(S, lesson.JUMP)
end

-- g: the step number typed after it, or nil (Enter alone, a number out of range: said, and stay).
local function ask_step(steps)
    show_prompt(trf(GOTO_PROMPT, steps))
    local line, echoed
    if term.readline then line, echoed = term.readline() end
    if screen.active() then
        -- the terminal echoed the line and its Enter: up one row to erase the question with it
        stdout:write(line and echoed and "\27[A\r\27[K" or "\r\27[K")
    else
        emit("\n")
    end
    screen.seen()
    line = line and line:match("^%s*(.-)%s*$") or ""
    if line == "" then return nil end
    local n = math.tointeger(tonumber(line))
    if n and n >= 1 and n <= steps then return n end
    emit(trf(NO_SUCH_STEP, line, steps), "\n")
    return nil
end

-- l: every step's number and title under its section, the current one marked.
local function list(S, steps)
    local src = S.source or {step_titles = {}, sections = {}}
    local out, k = {paint("1", tr(LIST_HEAD)), "\n"}, 1
    for i = 1, steps do
        while src.sections[k] and src.sections[k].first <= i do
            out[#out + 1] = "  " .. paint("36", tr(src.sections[k].title)) .. "\n"
            k = k + 1
        end
        local title = S.nav.titles[i] or (src.step_titles[i] and tr(src.step_titles[i])) or tr(UNKNOWN_TITLE)
        local line = string.format("  %s %3d  %s", i == S.step and "▸" or " ", i, title)
        out[#out + 1] = (i == S.step and paint("1", line) or line) .. "\n"
    end
    emit(table.concat(out))
end

-- The keys both modes have. Returns false for a key that is none of them; r, b (but on step 1), g and q
-- do not return.
local function common(S, key)
    local steps = S.source and S.source.steps or S.step
    local here = math.max(S.step, 1)
    if key == "q" then
        stop(S, lesson.QUIT)
    elseif key == "r" then
        jump(S, here)
    elseif key == "b" and here <= 1 then -- nothing before the first step: say so and stay
        emit(paint("2", tr(FIRST_STEP)), "\n")
    elseif key == "b" then
        jump(S, here - 1)
    elseif key == "g" then
        local n = ask_step(math.max(steps, 1))
        if n then jump(S, n) end
    elseif key == "l" then
        list(S, steps)
    elseif key == "?" then
        local keys_help = S.mode == "line" and LINE_HELP or STEP_HELP
        emit(tr(keys_help), "\n")
    else
        return false
    end
    return true
end

function keys.after_step(S)
    while true do
        local key = keys.ask(key_line(STEP_KEYS, STEP_KEYS_SHORT))
        if key == "\n" or key == " " then return end
        if key == "s" then
            S.skipping = true
            return
        elseif key == "c" then
            S.nav.clear = not S.nav.clear
            emit(paint("2", tr(S.nav.clear and CLEAR_ON or CLEAR_OFF)), "\n")
        else
            common(S, key)
        end
    end
end

function keys.before_line(S)
    while true do
        local key = keys.ask(key_line(LINE_KEYS, LINE_KEYS_SHORT))
        if key == "\n" or key == " " then return end
        if key == "c" then
            S.run_to_step = true
            return
        end
        common(S, key)
    end
end

-- The message shown while a run goes without output to its target step (lesson/run.lua).
function keys.replaying(target)
    return paint("2", trf("running the lesson up to step %d without output…", target))
end

-- --from N beyond the lesson's last step.
function keys.from_too_far(from, path, steps)
    return trf("--from %d: %s has %d steps", from, path, steps)
end

-- Ctrl-C in step mode (on stderr).
function keys.interrupted(step)
    if step < 1 then return tr("interrupted") end
    return trf("interrupted at step %d (--from %d starts there again)", step, step)
end

-- The "more" line: a step's output taller than the window (lesson/screen.lua).
function keys.more_line()
    return paint("7", tr("-- more -- [Enter] next screen · q skip the rest of this output"))
end

return keys
