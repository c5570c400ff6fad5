-- init.lua — torch.utils.data (module attn.data): DataLoader (data/loader.lua); torch.Generator and
-- torch.randperm live in data/generator.lua.
return {DataLoader = require("attn.data.loader").DataLoader}
