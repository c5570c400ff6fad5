-- init.lua — the tables attn puts in the user's hands (module attn.init): torch, nn (also torch.nn, as
-- the book writes it), attention (the C stages plus attention.forward, trace, heatmap), help and
-- lesson (the library lessons/*.lua are written with). src/bind/init.c, the one wiring point, makes
-- them the globals of ./attn. attn holds attn.lang, the language of its text (attn.i18n).
-- autograd first: it makes the bindings' ops differentiable in place, before any module keeps one
local autograd = require("attn.autograd")
local torch = require("attn.bind").torch
local nn = require("attn.nn")
local safetensors = require("attn.safetensors")
local i18n = require("attn.i18n")
local errors = require("attn.errors")
torch.nn = nn
-- torch.save and torch.load in safetensors files, never pickles (src/lua/checkpoint.lua)
local checkpoint = require("attn.checkpoint")
torch.save, torch.load = checkpoint.save, checkpoint.load
-- training: torch.optim (src/lua/optim), torch.utils.data.DataLoader, torch.Generator and randperm with
-- a generator (src/lua/data)
local generator = require("attn.data.generator")
torch.Generator, torch.randperm = generator.Generator, generator.randperm
torch.utils = {data = require("attn.data")}
torch.optim = require("attn.optim")

-- attn.lang() -> the language of attn's text ("en", "zh_CN"); attn.lang("zh_CN") switches to it.
local function lang(name)
    local l, err = i18n.lang(name)
    if not l then errors.raisef("attn.lang: %s", err) end
    return l
end

-- attention.overview draws a model's weights from a forward it runs itself: a picture, not a step
-- of training, so no graph is recorded (and its numbers are plain numbers)
local attention = require("attn.attention")
attention.overview = autograd.grad_mode.without_grad(attention.overview)

return {
    torch = torch,
    nn = nn,
    attention = attention,
    help = require("attn.help"),
    lesson = require("attn.lesson"),
    safetensors = safetensors,
    tiktoken = require("attn.tiktoken"),
    tokenizers = require("attn.tokenizers"),
    gpt = require("attn.gpt"),
    qwen3 = require("attn.llm.qwen3"),
    llama = require("attn.llm.llama"),
    attn = {lang = lang, version = "0.1"},
    -- Lua's ipairs that also walks a tensor's rows and enumerates a DataLoader (attn/ipairs.lua)
    ipairs = require("attn.ipairs"),
}
