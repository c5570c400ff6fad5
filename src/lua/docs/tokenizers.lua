-- docs/tokenizers.lua — help for Hugging Face tokenizer.json files (src/lua/tokenizers/) and the Hugging
-- Face cache (src/lua/hf.lua). The examples read Qwen3's tokenizer.json where make test puts it
-- (scripts/fetch-hf-tokenizers.sh build/hf-tokenizers).
local D = require("attn.docs.define")
local def = D.def
local tokenizers = require("attn.tokenizers")
local Tokenizer = tokenizers.Tokenizer

def("tokenizers", "tokenizers", [=[
Hugging Face tokenizers read from their tokenizer.json, with the names of Hugging Face's tokenizers
library: tokenizers.Tokenizer.from_file(path), then tok:encode(text) for ids, tok:decode(ids) for text
and tok:tokens(text) for labels. attn reads byte-level BPE, the kind Qwen3, Llama 3 and GPT-2 use, and
gives the same ids as Hugging Face plus one (attn's ids are 1-based, as for tiktoken). Unlike GPT-2's,
Qwen3's vocabulary has whole Chinese words: "你的旅程从一步开始" is 5 tokens, each a word, where GPT-2's
tokenizer makes fragments of bytes.
attn ships no tokenizer file: a model downloaded from the Hugging Face Hub has one in its directory, and
tokenizers.Tokenizer.from_pretrained finds it in the Hugging Face cache.]=], [=[
tok = tokenizers.Tokenizer.from_file("build/hf-tokenizers/qwen3/tokenizer.json")
table.concat(tok:tokens("你的旅程从一步开始"), " | ")
--> 你的 | 旅程 | 从 | 一步 | 开始]=], tokenizers)

def("tokenizers.Tokenizer", "tokenizers.Tokenizer", [=[
The tokenizer of one tokenizer.json. Make one with tokenizers.Tokenizer.from_file(path),
.from_pretrained(name) or .from_str(json); see ?tokenizers.Tokenizer:encode for what encoding does.]=], [=[
tok = tokenizers.Tokenizer.from_file("build/hf-tokenizers/qwen3/tokenizer.json")
tok:get_vocab_size()
--> 151669]=], Tokenizer)

def("tokenizers.Tokenizer.from_file", "tokenizers.Tokenizer.from_file(path) -> tok", [=[
Reads a Hugging Face tokenizer.json: a BPE model whose every byte has a token (byte-level BPE, as
Qwen3's, Llama 3's and GPT-2's), its merges, its added tokens, the normalizers NFC, NFD, NFKC and NFKD,
the pre-tokenizers ByteLevel and Split (with the file's regex, run by PCRE2), the post-processors
ByteLevel and TemplateProcessing, the ByteLevel decoder. Anything else is refused with the file's name
and the reason, and so is a file that is not JSON, lacks its model, vocab or merges, or is larger than
256 MB. Loading the same unchanged file again returns the same tokenizer.]=], [=[
tok = tokenizers.Tokenizer.from_file("build/hf-tokenizers/llama3/tokenizer.json")
tok:get_vocab_size()
--> 128256]=], Tokenizer.from_file)

def("tokenizers.Tokenizer.from_str", "tokenizers.Tokenizer.from_str(json) -> tok", [=[
The same as from_file, from the text of a tokenizer.json.]=], [=[
f = io.open("build/hf-tokenizers/qwen3/tokenizer.json")
tok = tokenizers.Tokenizer.from_str(f:read("a"))
f:close()
#tok:encode("Your journey starts with one step")
--> 6]=], Tokenizer.from_str)

def("tokenizers.Tokenizer.from_pretrained", 'tokenizers.Tokenizer.from_pretrained(name [, {cache_dir = ..., revision = "main"}]) -> tok', [=[
The tokenizer.json of a model: name is a directory that has one, or a model's name on the Hugging Face
Hub ("Qwen/Qwen3-0.6B", "meta-llama/Llama-3.2-1B", "gpt2") already downloaded into the Hugging Face
cache: CACHE/models--ORG--NAME/snapshots/COMMIT/tokenizer.json, the commit read from refs/main (or
refs/REVISION; a 40-digit commit is taken as it is). CACHE is $HF_HUB_CACHE, else $HF_HOME/hub, else
~/.cache/huggingface/hub, as huggingface_hub chooses it, unless cache_dir is given. attn downloads
nothing: when the file is not there the error says where it looked. (huggingface-cli download
Qwen/Qwen3-0.6B puts a model there.)]=], [=[
ok, err = pcall(tokenizers.Tokenizer.from_pretrained, "no-such-org/no-such-model", {cache_dir = "/nonexistent"})
err:match("for no%-such%-org/no%-such%-model, found no tokenizer.json") ~= nil
--> true]=], Tokenizer.from_pretrained)

def("tokenizers.Tokenizer:encode", "tok:encode(text [, {add_special_tokens = true}]) -> {id, ...}", [=[
The token ids of a text as a Lua list (torch.tensor(ids) makes the int64 tensor a model takes), the
ids Hugging Face's tokenizers gives plus one. As that library does, it first cuts out the added tokens
written in the text (<|im_start|>, <|endoftext|>, <think>, ...: always, unlike tiktoken, which refuses
them unless allowed), then normalizes the rest (NFC for Qwen3: é typed as e + U+0301 is the one
character é), cuts it with the file's regex into words, numbers and runs of symbols and spaces, and
merges each piece's bytes in the file's merge order. Bytes that are not UTF-8 become U+FFFD first (a
Hugging Face tokenizer only ever sees text, and that is the text a program's UTF-8 decoder makes of
them). With add_special_tokens (the default) the post-processor's tokens are added (Llama 3.2's
<|begin_of_text|>; Qwen3 adds none).]=], [=[
tok = tokenizers.Tokenizer.from_file("build/hf-tokenizers/qwen3/tokenizer.json")
table.concat(tok:encode("你的旅程从一步开始"), " ")
--> 103930 112483 45182 99725 55287]=], Tokenizer.encode)

def("tokenizers.Tokenizer:decode", "tok:decode(ids [, {skip_special_tokens = false}]) -> text", [=[
The text of a list of ids (or a number, or a 1-D or [1, n] int64 tensor): the tokens' bytes joined,
with U+FFFD for bytes of a character the ids cut; tok:decode(tok:encode(s)) is s (in NFC for Qwen3).
skip_special_tokens leaves out the special added tokens. An id outside the vocabulary is refused.]=], [=[
tok = tokenizers.Tokenizer.from_file("build/hf-tokenizers/qwen3/tokenizer.json")
tok:decode({103930, 112483, 45182, 99725, 55287})
--> 你的旅程从一步开始]=], Tokenizer.decode)

def("tokenizers.Tokenizer:tokens", "tok:tokens(text [, {add_special_tokens = true}]) -> {label, ...}", [=[
The tokens of tok:encode(text) as labels a reader can read: each token's bytes as text (" step", not
the file's "Ġstep"; whole Chinese characters and words). A token that holds part of a UTF-8 character
(a rare character that the vocabulary cuts into byte tokens) shows the whole characters in it as they
are and each byte of the cut character as \xHH, Lua's escape: Llama 3 cuts "龘" into "\xE9\xBE" and
"\x98". The labels joined are the text whenever no character is cut.]=], [=[
tok = tokenizers.Tokenizer.from_file("build/hf-tokenizers/llama3/tokenizer.json")
table.concat(tok:tokens("Your journey, 你的旅程 龘"), "|")
--> Your| journey|,| |你的|旅|程| \xE9\xBE|\x98]=], Tokenizer.tokens)

def("tokenizers.Tokenizer:id_to_token", "tok:id_to_token(id) -> token or nil", [=[
The token as the file writes it: byte-level vocabularies write a space as "Ġ" and a newline as "Ċ";
an added token is its text.]=], [=[
tok = tokenizers.Tokenizer.from_file("build/hf-tokenizers/qwen3/tokenizer.json")
tok:id_to_token(tok:encode(" step")[1])
--> Ġstep]=], Tokenizer.id_to_token)

def("tokenizers.Tokenizer:token_to_id", "tok:token_to_id(token) -> id or nil", [=[
attn's id of a token written as the file writes it (or of an added token), nil when there is none.]=], [=[
tok = tokenizers.Tokenizer.from_file("build/hf-tokenizers/qwen3/tokenizer.json")
tok:token_to_id("<|im_end|>")
--> 151646]=], Tokenizer.token_to_id)

def("tokenizers.Tokenizer:get_vocab_size", "tok:get_vocab_size() -> n", [=[
The number of ids, the added tokens included: ids run from 1 to n.]=], [=[
tokenizers.Tokenizer.from_file("build/hf-tokenizers/llama3/tokenizer.json"):get_vocab_size()
--> 128256]=], Tokenizer.get_vocab_size)

def("tokenizers.Tokenizer:apply_chat_template",
    "tok:apply_chat_template(messages [, {add_generation_prompt = false, tokenize = true, enable_thinking = true}])", [=[
Qwen3's chat prompt for one user turn (optionally after a system message), as Qwen3's Jinja template
renders it, from the file's <|im_start|> and <|im_end|>: "<|im_start|>user\nCONTENT<|im_end|>\n",
then with add_generation_prompt "<|im_start|>assistant\n", and with enable_thinking = false also an
empty "<think>\n\n</think>\n\n" (Qwen3 then answers without thinking). attn has no Jinja engine: it
writes this one format, and refuses other conversations and tokenizers without those tokens. Returns
the ids (without post-processor tokens, as transformers does), or the text with tokenize = false.]=], [=[
tok = tokenizers.Tokenizer.from_file("build/hf-tokenizers/qwen3/tokenizer.json")
tok:apply_chat_template({{role = "user", content = "你好"}}, {add_generation_prompt = true, tokenize = false})
--> <|im_start|>user
--> 你好<|im_end|>
--> <|im_start|>assistant]=], Tokenizer.apply_chat_template)

def("tokenizers.label", "tokenizers.label(bytes) -> text", [=[
A token's bytes as a label, as tok:tokens writes them: UTF-8 as it is, the bytes of a cut character
as \xHH.]=], [=[
tokenizers.label("\xE4\xBD\xA0\xE4\xBD")
--> 你\xE4\xBD]=], tokenizers.label)
