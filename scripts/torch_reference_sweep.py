"""A seed sweep over the book's chapter 3 classes (Build a Large Language Model (From Scratch)): for seeds
1..300 and each configuration below, what PyTorch prints for the class's output on the book's inputs,
for tests/lua/sweep_spec.lua. The classes are the book's as it writes them: SelfAttention_v2 and
CausalAttention from torch_reference_autograd.py, MultiHeadAttention from torch_reference_gpt2.py, and
MultiHeadAttentionWrapper below.

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

from torch_reference_autograd import CausalAttention, SelfAttention_v2  # the book's ch. 3 classes
from torch_reference_gpt2 import MultiHeadAttention  # the book's, as written in ch. 3


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


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
