-- block_trace.lua — what attention.trace steps through for the Transformer blocks of nn/transformer.lua
-- (module attn.nn.block_trace; it adds a method to nn.EncoderBlock and defines no name of nn):
--   attention.trace{module = block, x = x [, mask =, tokens =, loss =]}
-- Python Deep Learning's EncoderBlock: its self-attention through the stages of attention/pipeline.lua,
-- with the layer norms, the shortcut connections (SublayerConnection) and the feed-forward network around
-- it (attention/block_stages.lua); pre-LN as the block is built by default, post-LN with
-- {norm_first = false}. mask is what the block's forward takes (1 = visible), given to its attention.
local EncoderBlock = require("attn.nn.transformer").EncoderBlock
local block_stages = require("attn.attention.block_stages")

function EncoderBlock:trace_stages(tr)
    local s1, s2 = self.sublayers[1], self.sublayers[2]
    return block_stages(tr, self, {
        att = self.self_attn, norms = {s1.norm, s2.norm}, norm_names = {"sublayers[1].norm", "sublayers[2].norm"},
        post = not s1.norm_first, drops = {s1.dropout, s2.dropout},
        drop_names = {"sublayers[1].dropout", "sublayers[2].dropout"}, ff = self.ffn,
        ff_formula = "ffn(%s)", input = "X   (the block's input)"})
end

return {}
