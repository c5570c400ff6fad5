-- llama.lua — the table llama (module attn.llm.llama, the global llama): Llama 3 as Sebastian Raschka's
-- from-scratch notebook ch05/07_gpt_to_llama/standalone-llama32.ipynb builds it (llm/model.lua has the
-- classes it shares with Qwen3; Llama 3's RoPE frequency scaling is attention.rope's freq_config):
--   llama.LLAMA32_CONFIG_1B        the notebook's configuration of Llama 3.2 1B
--   llama.Llama3Model(cfg)         the model; after torch.manual_seed(123) the notebook's weights
--   llama.Llama3Model.from_pretrained(dir)  a Hugging Face Llama directory (or "meta-llama/Llama-3.2-1B"
--                                  in the Hugging Face cache) -> the model, in eval mode (llm/load.lua)
local llm = require("attn.llm.model")
local load = require("attn.llm.load")

local llama = {}

local FLAVOUR = {name = "Llama3Model", qwen3 = false, eps = 1e-5, norm_name = "weight", model_type = "llama",
                 example = "llama.LLAMA32_CONFIG_1B", example_name = "meta-llama/Llama-3.2-1B"}

-- The notebook's LLAMA32_CONFIG (1B; its dtype, bfloat16, aside: attn computes in float32).
function llama.config_32_1b()
    return {
        vocab_size = 128256,     -- vocabulary size
        context_length = 131072, -- context length the model was trained with
        emb_dim = 2048,          -- embedding dimension
        n_heads = 32,            -- attention heads
        n_layers = 16,           -- transformer blocks
        hidden_dim = 8192,       -- the FeedForward's intermediate size
        n_kv_groups = 8,         -- key/value heads (grouped-query attention)
        rope_base = 500000.0,    -- RoPE's theta base
        rope_freq = {            -- RoPE frequency scaling
            factor = 32.0,
            low_freq_factor = 1.0,
            high_freq_factor = 4.0,
            original_context_length = 8192,
        },
    }
end
llama.LLAMA32_CONFIG_1B = llama.config_32_1b()

llama.Llama3Model = llm.model_class(FLAVOUR)
llama.Llama3Model.from_pretrained = function(dir) return load.from_pretrained(FLAVOUR, llama.Llama3Model, dir) end

return llama
