-- sandbox.lua — the globals a note's ```lua blocks run with under `attn --verify` (module
-- attn.verify.sandbox). Notes come from strangers (a student's handout, a blog post), so by default
-- they get a restricted environment; `--trusted` gives them the program's own globals.
--
--   sandbox.env(path, trusted, write) -> env     the globals of the notes at path; write(...) is where
--                                                print and io.write go (the block's output)
--
-- Restricted (the default), a note has attn's tables (torch, nn, attention, lesson, help, safetensors,
-- tiktoken, tokenizers, gpt, qwen3, llama, attn) and Lua's basic functions, string, table, math, utf8 and
-- coroutine, and:
--   - no running programs: no os.execute, io.popen;
--   - no writing files: io.open only reads, no os.remove, os.rename, os.tmpname, io.output(file); the
--     library's own writes (save_file, heatmap svg, tr:save) are refused in C as well (the process
--     that runs the notes calls attn_safe_forbid: src/cli/notes.c);
--   - no native code: no package, no require of anything but attn's tables, Lua's own libraries and
--     Lua files of the notes' folder; load, loadfile and dofile take text only (never a binary chunk)
--     and run it in these same globals;
--   - no debug library, no os.getenv but of HOME and ATTN_* (the environment holds secrets), no
--     reading of stdin;
--   - no leaving early: os.exit raises an error that ends the block (src/cli/notes.c also replaces
--     the real os.exit in the process, so no saved reference or library path reaches it);
--   - reading (io.open, io.lines, loadfile, dofile, require, and every loader: safetensors.load_file,
--     from_pretrained, Tokenizer.from_file, lesson.reference) only through core/safe_read.c's one
--     opener, confined in the process (files.confine_reads) to the notes' own folder and the folders
--     attn itself keeps data in (the vocabularies' and models' caches, the folders ATTN_* variables
--     name, the lessons' reference data): the file opened is resolved through its descriptor, so no
--     symlink, "..", /dev/stdin or /proc path leads out, and a FIFO or a device is refused;
--   - no way to change what attn itself relies on: the string library behind every string's methods
--     (getmetatable("") gives a copy), the lesson table (a copy: verify/run.lua keeps the real one);
--   - chunk names are only names: load(code, "@/etc/passwd") does not make lesson.step or an error
--     message read that file (the name is given to Lua as "=/etc/passwd").
-- What attn's loaders read is parsed as data and never run. No handle on attn's real standard output
-- (src/cli/notes.c sends the report through its own pipe, and the notes' process has /dev/null as its
-- stdin, stdout and stderr). A time and memory budget per file is src/cli/notes.c's.
local bind = require("attn.bind")
local trf = require("attn.i18n").trf

local sandbox = {}

-- Who runs restricted in this process: "notes" (attn --verify) or "lesson" (a lesson given by path to
-- --check, --step, --html, --markdown or --ipynb: src/lua/lesson/run.lua). Set by sandbox.env and
-- sandbox.lesson_env; the refusals name it.
local who = "notes"

-- The error for something a restricted note may not do (verify/run.lua puts the note's line to it).
local function refuse(what, why)
    if who == "lesson" then
        error(trf("%s is not allowed in a lesson given by path (attn's own lessons are trusted): %s (--trusted lifts this)",
                  what, why), 0)
    end
    error(trf("%s is not allowed in notes run by attn --verify: %s (--trusted lifts this)", what, why), 0)
end

local function copy(t)
    local c = {}
    for k, v in pairs(t) do c[k] = v end
    return c
end

-- Opens a file the notes may read, through core/safe_read.c's opener (confined by sandbox.env): the
-- handle, or nil, "PATH: why" as io.open gives. A path the confinement refuses is an error naming the
-- call, as the sandbox's other refusals.
local function reader(folder)
    return function(fn, p)
        if type(p) ~= "string" then return io.open(p) end -- io.open's own check reports it
        local f, err, why = bind.files.open(p)
        if why == "outside" then
            refuse(fn .. "(\"" .. p .. "\")", who == "lesson" and trf("a lesson reads only files in its own folder (%s)", folder)
                                              or trf("a note reads only files in its own folder (%s)", folder))
        end
        return f, err
    end
end

-- The whole text of the file at p, read through open (reader's), or nil and why.
local function read_text(open, fn, p)
    local f, err = open(fn, p)
    if not f then return nil, err end
    local text, rerr = f:read("a")
    f:close()
    if not text then return nil, p .. ": " .. tostring(rerr) end
    return text
end

-- A file handle that writes to the block's output, for io.stdout, io.stderr and io.output(): a note
-- can write, flush and even close it (nothing happens) without closing attn's own output.
local function output_handle(write)
    local h = {}
    function h:write(...) write(...) return self end
    function h:flush() return self end
    function h:close() return true end
    function h:setvbuf() return true end
    function h:seek() return 0 end
    return setmetatable(h, {__name = "FILE*", __tostring = function() return "file (notes' output)" end})
end

local function restricted_io(write, open)
    local out = output_handle(write)
    local io_ = {stdout = out, stderr = out, type = function(f) return f == out and "file" or io.type(f) end}
    function io_.write(...) write(...) return out end
    function io_.output(f)
        if f ~= nil and f ~= out then refuse("io.output(file)", trf("a note does not write files")) end
        return out
    end
    function io_.open(p, mode)
        if mode ~= nil and (type(mode) ~= "string" or not mode:match("^r") or mode:find("+", 1, true)) then
            refuse("io.open(\"" .. tostring(p) .. "\", \"" .. tostring(mode) .. "\")", trf("a note does not write files"))
        end
        return open("io.open", p)
    end
    function io_.lines(p, ...)
        if p == nil then refuse("io.lines()", trf("a note does not read its standard input")) end
        local f, err = open("io.lines", p)
        if not f then error(err, 2) end
        return f:lines(...)
    end
    function io_.close(f)
        if f == nil or f == out then return true end -- the note's output: it stays open for attn
        return f:close()
    end
    function io_.read() refuse("io.read", trf("a note does not read its standard input")) end
    function io_.input() refuse("io.input", trf("a note does not read its standard input")) end
    function io_.popen() refuse("io.popen", trf("a note does not run programs")) end
    function io_.tmpfile() refuse("io.tmpfile", trf("a note does not write files")) end
    return io_
end

local function restricted_os()
    local os_ = {clock = os.clock, time = os.time, date = os.date, difftime = os.difftime}
    function os_.exit() refuse("os.exit", trf("it would end attn before the other blocks and files")) end
    function os_.execute() refuse("os.execute", trf("a note does not run programs")) end
    function os_.remove() refuse("os.remove", trf("a note does not write files")) end
    function os_.rename() refuse("os.rename", trf("a note does not write files")) end
    function os_.tmpname() refuse("os.tmpname", trf("a note does not write files")) end
    -- attn's own settings (ATTN_GPT2_DIR, where a model is) and HOME (where ~/.cache is): nothing else
    -- of the environment, which may hold secrets
    function os_.getenv(name)
        if type(name) == "string" and (name == "HOME" or name:match("^ATTN_")) then return os.getenv(name) end
        refuse("os.getenv(\"" .. tostring(name) .. "\")", trf("the environment is not the notes' business"))
    end
    function os_.setlocale() refuse("os.setlocale", trf("it would change attn's own output")) end
    return os_
end

-- The restricted globals of the notes in folder.
local function restricted(folder, write)
    local env = {}
    local open = reader(folder)
    for _, name in ipairs({"assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber", "tostring",
                           "type", "xpcall", "rawequal", "rawget", "rawlen", "rawset", "setmetatable",
                           "getmetatable", "collectgarbage", "_VERSION"}) do
        env[name] = _G[name]
    end
    for _, name in ipairs({"torch", "nn", "attention", "lesson", "help", "safetensors", "tiktoken", "tokenizers", "gpt",
                           "qwen3", "llama", "attn"}) do
        env[name] = _G[name]
    end
    for _, name in ipairs({"string", "table", "math", "utf8", "coroutine"}) do env[name] = copy(_G[name]) end
    -- every string's methods are the real string library, which attn's own comparison of the outputs
    -- uses: the note sees (and may change) a metatable of its own, over its copy of the library
    local string_meta = {__index = env.string}
    env.getmetatable = function(v)
        if type(v) == "string" then return string_meta end
        return getmetatable(v)
    end
    -- verify/run.lua calls lesson.begin around each block: the note's lesson table is a copy
    env.lesson = copy(_G.lesson)
    env.io, env.os = restricted_io(write, open), restricted_os()
    env.print = function(...)
        local parts = {}
        for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
        write(table.concat(parts, "\t"), "\n")
    end
    -- load and its kin: text only (a binary chunk can break out of any Lua sandbox), in env
    env.load = function(chunk, name, mode, e)
        if mode ~= nil and mode ~= "t" then refuse("load(..., \"" .. tostring(mode) .. "\")", trf("a note loads text only, never binary chunks")) end
        if e == nil then e = env end
        -- "@path" would make lesson.step and error messages read that file as the chunk's source, and
        -- "=[attn]/..." would dress the note's code as attn's library: a name stays a name
        if type(name) == "string" then
            name = name:gsub("^[@=]+", "")
            if name:sub(1, 6) == "[attn]" then name = "note " .. name end
            name = "=" .. name
        end
        return load(chunk, name, "t", e)
    end
    env.loadfile = function(p, mode, e)
        if p == nil then refuse("loadfile()", trf("a note does not read its standard input")) end
        if mode ~= nil and mode ~= "t" then refuse("loadfile(..., \"" .. tostring(mode) .. "\")", trf("a note loads text only, never binary chunks")) end
        local text, err = read_text(open, "loadfile", p)
        if not text then return nil, err end
        return load(text, "@" .. p, "t", e == nil and env or e)
    end
    env.dofile = function(p)
        local f, err = env.loadfile(p)
        if not f then error(err, 2) end
        return f()
    end
    local loaded = {string = env.string, table = env.table, math = env.math, utf8 = env.utf8,
                    coroutine = env.coroutine, io = env.io, os = env.os}
    for _, name in ipairs({"torch", "nn", "attention", "lesson", "help", "safetensors", "tiktoken", "tokenizers", "gpt",
                           "qwen3", "llama"}) do
        loaded[name] = env[name]
    end
    env.require = function(name)
        if type(name) ~= "string" then error("bad argument #1 to 'require' (string expected)", 2) end
        if loaded[name] ~= nil then return loaded[name] end
        local file = folder .. "/" .. name:gsub("%.", "/") .. ".lua"
        local real = bind.files.realpath(file)
        if not real or real:sub(1, #folder + 1) ~= folder .. "/" then
            refuse("require(\"" .. name .. "\")", trf("a note can require attn's tables, Lua's own libraries and " ..
                                                     "Lua files of its own folder (%s)", folder))
        end
        local text, err = read_text(open, "require", real)
        local f
        if text then f, err = load(text, "@" .. real, "t", env) end
        if not f then error(err, 2) end
        local v = f(name, real)
        if v == nil then v = true end
        loaded[name] = v
        return v
    end
    env._G = env
    return setmetatable(env, {__metatable = false})
end

-- The program's globals, as --verify gave them before: a print into the block's output and an os.exit
-- that ends the block, over _G. A note can reach the real os through _G: it is trusted.
local function trusted_env(write)
    local env = {os = setmetatable({exit = function()
        error(trf("os.exit is not run by attn --verify: it would end attn before the other blocks and files"), 2)
    end}, {__index = os})}
    env.print = function(...)
        local parts = {}
        for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
        write(table.concat(parts, "\t"), "\n")
    end
    return setmetatable(env, {__index = _G})
end

-- In the process that runs restricted notes (src/cli/notes.c): the real os.exit replaced too, so that
-- no saved reference and no path through the library (lesson.skip's, for a plain script) reaches it.
function sandbox.seal()
    os.exit = function()
        error(trf("%s is not allowed in notes run by attn --verify: %s (--trusted lifts this)", "os.exit",
                  trf("it would end attn before the other blocks and files")), 2)
    end
end

-- The folder of the notes at path, without symlinks.
function sandbox.folder(path)
    local dir = path:match("^(.*)/[^/]*$") or "."
    if dir == "" then dir = "/" end
    return bind.files.realpath(dir) or dir
end

-- The folders a restricted note's process may read in: the notes' own, then those attn keeps its own
-- data in (named by the user's environment, not by the note): GPT-2's vocabulary (tiktoken.dirs), the
-- Hugging Face cache's hub (not its token, one level up), the folders of ATTN_HF_TOKENIZERS_DIR and
-- ATTN_LESSON_DATA, and the lessons' reference data of the working folder (lesson.reference and
-- lesson.data take plain file names, never paths).
function sandbox.read_folders(folder)
    local folders = {folder}
    for _, d in ipairs(require("attn.tiktoken").dirs()) do folders[#folders + 1] = d end
    folders[#folders + 1] = require("attn.hf").cache_dir()
    for _, name in ipairs({"ATTN_HF_TOKENIZERS_DIR", "ATTN_LESSON_DATA"}) do
        local v = os.getenv(name)
        if v and v ~= "" then folders[#folders + 1] = v end
    end
    folders[#folders + 1] = "tests/data/torch"
    folders[#folders + 1] = "lessons/data"
    return folders
end

-- The globals of the notes at path; restricted, this process's reads are confined from now on (it is
-- the notes' own: src/cli/notes.c forks one per file).
function sandbox.env(path, trusted, write)
    if trusted then return trusted_env(write) end
    who = "notes"
    local folder = sandbox.folder(path)
    bind.files.confine_reads(sandbox.read_folders(folder),
                             trf("a note reads only files in its own folder (%s) (--trusted lifts this)", folder))
    return restricted(folder, write)
end

-- A lesson given by path (not one of attn's own, without --trusted): the restricted globals, with the
-- lesson library's print; sandbox.confine(path) and sandbox.release() around each run of its chunk
-- (src/lua/lesson/run.lua), so that attn itself (--html's page, --ipynb's notebook) still writes.
function sandbox.lesson_env(path, print)
    who = "lesson"
    local env = restricted(sandbox.folder(path), function(...) io.write(...) end)
    env.print = print
    return env
end

function sandbox.confine(path)
    local folder = sandbox.folder(path)
    bind.files.confine_reads(sandbox.read_folders(folder),
        trf("a lesson given by path reads only files in its own folder (%s) (--trusted lifts this)", folder))
    bind.files.forbid_writes(trf("a lesson given by path does not write files (--trusted lifts this)"))
end

function sandbox.release()
    bind.files.confine_reads({})
    bind.files.forbid_writes(nil)
end

return sandbox
