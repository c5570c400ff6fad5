-- init.lua — runs once when attn starts, after the C core has made the global `torch`.
-- Sets up the Lua-side library as globals: nn (also torch.nn, as the book writes it), attention
-- (the C stages plus attention.forward, trace, heatmap), help and lesson (the library lessons/*.lua
-- are written with).
nn = require("attn.nn")
require("attn.transformer") -- adds the Transformer's layers to nn
torch.nn = nn
attention = require("attn.attention")
help = require("attn.help")
lesson = require("attn.lesson")
