"""The Transformer's layers in PyTorch, for tests/data/torch/layers.txt (tests/c/test_layers.c) and
tests/data/torch/transformer.txt (tests/lua/transformer_spec.lua). Called by gen_torch_reference.py, which
passes its write() and f32s().

The classes below are those of Python Deep Learning (3rd ed.), ch. 7 (after the Annotated Transformer), as the
chapter writes them; it leaves out clones(), PositionalEncoding and Embeddings ("on GitHub"), which are the
Annotated Transformer's. Two additions are marked: the post-LN SublayerConnection (the chapter only describes
it) and BERTEmbedding (the chapter describes BERT's input as token + segment + position embeddings).

layers.txt, one case per line (values are float32 bit patterns):
    layer_norm shape=S nnorm=K affine=1 eps=E : X | W | B -> Y   F.layer_norm(x, S[-K:], w, b, eps)
    layer_norm shape=S nnorm=K affine=0 eps=E : X -> Y           without weight and bias
    act fn=F layout=L n=N : X -> Y
        F: gelu, gelu_tanh, silu, erf, sin, cos. L: contiguous (one 1-D tensor of N), single (N tensors
        of one element each), transposed (X is a [2, N/2] tensor; Y is F of its transpose, row-major).
transformer.txt:
    case name=C key=value ... : -          how case C is built (seed, sizes, train mode, ...)
    tensor case=C name=T shape=S : values  a tensor of case C: inputs, parameters (param.<name>), outputs
"""
import copy
import math

import torch

import reference_format as fmt  # the reference files' format

F = torch.nn.functional


# ---- Python Deep Learning's classes -------------------------------------------------------------------------

def clones(module, N):
    "Produce N identical layers."
    return torch.nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


def attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    # 1) and 2) Compute the alignment scores with scaling
    scores = (query @ key.transpose(-2, -1)) \
        / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    # 3) Compute the attention scores (softmax)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    # 4) Apply the attention scores over the values
    return p_attn @ value, p_attn


class MultiHeadedAttention(torch.nn.Module):
    def __init__(self, h, d_model, dropout=0.1):
        super(MultiHeadedAttention, self).__init__()
        assert d_model % h == 0
        self.d_k = d_model // h
        self.h = h
        self.fc_layers = clones(torch.nn.Linear(d_model, d_model), 4)
        self.attn = None
        self.dropout = torch.nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask.unsqueeze(1)
        batch_samples = query.size(0)
        projections = [
            l(x).view(batch_samples, -1, self.h, self.d_k).transpose(1, 2)
            for l, x in zip(self.fc_layers, (query, key, value))
        ]
        query, key, value = projections
        x, self.attn = attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(batch_samples, -1, self.h * self.d_k)
        return self.fc_layers[-1](x)


class PositionwiseFFN(torch.nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout=0.1):
        super(PositionwiseFFN, self).__init__()
        self.w_1 = torch.nn.Linear(d_model, d_ff)
        self.w_2 = torch.nn.Linear(d_ff, d_model)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(torch.nn.functional.silu(self.w_1(x))))


class SublayerConnection(torch.nn.Module):
    def __init__(self, size, dropout):
        super(SublayerConnection, self).__init__()
        self.norm = torch.nn.LayerNorm(size)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return x + self.dropout(sublayer(self.norm(x)))


class PostLNSublayerConnection(SublayerConnection):
    "Added: the post-LN form the seed describes, LayerNorm(x + Sublayer(x))."
    def forward(self, x, sublayer):
        return self.norm(x + self.dropout(sublayer(x)))


class EncoderBlock(torch.nn.Module):
    def __init__(self, size, self_attn, ffn, dropout=0.1, post_ln=False):
        super(EncoderBlock, self).__init__()
        self.self_attn = self_attn
        self.ffn = ffn
        sublayer = PostLNSublayerConnection if post_ln else SublayerConnection
        self.sublayers = clones(sublayer(size, dropout), 2)
        self.size = size

    def forward(self, x, mask):
        x = self.sublayers[0](x, lambda x: self.self_attn(x, x, x, mask))
        return self.sublayers[1](x, self.ffn)


