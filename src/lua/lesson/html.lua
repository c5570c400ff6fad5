-- html.lua — a lesson as one self-contained web page (module attn.lesson.html; `attn --html`):
-- the lesson runs once (lesson/record.lua, as --check runs it), and html/page.lua lays its steps out.
--
--   html.file(path, out) -> result, size    runs the lesson at path and writes its page to out;
--                                           result: run.file's; a clear error when out cannot be
--                                           written
local record = require("attn.lesson.record")
local page = require("attn.html.page")

local html = {}

function html.file(path, out)
    if type(out) ~= "string" or out == "" then
        error("--html: needs the name of the page to write, such as lesson.html", 0)
    end
    local doc, result = record.file(path)
    local size, err = page.write(out, page.render(doc, result), "--html")
    if not size then error(err, 0) end
    return result, size
end

return html
