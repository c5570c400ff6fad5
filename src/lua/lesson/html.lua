-- html.lua — a lesson as one self-contained web page (module attn.lesson.html; `attn --html`):
-- the lesson runs once (lesson/record.lua, as --check runs it), and html/page.lua lays its steps out.
--
--   html.file(path, out [, inputs]) -> result, size
--                                           runs the lesson at path and writes its page to out;
--                                           result: run.file's; a clear error when out cannot be
--                                           written, or when it is a .lua file or one of inputs (the
--                                           files named on the command line): never over a lesson
local record = require("attn.lesson.record")
local page = require("attn.html.page")
local bind = require("attn.bind")
local trf = require("attn.i18n").trf

local html = {}

-- Why out must not be written, or nil. `attn --html mylesson.lua page.html` (the two swapped, an easy
-- slip) used to write the page over the lesson's source; the page would now be written safely, but
-- the lesson would be gone all the same, so a Lua file, or any file given as an input, is refused.
-- mode: "--html" (the default) or "--ipynb", which follows the same rule (src/cli/ipynb.c).
local function N(msgid) return msgid end -- marks a msgid for xgettext; translated where it is used
local REFUSALS = {
    ["--html"] = {
        lua = N("--html: will not write the page over %s: it is a Lua file (the page comes first: " ..
              "attn --html PAGE.html LESSON.lua)"),
        input = N("--html: will not write the page over %s: it is one of the lessons given " ..
                "(the page comes first: attn --html PAGE.html LESSON.lua)"),
    },
    ["--ipynb"] = {
        lua = N("--ipynb: will not write the notebook over %s: it is a Lua file (the notebook comes first: " ..
              "attn --ipynb NOTEBOOK.ipynb LESSON.lua)"),
        input = N("--ipynb: will not write the notebook over %s: it is one of the lessons given " ..
                "(the notebook comes first: attn --ipynb NOTEBOOK.ipynb LESSON.lua)"),
    },
}

function html.refusal(out, inputs, mode)
    local msg = REFUSALS[mode or "--html"]
    local function is_lua(p) return p ~= nil and p:match("%.[Ll][Uu][Aa]$") ~= nil end
    if is_lua(out) then return trf(msg.lua, out) end
    local id = bind.files.identity(out)
    for _, input in ipairs(inputs or {}) do
        if input == out or (id and bind.files.identity(input) == id) then return trf(msg.input, out) end
    end
    -- a symlink to a Lua file is refused as the file itself
    if is_lua(bind.files.realpath(out)) then return trf(msg.lua, out) end
end

function html.file(path, out, inputs)
    if type(out) ~= "string" or out == "" then
        error("--html: needs the name of the page to write, such as lesson.html", 0)
    end
    local refused = html.refusal(out, inputs)
    if refused then error(refused, 0) end
    local doc, result = record.file(path)
    local size, err = page.write(out, page.render(doc, result), "--html")
    if not size then error(err, 0) end
    return result, size
end

return html
