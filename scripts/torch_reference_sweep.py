"""A seed sweep over the book's chapter 3 classes (Build a Large Language Model (From Scratch)): for seeds
1..300 and each configuration below, what PyTorch prints for the class's output on the book's inputs,
for tests/lua/sweep_spec.lua. The classes are written here as the book writes them.

ch3_sweep.txt, tab-separated ('#' lines are comments):
    prelude <TAB> lua <TAB> python                       the book's inputs and batch, on both sides
    config <TAB> name <TAB> lua <TAB> python             how one configuration makes its module and output
    out <TAB> name <TAB> seed <TAB> bits <TAB> printed   torch.manual_seed(seed), then the config's code:
                                                         the output's float32 bits (row-major) and str()
                                                         (\\n for a newline)
Debian's torch has no MKL: dropout draws are attn's "default" Bernoulli flavour.
"""
import torch
from torch import nn


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        return attn_weights @ values


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        return attn_weights @ values


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert (d_out % num_heads == 0), "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


PRELUDE = [
    ("inputs = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64}, "
     "{0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}",
     "inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64], "
     "[0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])"),
    ("batch = torch.stack({inputs, inputs}, 1)", "batch = torch.stack((inputs, inputs), dim=0)"),
]

# name, Lua, Python: each makes the module after the seed and returns its output
CONFIGS = [
    ("mha_2x1", "nn.MultiHeadAttention(3, 2, 6, 0.0, 2)(batch)", "MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)(batch)"),
    ("mha_4x2_bias", "nn.MultiHeadAttention(3, 4, 6, 0.0, 2, true)(batch)",
     "MultiHeadAttention(3, 4, 6, 0.0, 2, qkv_bias=True)(batch)"),
    ("mha_6x1", "nn.MultiHeadAttention(3, 6, 6, 0.0, 1)(batch)", "MultiHeadAttention(3, 6, 6, 0.0, num_heads=1)(batch)"),
    ("mha_6x3_dropout_train", "nn.MultiHeadAttention(3, 6, 6, 0.5, 3)(batch)",
     "MultiHeadAttention(3, 6, 6, 0.5, num_heads=3)(batch)"),
    ("mha_6x3_dropout_eval", "nn.MultiHeadAttention(3, 6, 6, 0.5, 3):eval()(batch)",
     "MultiHeadAttention(3, 6, 6, 0.5, num_heads=3).eval()(batch)"),
    ("wrapper_2x2", "nn.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2)(batch)",
     "MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)(batch)"),
    ("wrapper_1x2_dropout_train_bias", "nn.MultiHeadAttentionWrapper(3, 1, 6, 0.5, 2, true)(batch)",
     "MultiHeadAttentionWrapper(3, 1, 6, 0.5, num_heads=2, qkv_bias=True)(batch)"),
    ("causal", "nn.CausalAttention(3, 2, 6, 0.0)(batch)", "CausalAttention(3, 2, 6, 0.0)(batch)"),
    ("causal_dropout_train", "nn.CausalAttention(3, 2, 6, 0.5)(batch)", "CausalAttention(3, 2, 6, 0.5)(batch)"),
    ("self_attention_v2", "nn.SelfAttention_v2(3, 2)(inputs)", "SelfAttention_v2(3, 2)(inputs)"),
]

SEEDS = range(1, 301)


def escape(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n")


def gen_sweep(write, f32s):
    env = {"torch": torch, "MultiHeadAttention": MultiHeadAttention, "CausalAttention": CausalAttention,
           "MultiHeadAttentionWrapper": MultiHeadAttentionWrapper, "SelfAttention_v2": SelfAttention_v2}
    lines = []
    for lua, python in PRELUDE:
        exec(python, env)
        lines.append("prelude\t%s\t%s" % (lua, python))
    for name, lua, python in CONFIGS:
        lines.append("config\t%s\t%s\t%s" % (name, lua, python))
    with torch.no_grad():  # no grad_fn suffix in the printed text (attn never prints one)
        for name, lua, python in CONFIGS:
            for seed in SEEDS:
                torch.manual_seed(seed)
                out = eval(python, env)
                lines.append("out\t%s\t%d\t%s\t%s" % (name, seed, f32s(out), escape(str(out))))
    write("ch3_sweep.txt", "the book's ch. 3 classes, seeds 1..300, on the book's inputs (tab-separated; see "
          "scripts/torch_reference_sweep.py)", lines)
