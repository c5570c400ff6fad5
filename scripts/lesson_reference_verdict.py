"""PyTorch's numbers for lessons/21_pretraining_the_verdict.lua (chapter 5 of Build a Large Language Model
(From Scratch): pretraining GPT-2 small on "The Verdict"): tests/data/torch/lesson_verdict.txt, the
chapter's computations done again in PyTorch with the book's classes (scripts/torch_reference_gpt2.py).

  verdict.untrained.ids      generate_text_simple's ids for "Every effort moves you" (10 new tokens) from
                             GPTModel(GPT_CONFIG_124M, context 256) built after torch.manual_seed(123), eval
  verdict.book.*             §5.1.2 on the book's inputs/targets: argmax ids, the target probabilities of
                             each text, their logs, mean, cross_entropy, perplexity
  verdict.data.*             character and token counts; train/validation split at int(0.9 * characters)
  verdict.calc.*             calc_loss_loader over the train and validation loaders after
                             torch.manual_seed(123): each batch's loss and the average (float32 of the
                             Python double; the double itself in a comment)
  verdict.train.*            train_model_simple as the chapter runs it (seed 123, AdamW lr 4e-4, weight
                             decay 0.1, 10 epochs, eval_freq 5, eval_iter 5): each step's loss
                             (step.K.loss, K from 0), each evaluation's train and validation loss
                             (eval.K.*, float32 of the double), each epoch's sample ids (epoch.E.sample)
  verdict.shortcut.*         chapter 4's ExampleDeepNeuralNetwork: mean |gradient| of each layer's weight

The token ids come from js-tiktoken (tiktoken's JavaScript port; Python's tiktoken is not packaged by
Debian), installed with npm into build/npm-tiktoken as scripts/gen-tiktoken-reference.sh does, run under node.
The file is rewritten after every evaluation, so a run stopped early leaves the steps it finished
(its second line says how many). --steps N stops training after N steps; --out PATH writes PATH instead
of tests/data/torch/lesson_verdict.txt (a trial run that leaves the committed file alone).
Run through scripts/gen-torch-reference.sh (OPENBLAS_CORETYPE=Haswell, one thread).
"""
import json
import os
import subprocess
import sys
import time

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
import reference_format as fmt  # noqa: E402  (the reference files' format)
from torch_reference_gpt2 import ExampleDeepNeuralNetwork, GPTModel, generate_text_simple  # noqa: E402  (the book's classes)

torch.set_num_threads(1)
OUT = os.path.join(ROOT, "tests", "data", "torch", "lesson_verdict.txt")
TEXT = os.path.join(ROOT, "lessons", "data", "the-verdict.txt")
CFG = {"vocab_size": 50257, "context_length": 256, "emb_dim": 768, "n_heads": 12, "n_layers": 12,
       "drop_rate": 0.1, "qkv_bias": False}
lines = fmt.Lines(prefix="verdict.")
put = lines.put
comments = []


def write(steps_done):
    head = ["# PyTorch %s (Debian), one thread, OPENBLAS_CORETYPE=%s: scripts/lesson_reference_verdict.py"
            % (torch.__version__, os.environ.get("OPENBLAS_CORETYPE", "-")),
            "# training steps in this file: %d of %d" % (steps_done, TOTAL_STEPS)]
    fmt.write_file(OUT, "".join(line + "\n" for line in head + comments), lines, quiet=True)


def tokenize(texts):
    """GPT-2's ids of each text (0-based, as tiktoken gives them), from js-tiktoken under node."""
    work = os.path.join(ROOT, "build", "npm-tiktoken")
    if not os.path.isdir(os.path.join(work, "node_modules", "js-tiktoken")):
        os.makedirs(work, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-save", "--no-package-lock", "js-tiktoken@1.0.21"],
                       cwd=work, check=True, stdout=subprocess.DEVNULL)
    js = ('const {getEncoding} = require("js-tiktoken"); const enc = getEncoding("gpt2");'
          'const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));'
          'process.stdout.write(JSON.stringify(texts.map((t) => enc.encode(t, ["<|endoftext|>"]))));')
    r = subprocess.run(["node", "-e", js], input=json.dumps(texts), capture_output=True, text=True, check=True,
                       env=dict(os.environ, NODE_PATH=os.path.join(work, "node_modules")))
    return json.loads(r.stdout)


