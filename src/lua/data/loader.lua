-- loader.lua — torch.utils.data.DataLoader (module attn.data.loader): batches of a dataset, shuffled in
-- PyTorch 1.13's order for a seed (single process, num_workers = 0).
--
-- What PyTorch draws, each time a loop over the loader starts (torch/utils/data/dataloader.py and
-- sampler.py): the iterator's _base_seed, torch.empty((), dtype=torch.int64).random_(generator=
-- loader.generator) — one 64-bit draw, shuffled or not; then, when shuffling, RandomSampler takes a seed
-- the same way from the default generator (or uses loader.generator itself when one was given), and
-- torch.randperm(n) from a fresh generator with that seed. So an unshuffled loader moves the default
-- stream on too, and attn does the same.
--
-- The dataset is anything with #dataset and dataset[i] (i from 1): a Lua list, or a class with __len
-- and __index. Items are collated as PyTorch's default_collate does: tensors stacked along a new first
-- dim, numbers into a tensor, a list item ({x, y}) collated position by position and returned as
-- several values, so that `for x, y in loader do ... end` reads like Python's loop.
local torch = require("attn.bind").torch
local C = require("attn.bind").learn
local errors = require("attn.errors")
local trf = require("attn.i18n").trf
local check = require("attn.check")
local generator = require("attn.data.generator")

local DataLoader = {__name = "DataLoader"}

-- loader.batch_size, loader:iter(), ...; loader[i] is refused (PyTorch's DataLoader has no items by
-- number either). `for i, x, y in ipairs(loader)`, Python's enumerate(loader), is attn's ipairs
-- (src/lua/ipairs.lua), which knows loaders; Lua's own asked loader[1], got nil and ran zero times.
function DataLoader.__index(self, key)
    if math.type(key) == "integer" then
        -- at the user's line: loader[1] in the user's code, or the line of the loop when a C function asked
        local level = debug.getinfo(2, "S").what == "C" and 3 or 2
        error(trf("DataLoader: a loader has no items by number (loader[%d]); loop over its batches with "
                  .. "`for x, y in loader do ... end`, or `for i, x, y in ipairs(loader) do ... end` for "
                  .. "enumerate's i", key), level)
    end
    return DataLoader[key]
end

local USAGE = "DataLoader(dataset, {batch_size = 1, shuffle = false, drop_last = false, generator = nil})"
local KNOWN = {"batch_size", "shuffle", "drop_last", "generator", "num_workers"}

local function new(dataset, opts)
    local ok, n = pcall(function() return #dataset end)
    if not ok or math.type(n) ~= "integer" then
        errors.raisef("DataLoader: dataset must have a length (#dataset) and items dataset[i], got %s (%s)",
                      check.describe(dataset), USAGE)
    end
    opts = check.options("DataLoader", opts, "{batch_size = 2, shuffle = true}", KNOWN)
    if opts.num_workers ~= nil and opts.num_workers ~= 0 then
        errors.raisef("DataLoader: num_workers must be 0 (attn loads in one process), got %s", check.describe(opts.num_workers))
    end
    if opts.generator ~= nil and not generator.is_generator(opts.generator) then
        errors.raisef("DataLoader: generator must be a torch.Generator, got %s", check.describe(opts.generator))
    end
    return setmetatable({
        dataset = dataset,
        batch_size = check.size("DataLoader", "batch_size", opts.batch_size or 1),
        shuffle = check.boolean("DataLoader", "shuffle", opts.shuffle or false),
        drop_last = check.boolean("DataLoader", "drop_last", opts.drop_last or false),
        generator = opts.generator,
        passes = setmetatable({}, {__mode = "k"}), -- the last batch given -> the pass that gave it
    }, DataLoader)
end

-- The number of batches: len(loader).
function DataLoader:__len()
    local n = #self.dataset
    if self.drop_last then return n // self.batch_size end
    return (n + self.batch_size - 1) // self.batch_size
end

-- The order of the items for one pass (1-based), drawing what PyTorch draws.
local function epoch_order(self)
    local n = #self.dataset
    generator.with_generator(self.generator, C.random_seed) -- the iterator's _base_seed
    if not self.shuffle then
        local order = {}
        for i = 1, n do order[i] = i end
        return order
    end
    local g = self.generator
    if g == nil then
        g = generator.Generator():manual_seed(C.random_seed())
    end
    return generator.randperm(n, {generator = g}):tolist()
end

local function collate(items, fn)
    local first = items[1]
    if torch.is_tensor(first) then
        return torch.stack(items, 1)
    elseif type(first) == "number" then
        return torch.tensor(items)
    elseif type(first) == "table" and getmetatable(first) == nil then
        local out = {}
        for j = 1, #first do
            local column = {}
            for i, item in ipairs(items) do column[i] = item[j] end
            out[j] = collate(column, fn)
        end
        return out
    end
    errors.raisef("%s: cannot make a batch of %s (items must be tensors, numbers or lists of them)", fn,
                  check.describe(first))
end

-- A fresh pass: an iterator function giving one batch per call (several values for list items).
function DataLoader:iter()
    local order, pos = epoch_order(self), 0
    local n, bs = #order, self.batch_size
    return function()
        local left = n - pos
        if left <= 0 or (self.drop_last and left < bs) then return nil end
        local items = {}
        for k = 1, math.min(bs, left) do items[k] = self.dataset[order[pos + k]] end
        pos = pos + math.min(bs, left)
        local batch = collate(items, "DataLoader")
        if type(batch) == "table" and not torch.is_tensor(batch) then return table.unpack(batch) end
        return batch
    end
end

-- `for x, y in loader do`: Lua calls the loader as the iterator, with (nil, nil) on the first step of
-- each loop (a new pass starts, as Python's iter(loader)) and (nil, previous x) after. Each pass is
-- found again by the batch it gave last (the loop's control value), so loops over one loader nest as
-- in Python: chapter 5's evaluation, a loop over the training loader inside the training loop, takes
-- a pass of its own and leaves the outer loop's batches alone.
-- `loader()` with no arguments returns a fresh pass's iterator.
function DataLoader:__call(...)
    if select("#", ...) == 0 then return self:iter() end
    local _, control = ...
    local pass = control ~= nil and self.passes[control] or nil
    if pass == nil then pass = self:iter() end
    local batch = table.pack(pass())
    if batch[1] ~= nil then self.passes[batch[1]] = pass end
    return table.unpack(batch, 1, batch.n)
end

function DataLoader:__tostring()
    return string.format("<DataLoader: %d items, batch_size=%d, shuffle=%s, drop_last=%s>", #self.dataset,
                         self.batch_size, tostring(self.shuffle), tostring(self.drop_last))
end

-- is_loader(x): whether x is a DataLoader (attn.ipairs enumerates one)
return {DataLoader = new, is_loader = function(x) return getmetatable(x) == DataLoader end}
