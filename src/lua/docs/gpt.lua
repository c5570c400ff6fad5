-- docs/gpt.lua — help for the table gpt (src/lua/gpt/): chapter 4's GPTModel and its parts, chapter 5's
-- loading and generation, and the step-by-step generator.
local D = require("attn.docs.define")
local def = D.def
local gpt = require("attn.gpt")
local Generator = require("attn.gpt.step").Generator_class

def("gpt", "gpt", [=[
The GPT model of Build a Large Language Model (From Scratch), chapters 4 and 5, written as the book
writes it: gpt.GPT_CONFIG_124M, gpt.LayerNorm, gpt.GELU, gpt.FeedForward, gpt.TransformerBlock and
gpt.GPTModel (built from the seeded stream exactly as PyTorch builds it), gpt.generate_text_simple and
gpt.generate (temperature, top-k), gpt.load_weights_into_gpt and gpt.GPTModel.from_pretrained(dir) for
OpenAI's GPT-2 weights in a Hugging Face directory, and gpt.Generator to generate a token at a time.
Token ids are attn's (1-based: PyTorch's id + 1).]=], [=[
torch.manual_seed(123)
model = gpt.GPTModel{vocab_size = 50, context_length = 8, emb_dim = 16, n_heads = 2, n_layers = 1, drop_rate = 0.0, qkv_bias = false}
model(torch.tensor{{1, 2, 3}}).shape
--> torch.Size([1, 3, 50])]=], gpt)

def("gpt.GPT_CONFIG_124M", "gpt.GPT_CONFIG_124M", [=[
Chapter 4's configuration of the smallest GPT-2: vocab_size 50257, context_length 1024, emb_dim 768,
n_heads 12, n_layers 12, drop_rate 0.1, qkv_bias false. gpt.config_124M() returns a fresh copy to
change (the book's {**GPT_CONFIG_124M, "qkv_bias": True}).]=], [=[
gpt.GPT_CONFIG_124M.emb_dim, gpt.GPT_CONFIG_124M.n_layers
--> 768	12]=])

def("gpt.config_124M", "gpt.config_124M() -> a new copy of GPT_CONFIG_124M", [=[
A fresh table with GPT_CONFIG_124M's values, to modify without changing the shared one.]=], [=[
cfg = gpt.config_124M()
cfg.qkv_bias = true
gpt.GPT_CONFIG_124M.qkv_bias
--> false]=], gpt.config_124M)

def("gpt.LayerNorm", "gpt.LayerNorm(emb_dim)", [=[
Chapter 4's LayerNorm: scale·(x − mean)/sqrt(var + 1e-5) + shift over the last dim, with the biased
variance (unbiased = false), scale ones and shift zeros to start. The fields are scale and shift
(PyTorch's nn.LayerNorm calls them weight and bias: that is nn.LayerNorm).]=], [=[
ln = gpt.LayerNorm(3)
ln(torch.tensor{{1.0, 2.0, 3.0}})
--> tensor([[-1.2247,  0.0000,  1.2247]], grad_fn=<AddBackward0>)]=], gpt.LayerNorm)

def("gpt.GELU", "gpt.GELU()", [=[
Chapter 4's GELU, the tanh approximation GPT-2 was trained with:
0.5·x·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³))).]=], [=[
gpt.GELU()(torch.tensor{-1.0, 0.0, 1.0})
--> tensor([-0.1588,  0.0000,  0.8412])]=], gpt.GELU)

def("gpt.FeedForward", "gpt.FeedForward(cfg)", [=[
Linear(emb_dim, 4·emb_dim), GELU, Linear(4·emb_dim, emb_dim), in the field layers (an nn.Sequential).]=], [=[
ff = gpt.FeedForward{vocab_size = 10, context_length = 4, emb_dim = 8, n_heads = 2, n_layers = 1, drop_rate = 0.0, qkv_bias = false}
ff.layers[1].weight.shape
--> torch.Size([32, 8])]=], gpt.FeedForward)

def("gpt.TransformerBlock", "gpt.TransformerBlock(cfg)", [=[
Chapter 4's block: x + drop(att(norm1(x))), then x + drop(ff(norm2(x))) (pre-LayerNorm, shortcut
connections), att being chapter 3's nn.MultiHeadAttention with cfg's sizes. Built in the book's
order: att, ff, norm1, norm2, drop_shortcut.]=], [=[
cfg = {vocab_size = 10, context_length = 4, emb_dim = 8, n_heads = 2, n_layers = 1, drop_rate = 0.0, qkv_bias = false}
gpt.TransformerBlock(cfg)(torch.rand(2, 4, 8)).shape
--> torch.Size([2, 4, 8])]=], gpt.TransformerBlock)

