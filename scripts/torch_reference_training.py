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
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)
from torch_reference_gpt2 import ExampleDeepNeuralNetwork, GPTModel  # noqa: E402  (the book's chapter 4 classes)

LINES = fmt.CaseLines()
tensor_line = LINES.put


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


def main(out_dir):
    gen_gpt()
    gen_shortcut()
    fmt.write(out_dir, "training.txt", "training: chapter 4's GPTModel's cross-entropy gradients and 3 AdamW steps; "
              "chapter 4's shortcut-connection example's mean gradients", LINES)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch"))
