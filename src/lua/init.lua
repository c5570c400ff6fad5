-- init.lua — runs once when attn starts, after the C core has made the global `torch`.
-- Sets up the Lua-side library: help, and (later) nn and the attention helpers.
help = require("attn.help")
