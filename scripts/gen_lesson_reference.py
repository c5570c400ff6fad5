"""PyTorch's numbers for the lessons on Python Deep Learning (3rd ed.), ch. 7 (lessons/10_general_attention.lua,
lessons/11_transformer_attention.lua, lessons/12_transformer_blocks.lua; through lesson_reference_seq2seq.py
lessons/08_seq2seq.lua and lessons/09_bahdanau_luong.lua, through lesson_reference_model.py
lessons/13_transformer_model.lua, through lesson_reference_bert_gpt.py lessons/14_bert_gpt.lua):
tests/data/torch/lessons_pdl_ch7.txt.

Every seeded computation of those lessons is done here again, in PyTorch, with the same seeds and in the
same order (modules built in the same order draw the same numbers from the generator), and the results
are written as float32 bit patterns. The lessons read them with lesson.reference(file, name) and check
attn's values against them, so a lesson's LayerNorm, blocks and embeddings are compared with PyTorch,
not with attn itself. The classes are the chapter's as it writes them (scripts/torch_reference_layers.py).

Ids: the lessons count token ids from 1 (Lua), PyTorch from 0; the ids below are the lessons' minus 1.
The lessons show PyTorch's ids (int64 lines) beside their own and check that they are theirs minus 1.

Run through scripts/gen-torch-reference.sh (Debian's python3-torch, /usr/bin/python3, one thread).
File format (scripts/reference_format.py), one tensor a line ('#' lines are comments):
    tensor name=<lesson>.<what> shape=2,3 : 0x3f800000 ...      (shape empty for a 0-d tensor)
    int64 name=<lesson>.<what> shape=1,6 : 3 4 5 ...            (an int64 tensor, decimal: token ids)
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_format as fmt  # noqa: E402  (the reference files' format)
from torch_reference_layers import (  # noqa: E402  (the chapter's classes)
    Decoder, DecoderBlock, Embeddings, Encoder, EncoderBlock, MultiHeadedAttention,
    PositionalEncoding, PositionwiseFFN, attention, subsequent_mask)
from lesson_reference_model import transformer_model  # noqa: E402  (lesson 13)
from lesson_reference_seq2seq import bahdanau, seq2seq  # noqa: E402  (lessons 08 and 09)
from lesson_reference_bert_gpt import bert_gpt  # noqa: E402  (lesson 14)

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "torch")
lines = fmt.Lines()
put, put_ids = lines.put, lines.put_ids


# ---- lessons/10_general_attention.lua -----------------------------------------------------------------

def general():
    # Figure 7.5: one query against four keys and values (the book's repository,
    # Chapter07/attention_numerical_example.py), unscaled dot-product scores, softmax, weighted sum
    q = torch.tensor([[0.6, 1.2, -1.2, 1.8]])
    K = torch.tensor([[-0.2, 0.4, 1.2, 0.8], [0.2, 0.4, -0.6, 0.6], [0.6, -0.4, 1.4, 0.8], [1.6, 0.2, 1.0, 0.2]])
    V = torch.tensor([[4.0, 5.0, 6.0, 7.0], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [6.0, 7.0, 8.0, 9.0]])
    scores = q @ K.T
    weights = scores.softmax(dim=-1)
    put("general.scores", scores)
    put("general.weights", weights)
    put("general.r", weights @ V)


# ---- lessons/11_transformer_attention.lua -------------------------------------------------------------

def transformer_attention():
    # Transformer attention: Attention(Q, K, V) = softmax(QKᵀ/√d_k) V, m = 3 queries, n = 5 keys
    torch.manual_seed(10)
    Q, K, V = torch.rand(3, 4), torch.rand(5, 4), torch.rand(5, 3)
    scores = Q @ K.T
    scaled = scores / math.sqrt(K.size(-1))
    weights = scaled.softmax(dim=-1)
    put("attention.scores", scores)
    put("attention.scaled", scaled)
    put("attention.weights", weights)
    put("attention.A", weights @ V)

    # 1/√d_k and the sharpness of softmax: 200 queries, 10 keys, per d_k
    # ([5 d_k, 2 (unscaled, scaled), 4 (std, max weight, entropy, 1 - sum of squares)])
    torch.manual_seed(11)
    rows = []
    for d_k in [4, 16, 64, 256, 1024]:
        q, k = torch.randn(200, d_k), torch.randn(10, d_k)
        s = q @ k.T
        row = []
        for t in [s, s / math.sqrt(d_k)]:
            w = t.softmax(dim=-1)
            std = ((t - t.mean()) ** 2).mean().sqrt()
            max_w = w.max(dim=-1).values.mean()
            entropy = -(w * t.log_softmax(dim=-1)).sum(dim=-1).mean()
            slope = (1 - (w * w).sum(dim=-1)).mean()
            row.append(torch.stack([std, max_w, entropy, slope]))
        rows.append(torch.stack(row))
    put("attention.sharpness", torch.stack(rows))

    # self-attention as a dynamic embedding: "new" in two sentences, one embedding table, one set of
    # projections, the chapter's attention()
    torch.manual_seed(14)
    words = ["i", "bought", "new", "shoes", "visited", "york"]
    table = torch.nn.Embedding(len(words), 8)
    W_q, W_k, W_v = (torch.nn.Linear(8, 8, bias=False) for _ in range(3))
    for name, sentence in [("shoes", "i bought new shoes"), ("york", "i visited new york")]:
        x = table(torch.tensor([words.index(w) for w in sentence.split()]))
        put("attention.dynamic.%s" % name, attention(W_q(x), W_k(x), W_v(x))[0])

    # Implementing TA: the chapter's attention() with its mask (1 = visible)
    torch.manual_seed(12)
    query, key, value = torch.rand(4, 4), torch.rand(4, 4), torch.rand(4, 4)
    mask = torch.tril(torch.ones(4, 4))
    x, p_attn = attention(query, key, value, mask=mask)
    put("attention.ta.p_attn", p_attn)
    put("attention.ta.x", x)

    # MultiHeadedAttention(h = 2, d_model = 6), eval mode, self-attention on 4 tokens
    torch.manual_seed(13)
    mha = MultiHeadedAttention(2, 6, 0.1).eval()
    x = torch.rand(1, 4, 6)
    for i, layer in enumerate(mha.fc_layers):
        put("attention.mha.fc%d.weight" % (i + 1), layer.weight)
        put("attention.mha.fc%d.bias" % (i + 1), layer.bias)
    projections = [l(t).view(1, -1, 2, 3).transpose(1, 2) for l, t in zip(mha.fc_layers, (x, x, x))]
    put("attention.mha.query", projections[0])
    out = mha(x, x, x)
    put("attention.mha.attn", mha.attn)
    put("attention.mha.out", out)
    out = mha(x, x, x, subsequent_mask(4))
    put("attention.mha.causal.attn", mha.attn)
    put("attention.mha.causal.out", out)


# ---- lessons/12_transformer_blocks.lua ----------------------------------------------------------------

# the lessons' made-up vocabularies (Lua ids are these positions + 1)
SRC_VOCAB = ["<pad>", "<s>", "</s>", "the", "cat", "sat", "on", "mat"]
TGT_VOCAB = ["<pad>", "<s>", "</s>", "die", "Katze", "saß", "auf", "der", "Matte"]


def ids(vocab, words):
    return torch.tensor([[vocab.index(w) for w in words.split()]])


def transformer_blocks():
    # the positional encoding matrix, 10 positions, d_model = 8
    put("blocks.pe", PositionalEncoding(8, 0.0, 10).pe[0])

    # source embeddings: Embeddings (times √d_model) then the positional encoding
    torch.manual_seed(20)
    tok = Embeddings(8, len(SRC_VOCAB))
    pos = PositionalEncoding(8, 0.1, 50).eval()
    src = ids(SRC_VOCAB, "the cat sat on the mat")
    put_ids("blocks.src", src)
    emb = tok(src)
    x = pos(emb)
    put("blocks.emb", emb)
    put("blocks.x", x)

    # LayerNorm (weight 1, bias 0) of x
    put("blocks.ln", torch.nn.LayerNorm(8)(x))

    # the position-wise FFN, SiLU
    torch.manual_seed(21)
    ffn = PositionwiseFFN(8, 32, 0.1).eval()
    put("blocks.ffn", ffn(x))

    # one encoder block, post-LN and pre-LN, from the same seed (the same weights)
    src_mask = torch.ones(1, 1, 6)
    for name, post in [("post", True), ("pre", False)]:
        torch.manual_seed(22)
        block = EncoderBlock(8, MultiHeadedAttention(2, 8, 0.1), PositionwiseFFN(8, 32, 0.1), 0.1,
                             post_ln=post).eval()
        put("blocks.enc_%s" % name, block(x, src_mask))

    # the Encoder: N = 2 blocks (pre-LN, the chapter's SublayerConnection), then LayerNorm
    torch.manual_seed(23)
    encoder = Encoder(EncoderBlock(8, MultiHeadedAttention(2, 8, 0.1), PositionwiseFFN(8, 32, 0.1), 0.1), 2).eval()
    memory = encoder(x, src_mask)
    put("blocks.memory", memory)

    # a decoder block: target embeddings, causal self-attention, cross-attention to the memory
    torch.manual_seed(24)
    tgt_tok = Embeddings(8, len(TGT_VOCAB))
    block = DecoderBlock(8, MultiHeadedAttention(2, 8, 0.1), MultiHeadedAttention(2, 8, 0.1),
                         PositionwiseFFN(8, 32, 0.1), 0.1).eval()
    tgt = ids(TGT_VOCAB, "<s> die Katze saß")
    put_ids("blocks.tgt", tgt)
    y = PositionalEncoding(8, 0.1, 50).eval()(tgt_tok(tgt))
    tgt_mask = subsequent_mask(4)
    out = block(y, memory, src_mask, tgt_mask)
    put("blocks.y", y)
    put("blocks.dec_self_attn", block.self_attn.attn)
    put("blocks.dec_cross_attn", block.encoder_attn.attn)
    put("blocks.dec_out", out)

    # the Decoder: N = 2 blocks, LayerNorm, projection to the target vocabulary, log_softmax
    torch.manual_seed(25)
    decoder = Decoder(DecoderBlock(8, MultiHeadedAttention(2, 8, 0.1), MultiHeadedAttention(2, 8, 0.1),
                                   PositionwiseFFN(8, 32, 0.1), 0.1), 2, len(TGT_VOCAB)).eval()
    put("blocks.log_probs", decoder(y, memory, src_mask, tgt_mask))


def main():
    torch.set_num_threads(1)
    seq2seq(put, put_ids)
    bahdanau(put, put_ids)
    general()
    transformer_attention()
    transformer_blocks()
    transformer_model(put, put_ids)
    bert_gpt(put, put_ids)
    head = fmt.lesson_header("the lessons on Python Deep Learning, ch. 7 (lessons/08_seq2seq.lua to"
                             " lessons/14_bert_gpt.lua): every computation whose numbers the chapter does not"
                             " print, in PyTorch", "gen_lesson_reference.py",
                             int64_note="int64 name=N shape=S : values (decimal)")
    fmt.write_file(os.path.join(OUT, "lessons_pdl_ch7.txt"), head, lines)


if __name__ == "__main__":
    main()
