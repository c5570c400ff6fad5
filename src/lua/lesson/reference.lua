-- reference.lua — the numbers PyTorch computed for the lessons, read from tests/data/torch/*.txt
-- (module attn.lesson.reference, for lesson.reference).
--
--   reference.data_path(file) -> the path of lessons/data/<file> beside the calling lesson (lesson.data)
--   reference.find(file, name) -> {shape = {...}, values = {...}}, path
--       the entry `name` of the file (nil, path when the file has none); a file that cannot be
--       found, or a line that is not an entry, is an error at the user's line
local errors = require("attn.errors")
local files = require("attn.bind").files
local reference = {}

-- The files already read: path -> {name -> {shape = {...}, values = {...}}}.
local references = {}

-- Where the reference files are: tests/data/torch of the repository the lesson file is in (lessons/
-- sits beside tests/), or data/torch beside an installed lessons/ (make install: share/attn/), else
-- tests/data/torch of the current directory.
-- The first path of the list that can be opened, or nil and the list.
local function first_readable(candidates)
    for _, path in ipairs(candidates) do
        local f = files.open(path) -- core/safe_read.c: no FIFO, no device, a note's folder only
        if f then f:close() return path end
    end
    return nil, table.concat(candidates, ", ")
end

-- The folder of the lesson file calling the library (the first caller that is a file's chunk; attn's
-- own library is "=[attn]/..."), or nil. (lesson.data and lesson.reference call without a tail call,
-- so that the lesson's frame is still on the stack.)
local function lesson_dir()
    for level = 3, 9 do
        local info = debug.getinfo(level, "S")
        if not info then break end
        if info.source:match("^@") then return info.source:match("^@(.*)/[^/]*$") or "." end
    end
end

-- A reference or data file is named, never given as a path: "../" or a folder would reach any file
-- (a note run by --verify read /etc files through lesson.reference).
local function plain_name(fn, file)
    if file:find("/", 1, true) or file == "." or file == ".." or file == "" then
        errors.raisef("%s: %s is not a file name (a name such as lessons_variants.txt, without a folder)", fn, file)
    end
end

local function reference_path(file)
    plain_name("lesson.reference", file)
    local candidates = {}
    local dir = lesson_dir()
    if dir then
        candidates[#candidates + 1] = dir .. "/../tests/data/torch/" .. file
        candidates[#candidates + 1] = dir .. "/../data/torch/" .. file
    end
    candidates[#candidates + 1] = "tests/data/torch/" .. file
    return first_readable(candidates)
end

-- Where a lesson's own data file is (a text it reads, such as chapter 5's short story): data/<file>
-- beside the lesson file (lessons/data, or share/attn/lessons/data once installed), else the folder
-- $ATTN_LESSON_DATA, else lessons/data of the current directory; an error naming the places looked in
-- when none has it.
function reference.data_path(file)
    plain_name("lesson.data", file)
    local candidates = {}
    local dir = lesson_dir()
    if dir then candidates[#candidates + 1] = dir .. "/data/" .. file end
    -- a lesson's code run where its file is unknown (a notebook's cells in a kernel): $ATTN_LESSON_DATA
    local env = os.getenv("ATTN_LESSON_DATA")
    if env and env ~= "" then candidates[#candidates + 1] = env .. "/" .. file end
    candidates[#candidates + 1] = "lessons/data/" .. file
    local path, tried = first_readable(candidates)
    if not path then errors.raisef("lesson.data: cannot find %s (looked for %s)", file, tried) end
    return path
end

-- Reads "tensor name=N shape=2,3 : 0x3f800000 ..." lines (float32 bit patterns) and "int64 name=N
-- shape=2,3 : 3 4 ..." lines (int64 values in decimal, such as token ids); '#' lines are comments.
local function read_reference(path)
    local by_name = {}
    local n = 0
    local f, err = files.open(path)
    if not f then errors.raisef("lesson.reference: cannot read %s", tostring(err)) end
    for line in f:lines() do
        n = n + 1
        if not line:match("^#") and line:match("%S") then
            local kind, name, shape, values = line:match("^(%w+) name=(%S+) shape=(%S*) : ?(.*)$")
            if kind ~= "tensor" and kind ~= "int64" then
                errors.raisef("lesson.reference: %s line %d is not 'tensor name=N shape=S : values'", path, n)
            end
            local dims, vals = {}, {}
            for d in shape:gmatch("%d+") do dims[#dims + 1] = tonumber(d) end
            for word in values:gmatch("%S+") do
                vals[#vals + 1] = kind == "int64" and math.tointeger(tonumber(word))
                                  or string.unpack("<f", string.pack("<I4", tonumber(word)))
            end
            by_name[name] = {shape = dims, values = vals}
        end
    end
    f:close()
    return by_name
end

function reference.find(file, name)
    local path, tried = reference_path(file)
    if not path then
        errors.raisef("lesson.reference: cannot find %s (looked for %s)", file, tried)
    end
    references[path] = references[path] or read_reference(path)
    return references[path][name], path
end

return reference
