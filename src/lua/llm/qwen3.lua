-- qwen3.lua — the table qwen3 (module attn.llm.qwen3, the global qwen3): Qwen3 as Sebastian Raschka's
-- from-scratch notebook ch05/11_qwen3/standalone-qwen3.ipynb builds it (llm/model.lua has the classes
-- it shares with Llama 3):
--   qwen3.QWEN3_CONFIG_06_B        the notebook's configuration of Qwen3-0.6B
--   qwen3.Qwen3Model(cfg)          the model; after torch.manual_seed(123) the notebook's weights
--   qwen3.Qwen3Model.from_pretrained(dir)   a Hugging Face Qwen3 directory (or "Qwen/Qwen3-0.6B" in the
--                                  Hugging Face cache) -> the model, in eval mode (llm/load.lua)
local llm = require("attn.llm.model")
local load = require("attn.llm.load")

local qwen3 = {}

local FLAVOUR = {name = "Qwen3Model", qwen3 = true, eps = 1e-6, norm_name = "scale", model_type = "qwen3",
                 example = "qwen3.QWEN3_CONFIG_06_B", example_name = "Qwen/Qwen3-0.6B"}

-- The notebook's QWEN3_CONFIG for "0.6B" (its dtype, bfloat16, aside: attn computes in float32).
function qwen3.config_06_b()
    return {
        vocab_size = 151936,     -- vocabulary size
        context_length = 40960,  -- context length the model was trained with
        emb_dim = 1024,          -- embedding dimension
        n_heads = 16,            -- attention heads
        n_layers = 28,           -- transformer blocks
        hidden_dim = 3072,       -- the FeedForward's intermediate size
        head_dim = 128,          -- size of each head (not emb_dim / n_heads)
        qk_norm = true,          -- RMSNorm on queries and keys
        n_kv_groups = 8,         -- key/value heads (grouped-query attention)
        rope_base = 1000000.0,   -- RoPE's theta base
    }
end
qwen3.QWEN3_CONFIG_06_B = qwen3.config_06_b()

qwen3.Qwen3Model = llm.model_class(FLAVOUR)
qwen3.Qwen3Model.from_pretrained = function(dir) return load.from_pretrained(FLAVOUR, qwen3.Qwen3Model, dir) end

return qwen3
