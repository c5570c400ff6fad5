-- markdown.lua — a lesson as a Markdown handout (module attn.lesson.markdown, `attn --markdown`):
-- the title as a heading, sections as headings, paragraphs as paragraphs, each step's code as a
-- ```lua block followed by an ```output block with what it printed, and its checks as a list.
--
--   markdown.handout(path) -> the handout's text, how many checks failed
--   markdown.write(path) -> true, or nil and a message (the file cannot be read: nothing written; a
--                          check failed: the handout is written, with the failure)
--
-- The handout is notes `attn --verify` can check (src/lua/verify/): its blocks, run in order, print
-- what its output blocks show, since they are the lesson's own code and what it printed. The blocks
-- are laid out as `attn --verify --update` lays out the blocks it adds, so --update changes nothing.
-- A step that reads the clock (os.clock, os.time) prints times that differ from run to run: its
-- block is ```output unchecked, run but not compared.

local record = require("attn.lesson.record")
local source = require("attn.lesson.source")
local output = require("attn.verify.output")
local trf = require("attn.i18n").trf
local function N(msgid) return msgid end -- marks a message for xgettext (scripts/po.sh)

local HANDOUT_NOTE = N("A handout written by `%s`. `attn --verify` runs its ```lua blocks in order and checks that each prints what the ```output block after it shows.")

local markdown = {}

-- Prose as Markdown shows it: a line that would start a heading, a quote, a fence or HTML is
-- escaped with a backslash (lines are otherwise the lesson's own).
local function prose(text)
    local out = {}
    for line in (text .. "\n"):gmatch("(.-)\n") do
        local indent, rest = line:match("^( ? ? ?)(.*)$")
        if rest:match("^#") or rest:match("^>") or rest:match("^```") or rest:match("^~~~") or rest:match("^<")
            or rest:match("^[-+*=]") then
            line = indent .. "\\" .. rest
        end
        out[#out + 1] = line
    end
    return table.concat(out, "\n")
end

-- A fence longer than any run of backticks that starts a line of text.
local function fence(text)
    local n = 3
    for line in text:gmatch("[^\n]+") do
        local run = line:match("^ ? ? ?(`+)")
        if run and #run >= n then n = #run + 1 end
    end
    return string.rep("`", n)
end

local function code_block(out, info, text)
    local f = fence(text)
    out[#out + 1] = f .. info .. "\n" .. text .. (text:sub(-1) == "\n" and "" or "\n") .. f .. "\n"
end

-- A check as the lesson prints it: "✓ what", "≡ what (exact)", "✗ what".
local function check_line(c)
    if not c.ok then return "✗ " .. c.what end
    if c.identity then return "≡ " .. c.what .. (c.note and c.note ~= "" and " (" .. c.note .. ")" or "") end
    return "✓ " .. c.what
end

-- One step: a heading, its code, what it printed, its checks.
local function step(out, src, item, printed, checks)
    out[#out + 1] = "\n### " .. trf("Step %d · %s", item.n, item.title) .. "\n\n"
    local code = src and item.first_line and
        source.body(src, item.first_line, item.last_line, src.checks) or item.code
    code_block(out, "lua", table.concat(code, "\n"))
    printed = output.normal(table.concat(printed))
    -- a step that reads the clock prints times that differ from run to run: shown, not checked
    local code_text = table.concat(code, "\n")
    local varies = code_text:find("os%.clock") or code_text:find("os%.time")
    if printed ~= "" then code_block(out, varies and "output unchecked" or "output", printed) end
    if #checks == 0 then return end
    local list = {}
    for _, c in ipairs(checks) do
        list[#list + 1] = "- " .. prose(check_line(c))
        if not c.ok and #c.lines > 0 then   -- a failure's explanation, as text
            list[#list + 1] = "\n  ```text\n  " .. table.concat(c.lines, "\n"):gsub("\n", "\n  ") .. "\n  ```"
        end
    end
    out[#out + 1] = "\n" .. table.concat(list, "\n") .. "\n"
end

function markdown.handout(path)
    local doc, result = record.file(path, {figures = false})
    local src = source.read(path)
    local out = {}
    local function para(s) out[#out + 1] = "\n" .. s .. "\n" end
    out[1] = "# " .. (doc.title or path) .. "\n"
    if doc.source then para(prose(trf("Source: %s", doc.source))) end
    para(trf(HANDOUT_NOTE, "attn --markdown " .. path))
    local current, printed, checks = nil, {}, {}
    local function flush()
        if current then step(out, src, current, printed, checks) end
        current, printed, checks = nil, {}, {}
    end
    for _, item in ipairs(doc.items) do
        if item.kind == "section" then
            flush()
            para("## " .. item.text)
        elseif item.kind == "say" then
            flush()
            para(prose(item.text))
        elseif item.kind == "step" then
            flush()
            current = item
        elseif item.kind == "output" and current then
            for _, p in ipairs(item.parts) do
                printed[#printed + 1] = type(p) == "string" and p or (p.plain .. "\n")
            end
        elseif item.kind == "check" then
            if current then checks[#checks + 1] = item else para("- " .. prose(check_line(item))) end
        end
    end
    flush()
    return table.concat(out), result.failed
end

-- The handout goes to standard output only; when that is a Lua file (`> lesson.lua`, `>> lesson.lua`,
-- an easy slip), the lesson is not written into. (With `>` the shell has emptied it already: nothing
-- attn can do about that but say so.)
local function stdout_refusal(path)
    local bind = require("attn.bind")
    local out = bind.files.realpath("/dev/stdout")
    if out and (out:match("%.[Ll][Uu][Aa]$") or bind.files.identity("/dev/stdout") == bind.files.identity(path)) then
        return trf("--markdown: will not write the handout into %s (standard output): it is a " ..
            "Lua file; write it to a .md file (attn --markdown LESSON.lua > handout.md)", out)
    end
end

function markdown.write(path)
    local f, err = require("attn.bind").files.open(path) -- core/safe_read.c: a FIFO refused, never waited on
    if not f then return nil, "cannot open " .. tostring(err) end
    f:close()
    local refused = stdout_refusal(path)
    if refused then return nil, refused end
    local text, failed = markdown.handout(path)
    -- a full disk (> /dev/full) or a closed stdout: said, with status 1 (it printed nothing and exited 0)
    local ok, werr = io.stdout:write(text)
    if ok then ok, werr = io.stdout:flush() end
    if not ok then
        return nil, trf("--markdown: cannot write the handout of %s to standard output: %s", path, tostring(werr))
    end
    if failed > 0 then
        return nil, string.format("%s: %d check(s) failed (the handout shows them with ✗)", path, failed)
    end
    return true
end

return markdown
