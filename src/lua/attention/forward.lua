-- forward.lua — attention.forward (module attn.attention.forward, returns the function): the stages
-- of src/bind/attention.c composed the way the book's classes compose them.
local torch = require("attn.bind").torch
local attention = require("attn.bind").attention -- the C stages
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")
local pipeline = require("attn.attention.pipeline")

local trf = require("attn.i18n").trf
-- fail(fmt, ...): the error of attention.forward, its format translated (scripts/po.sh extracts fail's first argument)
local function fail(fmt, ...)
    errors.raisef("%s: %s", "attention.forward", trf(fmt, ...))
end

local function is_tensor(x)
    return torch.is_tensor(x)
end

-- mask: nil, "causal", or a bool tensor (true = hidden) that broadcasts to the scores.
local function hidden_of(mask)
    if mask == nil then return nil end
    if mask == "causal" then
        return function(_, q, k) return attention.causal_mask(q.shape[-2] or 1, k.shape[-2] or 1) end
    end
    if is_tensor(mask) then return mask end
    fail('mask must be a bool tensor (true = hidden) or "causal", got %s', tostring(mask))
end

--- attention.forward{q=, k=, v=, mask=, scale=true, dropout=0, heads=1, fill=-inf} -> context, weights
-- Scaled dot-product attention: the stages of attention/pipeline.lua,
--   (1) split heads  (2) scores q·kᵀ  (3) scale  (4) mask  (5) softmax  (6) dropout
--   (7) weighted sum of v  (8) merge heads.
-- The weights returned are the ones the context was computed with (after dropout), [..., h, n, m]
-- when heads > 1.
local function forward(args)
    for _, name in ipairs({"q", "k", "v"}) do
        check.tensor("attention.forward", name, args[name])
    end
    local heads = args.heads or 1
    if math.type(heads) ~= "integer" or heads < 1 then
        fail("heads must be a whole number >= 1, got %s", tostring(heads))
    end
    local p = args.dropout or 0
    if type(p) ~= "number" then fail("dropout must be a probability, got %s", type(p)) end
    if heads > 1 then
        for _, name in ipairs({"q", "k", "v"}) do
            if args[name]:dim() < 2 then
                fail("%s must be [b, n, d] to split into heads, got %s", name, tostring(args[name].shape))
            end
        end
    end
    local t = pipeline.run({heads = heads, merge = heads > 1 and "short" or nil, scale = args.scale,
                            hidden = hidden_of(args.mask), fill = args.fill, dropout = p ~= 0 and p or nil,
                            fail = fail}, {q = args.q, k = args.k, v = args.v})
    return t.merged or t.context, t.dropped or t.weights
end

local FORWARD_OPTIONS = {q = true, k = true, v = true, mask = true, scale = true, dropout = true, heads = true,
                         fill = true}

-- A stage's error names attention.forward first: "attention.forward: attention.scores: q [6, 3] ...".
return function(args)
    if type(args) ~= "table" or is_tensor(args) then
        fail("expected a table such as {q = q, k = k, v = v}, got %s", type(args))
    end
    for key in pairs(args) do -- {causal = true} (attention.fused's option) must not be ignored quietly
        if not FORWARD_OPTIONS[key] then
            fail('unknown option %s (known: q, k, v, mask, scale, dropout, heads, fill; for a causal mask, mask = "causal")',
                 tostring(key))
        end
    end
    return errors.call("attention.forward", forward, args)
end
