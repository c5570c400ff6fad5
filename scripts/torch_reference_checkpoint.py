"""torch_reference_checkpoint.py — PyTorch's side of the end of chapter 5 (saving and loading, cells 118-124
of the book's ch05.ipynb) and of torch.bincount (cell 94): tests/data/torch/checkpoint.txt, read by
tests/lua/checkpoint_spec.lua.

Cases (layout of support.case_file in tests/lua/support.lua, float32 as bit patterns):
  state_dict  chapter 4's GPTModel (seed 123, 2 layers, 2 heads, 16 dims, vocabulary 50, context 8, drop 0.1):
              model.state_dict(), each entry in PyTorch's order as sd.<key> (the causal masks included).
  resume      AdamW(lr=4e-4, weight_decay=0.1), the book's train step (zero_grad, loss, backward, step) on a
              fixed batch: 3 steps, torch.save of {"model_state_dict", "optimizer_state_dict"} (cell 123),
              torch.load into a new GPTModel and a new AdamW(lr=0.0005) (cell 124), model.train(),
              torch.manual_seed(7), 3 more steps: each step's loss (loss.<k>), every parameter at the end
              (param.<name>), and the 6 losses of the same steps without the save and load (straight.<k>).
  qwen3_keys  the Qwen3 notebook's Qwen3Model (scripts/bench_qwen3.py) on a tiny configuration: its state_dict's
              keys in order, each as zeros of its shape (key.<name>); the RoPE cos and sin, registered with
              persistent=False, are not among them.
  bincount_*  torch.bincount on 0-based inputs (input, and result), with minlength and with float32 weights.
  sampled     cell 94's print_sampled_tokens: softmax of the book's next_token_logits, torch.manual_seed(123),
              1000 torch.multinomial draws, torch.bincount(..., minlength=9) (counts).
Run through scripts/gen-torch-reference.sh (OPENBLAS_CORETYPE=Haswell, one thread).
"""
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

torch.set_num_threads(1)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)
from torch_reference_gpt2 import GPTModel  # noqa: E402  (the book's chapter 4 classes)

LINES = fmt.CaseLines()
put = LINES.put

CFG = {"vocab_size": 50, "context_length": 8, "emb_dim": 16, "n_heads": 2, "n_layers": 2, "drop_rate": 0.1,
       "qkv_bias": False}
CFG_KEYS = "seed=123 vocab_size=50 context_length=8 emb_dim=16 n_heads=2 n_layers=2 drop_rate=0.1"


def batch():
    g = torch.Generator().manual_seed(27)
    ids = torch.randint(0, 50, (2, 8), generator=g)
    targets = torch.randint(0, 50, (2, 8), generator=g)
    return ids, targets


def train_step(model, optimizer, ids, targets):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(ids).flatten(0, 1), targets.flatten())
    loss.backward()
    optimizer.step()
    return loss.detach()


def gen_state_dict():
    torch.manual_seed(123)
    model = GPTModel(CFG)
    LINES.append("case name=state_dict op=gpt %s : -" % CFG_KEYS)
    for key, t in model.state_dict().items():
        put("state_dict", "sd." + key, t)


def gen_resume():
    ids, targets = batch()
    LINES.append("case name=resume op=gpt %s lr=4e-4 weight_decay=0.1 steps=3+3 reseed=7 : -" % CFG_KEYS)
    put("resume", "ids", ids)
    put("resume", "targets", targets)
    torch.manual_seed(123)
    model = GPTModel(CFG)
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)
    for k in range(1, 4):
        put("resume", "straight.%d" % k, train_step(model, optimizer, ids, targets))
    torch.manual_seed(7)
    for k in range(4, 7):
        put("resume", "straight.%d" % k, train_step(model, optimizer, ids, targets))

    torch.manual_seed(123)
    model = GPTModel(CFG)
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)
    for k in range(1, 4):
        put("resume", "loss.%d" % k, train_step(model, optimizer, ids, targets))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model_and_optimizer.pth")
        torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()}, path)
        checkpoint = torch.load(path)
    model = GPTModel(CFG)
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0005, weight_decay=0.1)
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    model.train()
    torch.manual_seed(7)
    for k in range(4, 7):
        put("resume", "loss.%d" % k, train_step(model, optimizer, ids, targets))
    for name, p in model.named_parameters():
        put("resume", "param." + name, p.detach())


QWEN3_CFG = {"vocab_size": 16, "context_length": 8, "emb_dim": 8, "n_heads": 2, "n_layers": 2, "hidden_dim": 12,
             "head_dim": 4, "qk_norm": True, "n_kv_groups": 1, "rope_base": 10000.0}


def gen_qwen3_keys():
    from bench_qwen3 import Qwen3Model  # the notebook's class, written out there
    model = Qwen3Model(QWEN3_CFG)
    assert [name for name, _ in model.named_buffers()] == ["cos", "sin"]
    LINES.append("case name=qwen3_keys op=qwen3 %s : -" % " ".join("%s=%s" % kv for kv in QWEN3_CFG.items()))
    for key, t in model.state_dict().items():
        put("qwen3_keys", "key." + key, torch.zeros(t.shape))


def gen_bincount():
    g = torch.Generator().manual_seed(5)
    x = torch.randint(0, 7, (40,), generator=g)
    w = torch.randn(40, generator=g) * 1000  # large and small weights: the order of the float32 sums shows
    for case, kw in (("bincount_counts", {}), ("bincount_minlength", {"minlength": 12}),
                     ("bincount_weights", {"weights": w}), ("bincount_weights_minlength", {"weights": w, "minlength": 9})):
        LINES.append("case name=%s op=bincount%s : -" % (case, "".join(" %s=1" % k for k in kw)))
        put(case, "input", x)
        if "weights" in kw:
            put(case, "weights", w)
        if "minlength" in kw:
            put(case, "minlength", torch.tensor([kw["minlength"]]))
        put(case, "result", torch.bincount(x, **kw))


def gen_sampled():
    # the book's chapter 5, section 5.3: next_token_logits and print_sampled_tokens (cell 94)
    next_token_logits = torch.tensor([4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79])
    probas = torch.softmax(next_token_logits, dim=0)
    torch.manual_seed(123)
    sample = [torch.multinomial(probas, num_samples=1).item() for i in range(1_000)]
    sampled_ids = torch.bincount(torch.tensor(sample), minlength=len(probas))
    LINES.append("case name=sampled op=print_sampled_tokens seed=123 draws=1000 : -")
    put("sampled", "logits", next_token_logits)
    put("sampled", "counts", sampled_ids)


def main(out_dir):
    gen_state_dict()
    gen_resume()
    gen_qwen3_keys()
    gen_bincount()
    gen_sampled()
    fmt.write(out_dir, "checkpoint.txt", "checkpoint: chapter 5's saving and loading (state_dict, AdamW resumed "
              "after torch.save/torch.load) and torch.bincount", LINES)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch"))
