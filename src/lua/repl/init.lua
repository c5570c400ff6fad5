-- init.lua — what happens to a chunk typed at attn's prompt (module attn.repl), kept in Lua so that it
-- can be tested without a terminal (src/cli/repl.c only reads lines, keeps history and calls these
-- functions).
--
--   repl.eval(chunk [, out [, at_eof]])  -> "incomplete" | "ok" | "error"
--   repl.complete(text)                  -> sorted list of completions for the word `text`
--                                           (repl/complete.lua)
--   repl.rewrite_locals(chunk)           -> chunk with its top-level locals made global
--   repl.show(v)                         -> the text the prompt prints for v ({1, 2} for a table)
--   repl.results(...)                    -> the text the prompt prints for an expression's values
--                                           (both repl/show.lua)
--   repl.write_error(msg [, interactive]) prints an error as the prompt does
--
-- `out` is an optional table: out.write(s) receives the printed results (s ends with "\n"),
-- out.error(msg) receives an error message (without the "error: " prefix; default
-- repl.write_error), out.accept(chunk) is called with every complete chunk before it runs (the C
-- side adds it to the history there, so a chunk that calls os.exit() is still remembered), and
-- out.interactive says the prompt is at a terminal.

local errors = require("attn.errors")
local term = require("attn.term")
local tokenize = require("attn.text.tokens").tokenize
local show = require("attn.repl.show")
local tr, trf = require("attn.i18n").tr, require("attn.i18n").trf
local grad_mode = require("attn.autograd.grad_mode")
local repl = {}

-- The line the REPL starts with (src/cli/repl.c), in the language of attn's text.
function repl.banner(version, lua)
    return trf("attn %s — %s with tensors and attention stages. help() for a tour, ?name for one function.",
               version, lua)
end

repl.chunkname = "=stdin"   -- errors then read "stdin:1: ...", which eval strips for one-liners
repl.last_traceback = nil   -- the traceback of the last error, for the curious
-- what attn prints when a second Ctrl-C ends it (src/cli/interrupt.c: a C function that cannot be stopped)
repl.second_interrupt = tr("attn: a second Ctrl-C: the running C function cannot be interrupted; quitting "
    .. "(the history is saved)")
repl.show = show.value
repl.results = show.results
repl.complete = require("attn.repl.complete")

local OPENS = {["function"] = true, ["do"] = true, ["if"] = true, ["repeat"] = true}
local CLOSES = {["end"] = true, ["until"] = true}