class Encoder(torch.nn.Module):
    def __init__(self, block: EncoderBlock, N: int):
        super(Encoder, self).__init__()
        self.blocks = clones(block, N)
        self.norm = torch.nn.LayerNorm(block.size)

    def forward(self, x, mask):
        for layer in self.blocks:
            x = layer(x, mask)
        return self.norm(x)


class DecoderBlock(torch.nn.Module):
    def __init__(self, size, self_attn, encoder_attn, ffn, dropout=0.1, post_ln=False):
        super(DecoderBlock, self).__init__()
        self.size = size
        self.self_attn = self_attn
        self.encoder_attn = encoder_attn
        self.ffn = ffn
        sublayer = PostLNSublayerConnection if post_ln else SublayerConnection
        self.sublayers = clones(sublayer(size, dropout), 3)

    def forward(self, x, encoder_states, source_mask, target_mask):
        x = self.sublayers[0](x, lambda x: self.self_attn(x, x, x, target_mask))
        x = self.sublayers[1](x, lambda x: self.encoder_attn(x, encoder_states, encoder_states, source_mask))
        return self.sublayers[2](x, self.ffn)


class Decoder(torch.nn.Module):
    def __init__(self, block: DecoderBlock, N: int, vocab_size: int):
        super(Decoder, self).__init__()
        self.blocks = clones(block, N)
        self.norm = torch.nn.LayerNorm(block.size)
        self.projection = torch.nn.Linear(block.size, vocab_size)

    def forward(self, x, encoder_states, source_mask, target_mask):
        for layer in self.blocks:
            x = layer(x, encoder_states, source_mask, target_mask)
        x = self.norm(x)
        return torch.nn.functional.log_softmax(self.projection(x), dim=-1)


