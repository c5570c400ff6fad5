"""PyTorch's numbers for lessons/14_bert_gpt.lua (Python Deep Learning, ch. 7, "Bidirectional Encoder
Representations from Transformers" and "Generative Pre-trained Transformer"): BERT's input embeddings,
masked-language-model masking, next-sentence pairs, the parameter counts, and the attention of BERT
(bidirectional) and GPT (causal). Called by gen_lesson_reference.py with its put() and put_ids(); the
lesson reads "bert_gpt.*". Ids are the lesson's minus 1 (PyTorch counts from 0)."""
import torch

from torch_reference_layers import (BERTEmbedding, EncoderBlock, MultiHeadedAttention, PositionwiseFFN,
                                    subsequent_mask)

BERT_VOCAB = ["[PAD]", "[CLS]", "[SEP]", "[MASK]", "my", "dog", "is", "cute", "he", "likes", "play", "##ing"]
FIRST_WORD = BERT_VOCAB.index("my")  # the ids from here on are words; before it, special tokens


def ids(vocab, words):
    return torch.tensor([[vocab.index(w) for w in words.split()]])


def mlm_mask(tokens, special):
    """Masked language model inputs, as BERT's pre-training prepares them: each word is chosen with
    probability 15%; a chosen word becomes [MASK] (80% of them), a random word (10%) or stays (10%).
    Returns the chosen positions, the decision draws and the new input."""
    n = tokens.numel()
    chosen = (torch.rand(n) < 0.15) & ~special
    r = torch.rand(n)
    random_words = torch.randint(FIRST_WORD, len(BERT_VOCAB), (n,))
    to_mask = chosen & (r < 0.8)
    to_random = chosen & (r >= 0.8) & (r < 0.9)
    out = torch.where(to_mask, torch.full_like(tokens, BERT_VOCAB.index("[MASK]")), tokens)
    out = torch.where(to_random, random_words, out)
    return chosen, to_mask, to_random, out


def bert_gpt(put, put_ids):
    # BERT's input: token + segment + position embeddings
    torch.manual_seed(26)
    bert = BERTEmbedding(len(BERT_VOCAB), 8, max_len=16)
    tokens = ids(BERT_VOCAB, "[CLS] my dog is cute [SEP] he likes play ##ing [SEP]")
    segments = torch.tensor([[0] * 6 + [1] * 5])
    put_ids("bert_gpt.tokens", tokens)
    put_ids("bert_gpt.segments", segments)
    put("bert_gpt.token", bert.token(tokens))
    put("bert_gpt.segment", bert.segment(segments))
    put("bert_gpt.position", bert.position(torch.arange(tokens.size(-1))))
    e = bert(tokens, segments)
    put("bert_gpt.e", e)

    # masked language model: the example pair, then 10,000 words to see the proportions
    torch.manual_seed(332)
    flat = tokens[0]
    special = flat < FIRST_WORD
    chosen, to_mask, to_random, out = mlm_mask(flat, special)
    put_ids("bert_gpt.mlm.chosen", chosen.long())
    put_ids("bert_gpt.mlm.input", out)
    torch.manual_seed(51)
    many = torch.randint(FIRST_WORD, len(BERT_VOCAB), (10000,))
    chosen, to_mask, to_random, out = mlm_mask(many, many < FIRST_WORD)
    unchanged = chosen & ~to_mask & ~to_random
    put_ids("bert_gpt.mlm.counts", torch.tensor([chosen.sum(), to_mask.sum(), to_random.sum(), unchanged.sum()]))

    # next-sentence prediction: for each of the first 3 sentences A of a 4-sentence text, B is the next
    # sentence, or half the time one of the two others, picked at random
    torch.manual_seed(60)
    picks = []
    for a in range(3):
        is_next = torch.rand(1).item() >= 0.5
        others = [k for k in range(4) if k not in (a, a + 1)]  # neither A nor the sentence after it
        b = a + 1 if is_next else others[torch.randint(0, 2, (1,)).item()]
        picks += [int(is_next), b]
    put_ids("bert_gpt.nsp", torch.tensor(picks))

    # the parameters of one encoder block at BERT_BASE's and BERT_LARGE's sizes (FFN of 4 d_model)
    for d_model, heads in [(768, 12), (1024, 16)]:
        block = EncoderBlock(d_model, MultiHeadedAttention(heads, d_model, 0.1),
                             PositionwiseFFN(d_model, 4 * d_model, 0.1), 0.1)
        put_ids("bert_gpt.block%d.params" % d_model, torch.tensor(sum(p.numel() for p in block.parameters())))

    # bidirectional (BERT) and causal (GPT) self-attention on the first sentence
    torch.manual_seed(27)
    mha = MultiHeadedAttention(2, 8, 0.1).eval()
    x6 = e[:, :6]
    mha(x6, x6, x6, torch.ones(1, 6, 6))
    put("bert_gpt.bert_attn", mha.attn)
    mha(x6, x6, x6, subsequent_mask(6))
    put("bert_gpt.gpt_attn", mha.attn)