def("gpt.TransformerBlock:trace_stages", "attention.trace{module = block, x = x [, mask =, tokens =, loss =]}", [=[
A trace of a Transformer block: chapter 4's gpt.TransformerBlock (with nn.MultiHeadAttention, or
nn.MultiHeadLatentAttention when the configuration has latent_dim) or Python Deep Learning's
nn.EncoderBlock (its mask option is what the block's forward takes, 1 = visible). x is the block's input
[batch, n, d]. The stages are those of the block's attention, as a trace of the attention alone has them,
with the block's own around them: the input X; pre-LN: norm (N₁ = norm1(X)), the attention's stages reading
N₁, shortcut (H₁ = X + out, with the block's dropout when it is training), norm (N₂ = norm2(H₁)),
feed-forward (F = ff(N₂)), shortcut (H₂ = H₁ + F), the block's output; post-LN (nn.EncoderBlock with
{norm_first = false}): the attention reads X, and a norm follows each shortcut. With loss =, the backward
steps go from the block's output back to its input: ∂L/∂X is the sum of what comes through the first norm
and what the shortcut passes on unchanged, and each stage computed with parameters shows their gradients
(norm1.scale, att.W_query.weight, ff.layers.1.weight, ..., named as block:named_parameters() names them).
Qwen3's and Llama 3's blocks are traced through their model (module = model, layer =, head =).]=], [=[
torch.manual_seed(123)
block = gpt.TransformerBlock{vocab_size = 50, context_length = 6, emb_dim = 4, n_heads = 2, n_layers = 1,
                             drop_rate = 0.0, qkv_bias = false}
tr = attention.trace{module = block, x = torch.rand(1, 6, 4), loss = function(out) return out:sum() end}
#tr._stages, tr._stages[2].name, tr._stages[14].formula
--> 17	norm	H₁ = X + out]=], gpt.TransformerBlock.trace_stages)

def("gpt.GPTModel", "gpt.GPTModel(cfg)", [=[
Chapter 4's model: token and position embeddings (tok_emb, pos_emb), dropout, cfg.n_layers
TransformerBlocks (trf_blocks), a final LayerNorm and the output head (out_head, no bias), logits of
shape [batch, n, vocab_size] for token ids [batch, n] (int64; attn's ids, 1-based). After the same
torch.manual_seed every weight is PyTorch's, bit for bit. A text longer than cfg.context_length is
refused with both numbers. GPT_CONFIG_124M's model has 163,009,536 parameters (the book's count);
GPT-2 shares the embedding with the output head, 124,412,160 (from_pretrained ties them).]=], [=[
torch.manual_seed(123)
m = gpt.GPTModel{vocab_size = 100, context_length = 16, emb_dim = 32, n_heads = 4, n_layers = 2, drop_rate = 0.1, qkv_bias = false}
m:num_parameters()
--> 32192]=], gpt.GPTModel)

def("gpt.GPTModel.from_pretrained", "gpt.GPTModel.from_pretrained(dir) -> model", [=[
A GPTModel with OpenAI's GPT-2 weights from a Hugging Face gpt2 directory: config.json (n_embd,
n_head, n_layer, n_positions, vocab_size) and model.safetensors (read into memory, see
?safetensors.load_file; a pytorch_model.bin is a pickle and is refused). Conv1D weights are
transposed, the fused c_attn split into W_query, W_key and W_value, the output head tied to the token
embedding, dropout off (eval mode). The user's random stream is left as it was. A config that does
not match the tensors, a missing or malformed file, or a model larger than the memory available is
refused with what is wrong. GPT-2 small: the files config.json and model.safetensors of Hugging
Face's "gpt2" (openai-community/gpt2), about 550 MB. When no directory has the name, "gpt2" (or
"openai-community/gpt2") is looked for in $ATTN_GPT2_DIR, ~/.cache/attn/gpt2, build/gpt2 beside attn
and the Hugging Face cache (see ?tokenizers.Tokenizer.from_pretrained for where that is); when none
has it, the error lists them and the commands that download the files.]=], [=[
tiny = gpt.GPTModel.from_pretrained("tests/data/gpt2/tiny")   -- attn's test model: 2 layers, 4 heads
tiny.cfg.emb_dim, tiny.cfg.n_layers, tiny.training
--> 64	2	false]=], gpt.GPTModel.from_pretrained)

