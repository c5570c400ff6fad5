"""PyTorch's numbers for lessons/08_seq2seq.lua and the whole-decoder part of lessons/09_bahdanau_luong.lua
(Python Deep Learning, ch. 7, "Introducing seq2seq models" and "Bahdanau attention"). Called by
gen_lesson_reference.py with its put() and put_ids(); the lessons read "seq2seq.*" and "bahdanau.*".
Ids are the lessons' minus 1 (PyTorch counts from 0). The modules are made in the lessons' order from the
same seeds, so they hold the same weights."""
import torch

SRC_VOCAB = ["<pad>", "<EOS>", "how", "are", "you", "today", "?"]
TGT_VOCAB = ["<pad>", "<GO>", "<EOS>", "¿", "cómo", "estás", "hoy", "?"]
EMB, HIDDEN = 4, 8


def ids(vocab, sentence):
    return torch.tensor([[vocab.index(w) for w in sentence.split()]])


def encoder_parts():
    "The lessons' encoder: an embedding and a GRU, from the seed 40."
    torch.manual_seed(40)
    embed = torch.nn.Embedding(len(SRC_VOCAB), EMB)
    gru = torch.nn.GRU(EMB, HIDDEN, batch_first=True)
    return embed, gru


def influence(embed, gru, tokens, other):
    "How far v = h_T moves when the token at each position is replaced by `other`: |Δv| per position."
    _, v = gru(embed(tokens))
    out = []
    for i in range(tokens.size(1)):
        changed = tokens.clone()
        changed[0, i] = other
        _, v2 = gru(embed(changed))
        out.append((v2 - v).norm())
    return torch.stack(out)


def seq2seq(put, put_ids):
    embed, encoder = encoder_parts()
    src = ids(SRC_VOCAB, "how are you today ? <EOS>")
    put_ids("seq2seq.src", src)
    outputs, h_T = encoder(embed(src))
    put("seq2seq.outputs", outputs)
    put("seq2seq.v", h_T)

    # the decoder: an embedding, a GRU cell started from v, a Linear onto the target vocabulary
    torch.manual_seed(82)
    tgt_embed = torch.nn.Embedding(len(TGT_VOCAB), EMB)
    cell = torch.nn.GRUCell(EMB, HIDDEN)
    out = torch.nn.Linear(HIDDEN, len(TGT_VOCAB))
    s = h_T[0]
    y = torch.tensor([TGT_VOCAB.index("<GO>")])
    generated, probs = [], []
    for _ in range(8):
        s = cell(tgt_embed(y), s)
        p = torch.softmax(out(s), dim=-1)
        probs.append(p)
        y = p.argmax(dim=-1)
        generated.append(y)
        if y.item() == TGT_VOCAB.index("<EOS>"):
            break
    put_ids("seq2seq.generated", torch.cat(generated))
    put("seq2seq.probs", torch.cat(probs))

    # teacher forcing: the target shifted right in, the target out; log P(target | source)
    dec_in = ids(TGT_VOCAB, "<GO> ¿ cómo estás hoy ?")
    dec_out = ids(TGT_VOCAB, "¿ cómo estás hoy ? <EOS>")
    gru = torch.nn.GRU(EMB, HIDDEN, batch_first=True)
    with torch.no_grad():
        for a, b in [("weight_ih_l0", "weight_ih"), ("weight_hh_l0", "weight_hh"),
                     ("bias_ih_l0", "bias_ih"), ("bias_hh_l0", "bias_hh")]:
            getattr(gru, a).copy_(getattr(cell, b))
    states, _ = gru(tgt_embed(dec_in), h_T)
    log_p = torch.log_softmax(out(states), dim=-1)
    picked = log_p[0].gather(1, dec_out[0].unsqueeze(1)).squeeze(1)
    put("seq2seq.teacher.log_p", picked)
    put("seq2seq.teacher.total", picked.sum())

    # the bottleneck: a long sentence of random words, and each position's influence on v
    torch.manual_seed(42)
    long = torch.randint(2, len(SRC_VOCAB), (1, 30))
    put_ids("seq2seq.long", long)
    put("seq2seq.influence", influence(embed, encoder, long, SRC_VOCAB.index("<pad>")))
    # the original seq2seq's trick: the source reversed, so its first word is read last
    rev = ids(SRC_VOCAB, "? today you are how <EOS>")
    put_ids("seq2seq.reversed", rev)
    put("seq2seq.influence_reversed", influence(embed, encoder, rev, SRC_VOCAB.index("<pad>")))
    put("seq2seq.influence_forward", influence(embed, encoder, src, SRC_VOCAB.index("<pad>")))


def bahdanau(put, put_ids):
    "The whole Bahdanau decoder over the target, teacher-forced: α_t, c_t, s_t and y_t at every step."
    embed, encoder = encoder_parts()
    src = ids(SRC_VOCAB, "how are you today ? <EOS>")
    H, s = encoder(embed(src))  # H: [1, T, HIDDEN], every encoder state; s: h_T, the first s_{t-1}
    s = s[0]
    torch.manual_seed(43)
    tgt_embed = torch.nn.Embedding(len(TGT_VOCAB), EMB)
    W1 = torch.nn.Linear(HIDDEN, 10, bias=False)   # applied to the encoder states h_i
    W2 = torch.nn.Linear(HIDDEN, 10, bias=False)   # applied to the decoder state s_{t-1}
    v = torch.nn.Linear(10, 1, bias=False)
    cell = torch.nn.GRUCell(EMB + HIDDEN, HIDDEN)  # input [y_{t-1} embedded; c_t], state s_{t-1}
    W_y = torch.nn.Linear(HIDDEN, len(TGT_VOCAB))
    for layer in (W1, W2, v):  # larger than nn.Linear's start, so that untrained scores differ visibly
        torch.nn.init.normal_(layer.weight)
    dec_in = ids(TGT_VOCAB, "<GO> ¿ cómo estás hoy ?")
    alphas, contexts, states, ys = [], [], [], []
    for t in range(dec_in.size(1)):
        e = v(torch.tanh(W1(H[0]) + W2(s))).squeeze(-1)        # e_{t,i}, one per encoder state
        alpha = torch.softmax(e, dim=-1)                         # α_{t,i}
        c = alpha @ H[0]                                          # c_t = Σ α_{t,i} h_i
        s = cell(torch.cat([tgt_embed(dec_in[:, t]), c.unsqueeze(0)], dim=-1), s)
        y = torch.softmax(W_y(s), dim=-1)                        # y_t = softmax(W_y s_t)
        alphas.append(alpha)
        contexts.append(c)
        states.append(s[0])
        ys.append(y[0])
    put("bahdanau.alpha", torch.stack(alphas))
    put("bahdanau.c", torch.stack(contexts))
    put("bahdanau.s", torch.stack(states))
    put("bahdanau.y", torch.stack(ys))
