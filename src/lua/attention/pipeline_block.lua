-- pipeline_block.lua — the stages a Transformer block puts around its attention (module
-- attn.attention.pipeline_block): records of attention/pipeline.lua's list (same fields, see its top),
-- switched on by spec.block, so that a block is traced through the one description of attention's
-- stages with its layer norms, shortcut connections and feed-forward network before and after.
--
-- spec.block = {
--   norms = {norm1, norm2}     the two layer norms (modules or functions of x)
--   norm_names = {..}          how the formulas name them ("norm1", "sublayers[1].norm")
--   post = true                post-LN (LayerNorm(x + Sublayer(x))), else pre-LN (x + Sublayer(LayerNorm(x)))
--   drops = {d1, d2}           the dropout applied to each sublayer's output before the shortcut (a function;
--                              nil when it drops nothing: evaluation mode or p = 0); drop_names = {..}
--   ff = f, ff_formula = "ff(%s)"   the position-wise feed-forward network, and its formula (%s: its input)
-- }
-- Roles (besides those of pipeline.lua): h is the residual stream; x is what the next sublayer reads (the
-- normed stream in a pre-LN block); z is a sublayer's output. The block's input is the stage "x"
-- (pipeline.lua's input record, spec.input its formula), and spec.src maps both x and h to it.
local blocks = {}

-- The symbols of the block's tensors in its formulas, by key (the attention's own come from its records).
local SYM = {x = "X", norm1 = "N₁", shortcut1 = "H₁", post_norm1 = "H₁'", norm2 = "N₂", ff = "F", output = "out",
             shortcut2 = "H₂", post_norm2 = "H₂'"}

local function pre(spec) return spec.block ~= nil and not spec.block.post end
local function post(spec) return spec.block ~= nil and spec.block.post == true end

-- The shortcut connection after sublayer i: h + dropout(z).
local function shortcut(i, key)
    return {key = key, name = "shortcut", reads = {"z", "h"}, writes = {"h"}, lead = "x", rows = "q",
        shape = "[.., n, d] + [.., n, d] -> [.., n, d]", sym = {SYM[key]},
        -- the stream's gradient passes the addition unchanged; the sublayer's passes its dropout's mask too
        grad = {h = "{g}", z = function(spec)
            return (spec.block.drops and spec.block.drops[i]) and "{g} ⊙ m_keep / (1 − p)" or "{g}"
        end},
        on = function(spec) return spec.block ~= nil end,
        formula = function(spec, from)
            local z = SYM[from.z] or from.z
            local d = spec.block.drops and spec.block.drops[i]
            if d then z = ((spec.block.drop_names or {})[i] or "dropout") .. "(" .. z .. ")" end
            return SYM[key] .. " = " .. (SYM[from.h] or from.h) .. " + " .. z
        end,
        compute = function(get, spec)
            local z, d = get("z"), spec.block.drops and spec.block.drops[i]
            if d then z = d(z) end
            return get("h") + z
        end}
end

-- Layer norm i of the block: pre-LN reads the stream (h) and gives what the sublayer reads (x);
-- post-LN normalises the stream itself after the shortcut (h and x both name the result).
local function norm(i, key, when)
    return {key = key, name = "norm", reads = {"h"}, writes = when == pre and {"x"} or {"h", "x"}, lead = "x",
        rows = "q", shape = "[.., n, d] -> [.., n, d]: each row to mean 0, variance 1, then scaled and shifted",
        sym = {SYM[key]}, grad = {h = "{g}·∂{o}/∂{h}"}, -- through each row's mean and variance
        on = when,
        formula = function(spec, from)
            return SYM[key] .. " = " .. spec.block.norm_names[i] .. "(" .. (SYM[from.h] or from.h) .. ")"
        end,
        compute = function(get, spec) return spec.block.norms[i](get("h")) end}
end

--- blocks.BEFORE: the records between the input and the projections (pre-LN's first layer norm).
blocks.BEFORE = {norm(1, "norm1", pre)}

--- blocks.AFTER: the records after the attention's output: shortcut, layer norm, feed-forward, shortcut.
blocks.AFTER = {
    shortcut(1, "shortcut1"),
    norm(1, "post_norm1", post),
    norm(2, "norm2", pre),
    {key = "ff", name = "feed-forward", reads = {"x"}, writes = {"z"}, lead = "x", rows = "q",
     shape = "[.., n, d] -> [.., n, d_ff] -> [.., n, d]", sym = {"F"},
     grad = {x = "{g}·∂F/∂{x}"}, -- through both linear layers and the activation between them
     on = function(spec) return spec.block ~= nil end,
     formula = function(spec, from) return "F = " .. string.format(spec.block.ff_formula, SYM[from.x] or from.x) end,
     compute = function(get, spec) return spec.block.ff(get("x")) end},
    shortcut(2, "shortcut2"),
    norm(2, "post_norm2", post),
}

return blocks
