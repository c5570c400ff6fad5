-- init.lua — runs once when attn starts, after the C core has made the global `torch`.
-- Sets up the Lua-side library as globals: nn (also torch.nn, as the book writes it), help and
-- lesson (the library lessons/*.lua are written with).
nn = require("attn.nn")
torch.nn = nn
help = require("attn.help")
lesson = require("attn.lesson")
