-- docs/llm.lua — help for the tables qwen3 and llama (src/lua/llm/): the from-scratch notebooks' Qwen3
-- and Llama 3 models and their from_pretrained.
local D = require("attn.docs.define")
local def = D.def
local qwen3 = require("attn.llm.qwen3")
local llama = require("attn.llm.llama")

def("qwen3", "qwen3", [=[
Qwen3 as Sebastian Raschka's from-scratch notebook (ch05/11_qwen3/standalone-qwen3.ipynb) builds it:
qwen3.Qwen3Model(cfg) with RMSNorm, the SwiGLU FeedForward (fc1, fc2, fc3), grouped-query attention
with RoPE (split halves) and RMSNorm on each query and key head (q_norm, k_norm), the output head tied
to the token embedding when the weights have no lm_head. qwen3.QWEN3_CONFIG_06_B is the 0.6B model's
configuration; qwen3.Qwen3Model.from_pretrained(dir) reads Hugging Face's files. The attention is
attention/pipeline.lua's stages, as every attention class's. Token ids are attn's (PyTorch's id + 1).]=], [=[
torch.manual_seed(123)
cfg = {vocab_size = 50, context_length = 16, emb_dim = 16, n_heads = 4, n_layers = 1, hidden_dim = 24, head_dim = 8, qk_norm = true, n_kv_groups = 2, rope_base = 1000000.0}
qwen3.Qwen3Model(cfg)(torch.tensor{{1, 2, 3}}).shape
--> torch.Size([1, 3, 50])]=], qwen3)

