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

function safetensors.torch_load(path)
    if type(path) ~= "string" then
        errors.raisef("torch.load: expected a file name, got %s", type(path))
    end
    errors.raisef(CONVERT, path, path)
end

return safetensors
