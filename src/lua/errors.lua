-- errors.lua — errors of attn's Lua library point at the user's line (module attn.errors).
--
-- A student who types nn.Linear(3, 2)(torch.ones(4)) wants to read "stdin:1: Linear: expected ...",
-- not "[attn]/nn.lua:304: ...": the library is attn's, the line is theirs. So the library raises its
-- errors through these functions, which skip the frames of the embedded library ("=[attn]/...", see
-- src/bind/init.c) and of C functions between them and the code that called it. The C bindings do
-- the same for their own errors (lt_error in src/bind/args.c).
--
--   errors.raise(msg)                 error(msg) at the user's line
--   errors.raisef(fmt, ...)           the same with string.format
--   errors.call(name, f, ...)         f(...) on behalf of the library function `name`: an error raised
--                                     inside it (by a layer or a stage it calls) is raised again at the
--                                     user's line as "name: what failed", e.g.
--                                     "EncoderBlock: LayerNorm: expected an input whose last dim is 4"
--   errors.is_library(f)              whether the function f is defined in the embedded library
--   errors.message(err)               an error message without its "file:line: " position
--   errors.text(err)                  any error value as text, as lua.c's msghandler makes it: a string,
--                                     an object's __tostring, or "(error object is a nil value)"
local errors = {}

local LIBRARY = "^=%[attn%]/"
-- The REPL runs the user's chunk; a one-liner is `return <line>`, whose call is a tail call that
-- leaves no frame of the user's, so the REPL's frames are where the user's side begins.
local REPL = "=[attn]/repl.lua"

local function library(info)
    return info ~= nil and info.what ~= "C" and info.source:find(LIBRARY) ~= nil and info.source ~= REPL
end

-- Whether the frame at `level` (as debug.getinfo counts from this function's caller) belongs to the
-- library: its own functions, and C functions that it called (the pcall inside errors.call). A C
-- function the user called (their pcall) does not: as with Lua's own errors, nothing points there.
local function library_frame(level)
    local info = debug.getinfo(level + 1, "S")
    if info == nil then return false end
    if info.what == "C" then return library(debug.getinfo(level + 2, "S")) end
    return library(info)
end

-- The level, as error() counts it in the function that calls user_level, of the first frame that is
-- not the library's. Past the end of the stack when there is none (a tail call from the REPL's
-- one-liner replaces the user's frame): error() then adds no position.
local function user_level()
    local level = 3 -- as debug.getinfo counts: 1 user_level, 2 its caller (raise, call), 3 theirs
    while library_frame(level) do
        level = level + 1
    end
    return level - 1
end

function errors.raise(msg)
    error(msg, user_level())
end

function errors.raisef(fmt, ...)
    error(string.format(fmt, ...), user_level())
end

function errors.is_library(f)
    return type(f) == "function" and library(debug.getinfo(f, "S"))
end

-- Whether the function calling called_from_library was itself called by attn's library. A C caller
-- (the user's pcall) counts as the user.
function errors.called_from_library()
    return library(debug.getinfo(3, "S")) -- 1: this function, 2: its caller, 3: the caller's caller
end

-- The "stdin:3: " that error() puts in front of a message raised at the user's line ("" if none).
local function user_position()
    local level = 3 -- 1 user_position, 2 errors.call, 3 its caller
    while library_frame(level) do
        level = level + 1
    end
    local info = debug.getinfo(level, "Sl")
    if info == nil or info.currentline <= 0 then return "" end
    return info.short_src .. ":" .. info.currentline .. ": "
end

function errors.message(err)
    return (tostring(err):gsub("^[^%s:]+:%d+: ", "", 1))
end

function errors.text(err)
    if type(err) == "string" then return err end
    local mt = getmetatable(err)
    if mt and mt.__tostring then
        local ok, s = pcall(tostring, err)
        if ok and type(s) == "string" then return s end
    end
    return "(error object is a " .. type(err) .. " value)"
end

local function pack(...) return {n = select("#", ...), ...} end

function errors.call(name, f, ...)
    local where = user_position()
    local r = pack(pcall(f, ...))
    if r[1] then return table.unpack(r, 2, r.n) end
    local err = r[2]
    if type(err) ~= "string" then error(err, 0) end
    local msg = err
    if where ~= "" and msg:sub(1, #where) == where then
        msg = msg:sub(#where + 1)
    elseif msg:find("^%[attn%]/[^:]*:%d+: ") then
        msg = msg:gsub("^%[attn%]/[^:]*:%d+: ", "", 1)
    elseif msg:find("^[^%s:]+:%d+: ") then
        error(err, 0) -- raised at another line of the user's (a function they passed in): theirs as it is
    end
    if msg == "interrupted" or msg:find(": interrupted$") then error(err, 0) end -- Ctrl-C: nobody's fault
    -- "attention.trace: 6 tokens ..." raised in "attention.trace: stage 4 (masked)" says its name once
    local head = name:match("^[^:]+")
    if msg:sub(1, #head + 2) == head .. ": " then msg = msg:sub(#head + 3) end
    error(name .. ": " .. msg, user_level())
end

return errors
