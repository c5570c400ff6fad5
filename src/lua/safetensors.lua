-- safetensors.lua — weights as data, never code (module attn.safetensors, the global safetensors):
--   safetensors.load_file(path)               {name = tensor, ...} and the file's metadata (or nil);
--                                             the file is memory-mapped, its float32 tensors point into it
--   safetensors.save_file(tensors, path [, metadata])
-- (torch.save and torch.load, in the same format, and torch.load's refusal of PyTorch's pickles:
-- src/lua/checkpoint.lua). The format and its checks are in src/core/safetensors.c.
local bind = require("attn.bind")

local safetensors = {
    load_file = bind.safetensors.load_file,
    save_file = bind.safetensors.save_file,
}

return safetensors
