"""PyTorch's recurrent layers, torch.nn.init and the whole Transformer of Python Deep Learning, ch. 7, for
tests/data/torch/models.txt (tests/lua/rnn_spec.lua, tests/lua/model_spec.lua). Called by
gen_torch_reference.py, which passes its write(); the lines are reference_format.py's.

models.txt, one line per case or tensor (float32 values as bit patterns, ids in decimal, 0-based as
PyTorch takes them):
    case name=C key=value ... : -                 how case C is built (class, sizes, seed, ...)
    tensor case=C name=N shape=S : <values>       a tensor of case C: parameters (param.<PyTorch's name>),
                                                  inputs, outputs
    int64 case=C name=N shape=S : <ids>           token ids
Every case starts from torch.manual_seed(seed): the module is made first, then its inputs are drawn with
torch.rand, so attn can draw the same ones. After each nn.init fill, `next` is the next torch.rand(4): the
fill must leave the random stream where PyTorch leaves it.
"""
import copy
import math

import torch

import reference_format as fmt  # the reference files' format
from torch_reference_layers import (Decoder, DecoderBlock, Embeddings, Encoder, EncoderBlock,
                                    MultiHeadedAttention, PositionalEncoding, PositionwiseFFN, subsequent_mask)


# ---- the book's model (Python Deep Learning, ch. 7, "Putting it all together") -----------------------

class EncoderDecoder(torch.nn.Module):
    def __init__(self, encoder, decoder, source_embeddings, target_embeddings):
        super(EncoderDecoder, self).__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.source_embeddings = source_embeddings
        self.target_embeddings = target_embeddings

    def forward(self, source, target, source_mask, target_mask):
        encoder_output = self.encoder(x=self.source_embeddings(source), mask=source_mask)
        return self.decoder(x=self.target_embeddings(target), encoder_states=encoder_output,
                            source_mask=source_mask, target_mask=target_mask)


def build_model(source_vocabulary, target_vocabulary, N=6, d_model=512, d_ff=2048, h=8, dropout=0.1):
    c = copy.deepcopy
    attn = MultiHeadedAttention(h, d_model)
    ff = PositionwiseFFN(d_model, d_ff, dropout)
    position = PositionalEncoding(d_model, dropout)
    model = EncoderDecoder(
        encoder=Encoder(EncoderBlock(d_model, c(attn), c(ff), dropout), N),
        decoder=Decoder(DecoderBlock(d_model, c(attn), c(attn), c(ff), dropout), N, target_vocabulary),
        source_embeddings=torch.nn.Sequential(Embeddings(d_model, source_vocabulary), c(position)),
        target_embeddings=torch.nn.Sequential(Embeddings(d_model, target_vocabulary), c(position)))
    # Initialize parameters with random weights
    for p in model.parameters():
        if p.dim() > 1:
            torch.nn.init.xavier_uniform_(p)
    return model


def greedy_decode(model, src, src_mask, max_len, start_symbol):
    "The Annotated Transformer's greedy_decode, with the book's Decoder (its output is log_softmax already)."
    memory = model.encoder(model.source_embeddings(src), src_mask)
    ys = torch.zeros(1, 1).fill_(start_symbol).type_as(src.data)
    steps = []
    for _ in range(max_len - 1):
        out = model.decoder(model.target_embeddings(ys), memory, src_mask, subsequent_mask(ys.size(1)))
        prob = out[:, -1]
        steps.append(prob)
        _, next_word = torch.max(prob, dim=1)
        ys = torch.cat([ys, torch.zeros(1, 1).type_as(src.data).fill_(next_word.data[0])], dim=1)
    return ys, steps


