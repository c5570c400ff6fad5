-- safetensors.lua — weights as data, never code (module attn.safetensors, the global safetensors):
--   safetensors.load_file(path)               {name = tensor, ...} and the file's metadata (or nil);
--                                             the file is memory-mapped, its float32 tensors point into it
--   safetensors.save_file(tensors, path [, metadata])
-- and torch.load, which refuses PyTorch's pickle checkpoints and says how to convert them. The format
-- and its checks are in src/core/safetensors.c.
local bind = require("attn.bind")
local errors = require("attn.errors")
local function N(msgid) return msgid end -- marks a message for the catalogs; raisef translates it

local safetensors = {
    load_file = bind.safetensors.load_file,
    save_file = bind.safetensors.save_file,
}

-- A .pt/.pth/.bin checkpoint is a Python pickle: loading it runs whatever code the file names, so a
-- downloaded checkpoint could do anything. attn reads only safetensors, which holds data alone.
local CONVERT = N[[
torch.load: attn does not read PyTorch checkpoints (%s): they are Python pickles, and unpickling a file runs
code chosen by whoever made it. Convert it once, in Python, to safetensors (data only):
    import torch
    from safetensors.torch import save_file
    state = torch.load("%s", map_location="cpu")
    save_file({k: v.contiguous() for k, v in state.items()}, "model.safetensors")
then load it here with safetensors.load_file("model.safetensors")]]

-- Whether the file at path is a safetensors file: 8 bytes of little-endian header length, then the
-- header, a JSON object (its first byte "{"). A pickle starts with 0x80, a zip checkpoint with "PK".
local function is_safetensors(path)
    local f = bind.files.open(path)
    if not f then return false end
    local head = f:read(9)
    f:close()
    if not head or #head < 9 then return false end
    local n = string.unpack("<I8", head)
    return head:sub(9, 9) == "{" and n >= 2 and n < 2 ^ 40
end

function safetensors.torch_load(path)
    if type(path) ~= "string" then
        errors.raisef("torch.load: expected a file name, got %s", type(path))
    end
    local f, err = bind.files.open(path)
    if not f then errors.raisef("torch.load: cannot read %s (%s)", path, tostring(err)) end
    f:close()
    if is_safetensors(path) then
        errors.raisef("torch.load: %s is a safetensors file, not a PyTorch checkpoint: load it with safetensors.load_file(%q)",
                      path, path)
    end
    errors.raisef(CONVERT, path, path)
end

return safetensors
