-- generator.lua — torch.Generator and torch.randperm (module attn.data.generator).
--
-- attn's C core has one random generator (src/core/rng.c), PyTorch's default CPU generator. A
-- torch.Generator is that generator's whole state kept aside (torch.get_rng_state's string): drawing
-- from it puts its state in, draws, takes the new state back out and restores the default one, so the
-- default stream goes on as if nothing had been drawn — as in PyTorch, where the two are separate
-- engines. A fresh Generator starts from PyTorch's default seed, 67280421310721.
local torch = require("attn.bind").torch
local C = require("attn.bind").learn -- C.randperm: the permutation from the current generator
local errors = require("attn.errors")
local check = require("attn.check")

local DEFAULT_SEED = 67280421310721 -- c10's default_rng_seed_val: a new torch.Generator()'s seed

local Generator = {__name = "torch.Generator"}
Generator.__index = Generator

-- The state that torch.manual_seed(seed) makes, without touching the default generator.
local function seeded_state(seed)
    local saved = torch.get_rng_state()
    torch.manual_seed(seed)
    local state = torch.get_rng_state()
    torch.set_rng_state(saved)
    return state
end

local function new_generator()
    return setmetatable({state = seeded_state(DEFAULT_SEED), seed = DEFAULT_SEED}, Generator)
end

local function is_generator(g)
    return getmetatable(g) == Generator
end

--- g:manual_seed(seed) — reseeds g (as torch.manual_seed does the default generator); returns g.
function Generator:manual_seed(seed)
    if math.type(seed) ~= "integer" or seed < 0 then
        errors.raisef("Generator.manual_seed: seed must be a non-negative integer, got %s", check.describe(seed))
    end
    self.state, self.seed = seeded_state(seed), seed
    return self
end

function Generator:initial_seed() return self.seed end
function Generator:get_state() return self.state end
function Generator:set_state(s)
    local saved = torch.get_rng_state()
    torch.set_rng_state(s) -- refuses a string that is not a state
    torch.set_rng_state(saved)
    self.state = s
end
Generator.__tostring = function() return "<torch.Generator>" end

-- f(...) drawing from g instead of the default generator (g nil: the default one itself). The default
-- state is put back whatever happens, an error or Ctrl-C included.
local function with_generator(g, f, ...)
    if g == nil then return f(...) end
    local saved = torch.get_rng_state()
    torch.set_rng_state(g.state)
    local r = table.pack(pcall(f, ...))
    g.state = torch.get_rng_state()
    torch.set_rng_state(saved)
    if not r[1] then error(r[2], 0) end
    return table.unpack(r, 2, r.n)
end

-- torch.randperm(n, {generator = g}): 1, ..., n shuffled as PyTorch's randperm(n) shuffles 0, ..., n-1
-- for the same seed (attn's ids are PyTorch's + 1); int64.
local function randperm(n, opts)
    if math.type(n) ~= "integer" or n < 0 then
        errors.raisef("randperm: n must be a non-negative integer, got %s", check.describe(n))
    end
    opts = check.options("randperm", opts, "{generator = g}", {"generator"})
    for k in pairs(opts) do
        if k ~= "generator" then errors.raisef("randperm: unknown option %s (randperm(n, {generator = g}))", tostring(k)) end
    end
    if opts.generator ~= nil and not is_generator(opts.generator) then
        errors.raisef("randperm: generator must be a torch.Generator, got %s", check.describe(opts.generator))
    end
    return with_generator(opts.generator, C.randperm, n)
end

return {Generator = new_generator, is_generator = is_generator, with_generator = with_generator,
        randperm = randperm}
