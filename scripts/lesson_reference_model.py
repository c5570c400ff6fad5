"""PyTorch's numbers for lessons/13_transformer_model.lua (Python Deep Learning, ch. 7, "Putting it all
together"): the book's build_model at a small size and at the book's, a forward pass, greedy decoding.
Called by gen_lesson_reference.py with its put() and put_ids(); the lesson reads the names "model.*".
Ids are the lesson's minus 1 (PyTorch counts from 0)."""
import torch

from torch_reference_layers import subsequent_mask
from torch_reference_models import build_model

SRC_VOCAB = ["<pad>", "<s>", "</s>", "how", "are", "you", "today", "?"]
TGT_VOCAB = ["<pad>", "<s>", "</s>", "¿", "cómo", "estás", "hoy", "?"]


def ids(vocab, sentence):
    return torch.tensor([[vocab.index(w) for w in sentence.split()]])


def transformer_model(put, put_ids):
    # a small model: N = 2, d_model = 16, d_ff = 32, h = 2
    torch.manual_seed(30)
    model = build_model(len(SRC_VOCAB), len(TGT_VOCAB), N=2, d_model=16, d_ff=32, h=2, dropout=0.1)
    model.eval()
    put_ids("model.small.params", torch.tensor(sum(p.numel() for p in model.parameters())))
    put("model.small.fc1", model.encoder.blocks[0].self_attn.fc_layers[0].weight)
    put("model.small.lut", model.target_embeddings[0].lut.weight)

    # one forward pass with teacher forcing: the whole target, shifted right, under the causal mask
    src = ids(SRC_VOCAB, "how are you today ?")
    tgt = ids(TGT_VOCAB, "<s> ¿ cómo estás hoy ?")
    put_ids("model.src", src)
    put_ids("model.tgt", tgt)
    src_mask = torch.ones(1, 1, src.size(1))
    log_probs = model(src, tgt, src_mask, subsequent_mask(tgt.size(1)))
    put("model.log_probs", log_probs)

    # greedy decoding from <s>, 6 steps, the encoder run once
    memory = model.encoder(model.source_embeddings(src), src_mask)
    ys = torch.tensor([[SRC_VOCAB.index("<s>")]])
    for i in range(6):
        out = model.decoder(model.target_embeddings(ys), memory, src_mask, subsequent_mask(ys.size(1)))
        prob = out[:, -1]
        put("model.greedy.step%d" % (i + 1), prob)
        _, next_word = torch.max(prob, dim=1)
        ys = torch.cat([ys, next_word.view(1, 1)], dim=1)
    put_ids("model.greedy.ys", ys)

    # the book's sizes: N = 6, d_model = 512, d_ff = 2048, h = 8, with the lesson's vocabularies
    torch.manual_seed(31)
    model = build_model(len(SRC_VOCAB), len(TGT_VOCAB))
    put_ids("model.book.params", torch.tensor(sum(p.numel() for p in model.parameters())))
    put_ids("model.book.encoder", torch.tensor(sum(p.numel() for p in model.encoder.parameters())))
    put_ids("model.book.decoder", torch.tensor(sum(p.numel() for p in model.decoder.parameters())))
