-- overview.lua — what ?nn, ?attention and ?lesson list, in the order a reader of the books meets
-- it (help.groups), and the doc of nn itself. Loaded by attn.docs (docs/init.lua).

local D = require("attn.docs.define")
local def = D.def
local nn = require("attn.nn")
local help = require("attn.help")

def("nn", "nn  (also torch.nn)", [=[
Layers and models as PyTorch's torch.nn has them, plus the books' attention classes and the
Transformer's layers, ready-made. Calling a class makes a module; calling the module runs its
forward: nn.Linear(3, 2)(x). Keyword arguments go in a trailing table, nn.Linear(3, 2, {bias = false});
torch.manual_seed first makes the same weights as the book's. Printing a module shows its layers as
PyTorch does; m:parameters(), m:named_parameters(), m:eval() and m:train() work as there. Write your
own class with nn.Module:extend (?nn.Module).]=], [=[
torch.manual_seed(123)
mha = nn.MultiHeadAttention(3, 2, 6, 0.0, 2)   -- d_in, d_out, context_length, dropout, num_heads
batch = torch.stack({inputs, inputs}, 1)       -- inputs: see ?torch.tensor
mha(batch)[1][2]                               -- the book's numbers (In [54])
--> tensor([0.2943, 0.3897], grad_fn=<SelectBackward0>)]=], nn)

help.groups("nn", {
    {"Building blocks:", {"nn.Module", "nn.Parameter", "nn.Linear", "nn.Dropout", "nn.ModuleList",
                          "nn.Sequential", "nn.deepcopy", "nn.is_parameter", "nn.init"}},
    {"Recurrent layers (the seq2seq encoder and decoder):", {"nn.GRUCell", "nn.GRU", "nn.LSTMCell", "nn.LSTM"}},
    {"The books' attention classes (LLMs from scratch, annotated Transformer, d2l):",
     {"nn.SelfAttention_v1", "nn.SelfAttention_v2", "nn.CausalAttention", "nn.MultiHeadAttentionWrapper",
      "nn.MultiHeadAttention", "nn.MultiHeadedAttention", "nn.DotProductAttention", "nn.MLPAttention"}},
    {"Today's attention (the bonus chapters):",
     {"nn.GroupedQueryAttention", "nn.MultiHeadLatentAttention"}},
    {"The Transformer's layers (Python Deep Learning ch. 7):",
     {"nn.LayerNorm", "nn.Embedding", "nn.Embeddings", "nn.ReLU", "nn.GELU", "nn.SiLU",
      "nn.positional_encoding", "nn.PositionalEncoding", "nn.PositionwiseFFN", "nn.SublayerConnection",
      "nn.EncoderBlock", "nn.Encoder", "nn.DecoderBlock", "nn.Decoder", "nn.BERTEmbedding",
      "nn.clones", "nn.subsequent_mask"}},
    {"The whole Transformer (Python Deep Learning ch. 7) and decoding:",
     {"nn.EncoderDecoder", "nn.build_model", "nn.GreedyDecoder", "nn.greedy_decode"}},
    {"Losses (ch. 5's training; torch.optim has the optimizers):", {"nn.CrossEntropyLoss", "nn.NLLLoss", "nn.MSELoss"}},
})

help.groups("attention", {
    {"The stages, in the order attention runs them:",
     {"attention.scores", "attention.scale", "attention.causal_mask", "attention.valid_len_mask",
      "attention.mask", "attention.softmax", "attention.dropout", "attention.weighted_sum",
      "attention.split_heads", "attention.merge_heads"}},
    {"Other score functions (Luong, Bahdanau):", {"attention.dot", "attention.general", "attention.additive"}},
    {"All stages at once:", {"attention.forward", "attention.fused"}},
    {"Today's models (the bonus chapters):", {"attention.rope", "attention.rope_params", "attention.band_mask",
     "attention.layer_pattern", "attention.alibi_slopes", "attention.repeat_interleave", "attention.kv_groups",
     "attention.kv_cache_bytes", "attention.online_softmax"}},
    {"Seeing them:", {"attention.trace", "attention.trace:backward", "attention.heatmap", "attention.overview",
                      "attention.plot"}},
})

help.groups("lesson", {
    {"A lesson is written with (in the order a lesson uses them):",
     {"lesson.title", "lesson.section", "lesson.say", "lesson.step", "lesson.show", "lesson.check",
      "lesson.heatmaps", "lesson.reference", "lesson.tr", "lesson.capture"}},
})

def("help.groups", "help.groups(name, {{title, {names...}}, ...})", [=[
Orders what help lists for the table name (?nn, ?attention) in groups, each under its title;
documented members of the table in no group follow under "Also:".]=], [=[
help.text("attention"):match("All stages[^\n]*\n[^\n]*")
--> All stages at once:
-->   attention.forward{q=, k=, v=]=], help.groups)
