-- init.lua — the tables attn puts in the user's hands (module attn.init): torch, nn (also torch.nn, as
-- the book writes it), attention (the C stages plus attention.forward, trace, heatmap), help and
-- lesson (the library lessons/*.lua are written with). src/bind/init.c, the one wiring point, makes
-- them the globals of ./attn.
local torch = require("attn.bind").torch
local nn = require("attn.nn")
local safetensors = require("attn.safetensors")
torch.nn = nn
torch.load = safetensors.torch_load
return {
    torch = torch,
    nn = nn,
    attention = require("attn.attention"),
    help = require("attn.help"),
    lesson = require("attn.lesson"),
    safetensors = safetensors,
    tiktoken = require("attn.tiktoken"),
    gpt = require("attn.gpt"),
}
