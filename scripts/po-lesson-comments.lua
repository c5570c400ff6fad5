-- po-lesson-comments.lua — the comments of a lesson's steps, for its template: ./attn
-- scripts/po-lesson-comments.lua lessons/NN_name.lua writes one lesson.tr("...") line per comment inside
-- a lesson.step (lesson/source.lua finds them as it shows them: not "-- Python: ...", which is the book's
-- code), for xgettext to read (scripts/po.sh). The lesson library shows each comment translated.
local path = assert(arg[1], "usage: attn scripts/po-lesson-comments.lua LESSON")
local source = require("attn.lesson.source")
local info = assert(source.read(path))
local seen = {}
for _, range in ipairs(info.step_lines) do
    for _, c in ipairs(source.comments(info, range[1], range[2])) do
        if not seen[c] then
            seen[c] = true
            io.write("lesson.tr(", string.format("%q", c), ")\n")
        end
    end
end