-- Parses `name [<attr>] {, name [<attr>]}` from tokens[k]; returns the index after it, the
-- attribute spans to delete, and whether one attribute is <close>. nil when it is not a name list.
local function namelist(tokens, k)
    local drops, close = {}, false
    while true do
        local t = tokens[k]
        if not t or t.kind ~= "name" then return nil end
        k = k + 1
        if tokens[k] and tokens[k].text == "<" then
            local attr, gt = tokens[k + 1], tokens[k + 2]
            if not (attr and attr.kind == "name" and gt and gt.text == ">") then return nil end
            if attr.text == "close" then close = true end
            drops[#drops + 1] = {t.e + 1, gt.e}   -- with the space before it
            k = k + 3
        end
        if not (tokens[k] and tokens[k].text == ",") then return k, drops, close end
        k = k + 1
    end
end

-- Torch7's trepl lost `local x = 1` between lines (each line is its own chunk, so its locals die
-- with it). Top-level locals become globals instead: `local x = 1` -> `x = 1`, `local x` ->
-- `x = nil`, `local function f` -> `function f`. A <const> attribute is dropped; a <close> local
-- stays local, since closing it at the end of the line is the point of it.
function repl.rewrite_locals(src)
    local tokens = tokenize(src)
    local edits, depth = {}, 0      -- edits: {from, to, replacement}, in source order
    local k = 1
    while k <= #tokens do
        local t = tokens[k]
        if t.kind == "name" then
            if OPENS[t.text] then
                depth = depth + 1
            elseif CLOSES[t.text] then
                depth = math.max(depth - 1, 0)
            elseif t.text == "local" and depth == 0 then
                local nxt = tokens[k + 1]
                if nxt and nxt.text == "function" then
                    edits[#edits + 1] = {t.s, nxt.s - 1, ""}
                else
                    local after, drops, close = namelist(tokens, k + 1)
                    if after and not close then
                        edits[#edits + 1] = {t.s, tokens[k + 1].s - 1, ""}
                        for _, d in ipairs(drops) do edits[#edits + 1] = {d[1], d[2], ""} end
                        if not (tokens[after] and tokens[after].text == "=") then
                            local last = tokens[after - 1]
                            edits[#edits + 1] = {last.e + 1, last.e, " = nil"}
                        end
                    end
                end
            end
        end
        k = k + 1
    end
    for e = #edits, 1, -1 do
        local from, to, rep = edits[e][1], edits[e][2], edits[e][3]
        src = src:sub(1, from - 1) .. rep .. src:sub(to + 1)
    end
    return src
end

---------------------------------------------------------------------------------------------------
-- Evaluation
---------------------------------------------------------------------------------------------------

local function write_result(s)
    io.stdout:write(s)
end

-- The one way the prompt prints an error (src/cli/repl.c too, for an error outside the user's
-- chunk): "error: msg" on stderr, red when attn.term says colour. At a terminal (interactive), the
-- ^C that Ctrl-C left where the cursor was is followed by a line break first.
function repl.write_error(msg, interactive)
    io.stdout:flush()   -- results printed before the error must appear before it
    if interactive and errors.is_interrupt(msg) then io.stderr:write("\n") end
    -- in the user's language: "错误：" and Ctrl-C's "已中断" (the message of the hook, src/cli/main.c)
    local line = trf("error: %s", msg == "interrupted" and tr("interrupted") or msg)
    if term.color then
        io.stderr:write("\27[31m", line, "\27[0m\n")
    else
        io.stderr:write(line, "\n")
    end
end

-- Lua's messages for an unfinished chunk end in "<eof>" (lua.c's test for a continuation line).
local function is_incomplete(msg)
    return msg ~= nil and msg:sub(-5) == "<eof>"
end

-- A hint after the message when the chunk looks like Python that Lua reads differently
-- (text/python_habits.lua: the notes' reports give the same hints).
repl.hint = require("attn.text.python_habits").hint

-- One-line chunks do not need "stdin:1: " in front of every message; longer ones keep their
-- line numbers, which then point somewhere.
local function clean(msg, chunk)
    if not chunk:find("\n", 1, true) then
        local prefix = repl.chunkname:gsub("^[=@]", "") .. ":1: "
        if msg:sub(1, #prefix) == prefix then msg = msg:sub(#prefix + 1) end
    end
    return repl.hint(msg, chunk)
end

local function handler(err)
    local msg = errors.explain(errors.text(err))
    repl.last_traceback = debug.traceback(msg, 2)
    return msg
end

-- Runs f, prints its results (repl.results) and sets _ to the first one.
local function run(f, chunk, out)
    local r = table.pack(xpcall(f, handler))
    if not r[1] then
        out.error(clean(r[2], chunk))
        return "error"
    end
    if r.n > 1 then
        _G._ = r[2]
        out.write(show.results(table.unpack(r, 2, r.n)) .. "\n")
    end
    return "ok"
end

-- `?` alone and `?name`: the help system, without having to type help("...").
local function ask_help(name, out)
    local h = _G.help
    if h == nil then
        local ok, mod = pcall(require, "attn.help")
        if ok then h = mod end
    end
    if h == nil then
        out.error("help is not available")
        return "error"
    end
    local ok, err
    if name == "" then ok, err = pcall(h) else ok, err = pcall(h, name) end
    if not ok then
        out.error(errors.text(err))
        return "error"
    end
    return "ok"
end

-- Evaluates one chunk typed at the prompt: first as an expression (its values are printed), then
-- as statements. Returns "incomplete" when more lines are needed (unless at_eof: no more lines
-- will come, so the chunk is reported as the syntax error it is).
function repl.eval(chunk, out, at_eof)
    out = out or {}
    local o = {write = out.write or write_result,
               error = out.error or function(msg) repl.write_error(msg, out.interactive) end,
               accept = out.accept or function() end}
    local q = chunk:match("^%s*%?%s*([%w_%.:]*)%s*$")
    if q then
        o.accept(chunk)
        return ask_help(q, o)
    end
    local code = chunk:gsub("^=", "return ")   -- lua.c's "=expr" shorthand
    -- the text of the chunk by its name, so that a bare torch.no_grad() line is seen (autograd/grad_mode.lua)
    grad_mode.chunk_text[repl.chunkname] = code
    -- `return torch.no_grad()` would be a tail call, whose line cannot be seen: in parentheses it is not
    local bare = code:match("^%s*torch%.([%w_]+)%(%s*%)%s*;?%s*$")
    local wrap = (bare == "no_grad" or bare == "enable_grad") and "return (" .. code:gsub(";?%s*$", "") .. ")" or nil
    local f, experr = load(wrap or "return " .. code, repl.chunkname, "t")
    local sterr
    if not f then
        f, sterr = load(repl.rewrite_locals(code), repl.chunkname, "t")
    end
    if not f and not at_eof and (is_incomplete(experr) or is_incomplete(sterr)) then
        return "incomplete"
    end
    o.accept(chunk)
    if not f then
        o.error(clean(sterr, chunk))
        return "error"
    end
    return run(f, chunk, o)
end

return repl
