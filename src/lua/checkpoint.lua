-- checkpoint.lua — torch.save(obj, path) and torch.load(path) (module attn.checkpoint), in a safe
-- format: a safetensors file (data only, never a pickle), which Python's safetensors package reads too.
--
-- obj is a tensor or a table of tensors, numbers, strings, booleans and tables of them (what the book
-- saves: model:state_dict(), {model_state_dict = ..., optimizer_state_dict = opt:state_dict()}). The
-- file holds each tensor under its path (the keys down to it joined with "/": "model_state_dict/
-- tok_emb.weight"; a plain state dict's tensors under their own names, as Python's
-- safetensors.torch.save_file(model.state_dict(), path) writes them), and the rest in the header's
-- __metadata__, under one key, MANIFEST below: one line per value, in order,
--     KIND <tab> PATH [<tab> VALUE]
-- KIND tensor (VALUE: its name in the file, when it is not PATH), int, float (Python's repr, "inf",
-- "nan"), str, bool, table (an empty table), odict (an ordered table, m:state_dict()'s; before its
-- entries). In PATH the keys are joined by "/", an integer key written #N, and "%", "/", "#" (first),
-- tab and newlines of a string written %XX; in a str VALUE "%", tab and newlines too.
-- Writes go through safetensors.save_file's writer (src/core/safe_write.c: a new file renamed over path
-- when complete), reads through safetensors.load_file's reader (src/core/safe_read.c), both named
-- torch.save and torch.load in their errors (src/bind/safetensors.c).
local bind = require("attn.bind")
local torch = bind.torch
local errors = require("attn.errors")
local check = require("attn.check")
local i18n = require("attn.i18n")
local ordered_dict = require("attn.ordered_dict")
local pyrepr = require("attn.text.pyrepr")

local checkpoint = {}

local MANIFEST = "attn.torch.save.v1"
local function N(msgid) return msgid end -- marks a message for the catalogs; raisef translates it

-- A .pt/.pth/.bin checkpoint is a Python pickle: loading it runs whatever code the file names, so a
-- downloaded checkpoint could do anything. attn reads only safetensors, which holds data alone.
local CONVERT = N[[
torch.load: attn does not read PyTorch's pickle checkpoints (%s): unpickling a file runs code chosen by
whoever made it. Save what it holds once more, in Python, as safetensors (data only):
    import torch
    from safetensors.torch import save_file
    state = torch.load("%s", map_location="cpu")
    save_file({k: v.contiguous() for k, v in state.items()}, "model.safetensors")
(a checkpoint of several state dicts: one file each, such as state["model_state_dict"].items()),
then load it here with torch.load("model.safetensors")]]

-- torch.load's first step: a file that cannot be read is refused with the reason, one that is not
-- safetensors (a PyTorch pickle: a zip starting "PK", or a bare pickle starting 0x80) with what to do.
-- A safetensors file starts with 8 bytes of little-endian header length, then the header, a JSON
-- object (its first byte "{").
local function refuse_pickle(path)
    local f, err = bind.files.open(path)
    if not f then errors.raisef("torch.load: cannot read %s (%s)", path, tostring(err)) end
    local head, read_err = f:read(9)
    f:close()
    if head == nil and read_err then errors.raisef("torch.load: cannot read %s (%s)", path, tostring(read_err)) end
    local n = head and #head == 9 and string.unpack("<I8", head)
    if not (n and head:sub(9, 9) == "{" and n >= 2 and n < 2 ^ 40) then errors.raisef(CONVERT, path, path) end
end

local function escape(s, pattern)
    return (s:gsub(pattern, function(c) return string.format("%%%02X", c:byte()) end))
end

local function unescape(s)
    return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

local function path_part(k)
    if math.type(k) == "integer" then return "#" .. k end
    return escape(k, "[%%/\t\r\n]"):gsub("^#", "%%23")
end