def("gpt.load_weights_into_gpt", "gpt.load_weights_into_gpt(gpt, params)", [=[
Chapter 5's function: puts OpenAI's weights into a GPTModel. params is nested as the book's
load_gpt2_params_from_tf_ckpt returns it: params.wte, params.wpe, params.g, params.b and
params.blocks[i].attn.c_attn.w / .b, attn.c_proj, mlp.c_fc, mlp.c_proj, ln_1.g / .b, ln_2 (weights in
Conv1D's [in, out] layout). Every shape is checked, and a mismatch names the weight and both shapes
(the book's "Shape mismatch" of assign).]=], [=[
state = safetensors.load_file("tests/data/gpt2/tiny/model.safetensors")
params = gpt.params_from_hf(state)
m = gpt.GPTModel{vocab_size = 1000, context_length = 32, emb_dim = 64, n_heads = 4, n_layers = 2, drop_rate = 0.0, qkv_bias = true}
gpt.load_weights_into_gpt(m, params).out_head.weight == m.tok_emb.weight
--> true]=], gpt.load_weights_into_gpt)

def("gpt.params_from_hf", "gpt.params_from_hf(state) -> params", [=[
A Hugging Face GPT-2 state (names h.0.attn.c_attn.weight, ..., with or without the "transformer."
prefix) rearranged into OpenAI's nested params for gpt.load_weights_into_gpt.]=], [=[
params = gpt.params_from_hf(safetensors.load_file("tests/data/gpt2/tiny/model.safetensors"))
#params.blocks, params.blocks[1].attn.c_attn.w.shape
--> 2	torch.Size([64, 192])]=], gpt.params_from_hf)

def("gpt.generate_text_simple", "gpt.generate_text_simple(model, idx, max_new_tokens, context_size)", [=[
Chapter 4's greedy generation: max_new_tokens times, the model reads the last context_size ids of idx
([batch, n], int64) and the most likely next id is appended. Returns the longer idx.]=], [=[
tiny = gpt.GPTModel.from_pretrained("tests/data/gpt2/tiny")
gpt.generate_text_simple(tiny, torch.tensor{{1, 2, 3}}, 2, 32).shape
--> torch.Size([1, 5])]=], gpt.generate_text_simple)

def("gpt.generate", "gpt.generate(model, idx, max_new_tokens, context_size [, {temperature = 0.0, top_k, eos_id}])", [=[
Chapter 5's generate: the logits outside the top_k are set to -inf, then with temperature > 0 the
logits are divided by it and the next id drawn with torch.multinomial; with temperature 0 the argmax.
Generation stops early when eos_id is drawn. After the same torch.manual_seed the ids are PyTorch's
(+ 1). gpt.Generator does the same one token at a time.]=], [=[
tiny = gpt.GPTModel.from_pretrained("tests/data/gpt2/tiny")
torch.manual_seed(123)
gpt.generate(tiny, torch.tensor{{1, 2, 3}}, 3, 32, {temperature = 1.4, top_k = 25}).shape
--> torch.Size([1, 6])]=], gpt.generate)

def("gpt.text_to_token_ids", "gpt.text_to_token_ids(text, tokenizer) -> [1, n] int64", [=[
Chapter 5's helper: the text's ids (with <|endoftext|> allowed) as a batch of one.]=], [=[
gpt.text_to_token_ids("Every effort moves you", tiktoken.get_encoding("gpt2"))
--> tensor([[6110, 3627, 6101,  346]])]=], gpt.text_to_token_ids)

def("gpt.token_ids_to_text", "gpt.token_ids_to_text(token_ids, tokenizer) -> text", [=[
Chapter 5's helper: the text of a batch of one ([1, n] ids).]=], [=[
gpt.token_ids_to_text(torch.tensor{{6110, 3627, 6101, 346}}, tiktoken.get_encoding("gpt2"))
--> Every effort moves you]=], gpt.token_ids_to_text)

def("gpt.Generator", "gpt.Generator{model =, idx = or text =, tokenizer =, max_new_tokens = 10, temperature = 0, top_k =, eos_id =, show = 5, use_cache = false}", [=[
Chapter 5's generate, a token at a time: g:step() runs the model on the context, shows the causal
mask's row for the last position (it sees every token up to itself), the top `show` candidates with
their probabilities and the one chosen, and appends it; g:run() does the remaining steps. g.idx holds
the ids, g:text() their text. The same seed gives gpt.generate's ids.

Any model with chapter 4's interface works: gpt.GPTModel, qwen3.Qwen3Model, llama.Llama3Model; the
tokenizer is a tiktoken encoding or a tokenizers.Tokenizer (by default the tokenizer.json of the
directory from_pretrained read). With use_cache = true (the bonus chapter ch04/03_kv-cache) the prompt
goes through the model once, then only each new token, its one query against the keys and values every
layer cached (see g:run's example); the same ids as without the cache, and the prompt and the new
tokens must fit the context length.]=], [=[
tiny = gpt.GPTModel.from_pretrained("tests/data/gpt2/tiny")
g = gpt.Generator{model = tiny, idx = torch.tensor{{1, 2, 3}}, max_new_tokens = 2, show = 2}
g:run().shape
--> [1/2] the model reads 3 tokens
-->   causal mask, the row of the last position #3: sees ■■■ (all 3 tokens up to itself)
-->   next-token probabilities (greedy: the most likely is taken):
-->     #45                0.95%  <- chosen
-->     #530               0.92%
-->   new token: #45
--> [2/2] the model reads 4 tokens
-->   causal mask, the row of the last position #45: sees ■■■■ (all 4 tokens up to itself)
-->   next-token probabilities (greedy: the most likely is taken):
-->     #45                0.99%  <- chosen
-->     #32                0.84%
-->   new token: #45
--> torch.Size([1, 5])]=], gpt.Generator)

def("Generator:step", "g:step() -> the new id (nil when finished)", [=[
One token of gpt.Generator: what the model reads, the causal mask's new row, the candidates and the
choice.]=], [=[
tiny = gpt.GPTModel.from_pretrained("tests/data/gpt2/tiny")
g = gpt.Generator{model = tiny, idx = torch.tensor{{1, 2, 3}}, max_new_tokens = 1, show = 1}
g:step()
--> [1/1] the model reads 3 tokens
-->   causal mask, the row of the last position #3: sees ■■■ (all 3 tokens up to itself)
-->   next-token probabilities (greedy: the most likely is taken):
-->     #45                0.95%  <- chosen
-->   new token: #45
--> 45]=], Generator.step)

def("Generator:run", "g:run() -> idx", [=[
The remaining steps of gpt.Generator; returns the ids. Here with the KV cache, on a tiny Qwen3.]=], [=[
tiny = qwen3.Qwen3Model.from_pretrained("tests/data/hf_models/qwen3-f32")
g = gpt.Generator{model = tiny, idx = torch.tensor{{6, 18, 43}}, max_new_tokens = 2, show = 1, use_cache = true}
g:run()
--> [1/2] the prompt, 3 tokens, goes through the model once: each layer's KV cache now holds the keys and values of 3 tokens
-->   next-token probabilities (greedy: the most likely is taken):
-->     #43              100.00%  <- chosen
-->   new token: #43
--> [2/2] only the new token #43 goes through the model: its query meets 4 keys, 3 from the cache and its own
-->   next-token probabilities (greedy: the most likely is taken):
-->     #43               99.99%  <- chosen
-->   new token: #43
--> tensor([[ 6, 18, 43, 43, 43]])]=], Generator.run)

def("Generator:text", "g:text() -> text", [=[
The text of the ids so far (the generator needs a tokenizer).]=], [=[
g = gpt.Generator{model = gpt.GPTModel.from_pretrained("tests/data/gpt2/tiny"), idx = torch.tensor{{1}}, max_new_tokens = 0, tokenizer = tiktoken.get_encoding("gpt2")}
g:text()
--> !]=], Generator.text)

def("attention.overview", "attention.overview{module = model, text = or ids = [, tokenizer =, layers =, heads =, width = 78]}", [=[
Every layer × head of a GPT model's attention on one screen (bertviz's model view, in the terminal):
one small map per head, a row per query token and a column per key token, a character per weight
from · (light) to █ (dark), blank where the causal mask hides the key. Look for the heads that attend
to the previous token (a diagonal under the main one), to the first token (a dark first column) or to
the same word. Returns {layers = {[l] = weights [heads, n, n]}, tokens = {...}}; layers = and heads =
pick some. One head's stages, with the numbers: attention.trace{module = model, layer = L, head = H,
text = "..."} (or ids =), whose stages are block L's input after its LayerNorm, head H's queries,
keys and values, the scores, masked, scaled, the weights and the context. At most 32 tokens.]=], [=[
tiny = gpt.GPTModel.from_pretrained("tests/data/gpt2/tiny")
maps = attention.overview{module = tiny, ids = {5, 17, 99}, layers = 1, heads = {1, 2}}
--> attention of every layer × head: 3 tokens, a row per query, a column per key (· light … █ dark; blank: hidden by the causal mask)
--> tokens: 1=#5  2=#17  3=#99
--> L1  h1   h2
-->     █    █
-->     ▓░   ▓░
-->     ░░░  ·▓░]=], require("attn.attention").overview)