class PositionalEncoding(torch.nn.Module):
    "The Annotated Transformer's."
    def __init__(self, d_model, dropout, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = torch.nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[:, : x.size(1)].requires_grad_(False)
        return self.dropout(x)


class Embeddings(torch.nn.Module):
    "The Annotated Transformer's."
    def __init__(self, d_model, vocab):
        super(Embeddings, self).__init__()
        self.lut = torch.nn.Embedding(vocab, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


def subsequent_mask(size):
    "Mask out subsequent positions."
    attn_shape = (1, size, size)
    return torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8) == 0


class BERTEmbedding(torch.nn.Module):
    "Added: BERT's input embedding, token + segment + position (Python Deep Learning, Figure 7.11)."
    def __init__(self, vocab_size, d_model, max_len=512, segments=2):
        super(BERTEmbedding, self).__init__()
        self.token = torch.nn.Embedding(vocab_size, d_model)
        self.segment = torch.nn.Embedding(segments, d_model)
        self.position = torch.nn.Embedding(max_len, d_model)

    def forward(self, tokens, segments):
        positions = torch.arange(tokens.size(-1))
        return self.token(tokens) + self.segment(segments) + self.position(positions)


# ---- layers.txt ---------------------------------------------------------------------------------

def gen_layers(write, f32s):
    lines = []
    g = torch.Generator()
    g.manual_seed(20240601)

    def layer_norm(shape, nnorm, affine, eps=1e-5, scale=1.0, shift=0.0):
        x = torch.randn(*shape, generator=g) * scale + shift
        norm = shape[len(shape) - nnorm:]
        w = torch.randn(*norm, generator=g) if affine else None
        b = torch.randn(*norm, generator=g) if affine else None
        y = F.layer_norm(x, norm, w, b, eps)
        vals = f32s(x) + (" | %s | %s" % (f32s(w), f32s(b)) if affine else "") + " -> " + f32s(y)
        lines.append("layer_norm shape=%s nnorm=%d affine=%d eps=%s : %s"
                     % (",".join(str(s) for s in shape), nnorm, affine, float(eps).hex(), vals))

    # every row length up to 40 (the 8 lanes, the 16-vector chunks, the scalar tail), then longer rows that
    # take the cascade of chunks (513: 4 chunks, 1025: 9, 2100: 17); some rows far from zero (mean 100,
    # spread 0.01), where the order of Welford's updates shows in the result
    for n in list(range(1, 41)) + [47, 64, 65, 127, 129, 256, 257, 300, 513]:
        layer_norm((2, n), 1, n % 3 != 0)
        if n in (7, 33, 129, 257):
            layer_norm((2, n), 1, 1, scale=0.01, shift=100.0)
    layer_norm((1, 1025), 1, 1)
    layer_norm((1, 2100), 1, 0, scale=3.0, shift=-7.0)
    layer_norm((2, 3, 4), 2, 1)
    layer_norm((2, 5, 6), 2, 0)
    layer_norm((2, 2, 3, 8), 3, 1, eps=1e-6)
    layer_norm((4, 6), 1, 1, eps=0.1)
    layer_norm((5,), 1, 1)
    x = torch.tensor([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [3.0, -3.0, 3.0, -3.0]])  # constant rows
    lines.append("layer_norm shape=3,4 nnorm=1 affine=0 eps=%s : %s -> %s"
                 % (float(1e-5).hex(), f32s(x), f32s(F.layer_norm(x, (4,)))))

    fns = {"gelu": F.gelu, "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"), "silu": F.silu,
           "erf": torch.erf, "sin": torch.sin, "cos": torch.cos}
    inf, nan = float("inf"), float("nan")
    edges = torch.tensor([0.0, -0.0, inf, -inf, nan, 1e-30, -1e-30, 1e-8, -1e-8, 0.5, -0.5, 3.0, -3.0, 9.0,
                          -9.0, 15.0, -15.0, 88.0, -88.0, 100.0, -100.0, 3.4e38, -3.4e38])
    for name, fn in fns.items():
        big = 3000.0 if name in ("sin", "cos") else 12.0
        # 299 values: not a multiple of 16 or 8, so the tails are exercised
        x = torch.cat([edges, torch.randn(180, generator=g) * 3, (torch.rand(96, generator=g) * 2 - 1) * big])
        lines.append("act fn=%s layout=contiguous n=%d : %s -> %s" % (name, x.numel(), f32s(x), f32s(fn(x))))
        s = x[:100]
        y = torch.cat([fn(v.reshape(1)) for v in s])
        lines.append("act fn=%s layout=single n=%d : %s -> %s" % (name, s.numel(), f32s(s), f32s(y)))
        # rows of small and of large numbers: the transpose interleaves them, so in its row-major order
        # every group of 8 mixes the two, in memory order none does
        t = torch.stack([x[23:103], x[-80:]])
        lines.append("act fn=%s layout=transposed n=%d : %s -> %s"
                     % (name, t.numel(), f32s(t), f32s(fn(t.t()).contiguous())))
    # positions times frequencies as in PositionalEncoding: groups of 8 that mix |x| >= 125 with small x
    pos = (torch.arange(0, 160).unsqueeze(1) * torch.exp(torch.arange(0, 16, 2) * -(math.log(10000.0) / 16)))
    pos = pos.reshape(-1)
    for name in ("sin", "cos"):
        lines.append("act fn=%s layout=contiguous n=%d : %s -> %s"
                     % (name, pos.numel(), f32s(pos), f32s(fns[name](pos))))
    write("layers.txt", "F.layer_norm, F.gelu (both forms), F.silu, torch.erf/sin/cos; one thread, AVX2 "
          "kernels, oneDNN for gelu", lines)


# ---- transformer.txt ----------------------------------------------------------------------------

