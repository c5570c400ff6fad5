-- init.lua — the help text of every public function and table of attn (module attn.docs).
--
-- help.lua loads this module the first time help is asked for anything. Each entry is
--   def(name, sig, doc, example [, value])                   (docs/define.lua)
-- `doc` is one paragraph (line breaks in the source become spaces). `example` is Lua that runs in
-- attn as it stands; lines starting with "-->" are what the code above them prints at the prompt,
-- and tests/lua/docs_spec.lua checks that, so every number shown is one attn computed. An example
-- that uses `inputs` (the book's 6x3 tensor of section 3.3.1, see ?torch.tensor) says so. The
-- texts are [=[ ]=] strings because a printed matrix ends in "]])".
--
-- The topics, each a file that registers its entries when loaded, in this order (a value documented
-- under two names is found by help(value) under the later one):
local TOPICS = {
    "torch",        -- creation, random numbers, printing, constants
    "help",         -- help itself
    "attention",    -- the stages and attention.forward
    "attention_nn", -- the books' attention classes (nn/attention.lua)
    "fused",        -- attention.fused
    "lesson",       -- the lesson library
    "nn",           -- nn.Module, the layers, nn.functional
    "ops",          -- arithmetic, comparisons, reductions, products
    "overview",     -- what ?nn, ?attention and ?lesson list
    "tensor",       -- shapes, views, indexing, conversion
    "transformer",  -- the Transformer's layers
    "blocks",       -- the Transformer's blocks and BERT's input (nn/transformer.lua)
    "rnn",          -- the recurrent layers (nn/rnn.lua)
    "model",        -- nn.init, nn.Sequential, the whole Transformer and decoding (nn/model.lua)
    "safetensors",  -- safetensors.load_file/save_file, torch.load's refusal
    "tiktoken",     -- GPT-2's tokenizer; topk, multinomial, exponential_
    "tokenizers",   -- Hugging Face tokenizer.json files (Qwen3's, Llama 3's) and the Hugging Face cache
    "gpt",          -- chapters 4 and 5's GPT model (gpt/)
    "learn",        -- losses, gather, randperm, linspace, DataLoader, torch.optim (training)
    "variants",     -- today's attention: RoPE, GQA, the KV cache, sliding windows, ALiBi
    "autograd",     -- backward, grad, no_grad, the autograd fields of a tensor
    "llm",          -- Qwen3 and Llama 3 (llm/)
}

for _, topic in ipairs(TOPICS) do
    require("attn.docs." .. topic)
end

return {topics = TOPICS}
