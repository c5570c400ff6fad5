-- errors.lua — errors of attn's Lua library point at the user's line (module attn.errors).
--
-- A student who types nn.Linear(3, 2)(torch.ones(4)) wants to read "stdin:1: Linear: expected ...",
-- not "[attn]/nn.lua:304: ...": the library is attn's, the line is theirs. So the library raises its
-- errors through these functions, which skip the frames of the embedded library and of C functions
-- between them and the code that called it. Which frame is the user's is decided in one place, in C
-- (src/bind/args.c), for the bindings' errors and for these alike.
--
--   errors.raise(msg)                 error(msg) at the user's line, msg translated (attn.i18n) when the
--                                     catalogs have it (a literal: scripts/po.sh extracts raise's and
--                                     raisef's first argument; a message built from parts is raised as it is)
--   errors.raisef(fmt, ...)           the same with string.format, fmt translated (i18n.trf): the
--                                     arguments are unchanged, so a test can match either language
--   errors.call(name, f, ...)         f(...) on behalf of the library function `name`: an error raised
--                                     inside it (by a layer or a stage it calls) is raised again at the
--                                     user's line as "name: what failed", e.g.
--                                     "EncoderBlock: LayerNorm: expected an input whose last dim is 4"
--   errors.is_library(f)              whether the function f is defined in the embedded library
--   errors.is_interrupt(msg)          whether msg is Ctrl-C's "interrupted"
--   errors.message(err)               an error message without its "file:line: " position
--   errors.text(err)                  any error value as text, as lua.c's msghandler makes it: a string,
--                                     an object's __tostring, or "(error object is a nil value)"
--   errors.explain(msg)               in a message handler (xpcall's, main.c's): msg, or a message that
--                                     says a method was called with '.' instead of ':' when that is
--                                     what failed (m.forward(x) -> "forward was called with '.' ...")
local C = require("attn.bind").errors -- the rule of which frame is the user's: src/bind/args.c
local i18n = require("attn.i18n")
local trf = i18n.trf
local errors = {}

function errors.raise(msg)
    error(C.where() .. i18n.lookup(msg), 0)
end

function errors.raisef(fmt, ...)
    error(C.where() .. i18n.trf(fmt, ...), 0)
end

function errors.is_library(f)
    return type(f) == "function" and C.is_library(f)
end

-- Whether the function calling called_from_library was itself called by attn's library. A C caller
-- (the user's pcall) counts as the user.
function errors.called_from_library()
    return C.is_library(3) -- 1: this function, 2: its caller, 3: the caller's caller
end

-- Whether an error message is Ctrl-C's: "interrupted" (src/cli/main.c's hook), or a C loop's
-- "matmul: interrupted". Nobody's fault: it is passed on as it is, and stops every lesson.
function errors.is_interrupt(msg)
    return msg == "interrupted" or (type(msg) == "string" and msg:find(": interrupted$") ~= nil)
end

function errors.message(err)
    local msg, where = tostring(err), C.where()
    -- the user's position as the bindings write it, "(command line):1: " included (it has a space)
    if where ~= "" and msg:sub(1, #where) == where then return msg:sub(#where + 1) end
    return (msg:gsub("^[^%s:]+:%d+: ", "", 1))
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

-- A method called with a dot, m.forward(x), runs with self = x (a tensor) and x = nil; l.forward(nil, x)
-- with self = nil. Either fails inside the method, far from the slip ("tensor has no method or field
-- 'W_query'", "attempt to index a nil value (local 'self')"). A message handler runs on the stack of
-- the error: the first Lua function there (level 3: 1 is explain, 2 the handler, then the function that
-- raised, or the C function that did and its Lua caller; so the handler must not tail-call explain)
-- tells, by its first local, whether it is a
-- method whose self is not an object, and by how it was called, whether with ':'.
-- The name a function is stored under in a loaded module, a class in one, a global or a class in
-- one (a method run by a tail call, as the REPL runs a line, has no name of its own in the stack).
local function name_of(f)
    local function search(t, depth)
        local ok, found = pcall(function()
            for k, v in pairs(t) do
                if v == f and type(k) == "string" then return k end
                if depth > 1 and type(v) == "table" and v ~= t then
                    local inner = search(v, depth - 1)
                    if inner then return inner end
                end
            end
        end)
        return ok and found or nil
    end
    local found = search(_G, 2)
    if found then return found end
    for _, m in pairs(package.loaded) do
        if type(m) == "table" and m ~= _G then
            found = search(m, 2)
            if found then return found end
        end
    end
    return nil
end

local NO_FIELD = "tensor has no method or field '%s' (see help(\"Tensor\"))"
function errors.explain(msg)
    if type(msg) ~= "string" or errors.is_interrupt(msg) then return msg end
    -- only Lua's own failures inside the method are the slip's symptoms; a message attn worded already
    -- (tr.step's "call it as tr:step() with a colon") says what went wrong better
    -- (the bindings' message in the user's language: src/bind/index.c's msgid, translated by lib/core.po)
    local no_field = i18n.tr(NO_FIELD):match("^(.-)'%%s'")
    if not (msg:find("attempt to ", 1, true) or msg:find("has no method or field", 1, true)
            or (no_field and no_field ~= "" and msg:find(no_field, 1, true))) then
        return msg
    end
    for level = 3, 8 do
        local info = debug.getinfo(level, "Snf")
        if not info then return msg end
        local name, self
        if info.what ~= "C" then name, self = debug.getlocal(level, 1) end
        -- attn's own frames in between (autograd's dispatch in front of a tensor's fields) are passed over
        if info.what ~= "C" and not (name ~= "self" and C.is_library(info.func)) then
            if name ~= "self" or type(self) == "table" or info.namewhat == "method" then return msg end
            info.name = info.name or name_of(info.func)
            if not info.name then return msg end
            local caller, where = debug.getinfo(level + 1, "Sl"), ""
            if caller and caller.currentline > 0 then where = caller.short_src .. ":" .. caller.currentline .. ": " end
            local got = self == nil and "nil" or (type(self) == "userdata" and "a tensor" or type(self))
            return where .. trf("%s was called with '.' instead of ':' (self is %s): write m:%s(...), "
                .. "or m(...) to call a module's forward", info.name, got, info.name)
        end
    end
    return msg
end

function errors.call(name, f, ...)
    local where = C.where()
    local r = table.pack(pcall(f, ...))
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
    if errors.is_interrupt(msg) then error(err, 0) end -- Ctrl-C: nobody's fault
    -- "attention.trace: 6 tokens ..." raised in "attention.trace: stage 4 (masked)" says its name once
    local head = name:match("^[^:]+")
    if msg:sub(1, #head + 2) == head .. ": " then msg = msg:sub(#head + 3) end
    error(where .. name .. ": " .. msg, 0)
end

return errors