def("qwen3.QWEN3_CONFIG_06_B", "qwen3.QWEN3_CONFIG_06_B", [=[
The notebook's configuration of Qwen3-0.6B: vocab_size 151936, context_length 40960, emb_dim 1024,
n_heads 16, n_layers 28, hidden_dim 3072, head_dim 128, qk_norm true, n_kv_groups 8, rope_base 1e6
(the notebook's dtype, bfloat16, aside: attn computes in float32). qwen3.config_06_b() returns a fresh
copy to change.]=], [=[
qwen3.QWEN3_CONFIG_06_B.head_dim, qwen3.QWEN3_CONFIG_06_B.n_kv_groups
--> 128	8]=])

def("qwen3.config_06_b", "qwen3.config_06_b() -> a new copy of QWEN3_CONFIG_06_B", [=[
A fresh table with QWEN3_CONFIG_06_B's values, to modify without changing the shared one.]=], [=[
cfg = qwen3.config_06_b()
cfg.n_layers = 2
qwen3.QWEN3_CONFIG_06_B.n_layers
--> 28]=], qwen3.config_06_b)

def("qwen3.Qwen3Model", "qwen3.Qwen3Model(cfg)", [=[
The notebook's Qwen3Model: tok_emb, trf_blocks (each att, ff, norm1, norm2), final_norm, out_head,
created in the notebook's order, so after torch.manual_seed the weights are PyTorch's. cfg holds
vocab_size, context_length, emb_dim, n_heads, n_layers, hidden_dim, n_kv_groups, rope_base and
optionally head_dim (else emb_dim / n_heads) and qk_norm. model(ids [, {use_cache = true}]) -> logits
[batch, n, vocab_size]; with use_cache the keys and values are kept and the positions continue (RoPE
rotates by them); model:reset_kv_cache() starts again.]=], [=[
torch.manual_seed(123)
cfg = {vocab_size = 50, context_length = 16, emb_dim = 16, n_heads = 4, n_layers = 1, hidden_dim = 24, head_dim = 8, qk_norm = true, n_kv_groups = 2, rope_base = 1000000.0}
m = qwen3.Qwen3Model(cfg)
m.trf_blocks[1].att.W_query.weight.shape, m.trf_blocks[1].att.W_key.weight.shape
--> torch.Size([32, 16])	torch.Size([16, 16])]=], qwen3.Qwen3Model)

def("qwen3.Qwen3Model.from_pretrained", "qwen3.Qwen3Model.from_pretrained(dir) -> model", [=[
A Qwen3Model with the weights of a Hugging Face Qwen3 directory: config.json (hidden_size,
num_attention_heads, num_key_value_heads, head_dim, intermediate_size, rope_theta, ...) and
model.safetensors, or model.safetensors.index.json and its shards, read into memory; BF16 and F16
weights widened to float32 as they are read. The output head is tied to the embedding when there is no
lm_head; dropout has nothing to turn off, the model is in eval mode; the user's random stream is left
as it was. A name ("Qwen/Qwen3-0.6B") is also looked up in the Hugging Face cache (and that one in
$ATTN_QWEN3_DIR and ~/.cache/attn/qwen3). A missing or
malformed file, weights that do not match config.json, or a model larger than the memory available is
refused with the file and the reason. The real weights: huggingface-cli download Qwen/Qwen3-0.6B.]=], [=[
tiny = qwen3.Qwen3Model.from_pretrained("tests/data/hf_models/qwen3-bf16-sharded") -- attn's test model
tiny.cfg.n_layers, tiny.out_head.weight == tiny.tok_emb.weight
--> 2	true]=], qwen3.Qwen3Model.from_pretrained)

def("llama", "llama", [=[
Llama 3 as Sebastian Raschka's from-scratch notebook (ch05/07_gpt_to_llama/standalone-llama32.ipynb)
builds it: llama.Llama3Model(cfg), the same parts as qwen3.Qwen3Model without QK-norm, with RoPE's
frequency scaling (cfg.rope_freq: Llama 3's longer contexts stretch the slow frequencies) and
PyTorch's nn.RMSNorm (its parameter is weight, not scale). llama.LLAMA32_CONFIG_1B is Llama 3.2 1B's
configuration; llama.Llama3Model.from_pretrained(dir) reads Hugging Face's files.]=], [=[
llama.LLAMA32_CONFIG_1B.rope_freq.factor
--> 32.0]=], llama)

def("llama.LLAMA32_CONFIG_1B", "llama.LLAMA32_CONFIG_1B", [=[
The notebook's configuration of Llama 3.2 1B: vocab_size 128256, context_length 131072, emb_dim 2048,
n_heads 32, n_layers 16, hidden_dim 8192, n_kv_groups 8, rope_base 500000, rope_freq {factor 32,
low_freq_factor 1, high_freq_factor 4, original_context_length 8192}. llama.config_32_1b() returns a
fresh copy to change.]=], [=[
llama.LLAMA32_CONFIG_1B.n_layers, llama.LLAMA32_CONFIG_1B.n_kv_groups
--> 16	8]=])

def("llama.config_32_1b", "llama.config_32_1b() -> a new copy of LLAMA32_CONFIG_1B", [=[
A fresh table with LLAMA32_CONFIG_1B's values, to modify without changing the shared one.]=], [=[
cfg = llama.config_32_1b()
cfg.n_layers = 2
llama.LLAMA32_CONFIG_1B.n_layers
--> 16]=], llama.config_32_1b)

def("llama.Llama3Model", "llama.Llama3Model(cfg)", [=[
The notebook's Llama3Model: tok_emb, trf_blocks (each att with W_key, W_value, W_query, out_proj
created in that order, ff, norm1, norm2), final_norm, out_head; after torch.manual_seed the weights
are PyTorch's. cfg: vocab_size, context_length, emb_dim, n_heads, n_layers, hidden_dim, n_kv_groups,
rope_base and optionally rope_freq. Called as qwen3.Qwen3Model is, with the KV cache too.]=], [=[
torch.manual_seed(123)
cfg = {vocab_size = 50, context_length = 16, emb_dim = 16, n_heads = 4, n_layers = 1, hidden_dim = 24, n_kv_groups = 2, rope_base = 500000.0}
m = llama.Llama3Model(cfg)
m(torch.tensor{{5, 6}}).shape, m.final_norm.weight.shape
--> torch.Size([1, 2, 50])	torch.Size([16])]=], llama.Llama3Model)

def("llama.Llama3Model.from_pretrained", "llama.Llama3Model.from_pretrained(dir) -> model", [=[
A Llama3Model with the weights of a Hugging Face Llama directory (model_type "llama"), read as
qwen3.Qwen3Model.from_pretrained reads Qwen3's; config.json's rope_scaling of type "llama3" becomes
cfg.rope_freq, any other is refused. A name ("meta-llama/Llama-3.2-1B") is also looked up in the
Hugging Face cache. The real weights (after accepting Meta's licence on Hugging Face):
huggingface-cli download meta-llama/Llama-3.2-1B.]=], [=[
tiny = llama.Llama3Model.from_pretrained("tests/data/hf_models/llama3-f32") -- attn's test model
tiny.cfg.rope_freq.original_context_length, tiny.out_head.weight == tiny.tok_emb.weight
--> 8	false]=], llama.Llama3Model.from_pretrained)