-- The keys of a table in the order they are saved: an ordered table's own, a plain table's integers
-- ascending, then its strings sorted (the same table makes the same file). nil and an error message
-- for a key that cannot be saved.
local function keys_of(t, where)
    local ints, strs = {}, {}
    for k in pairs(t) do
        if math.type(k) == "integer" then
            ints[#ints + 1] = k
        elseif type(k) == "string" then
            strs[#strs + 1] = k
        else
            errors.raisef("torch.save: the key %s at %s is neither a string nor an integer", check.describe(k), where)
        end
    end
    if ordered_dict.is(t) then return ordered_dict.keys(t) end
    table.sort(ints)
    table.sort(strs)
    for _, s in ipairs(strs) do ints[#ints + 1] = s end
    return ints
end

-- What the user sees for a path: model_state_dict/tok_emb.weight, or "the object" for the root.
local function shown(path)
    return path == "" and i18n.tr("the object saved") or path
end

local function not_savable(v, path)
    if type(v) == "table" and type(v.state_dict) == "function" then
        errors.raisef("torch.save: %s is a %s: save its state_dict(), as torch.save(model:state_dict(), path)",
                      shown(path), tostring(v.__name or "module"))
    end
    errors.raisef("torch.save: cannot save %s at %s: only tensors, numbers, strings, booleans and tables of them",
                  check.describe(v), shown(path))
end

-- Walks v (at path), adding manifest lines and tensors; on_path holds the tables being walked.
local function walk(v, path, lines, tensors, on_path)
    if torch.is_tensor(v) then
        local name = path == "" and "tensor" or path == "__metadata__" and "__metadata__#" or path
        tensors[name] = v
        lines[#lines + 1] = "tensor\t" .. path .. (name == path and "" or "\t" .. escape(name, "[%%\t\r\n]"))
    elseif math.type(v) == "integer" then
        lines[#lines + 1] = "int\t" .. path .. "\t" .. tostring(v)
    elseif type(v) == "number" then
        lines[#lines + 1] = "float\t" .. path .. "\t" .. (v ~= v and "nan" or pyrepr.float(v))
    elseif type(v) == "string" then
        lines[#lines + 1] = "str\t" .. path .. "\t" .. escape(v, "[%%\t\r\n]")
    elseif type(v) == "boolean" then
        lines[#lines + 1] = "bool\t" .. path .. "\t" .. tostring(v)
    elseif type(v) == "table" and (getmetatable(v) == nil or ordered_dict.is(v)) then
        if on_path[v] then errors.raisef("torch.save: the table at %s contains itself", shown(path)) end
        on_path[v] = true
        local keys = keys_of(v, shown(path))
        if ordered_dict.is(v) then
            lines[#lines + 1] = "odict\t" .. path
        elseif #keys == 0 then
            lines[#lines + 1] = "table\t" .. path
        end
        for _, k in ipairs(keys) do
            walk(v[k], path == "" and path_part(k) or path .. "/" .. path_part(k), lines, tensors, on_path)
        end
        on_path[v] = nil
    else
        not_savable(v, path)
    end
end

--- torch.save(obj, path) — writes obj (a tensor, or a table of tensors, numbers, strings, booleans and
--- tables) as a safetensors file; torch.load(path) gives it back.
function checkpoint.save(obj, path)
    if type(path) ~= "string" then
        errors.raisef("torch.save: expected a file name as the second argument, got %s", check.describe(path))
    end
    local lines, tensors = {}, {}
    walk(obj, "", lines, tensors, {})
    bind.safetensors.torch_save(tensors, path, {[MANIFEST] = table.concat(lines, "\n")})
end

local function bad_file(path, why)
    errors.raisef("torch.load: %s is not a file torch.save wrote (%s)", path, why)
end

local FLOATS = {inf = math.huge, ["-inf"] = -math.huge, nan = 0 / 0}

-- The value of one manifest line.
local function value_of(kind, p, text, tensors, path)
    if kind == "tensor" then
        local name = text == "" and p or unescape(text) -- the path itself, already as the file writes it
        local t = tensors[name]
        if not t then bad_file(path, i18n.trf("no tensor %s", name)) end
        return t
    elseif kind == "int" then
        return math.tointeger(tonumber(text)) or bad_file(path, text)
    elseif kind == "float" then
        local x = FLOATS[text] or tonumber(text)
        if type(x) ~= "number" then bad_file(path, text) end
        return math.type(x) == "integer" and x + 0.0 or x -- x + 0.0 would turn -0.0 into 0.0
    elseif kind == "str" then
        return unescape(text)
    elseif kind == "bool" then
        return text == "true"
    elseif kind == "table" then
        return {}
    elseif kind == "odict" then
        return ordered_dict.new()
    end
    bad_file(path, kind)
end

-- Rebuilds the object from the manifest: each line's value put at its path, tables made on the way.
local function rebuild(manifest, tensors, path)
    local root
    for line in (manifest .. "\n"):gmatch("(.-)\n") do
        local kind, p, text = line:match("^(%a+)\t([^\t]*)\t?(.*)$")
        if not kind then bad_file(path, line) end
        local v = value_of(kind, p, text, tensors, path)
        if p == "" then
            root = v
        else
            root = root or {}
            local t, parts = root, {}
            for part in (p .. "/"):gmatch("(.-)/") do
                parts[#parts + 1] = part:match("^#%-?%d+$") and math.tointeger(tonumber(part:sub(2))) or unescape(part)
            end
            for i = 1, #parts - 1 do
                if type(t) ~= "table" then bad_file(path, p) end
                if t[parts[i]] == nil then t[parts[i]] = {} end
                t = t[parts[i]]
            end
            if type(t) ~= "table" then bad_file(path, p) end
            t[parts[#parts]] = v
        end
    end
    return root
end

local LOAD_OPTIONS = {"map_location", "weights_only"}

--- torch.load(path [, {map_location =, weights_only =}]) — what torch.save wrote; a safetensors file
--- from elsewhere (Python's save_file(model.state_dict(), path)) as its table {name = tensor}. A
--- PyTorch pickle (.pt, .pth, .bin) is refused with the Python lines that convert it. map_location and
--- weights_only are accepted as the book passes them (attn runs on the CPU and loads only data).
function checkpoint.load(path, opts)
    if type(path) ~= "string" then
        errors.raisef("torch.load: expected a file name, got %s", check.describe(path))
    end
    check.options("torch.load", opts, "{weights_only = true}", LOAD_OPTIONS)
    refuse_pickle(path)
    local tensors, meta = bind.safetensors.torch_load(path)
    if not (meta and meta[MANIFEST]) then return tensors end
    return rebuild(meta[MANIFEST], tensors, path)
end

return checkpoint
