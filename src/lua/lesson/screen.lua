-- screen.lua — step mode's output on a terminal (module attn.lesson.screen): what a step prints is
-- held in a spool until a key is asked for, then shown a screenful at a time, with a "more" line
-- when it is taller than the window, so that nothing scrolls away unseen; and the screen can be
-- cleared so that a step starts on its top line. Off a terminal (a pipe, --check, a plain run) the
-- screen is not open and the lesson library writes straight to stdout.
--
--   screen.open(more)     opens it (--step and --step=line on a terminal): io.output() becomes the
--                         spool, so the library's drawings (attention.heatmap, a tracer's steps)
--                         come in order with the lesson library's text; more: the "more" line
--   screen.close()        shows what is left; io.output() back to what it was
--   screen.active()       open or not
--   screen.write(...)     into the spool (the lesson library's emit)
--   screen.take()         the text spooled and not shown yet, taken out (shown again after a clear)
--   screen.show()         shows the spooled text; when the rows written since the last key would
--                         fill the window, the "more" line waits for a key: Enter or space the next
--                         screenful, q the rest of this output unseen (until the next key is asked)
--   screen.prompt(text)   shows the spool, then text (a key line) below it
--   screen.seen()         a key was pressed: what is on the screen has been read
--   screen.clear()        clears the window: what comes next starts on its top line
--   screen.status(text)   a line shown until the next output ("running the lesson ... without output")

local term = require("attn.term")
local width = require("attn.text.width")

local screen = {}
local stdout = io.stdout

local spool = nil      -- the spool file (io.tmpfile) while open
local shown_to = 0     -- how far into the spool has been shown
local saved_output     -- io.output() before open
local more_line = ""
local rows_used = 0    -- rows written since the last key press
local column = 0       -- columns used on the current row (a line not ended yet)
local dropping = false -- q at "more": the rest is not shown until the next key is asked
local status_on = false

function screen.active() return spool ~= nil end

function screen.open(more)
    if spool then return end
    spool = io.tmpfile()
    if not spool then return end
    saved_output = io.output()
    io.output(spool)
    more_line, shown_to, rows_used, column, dropping, status_on = more or "", 0, 0, 0, false, false
end

function screen.write(...)
    spool:write(...)
end

function screen.take()
    if not spool then return "" end
    local stop = spool:seek("end")
    spool:seek("set", shown_to)
    local text = spool:read(stop - shown_to) or ""
    shown_to = spool:seek("end")
    return text
end

local function erase_status()
    if status_on then
        stdout:write("\r\27[K")
        status_on = false
    end
end

-- Waits at the "more" line for Enter or space (true: the next screenful) or q (false); other keys
-- are not taken, so that a b or g typed too early does nothing unseen.
local function more()
    stdout:write(more_line)
    stdout:flush()
    local key
    repeat
        key = term.readkey and term.readkey() or "\n"
    until key == "\n" or key == " " or key == "q"
    stdout:write("\r\27[K")
    rows_used = 0
    return key ~= "q"
end

-- The rows a line of text takes at the terminal's width, from the current column on.
local function rows_of(line, cols)
    local w = column + width.of(width.plain(line))
    return math.max(1, (w + cols - 1) // cols)
end

function screen.show()
    local text = screen.take()
    erase_status()
    if text == "" or dropping then return end
    local rows, cols
    if term.size then rows, cols = term.size() end
    if not rows then
        stdout:write(text)
        stdout:flush()
        return
    end
    local page = math.max(1, rows - 1)   -- the last row is for the "more" line or the key line
    for line, newline in text:gmatch("([^\n]*)(\n?)") do
        if line == "" and newline == "" then break end
        if newline == "" then            -- the end of the text, not a whole line yet
            stdout:write(line)
            column = column + width.of(width.plain(line))
        else
            local n = rows_of(line, cols)
            if rows_used > 0 and rows_used + n > page then
                if not more() then
                    dropping = true
                    break
                end
            end
            stdout:write(line, "\n")
            rows_used, column = rows_used + n, 0
        end
    end
    stdout:flush()
end

function screen.prompt(text)
    screen.show()
    stdout:write(text)
    stdout:flush()
end

function screen.seen()
    rows_used, dropping = 0, false
end

function screen.clear()
    erase_status()
    stdout:write("\27[H\27[2J")
    rows_used, column = 0, 0
end

function screen.status(text)
    stdout:write("\r\27[K", text)
    stdout:flush()
    status_on = true
end

-- discard: the rest is not shown (Ctrl-C)
function screen.close(discard)
    if not spool then return end
    if discard then
        screen.take()
        stdout:write("\r\27[K")   -- a "more" line or a prompt Ctrl-C cut short
    end
    screen.show()
    io.output(saved_output)
    spool:close()
    spool = nil
end

return screen