# ---- chapter 2's GPTDatasetV1 and create_dataloader_v1, on ids already encoded ----------------------
class GPTDatasetV1(torch.utils.data.Dataset):
    def __init__(self, token_ids, max_length, stride):
        self.input_ids, self.target_ids = [], []
        for i in range(0, len(token_ids) - max_length, stride):
            self.input_ids.append(torch.tensor(token_ids[i:i + max_length]))
            self.target_ids.append(torch.tensor(token_ids[i + 1:i + max_length + 1]))

    def __len__(self):
        return len(self.input_ids)

    def __getitem__(self, idx):
        return self.input_ids[idx], self.target_ids[idx]


def create_dataloader_v1(ids, batch_size, max_length, stride, shuffle, drop_last):
    return torch.utils.data.DataLoader(GPTDatasetV1(ids, max_length, stride), batch_size=batch_size,
                                       shuffle=shuffle, drop_last=drop_last, num_workers=0)


# ---- chapter 5's functions ---------------------------------------------------------------------------
def calc_loss_batch(input_batch, target_batch, model):
    logits = model(input_batch)
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())


def calc_loss_loader(data_loader, model, num_batches=None, each=None):
    total_loss = 0.
    if len(data_loader) == 0:
        return float("nan")
    num_batches = len(data_loader) if num_batches is None else min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            loss = calc_loss_batch(input_batch, target_batch, model)
            if each is not None:
                each.append(loss.detach())
            total_loss += loss.item()
        else:
            break
    return total_loss / num_batches


