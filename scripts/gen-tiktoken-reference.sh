#!/bin/sh
# gen-tiktoken-reference.sh — regenerates tests/data/tiktoken/gpt2.jsonl: tiktoken's ids for the strings
# of tests/data/tiktoken/strings.jsonl (the book's chapter 2 samples and strings chosen to be hard:
# contractions, numbers, Unicode, spaces, <|endoftext|>), computed by js-tiktoken (npm) under node.
# The result is committed; make test does not run this. Byte-identical on regeneration.
set -eu
cd "$(dirname "$0")/.."
work=build/npm-tiktoken
mkdir -p "$work"
if [ ! -d "$work/node_modules/js-tiktoken" ]; then
    command -v npm >/dev/null 2>&1 || sh scripts/install-deps.sh npm
    (cd "$work" && npm install --silent --no-save --no-package-lock js-tiktoken@1.0.21 >/dev/null)
fi
NODE_PATH="$work/node_modules" node scripts/tiktoken_reference.js < tests/data/tiktoken/strings.jsonl \
    > tests/data/tiktoken/gpt2.jsonl.tmp
mv tests/data/tiktoken/gpt2.jsonl.tmp tests/data/tiktoken/gpt2.jsonl
echo "gen-tiktoken-reference: wrote tests/data/tiktoken/gpt2.jsonl ($(wc -l < tests/data/tiktoken/gpt2.jsonl) strings)"
