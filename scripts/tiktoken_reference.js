// tiktoken_reference.js — tiktoken's ids for the tokenizer tests (run by scripts/gen-tiktoken-reference.sh).
// js-tiktoken is tiktoken's JavaScript port (the same ranks, the same pre-tokenisation regex); Python's
// tiktoken is not packaged by Debian. Reads the strings (one JSON string a line) from stdin, writes one
// JSON object a line: {"text": ..., "ids": [PyTorch's ids, 0-based], "ordinary": [encode_ordinary's ids]},
// then the same for the long words made below.
const { getEncoding } = require("js-tiktoken");
const enc = getEncoding("gpt2");
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter((l) => l.length > 0);
const texts = lines.map((line) => JSON.parse(line));

// Long words, where attn's BPE once took quadratic time (a 40,000-letter word: most of a minute): made
// here from a fixed linear congruential generator, so that regeneration is byte-identical.
let state = 20261127;
function pick(alphabet, n) {
  let out = "";
  for (let i = 0; i < n; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out += alphabet[state % alphabet.length];
  }
  return out;
}
texts.push("a".repeat(3000));
texts.push(pick("abcdefghijklmnopqrstuvwxyz", 5000));
texts.push(" " + pick("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 3000) + " end");
texts.push(pick("0123456789", 4000));
texts.push(pick(["e", "é", "日", "本", "ß", "x"], 2000));
texts.push(pick("!?.,;:-=+*", 2000));
texts.push(pick("abcdefghijklmnopqrstuvwxyz", 10000)); // js-tiktoken is quadratic too: 40,000 takes it many minutes
for (const text of texts) {
  const line = JSON.stringify(text);
  const ids = enc.encode(text, ["<|endoftext|>"]);
  const ordinary = enc.encode(text, [], []);
  if (enc.decode(ids) !== text) throw new Error("decode does not invert encode for " + line);
  console.log(JSON.stringify({ text, ids, ordinary }));
}