def main():
    global TOTAL_STEPS, OUT
    max_steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else None
    if "--out" in sys.argv:
        OUT = sys.argv[sys.argv.index("--out") + 1]
    with open(TEXT, "r", encoding="utf-8") as f:
        text_data = f.read()
    split_idx = int(0.90 * len(text_data))
    train_data, val_data = text_data[:split_idx], text_data[split_idx:]
    prompt = "Every effort moves you"
    ids_all, ids_train, ids_val, ids_prompt = tokenize([text_data, train_data, val_data, prompt])
    TOTAL_STEPS = 10 * (len(range(0, len(ids_train) - 256, 256)) // 2)

    # §5.1.1: the untrained model's text
    torch.manual_seed(123)
    model = GPTModel(CFG)
    model.eval()
    idx = torch.tensor(ids_prompt).unsqueeze(0)
    put("untrained.ids", generate_text_simple(model, idx, 10, CFG["context_length"]))

    # §5.1.2: the book's two texts
    inputs = torch.tensor([[16833, 3626, 6100], [40, 1107, 588]])
    targets = torch.tensor([[3626, 6100, 345], [1107, 588, 11311]])
    with torch.no_grad():
        logits = model(inputs)
    probas = torch.softmax(logits, dim=-1)
    put("book.token_ids", torch.argmax(probas, dim=-1, keepdim=True))
    target_probas_1 = probas[0, [0, 1, 2], targets[0]]
    target_probas_2 = probas[1, [0, 1, 2], targets[1]]
    put("book.target_probas_1", target_probas_1)
    put("book.target_probas_2", target_probas_2)
    log_probas = torch.log(torch.cat((target_probas_1, target_probas_2)))
    put("book.log_probas", log_probas)
    avg_log_probas = torch.mean(log_probas)
    put("book.avg_log_probas", avg_log_probas)
    put("book.neg_avg_log_probas", avg_log_probas * -1)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    put("book.loss", loss)
    put("book.perplexity", torch.exp(loss))

    # §5.1.3: the data
    put("data.characters", torch.tensor(len(text_data)))
    put("data.tokens", torch.tensor(len(ids_all)))
    put("data.train_tokens_text", torch.tensor(len(ids_train)))
    put("data.val_tokens_text", torch.tensor(len(ids_val)))
    torch.manual_seed(123)
    train_loader = create_dataloader_v1(ids_train, 2, 256, 256, shuffle=True, drop_last=True)
    val_loader = create_dataloader_v1(ids_val, 2, 256, 256, shuffle=False, drop_last=False)
    put("data.train_batches", torch.tensor(len(train_loader)))
    put("data.val_batches", torch.tensor(len(val_loader)))
    # the notebook loops over both loaders twice (the shapes, then the token counts) before it seeds again
    for _ in range(2):
        for x, y in train_loader:
            pass
        for x, y in val_loader:
            pass
    torch.manual_seed(123)
    each_train, each_val = [], []
    with torch.no_grad():
        train_loss = calc_loss_loader(train_loader, model, each=each_train)
        val_loss = calc_loss_loader(val_loader, model, each=each_val)
    put("calc.train_batches", torch.stack(each_train))
    put("calc.val_batches", torch.stack(each_val))
    put("calc.train_loss", train_loss)
    put("calc.val_loss", val_loss)
    comments.append("# calc_loss_loader: Training loss: %r, Validation loss: %r" % (train_loss, val_loss))
    print("Training loss:", train_loss, "Validation loss:", val_loss, flush=True)

    # chapter 4's shortcut connections
    layer_sizes = [3, 3, 3, 3, 3, 1]
    for use in (False, True):
        torch.manual_seed(123)
        net = ExampleDeepNeuralNetwork(layer_sizes, use)
        out = net(torch.tensor([[1., 0., -1.]]))
        nn.MSELoss()(out, torch.tensor([[0.]])).backward()
        put("shortcut.%s" % ("with" if use else "without"),
            torch.stack([p.grad.abs().mean() for n, p in net.named_parameters() if "weight" in n]))
    write(0)

    # §5.2: train_model_simple
    torch.manual_seed(123)
    model = GPTModel(CFG)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
    global_step, tokens_seen, n_eval = -1, 0, 0
    start = time.time()
    for epoch in range(10):
        model.train()
        for input_batch, target_batch in train_loader:
            t0 = time.time()
            optimizer.zero_grad()
            loss = calc_loss_batch(input_batch, target_batch, model)
            loss.backward()
            optimizer.step()
            tokens_seen += input_batch.numel()
            global_step += 1
            put("train.step.%d.loss" % global_step, loss)
            print("step %d: loss %.6f (%.1f s)" % (global_step, loss.item(), time.time() - t0), file=sys.stderr, flush=True)
            if global_step % 5 == 0:
                model.eval()
                with torch.no_grad():
                    tl = calc_loss_loader(train_loader, model, num_batches=5)
                    vl = calc_loss_loader(val_loader, model, num_batches=5)
                model.train()
                put("train.eval.%d.train_loss" % n_eval, tl)
                put("train.eval.%d.val_loss" % n_eval, vl)
                put("train.eval.%d.tokens_seen" % n_eval, torch.tensor(tokens_seen))
                comments.append("# eval %d: Ep %d (Step %06d): Train loss %r, Val loss %r"
                                % (n_eval, epoch + 1, global_step, tl, vl))
                n_eval += 1
                print("Ep %d (Step %06d): Train loss %.3f, Val loss %.3f (%.1f s so far)"
                      % (epoch + 1, global_step, tl, vl, time.time() - start), flush=True)
                write(global_step + 1)
            if max_steps is not None and global_step + 1 >= max_steps:
                write(global_step + 1)
                return
        model.eval()
        with torch.no_grad():
            sample = generate_text_simple(model, torch.tensor(ids_prompt).unsqueeze(0), 50, 256)
        model.train()
        put("train.epoch.%d.sample" % (epoch + 1), sample)
        write(global_step + 1)
        print("epoch %d done (%.1f s so far)" % (epoch + 1, time.time() - start), flush=True)
    print("the whole train_model_simple loop took %.0f s" % (time.time() - start), flush=True)
    write(global_step + 1)


TOTAL_STEPS = 0
if __name__ == "__main__":
    main()
