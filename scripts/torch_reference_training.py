"""torch_reference_training.py — PyTorch's training of chapter 4's GPTModel for attn's autograd wiring
(through the autograd engine and formulas_extra.lua): tests/data/torch/training.txt, read by tests/lua/training_spec.lua.

Cases (layout of support.case_file in tests/lua/support.lua, float32 as bit patterns):
  gpt_ce     GPTModel on a small configuration (seed 123, 2 layers, 2 heads, 16 dims, vocabulary 50),
             F.cross_entropy(logits.flatten(0, 1), targets.flatten()) as the book's calc_loss_batch
             writes it: the loss and every parameter's gradient (grad.<name>).
  gpt_adamw  the same model and batch, 3 steps of torch.optim.AdamW(lr=4e-4, weight_decay=0.1) as the
             book's train_model_simple takes them (zero_grad, loss, backward, step): each step's loss
             (loss.<k>) and every parameter after the third step (param.<name>).
  shortcut_<with|without>  chapter 4's ExampleDeepNeuralNetwork (layer_sizes [3, 3, 3, 3, 1], seed 123,
             the input [[1., 0., -1.]], target [[0.]], nn.MSELoss): each weight's gradient's mean of
             absolute values (mean.<name>), as the book's print_gradients prints them.
Run through scripts/gen-torch-reference.sh (OPENBLAS_CORETYPE=Haswell, one thread).
"""
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_gpt2 import GELU, GPTModel  # noqa: E402  (the book's chapter 4 classes)

LINES = []


def f32s(t):
    return " ".join("0x%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in t.detach().reshape(-1).tolist())


def tensor_line(case, name, t):
    shape = ",".join(str(s) for s in t.shape) or "-"
    if t.dtype == torch.int64:
        LINES.append("int64 case=%s name=%s shape=%s : %s" % (case, name, shape, " ".join(str(v) for v in t.reshape(-1).tolist())))
    else:
        LINES.append("tensor case=%s name=%s shape=%s : %s" % (case, name, shape, f32s(t)))


CFG = {"vocab_size": 50, "context_length": 8, "emb_dim": 16, "n_heads": 2, "n_layers": 2, "drop_rate": 0.0,
       "qkv_bias": False}
CFG_KEYS = "seed=123 vocab_size=50 context_length=8 emb_dim=16 n_heads=2 n_layers=2"


def batch():
    g = torch.Generator().manual_seed(27)
    ids = torch.randint(0, 50, (2, 8), generator=g)
    targets = torch.randint(0, 50, (2, 8), generator=g)
    return ids, targets


def loss_of(model, ids, targets):
    logits = model(ids)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def gen_gpt():
    ids, targets = batch()
    torch.manual_seed(123)
    model = GPTModel(CFG)
    loss = loss_of(model, ids, targets)
    loss.backward()
    LINES.append("case name=gpt_ce op=gpt %s : -" % CFG_KEYS)
    tensor_line("gpt_ce", "ids", ids)
    tensor_line("gpt_ce", "targets", targets)
    tensor_line("gpt_ce", "loss", loss)
    for name, p in model.named_parameters():
        tensor_line("gpt_ce", "grad." + name, p.grad)

    torch.manual_seed(123)
    model = GPTModel(CFG)
    opt = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)
    LINES.append("case name=gpt_adamw op=gpt %s lr=4e-4 weight_decay=0.1 steps=3 : -" % CFG_KEYS)
    for k in range(1, 4):
        opt.zero_grad()
        loss = loss_of(model, ids, targets)
        loss.backward()
        opt.step()
        tensor_line("gpt_adamw", "loss.%d" % k, loss)
    for name, p in model.named_parameters():
        tensor_line("gpt_adamw", "param." + name, p)


# chapter 4, "Adding shortcut connections": the book's class as printed
class ExampleDeepNeuralNetwork(nn.Module):
    def __init__(self, layer_sizes, use_shortcut):
        super().__init__()
        self.use_shortcut = use_shortcut
        self.layers = nn.ModuleList([
            nn.Sequential(nn.Linear(layer_sizes[i], layer_sizes[i + 1]), GELU()) for i in range(5)])

    def forward(self, x):
        for layer in self.layers:
            layer_output = layer(x)
            if self.use_shortcut and x.shape == layer_output.shape:
                x = x + layer_output
            else:
                x = layer_output
        return x


def gen_shortcut():
    layer_sizes = [3, 3, 3, 3, 3, 1]
    sample_input = torch.tensor([[1., 0., -1.]])
    for use in (False, True):
        case = "shortcut_" + ("with" if use else "without")
        torch.manual_seed(123)
        model = ExampleDeepNeuralNetwork(layer_sizes, use_shortcut=use)
        output = model(sample_input)
        loss = nn.MSELoss()(output, torch.tensor([[0.]]))
        loss.backward()
        LINES.append("case name=%s op=shortcut seed=123 : -" % case)
        for name, param in model.named_parameters():
            if "weight" in name:
                tensor_line(case, "mean." + name, param.grad.abs().mean())


def main(out_dir, header):
    gen_gpt()
    gen_shortcut()
    path = os.path.join(out_dir, "training.txt")
    with open(path, "w") as f:
        f.write(header("training: chapter 4's GPTModel's cross-entropy gradients and 3 AdamW steps; chapter 4's "
                       "shortcut-connection example's mean gradients"))
        for line in LINES:
            f.write(line + "\n")
    print("wrote %s (%d lines)" % (path, len(LINES)))


if __name__ == "__main__":
    from gen_torch_reference import header  # noqa: E402
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch"), header)
