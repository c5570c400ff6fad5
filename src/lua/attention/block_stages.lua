-- block_stages.lua — what attention.trace steps through for a Transformer block (module
-- attn.attention.block_stages): attention.trace{module = block, x = x [, tokens =, loss =]}.
--
-- The stages are one spec of attention/pipeline.lua built once: the block's attention's own spec (its
-- class's trace_spec, or read by its field names, as a trace of the attention alone has it) with the
-- block's records of attention/pipeline_block.lua switched on around it (spec.block):
--   pre-LN (chapter 4's TransformerBlock; Python Deep Learning's EncoderBlock as it is built by default):
--     input, norm, the attention's stages, shortcut, norm, feed-forward, shortcut
--   post-LN (EncoderBlock with {norm_first = false}):
--     input, the attention's stages, shortcut, norm, feed-forward, shortcut, norm
-- The last stage is the block's output, so a loss on it reaches every parameter of the block: each stage
-- that is computed with parameters shows their gradients in the backward steps (named as the block's
-- named_parameters names them), and the input's gradient is shown too (the first stage).
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local torch = require("attn.bind").torch
local check = require("attn.check")
local stages = require("attn.attention.stages")

local trf = require("attn.i18n").trf
-- fail(fmt, ...): the error of attention.trace, its format translated (scripts/po.sh extracts fail's first argument)
local function fail(fmt, ...)
    errors.raisef("%s: %s", "attention.trace", trf(fmt, ...))
end

-- m(x) for a module or a function.
local function caller(m) return function(x) return m(x) end end

-- The block's dropout d as the shortcut applies it: nil when it drops nothing (evaluation mode, p = 0),
-- else the module itself, which draws from the random stream in the order the block's forward does.
local function active_dropout(d)
    if d and d.training and (d.p or 0) > 0 then return caller(d) end
    return nil
end

-- Every parameter of the stages renamed as block:named_parameters() names it ("att.W_query.weight"), and
-- the block's own layers' parameters added to the stages that use them (parts.params: key -> modules).
local function block_params(block, attn_params, own)
    local full = {}
    for _, pair in ipairs(block:named_parameters()) do full[pair[2]] = pair[1] end
    local out = {}
    for key, list in pairs(attn_params or {}) do
        out[key] = {}
        for i, p in ipairs(list) do out[key][i] = {full[p[2]] or p[1], p[2]} end
    end
    for key, modules in pairs(own) do
        out[key] = out[key] or {}
        for _, m in ipairs(modules) do
            for _, pair in ipairs(m:named_parameters()) do
                out[key][#out[key] + 1] = {full[pair[2]] or pair[1], pair[2]}
            end
        end
    end
    return out
end

--- block_stages(tr, block, parts) -> the stages of block's trace and the options it takes. parts:
---   att = the attention module, norms = {norm1, norm2}, norm_names = {..}, post = true (post-LN),
---   drops = {dropout modules after each sublayer}, drop_names = {..}, ff = the feed-forward module,
---   ff_formula = "ff(%s)", input = the formula of the input stage
return function(tr, block, parts)
    local x = tr.x
    if x:dim() ~= 3 then
        fail("a Transformer block's trace takes x = [batch, n, d], as its forward does, got %s", check.shape(x))
    end
    local spec, params, takes = stages.spec_of(tr, parts.att)
    spec.src = {x = "x", h = "x"} -- the block's input is the attention's input (or normed) and the stream
    spec.input = parts.input
    spec.block = {norms = {caller(parts.norms[1]), caller(parts.norms[2])}, norm_names = parts.norm_names,
                  post = parts.post or false, ff = caller(parts.ff), ff_formula = parts.ff_formula,
                  drops = {active_dropout(parts.drops[1]), active_dropout(parts.drops[2])}, drop_names = parts.drop_names}
    local lead = spec.lead or {}
    lead.x = lead.x or {"batch"}
    spec.lead = lead
    local norm_keys = parts.post and {"post_norm1", "post_norm2"} or {"norm1", "norm2"}
    local list, _ = stages.from_spec(spec, block_params(block, params, {
        [norm_keys[1]] = {parts.norms[1]}, [norm_keys[2]] = {parts.norms[2]}, ff = {parts.ff}}))
    -- the input is a stage here: with a loss its gradient is shown too (attention/backward.lua
    -- differentiates with respect to the trace's x when it takes part in the graph)
    if tr.loss ~= nil and torch.is_tensor(x) and not x.requires_grad and x.dtype == torch.float32 then
        rawset(tr, "x", x:detach():requires_grad_())
    end
    return list, takes
end
