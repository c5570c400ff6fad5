-- init.lua — the table gpt (module attn.gpt, the global gpt): chapters 4 and 5's GPT model, each part
-- in its file.
--   gpt/model.lua     gpt.GPT_CONFIG_124M, gpt.LayerNorm, gpt.GELU, gpt.FeedForward, gpt.TransformerBlock,
--                     gpt.GPTModel
--   gpt/load.lua      gpt.load_weights_into_gpt, gpt.params_from_hf, gpt.GPTModel.from_pretrained(dir)
--   gpt/generate.lua  gpt.generate_text_simple, gpt.generate, gpt.text_to_token_ids, gpt.token_ids_to_text
--   gpt/step.lua      gpt.Generator: generation one token at a time
--   gpt/cached.lua    gpt.generate_text_simple_cached: generation with the KV cache
local gpt = {}
for _, part in ipairs({"model", "load", "generate", "step", "cached"}) do
    for name, value in pairs(require("attn.gpt." .. part)) do
        if name ~= "check_ids" and name ~= "check_config" and name ~= "internal" and name ~= "gpt2_dir"
            and not name:find("_class$") then
            assert(gpt[name] == nil, "gpt." .. name .. " is defined twice")
            gpt[name] = value
        end
    end
end
gpt.GPTModel.from_pretrained = gpt.from_pretrained
gpt.from_pretrained = nil
return gpt
