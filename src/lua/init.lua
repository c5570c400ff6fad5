-- init.lua — runs once when attn starts, after the C core has made the global `torch`.
-- Sets up the Lua-side library as globals: nn (also torch.nn, as the book writes it) and help.
nn = require("attn.nn")
require("attn.transformer") -- adds the Transformer's layers to nn
torch.nn = nn
help = require("attn.help")
