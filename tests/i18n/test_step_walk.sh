#!/bin/sh
# test_step_walk.sh — every lesson in step mode in Chinese, as a class sees it: `attn --lang zh_CN
# --step LESSON` with Enter after every step, then tests/i18n/step_walk.lua reads what each printed and
# fails on a lesson that stopped with an error, on a step whose code shows pcall, os.getenv,
# lesson.skip or an English comment, and on English in the output outside code and names or ASCII
# punctuation inside its Chinese. TAP output.
#   sh tests/i18n/test_step_walk.sh [path/to/attn]      (default ./attn)
# GPT-2's vocabulary and Qwen3's tokenizer are read where tests/run.sh puts them (build/gpt2-vocab,
# build/hf-tokenizers) unless ATTN_TIKTOKEN_DIR / ATTN_HF_TOKENIZERS_DIR say otherwise; a lesson whose
# files are missing is skipped, and what it says then is walked too. Lesson 21 runs its quick part, as
# --check does (ATTN_VERDICT_STEPS=0: every step, the training loop's step stops before the first of its
# 90 training steps, which take minutes).
set -u
BIN=${1:-./attn}
. "$(dirname "$0")/../cmd.sh" # BIN made absolute, skipped when not built, $TMP
unset LANGUAGE LC_ALL LC_MESSAGES ATTN_LANG
export ATTN_TIKTOKEN_DIR="${ATTN_TIKTOKEN_DIR:-$(pwd)/build/gpt2-vocab}"
export ATTN_HF_TOKENIZERS_DIR="${ATTN_HF_TOKENIZERS_DIR:-$(pwd)/build/hf-tokenizers}"
export ATTN_VERDICT_STEPS=0
# far more Enters than any lesson has steps: step mode reads one key after each step
awk 'BEGIN { for (i = 0; i < 2000; i++) print "" }' >"$TMP/keys"
for f in lessons/*.lua; do
    name=$(basename "$f" .lua)
    "$BIN" --lang zh_CN --step "$f" <"$TMP/keys" >"$TMP/$name.out" 2>"$TMP/$name.err"
    echo $? >"$TMP/$name.rc"
done
# shellcheck disable=SC2046  # one argument per lesson file
"$BIN" tests/i18n/step_walk.lua "$TMP" lessons/*.lua
