-- ipairs.lua — the global ipairs attn gives its users (module attn.ipairs; attn.init makes it the global,
-- so scripts, lessons, the REPL, notes and the kernel all have it): Lua's ipairs, which also knows the two
-- things a Python user enumerates that are not Lua lists.
--
--   ipairs(tensor)  i, row for i = 1 .. #tensor, the rows as tensor[i] gives them (Python: enumerate(t),
--                   which walks dim 0 as it was when the loop began)
--   ipairs(loader)  i, x, y ... for each batch of a torch.utils.data.DataLoader (Python:
--                   enumerate(loader)), one pass as `for x, y in loader do` takes
--   ipairs(other)   Lua's own ipairs
--
-- Why: Lua 5.4's ipairs walks t[1], t[2], ... until a nil, through __index. A tensor's t[#t + 1] is an
-- error (as PyTorch's IndexError), not nil, and a loader has no items by number; Lua's ipairs would stop
-- on the error for the one and find nothing in the other (that loop used to run zero times, silently).
local torch = require("attn.bind").torch
local errors = require("attn.errors")
local is_loader = require("attn.data.loader").is_loader
local ipairs = ipairs -- Lua's (its errors name "ipairs": the local keeps the name)

local function rows(t)
    if t.ndim == 0 then errors.raise("ipairs: iteration over a 0-d tensor") end
    local n, i = #t, 0
    return function()
        i = i + 1
        if i > n then return nil end
        return i, t[i]
    end
end

local function batches(loader)
    local pass, i = loader:iter(), 0
    return function()
        local batch = table.pack(pass())
        if batch[1] == nil then return nil end
        i = i + 1
        return i, table.unpack(batch, 1, batch.n)
    end
end

return function(...)
    if select("#", ...) == 0 then errors.raise("bad argument #1 to 'ipairs' (table expected, got no value)") end
    local t = ...
    if torch.is_tensor(t) then return rows(t) end
    if is_loader(t) then return batches(t) end
    return ipairs(...)
end
