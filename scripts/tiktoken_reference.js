// tiktoken_reference.js — tiktoken's ids for the tokenizer tests (run by scripts/gen-tiktoken-reference.sh).
// js-tiktoken is tiktoken's JavaScript port (the same ranks, the same pre-tokenisation regex); Python's
// tiktoken is not packaged by Debian. Reads the strings (one JSON string a line) from stdin, writes one
// JSON object a line: {"text": ..., "ids": [PyTorch's ids, 0-based], "ordinary": [encode_ordinary's ids]}.
const { getEncoding } = require("js-tiktoken");
const enc = getEncoding("gpt2");
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter((l) => l.length > 0);
for (const line of lines) {
  const text = JSON.parse(line);
  const ids = enc.encode(text, ["<|endoftext|>"]);
  const ordinary = enc.encode(text, [], []);
  if (enc.decode(ids) !== text) throw new Error("decode does not invert encode for " + line);
  console.log(JSON.stringify({ text, ids, ordinary }));
}
