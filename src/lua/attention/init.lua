-- init.lua — the table attention (module attn.attention): the stages of attention, each its own
-- operation, and what is built on them.
--   src/bind/attention.c, fused.c    the stages (scores, scale, masks, softmax, weighted_sum,
--                                    dropout, heads, dot/general/additive) and attention.fused, in C
--   attention/forward.lua            attention.forward: the stages composed
--   attention/trace.lua              attention.trace: the stages one at a time
--   attention/heatmap.lua            attention.heatmap: a matrix drawn in the terminal
--   attention/overview.lua           attention.overview: every layer × head of a model, small
local errors = require("attn.errors") -- errors point at the user's line, not at this file
local heatmap = require("attn.attention.heatmap")

local attention = {}
for name, f in pairs(require("attn.bind").attention) do
    attention[name] = f
end
attention.forward = require("attn.attention.forward")
attention.trace = require("attn.attention.trace")
attention.overview = require("attn.attention.overview")

--- attention.heatmap(t [, {rows =, cols =, color =, range =}]) — draws a matrix in the terminal.
function attention.heatmap(t, opts)
    if opts ~= nil and type(opts) ~= "table" then
        errors.raise("attention.heatmap: options must be a table such as {rows = tokens, cols = tokens}, got " ..
                     type(opts))
    end
    io.write(heatmap.render(t, opts), "\n")
end

return attention