def gen_models(write):
    lines = []

    def case(name, **keys):
        lines.append(fmt.case_line(name, **keys))

    def tensor(c, name, t):
        lines.append(fmt.float_line("case=%s name=%s" % (c, name), t))

    def ids(c, name, t):
        lines.append(fmt.int_line("case=%s name=%s" % (c, name), t))

    def params(c, module):
        for name, p in module.named_parameters():
            tensor(c, "param." + name, p)

    # ---- cells: GRUCell and LSTMCell, batched (B rows) or one example, with or without a given state
    cells = [  # name, class, input, hidden, bias, B (0: unbatched), given state
        ("grucell1", "GRUCell", 4, 8, True, 3, False), ("grucell2", "GRUCell", 5, 13, False, 2, True),
        ("grucell3", "GRUCell", 3, 20, True, 0, True), ("grucell4", "GRUCell", 6, 16, True, 4, True),
        ("lstmcell1", "LSTMCell", 4, 8, True, 3, False), ("lstmcell2", "LSTMCell", 3, 13, True, 2, True),
        ("lstmcell3", "LSTMCell", 5, 20, False, 0, True), ("lstmcell4", "LSTMCell", 2, 33, True, 5, True)]
    for seed, (c, cls, n_in, H, bias, B, given) in enumerate(cells):
        torch.manual_seed(100 + seed)
        cell = getattr(torch.nn, cls)(n_in, H, bias=bias)
        shape = (B, n_in) if B else (n_in,)
        hshape = (B, H) if B else (H,)
        x = torch.rand(*shape)
        case(c, cls=cls, seed=100 + seed, input_size=n_in, hidden_size=H, bias=int(bias), batch=B, state=int(given))
        params(c, cell)
        tensor(c, "x", x)
        if cls == "GRUCell":
            h = torch.rand(*hshape) if given else None
            if given:
                tensor(c, "h", h)
            tensor(c, "h1", cell(x, h))
        else:
            state = (torch.rand(*hshape), torch.rand(*hshape)) if given else None
            if given:
                tensor(c, "h", state[0])
                tensor(c, "c", state[1])
            h1, c1 = cell(x, state)
            tensor(c, "h1", h1)
            tensor(c, "c1", c1)

    # ---- whole sequences: GRU and LSTM over T steps
    seqs = [  # name, class, input, hidden, layers, bias, batch_first, B (0: unbatched), T, given state
        ("gru1", "GRU", 4, 8, 1, True, False, 3, 5, False), ("gru2", "GRU", 4, 13, 1, True, True, 2, 4, False),
        ("gru3", "GRU", 3, 16, 2, True, False, 2, 3, True), ("gru4", "GRU", 5, 20, 1, False, False, 0, 6, True),
        ("gru5", "GRU", 4, 32, 1, True, True, 1, 7, False), ("gru6", "GRU", 6, 11, 3, True, True, 4, 5, True),
        ("lstm1", "LSTM", 4, 8, 1, True, False, 3, 5, False), ("lstm2", "LSTM", 4, 13, 1, True, True, 2, 4, True),
        ("lstm3", "LSTM", 3, 16, 2, True, False, 2, 3, False), ("lstm4", "LSTM", 5, 20, 1, False, True, 0, 6, True),
        ("lstm5", "LSTM", 7, 24, 2, True, True, 3, 4, True)]
    for seed, (c, cls, n_in, H, L, bias, bf, B, T, given) in enumerate(seqs):
        torch.manual_seed(200 + seed)
        rnn = getattr(torch.nn, cls)(n_in, H, num_layers=L, bias=bias, batch_first=bf)
        if B:
            shape = (B, T, n_in) if bf else (T, B, n_in)
            hshape = (L, B, H)
        else:
            shape, hshape = (T, n_in), (L, H)
        x = torch.rand(*shape)
        case(c, cls=cls, seed=200 + seed, input_size=n_in, hidden_size=H, num_layers=L, bias=int(bias),
             batch_first=int(bf), batch=B, steps=T, state=int(given))
        params(c, rnn)
        tensor(c, "x", x)
        if cls == "GRU":
            h0 = torch.rand(*hshape) if given else None
            if given:
                tensor(c, "h0", h0)
            out, h_n = rnn(x, h0)
        else:
            state = (torch.rand(*hshape), torch.rand(*hshape)) if given else None
            if given:
                tensor(c, "h0", state[0])
                tensor(c, "c0", state[1])
            out, (h_n, c_n) = rnn(x, state)
            tensor(c, "c_n", c_n)
        tensor(c, "output", out)
        tensor(c, "h_n", h_n)

    # ---- torch.nn.init: the fill, then where the random stream is (the next torch.rand(4))
    I = torch.nn.init
    fills = [  # name, shape, call, keys
        ("xavier1", (5, 7), lambda t: I.xavier_uniform_(t), {}),
        ("xavier2", (64, 48), lambda t: I.xavier_uniform_(t, gain=2.0), {"gain": 2.0}),
        ("xavier3", (3, 4, 5), lambda t: I.xavier_uniform_(t), {}),
        ("xavier4", (11, 512), lambda t: I.xavier_uniform_(t), {}),
        ("kaiming1", (6, 4), lambda t: I.kaiming_uniform_(t), {}),
        ("kaiming2", (8, 5), lambda t: I.kaiming_uniform_(t, a=math.sqrt(5)), {"a": math.sqrt(5)}),
        ("kaiming3", (7, 9), lambda t: I.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"),
         {"mode": "fan_out", "nonlinearity": "relu"}),
        ("normal1", (3, 5), lambda t: I.normal_(t), {}),
        ("normal2", (20, 10), lambda t: I.normal_(t, mean=1.0, std=0.02), {"mean": 1.0, "std": 0.02}),
        ("uniform1", (4, 4), lambda t: I.uniform_(t, a=-2.0, b=3.0), {"a": -2.0, "b": 3.0}),
        ("zeros1", (2, 3), lambda t: I.zeros_(t), {})]
    for seed, (c, shape, fill, keys) in enumerate(fills):
        torch.manual_seed(300 + seed)
        t = fill(torch.empty(*shape))
        case(c, fn=c.rstrip("0123456789"), seed=300 + seed, shape=",".join(str(s) for s in shape),
             **{k: (v.hex() if isinstance(v, float) else v) for k, v in keys.items()})
        tensor(c, "t", t)
        tensor(c, "next", torch.rand(4))

    # ---- build_model: a small model, its parameters, a forward pass and greedy decoding
    torch.manual_seed(400)
    model = build_model(11, 13, N=2, d_model=16, d_ff=32, h=2, dropout=0.1)
    model.eval()
    case("small", seed=400, source_vocabulary=11, target_vocabulary=13, N=2, d_model=16, d_ff=32, h=2,
         dropout=0.1, parameters=sum(p.numel() for p in model.parameters()))
    params("small", model)
    src = torch.tensor([[1, 4, 6, 2, 9, 3, 0], [5, 5, 8, 10, 2, 0, 0]])  # 0 is padding here
    tgt = torch.tensor([[1, 7, 3, 12, 2], [1, 2, 11, 0, 0]])
    src_mask = (src != 0).unsqueeze(-2)
    tgt_mask = (tgt != 0).unsqueeze(-2) & subsequent_mask(tgt.size(-1))
    ids("small", "source", src)
    ids("small", "target", tgt)
    tensor("small", "log_probs", model(src, tgt, src_mask, tgt_mask))
    ys, steps = greedy_decode(model, src[:1], src_mask[:1], 6, 1)
    ids("small", "greedy", ys)
    for i, p in enumerate(steps):
        tensor("small", "greedy.step%d" % (i + 1), p)

    # the book's sizes: N = 6, d_model = 512, d_ff = 2048, h = 8; the count, and where each parameter
    # starts and ends (its first and last 4 numbers): every xavier_uniform_ drew from the right place
    torch.manual_seed(401)
    model = build_model(11, 11)
    case("book", seed=401, source_vocabulary=11, target_vocabulary=11, N=6, d_model=512, d_ff=2048, h=8,
         dropout=0.1, parameters=sum(p.numel() for p in model.parameters()), tensors=len(list(model.parameters())))
    for name, p in model.named_parameters():
        flat = p.detach().reshape(-1)
        tensor("book", "ends." + name, torch.cat([flat[:4], flat[-4:]]))

    write("models.txt", "nn.GRUCell/GRU/LSTMCell/LSTM, torch.nn.init and Python Deep Learning's build_model "
          "(seeded; ids 0-based; eval mode)", lines)