def gen_transformer(write):
    lines = []

    def case(name, **keys):
        lines.append(fmt.case_line(name, **keys))

    def tensor(c, name, t):  # ids and masks too, as float32
        lines.append(fmt.float_line("case=%s name=%s" % (c, name), t))

    def params(c, module):
        for name, p in module.named_parameters():
            tensor(c, "param." + name, p)

    def pad_mask(b, n, lengths):
        "[b, 1, n]: 1 where a position holds a token, 0 where it is padding."
        return (torch.arange(n).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)).unsqueeze(1)

    g = torch.Generator()
    g.manual_seed(77)
    # LayerNorm modules with random weights and bias (from the file: randn is not bit-exact in attn)
    for c, shape, norm in [("ln1", (2, 3, 8), [8]), ("ln2", (4, 33), [33]), ("ln3", (2, 3, 4), [3, 4])]:
        ln = torch.nn.LayerNorm(norm)
        with torch.no_grad():
            ln.weight.copy_(torch.randn(*norm, generator=g))
            ln.bias.copy_(torch.randn(*norm, generator=g))
        x = torch.randn(*shape, generator=g) * 2 + 0.5
        case(c, what="layernorm", normalized_shape=",".join(str(s) for s in norm))
        tensor(c, "x", x)
        params(c, ln)
        tensor(c, "y", ln(x))
    # activations through the functional API
    x = torch.randn(3, 7, generator=g) * 3
    case("act", what="activations")
    tensor("act", "x", x)
    tensor("act", "gelu", F.gelu(x))
    tensor("act", "gelu_tanh", F.gelu(x, approximate="tanh"))
    tensor("act", "silu", F.silu(x))
    tensor("act", "relu", F.relu(x))
    # nn.Embedding: init from the generator, lookup (ids are written 0-based, as PyTorch takes them)
    torch.manual_seed(5)
    emb = torch.nn.Embedding(10, 4)
    ids = torch.tensor([[0, 1, 3, 4], [4, 3, 2, 9]])
    case("emb", what="embedding", seed=5, num=10, dim=4)
    params("emb", emb)
    tensor("emb", "ids", ids)
    tensor("emb", "y", emb(ids))
    torch.manual_seed(6)
    emb = torch.nn.Embedding(6, 3, padding_idx=0)
    case("emb_pad", what="embedding", seed=6, num=6, dim=3, padding_idx=0)
    params("emb_pad", emb)
    # positional encoding: the matrix, and the module on an input
    for c, max_len, d in [("pe1", 100, 20), ("pe2", 200, 16), ("pe3", 6, 4)]:
        case(c, what="pe_matrix", max_len=max_len, d_model=d)
        tensor(c, "pe", PositionalEncoding(d, 0.0, max_len).pe[0])
    torch.manual_seed(8)
    pe = PositionalEncoding(8, 0.1, 50).eval()
    x = torch.rand(2, 5, 8)
    case("pe_mod", what="pe_module", seed=8, d_model=8, dropout=0.1, max_len=50)
    tensor("pe_mod", "x", x)
    tensor("pe_mod", "y", pe(x))
    # Embeddings (times sqrt(d_model)) then PositionalEncoding, as the seed's source_embeddings
    torch.manual_seed(9)
    src = torch.nn.Sequential(Embeddings(8, 11), PositionalEncoding(8, 0.1, 40)).eval()
    ids = torch.tensor([[1, 5, 7, 2], [3, 3, 10, 0]])
    case("src_emb", what="embeddings", seed=9, d_model=8, vocab=11, dropout=0.1, max_len=40)
    params("src_emb", src)
    tensor("src_emb", "ids", ids)
    tensor("src_emb", "y", src(ids))
    # PositionwiseFFN, in eval mode and in training mode (dropout from the generator, "default" flavour)
    for c, train in [("ffn", 0), ("ffn_train", 1)]:
        torch.manual_seed(10)
        ffn = PositionwiseFFN(8, 32, 0.1)
        ffn.train(bool(train))
        x = torch.rand(2, 5, 8)
        case(c, what="ffn", seed=10, d_model=8, d_ff=32, dropout=0.1, train=train, batch=2, n=5)
        tensor(c, "x", x)
        params(c, ffn)
        tensor(c, "y", ffn(x))
    # encoder blocks: post-LN and pre-LN (the seed's SublayerConnection), masked and not, eval and train
    for c, post, train, masked in [("enc_pre", 0, 0, 1), ("enc_post", 1, 0, 1), ("enc_pre_nomask", 0, 0, 0),
                                   ("enc_pre_train", 0, 1, 1), ("enc_post_train", 1, 1, 1)]:
        torch.manual_seed(11)
        block = EncoderBlock(8, MultiHeadedAttention(2, 8, 0.1), PositionwiseFFN(8, 16, 0.1), 0.1,
                             post_ln=bool(post))
        block.train(bool(train))
        x = torch.rand(2, 5, 8)
        mask = pad_mask(2, 5, [5, 3]) if masked else None
        case(c, what="encoder_block", seed=11, d_model=8, heads=2, d_ff=16, dropout=0.1, post_ln=post,
             train=train, masked=masked, batch=2, n=5)
        tensor(c, "x", x)
        if masked:
            tensor(c, "mask", mask)
        params(c, block)
        tensor(c, "y", block(x, mask))
    # Encoder: N = 2 copies of one block, then LayerNorm
    for c, post in [("encoder", 0), ("encoder_post", 1)]:
        torch.manual_seed(12)
        enc = Encoder(EncoderBlock(8, MultiHeadedAttention(2, 8, 0.1), PositionwiseFFN(8, 16, 0.1), 0.1,
                                   post_ln=bool(post)), 2).eval()
        x = torch.rand(2, 6, 8)
        mask = pad_mask(2, 6, [6, 4])
        case(c, what="encoder", seed=12, d_model=8, heads=2, d_ff=16, dropout=0.1, post_ln=post, N=2,
             batch=2, n=6)
        tensor(c, "x", x)
        tensor(c, "mask", mask)
        params(c, enc)
        tensor(c, "y", enc(x, mask))
    # decoder block: causal self-attention (with the target's padding) and cross-attention
    for c, post, train in [("dec_pre", 0, 0), ("dec_post", 1, 0), ("dec_pre_train", 0, 1)]:
        torch.manual_seed(13)
        block = DecoderBlock(8, MultiHeadedAttention(2, 8, 0.1), MultiHeadedAttention(2, 8, 0.1),
                             PositionwiseFFN(8, 16, 0.1), 0.1, post_ln=bool(post))
        block.train(bool(train))
        x, memory = torch.rand(2, 4, 8), torch.rand(2, 5, 8)
        source_mask = pad_mask(2, 5, [5, 2])
        target_mask = pad_mask(2, 4, [4, 3]) & subsequent_mask(4)
        case(c, what="decoder_block", seed=13, d_model=8, heads=2, d_ff=16, dropout=0.1, post_ln=post,
             train=train, batch=2, n=4, m=5)
        for name, t in [("x", x), ("memory", memory), ("source_mask", source_mask), ("target_mask", target_mask)]:
            tensor(c, name, t)
        params(c, block)
        tensor(c, "y", block(x, memory, source_mask, target_mask))
    # Decoder: N = 2, projection to a vocabulary of 11, log_softmax
    torch.manual_seed(14)
    dec = Decoder(DecoderBlock(8, MultiHeadedAttention(2, 8, 0.1), MultiHeadedAttention(2, 8, 0.1),
                               PositionwiseFFN(8, 16, 0.1), 0.1), 2, 11).eval()
    x, memory = torch.rand(2, 4, 8), torch.rand(2, 5, 8)
    source_mask, target_mask = pad_mask(2, 5, [5, 5]), subsequent_mask(4)
    case("decoder", what="decoder", seed=14, d_model=8, heads=2, d_ff=16, dropout=0.1, N=2, vocab=11,
         batch=2, n=4, m=5)
    for name, t in [("x", x), ("memory", memory), ("source_mask", source_mask), ("target_mask", target_mask)]:
        tensor("decoder", name, t)
    params("decoder", dec)
    tensor("decoder", "y", dec(x, memory, source_mask, target_mask))
    # BERT's input: [CLS] my dog [SEP] he likes [SEP] with segments A A A A B B B
    torch.manual_seed(15)
    bert = BERTEmbedding(20, 8, max_len=16)
    tokens = torch.tensor([[1, 5, 7, 2, 9, 4, 2]])
    segments = torch.tensor([[0, 0, 0, 0, 1, 1, 1]])
    case("bert", what="bert", seed=15, vocab=20, d_model=8, max_len=16)
    params("bert", bert)
    tensor("bert", "tokens", tokens)
    tensor("bert", "segments", segments)
    tensor("bert", "y", bert(tokens, segments))
    write("transformer.txt", "nn.LayerNorm, activations, nn.Embedding, positional encoding and Python Deep Learning's "
          "Transformer classes (seeded; ids 0-based; dropout in training mode: the default flavour)", lines)
