-- forward.lua — attention.forward (module attn.attention.forward, returns the function): the stages
-- of src/bind/attention.c composed the way the book's classes compose them.
local torch = require("attn.bind").torch
local attention = require("attn.bind").attention -- the C stages
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local check = require("attn.check")

local function fail(msg)
    errors.raise("attention.forward: " .. msg)
end

local function is_tensor(x)
    return torch.is_tensor(x)
end

-- The scale factor asked for: true -> 1/sqrt(d_k) (as a division, as the book writes it),
-- false -> none, a number -> multiply by it.
local function apply_scale(s, scale, d_k)
    if scale == nil or scale == true then
        return attention.scale(s, d_k)
    elseif scale == false then
        return s
    elseif type(scale) == "number" then
        return s * scale
    end
    fail("scale must be true (1/sqrt(d_k)), false or a number, got " .. type(scale))
end

-- mask: nil, "causal", or a bool tensor (true = hidden) that broadcasts to the scores.
local function hidden_of(mask, n, m)
    if mask == nil then return nil end
    if mask == "causal" then return attention.causal_mask(n, m) end
    if is_tensor(mask) then return mask end
    fail('mask must be a bool tensor (true = hidden) or "causal", got ' .. tostring(mask))
end

--- attention.forward{q=, k=, v=, mask=, scale=true, dropout=0, heads=1, fill=-inf} -> context, weights
-- Scaled dot-product attention from the stages:
--   (1) split heads  (2) scores q·kᵀ  (3) scale  (4) mask  (5) softmax  (6) dropout
--   (7) weighted sum of v  (8) merge heads.
-- The weights returned are the ones the context was computed with (after dropout), [..., h, n, m]
-- when heads > 1.
local function forward(args)
    local q, k, v = args.q, args.k, args.v
    for _, name in ipairs({"q", "k", "v"}) do
        check.tensor("attention.forward", name, args[name])
    end
    local heads = args.heads or 1
    if math.type(heads) ~= "integer" or heads < 1 then
        fail("heads must be a whole number >= 1, got " .. tostring(heads))
    end
    local p = args.dropout or 0
    if type(p) ~= "number" then fail("dropout must be a probability, got " .. type(p)) end
    if heads > 1 then
        for _, name in ipairs({"q", "k", "v"}) do
            if args[name]:dim() < 2 then
                fail(name .. " must be [b, n, d] to split into heads, got " .. tostring(args[name].shape))
            end
        end
        q, k, v = attention.split_heads(q, heads), attention.split_heads(k, heads), attention.split_heads(v, heads)
    end
    local s = attention.scores(q, k)
    s = apply_scale(s, args.scale, k.shape[-1])
    local n, m = q.shape[-2] or 1, k.shape[-2] or 1
    local hidden = hidden_of(args.mask, n, m)
    if hidden then s = attention.mask(s, hidden, args.fill) end
    local w = attention.softmax(s, -1)
    if p ~= 0 then w = attention.dropout(w, p) end
    local context = attention.weighted_sum(w, v)
    if heads > 1 then context = attention.merge_heads(context) end
    return context, w
end

local FORWARD_OPTIONS = {q = true, k = true, v = true, mask = true, scale = true, dropout = true, heads = true,
                         fill = true}

-- A stage's error names attention.forward first: "attention.forward: attention.scores: q [6, 3] ...".
return function(args)
    if type(args) ~= "table" or is_tensor(args) then
        fail("expected a table such as {q = q, k = k, v = v}, got " .. type(args))
    end
    for key in pairs(args) do -- {causal = true} (attention.fused's option) must not be ignored quietly
        if not FORWARD_OPTIONS[key] then
            fail("unknown option " .. tostring(key) .. ' (known: q, k, v, mask, scale, dropout, heads, fill; '
                 .. 'for a causal mask, mask = "causal")')
        end
    end
    return errors.call("attention.forward", forward, args)
end
