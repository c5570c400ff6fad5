-- source.lua — what the lesson library knows about a lesson's source file (module
-- attn.lesson.source): its lines, how many steps it has, its title, which lines are calls of the
-- lesson library itself. Read with attn's Lua tokenizer (text/tokens.lua), so that a "lesson.step" inside a string or
-- a comment is not counted and a check's multi-line expected text is known to be one call.
--
--   source.get(chunkname) -> info or nil     chunkname as debug.getinfo gives it ("@lessons/x.lua")
--   source.read(path)     -> info or nil, err
--   info.lines            the file's lines
--   info.steps            number of lesson.step calls
--   info.step_titles[n]   the title of step n when it is written as a string (nil when computed)
--   info.sections         {{title =, first = n}, ...}: each lesson.section with a written title, and the
--                         number of the first step after it (step mode's list of steps)
--   info.title, info.origin   the arguments of lesson.title (nil when absent)
--   info.hidden[l]        line l belongs to a lesson.check, lesson.agree, lesson.show or
--                         lesson.heatmaps call (not echoed: a check's expected side is the book's
--                         text, which a lesson never prints as its own; agree prints its own ≡ line;
--                         show and heatmaps only display what the step computed)
--   info.checks[l]        line l belongs to a lesson.check or lesson.agree call (a handout shows the
--                         checks as text after the step's code: lesson/record.lua)
--   info.library[l]       line l belongs to a call of the lesson library (say, section, ...) or is a
--                         step's own first or last line (--step=line does not stop there)
--   info.continues[l]     line l continues a statement begun on an earlier line (inside brackets
--                         or a long string): --step=line shows it with the line it continues
--   info.step_lines       {{first, last}, ...}: the lines of each lesson.step call
--   info.comments[l]      the comment ending line l: {at = its byte, text = after "-- "} (not "-- Python: ...")
--   source.line(info, l)  line l with its comment in the reader's language
--   source.code_lines(lines, dim) -> the echo of a step's code: each line two spaces in, the
--                         `-- Python: ...` comments aligned in one column and passed through dim

local tokenize = require("attn.text.tokens").tokenize
local tr = require("attn.i18n").tr
local files = require("attn.bind").files
local width = require("attn.text.width").of

local source = {}
local cache = {}
local OPENS = {["function"] = true, ["do"] = true, ["if"] = true, ["repeat"] = true}

-- The value of a string token (a literal: loading it runs nothing).
local function string_value(tok)
    if not tok or tok.kind ~= "string" then return nil end
    local f = load("return " .. tok.text, "=string", "t", {})
    local ok, v = pcall(f or function() end)
    return ok and type(v) == "string" and v or nil
end

-- Index of the token that closes the bracket opened at tokens[k].
local function closing(tokens, k)
    local open = tokens[k].text
    local close = ({["("] = ")", ["{"] = "}", ["["] = "]"})[open]
    local depth = 0
    for j = k, #tokens do
        local t = tokens[j].text
        if tokens[j].kind == "sym" then
            if t == open then depth = depth + 1 elseif t == close then depth = depth - 1 end
            if depth == 0 then return j end
        end
    end
    return #tokens
end

-- The file's lines, without the empty one after a final newline.
local function split_lines(text)
    local lines = {}
    for line in (text .. "\n"):gmatch("(.-)\r?\n") do lines[#lines + 1] = line end
    if text:sub(-1) == "\n" then lines[#lines] = nil end
    return lines
end

-- The line of every token (tokens come in source order): t.line where it starts, t.last where it ends.
local function number_lines(text, tokens)
    local line, pos = 1, 1
    for _, t in ipairs(tokens) do
        local _, nl = text:sub(pos, t.s - 1):gsub("\n", "")
        line = line + nl
        pos = t.s
        t.line = line
        t.last = line + select(2, t.text:gsub("\n", ""))
    end
end

-- Continuation lines: open brackets at the start of the line, counted afresh inside each block
-- (a step's body is inside lesson.step's parentheses, but its lines are statements).
local function mark_continues(tokens, continues)
    local frames, seen = {0}, 0
    for _, t in ipairs(tokens) do
        if t.line > seen then
            if frames[#frames] > 0 then continues[t.line] = true end
            seen = t.last
        end
        for l = t.line + 1, t.last do continues[l] = true end
        seen = math.max(seen, t.last)
        if t.kind == "name" and OPENS[t.text] then
            frames[#frames + 1] = 0
        elseif t.kind == "name" and (t.text == "end" or t.text == "until") then
            if #frames > 1 then frames[#frames] = nil end
        elseif t.kind == "sym" and (t.text == "(" or t.text == "{" or t.text == "[") then
            frames[#frames] = frames[#frames] + 1
        elseif t.kind == "sym" and (t.text == ")" or t.text == "}" or t.text == "]") then
            frames[#frames] = math.max(0, frames[#frames] - 1)
        end
    end
end

-- The calls that step mode hides (not echoed): a check's expected side is the book's text, which a
-- lesson never prints as its own; agree prints its own ≡ line; show and heatmaps only display.
local HIDDEN = {check = true, agree = true, show = true, heatmaps = true}

-- One call lesson.<name>(...) found at tokens[k], ending at tokens[last]: what it tells about the file.
-- first_arg is its first argument's token when that is a string written as such.
local function note_call(info, tokens, k, last, name, first_arg, starts_line)
    local first_line, last_line = tokens[k].line, tokens[last].last
    if name == "step" then
        info.steps = info.steps + 1
        info.step_lines[#info.step_lines + 1] = {first_line, last_line}
        info.step_titles[info.steps] = string_value(first_arg)
        info.library[first_line] = true
        info.library[last_line] = true
    else
        for l = first_line, last_line do info.library[l] = true end
        if HIDDEN[name] and starts_line then
            for l = first_line, last_line do info.hidden[l] = true end
            if name == "check" or name == "agree" then
                for l = first_line, last_line do info.checks[l] = true end
            end
        end
    end
    if name == "section" and string_value(first_arg) then
        info.sections[#info.sections + 1] = {title = string_value(first_arg), first = info.steps + 1}
    end
    if name == "title" and not info.title then
        info.title = string_value(first_arg)
        -- lesson.title("...", {source = "..."})
        for j = k + 4, last do
            if tokens[j].text == "source" and tokens[j + 1] and tokens[j + 1].text == "=" then
                info.origin = string_value(tokens[j + 2])
                break
            end
        end
    end
end

-- Every call of the lesson library: the name `lesson` (not a field such as x.lesson), a dot, a name,
-- then its arguments (a string, or a bracketed list).
local function find_calls(info, tokens)
    for k, t in ipairs(tokens) do
        local prev = tokens[k - 1]
        local name, args = tokens[k + 2], tokens[k + 3]
        if t.text == "lesson" and t.kind == "name" and not (prev and (prev.text == "." or prev.text == ":"))
            and tokens[k + 1] and tokens[k + 1].text == "." and name and name.kind == "name" and args then
            local last = args.kind == "string" and k + 3 or
                         (args.text == "(" or args.text == "{") and closing(tokens, k + 3) or k + 2
            local after = tokens[k + 5]
            local first_arg = args.kind == "string" and args
                or (args.text == "(" and after and (after.text == "," or after.text == ")") and tokens[k + 4])
                or nil
            note_call(info, tokens, k, last, name.text, first_arg, not prev or prev.last < t.line)
        end
    end
end

-- The comment at the end of each line ("-- ..." after the line's last token, or a whole line of it), as
-- {at = its byte in the line, text = what follows "-- "}; never one inside a string, a long comment or a
-- "-- Python: ..." (the book's code, which stays as the book wrote it).
local function find_comments(info, tokens)
    local ends = {}   -- line -> the byte in that line just after its last token
    local starts, pos = {}, 1
    for l, line in ipairs(info.lines) do starts[l] = pos; pos = pos + #line + 1 end
    for _, t in ipairs(tokens) do
        if starts[t.last] then ends[t.last] = math.max(ends[t.last] or 0, t.e - starts[t.last] + 2) end
    end
    for l, line in ipairs(info.lines) do
        local from = ends[l] or 1
        local at, text = line:match("^%s*()%-%-%s?(.-)%s*$", from)
        -- "-- words  -- Python: code": the words only (the book's code after them stays as it is)
        local words, tail = (text or ""):match("^(.-)(%s*%-%-%s*Python:.*)$")
        if words then text = words end
        if at and not text:match("^%[=*%[") and not text:match("^Python:") and text:find("%a") then
            info.comments[l] = {at = at, text = text, tail = tail or ""}
        end
    end
end

local function analyse(text)
    local info = {lines = split_lines(text), steps = 0, step_titles = {}, sections = {}, hidden = {},
                  library = {}, continues = {}, checks = {}, comments = {}, step_lines = {}}
    local tokens = tokenize(text)
    number_lines(text, tokens)
    mark_continues(tokens, info.continues)
    find_calls(info, tokens)
    find_comments(info, tokens)
    return info
end

function source.read(path)
    if cache[path] then return cache[path] end
    local f, err = files.open(path) -- core/safe_read.c: no FIFO, no device, a note's folder only
    if not f then return nil, err end
    local text, rerr = f:read("a") -- nil for a directory, which opens
    f:close()
    if not text then return nil, path .. ": " .. tostring(rerr) end
    local info = analyse(text)
    info.path = path
    cache[path] = info
    return info
end

function source.get(chunkname)
    if type(chunkname) ~= "string" or chunkname:sub(1, 1) ~= "@" then return nil end
    return (source.read(chunkname:sub(2)))
end

-- Line l as the reader sees it: its comment in the reader's language (the lesson's catalog, where
-- scripts/po.sh puts every comment of a step: scripts/po-lesson-comments.lua).
function source.line(info, l)
    local line, c = info.lines[l] or "", info.comments[l]
    if not c then return line end
    local text = tr(c.text)
    if text == c.text then return line end
    return line:sub(1, c.at - 1) .. "-- " .. text .. c.tail
end

-- Every comment of the lines first..last (po-lesson-comments.lua's messages).
function source.comments(info, first, last)
    local list = {}
    for l = first or 1, last or #info.lines do
        if info.comments[l] then list[#list + 1] = info.comments[l].text end
    end
    return list
end

-- The lines of a step's function (as debug.getinfo(fn, "S") describes it) to echo before it runs:
-- its body without the lesson.check / lesson.show calls (or, given hide, without the lines hide
-- marks), dedented.
function source.body(info, first, last, hide)
    hide = hide or info.hidden
    local out = {}
    if first == last then
        local one = info.lines[first] or ""
        local body = one:match("function%s*%(%s*%)%s*(.-)%s*end%s*%)?%s*$")
        if body and body ~= "" then out[1] = body end
        return out
    end
    for l = first + 1, last - 1 do
        if not hide[l] then out[#out + 1] = source.line(info, l) end
    end
    while out[1] and out[1]:match("^%s*$") do table.remove(out, 1) end
    while out[#out] and out[#out]:match("^%s*$") do out[#out] = nil end
    local indent
    for _, s in ipairs(out) do
        if not s:match("^%s*$") then
            local w = #s:match("^[ \t]*")
            if not indent or w < indent then indent = w end
        end
    end
    for i, s in ipairs(out) do out[i] = s:sub((indent or 0) + 1) end
    return out
end

-- Clears the cache (a lesson file edited between two runs in one state).
function source.forget(path)
    cache[path] = nil
end

-- The echo of a step's code: two spaces in, `-- Python: ...` comments aligned in one column (at most
-- 56 columns in) and passed through dim (the lesson library dims them on a terminal).
function source.code_lines(lines, dim)
    local col = 0
    for _, l in ipairs(lines) do
        local code = l:match("^(.-)%s*%-%-%s*Python:")
        if code and code ~= "" then col = math.max(col, width(code)) end
    end
    col = math.min(col, 56)
    local out = {}
    for _, l in ipairs(lines) do
        local code, py = l:match("^(.-)%s*(%-%-%s*Python:.*)$")
        if code and code ~= "" then
            out[#out + 1] = "  " .. code .. string.rep(" ", math.max(0, col - width(code))) .. "  " .. dim(py)
        elseif code then
            out[#out + 1] = "  " .. dim(py)
        else
            out[#out + 1] = "  " .. l
        end
    end
    return out
end

return source
