#!/bin/sh
# test_book_words.sh — the Chinese edition in the book's own words and with Chinese punctuation.
# TAP output.
#   sh tests/i18n/test_book_words.sh [path/to/attn]      (default ./attn)
# 1. Lessons 01–06, run in Chinese, show every section heading of chapter 3 they follow as the Chinese
#    translation of Build a Large Language Model (From Scratch) (《从零构建大模型》, ch. 3) prints it;
#    spaces between Chinese and Latin letters are not compared. The expected headings are copied from
#    the book's text.
# 2. No line of any lesson's Chinese output has a half-width colon or double quote right after a
#    Chinese character or a full-width mark (labels take "：", quotations “”), and none starts with
#    closing punctuation (the wrapper keeps ，。、；：）” on the line before).
set -u
BIN=${1:-./attn}
. "$(dirname "$0")/../cmd.sh"
unset LANGUAGE LC_ALL LC_MESSAGES
export LANG=C.UTF-8 ATTN_LANG=zh_CN

# lesson <TAB> heading, as the book writes it
cat >"$TMP/headings" <<'TSV'
01_simple_attention	3.3.1 没有可训练权重的简单自注意力机制
01_simple_attention	3.3.2 计算所有输入词元的注意力权重
02_trainable_weights	3.4 使用可训练权重实现自注意力
02_trainable_weights	3.4.1 逐步计算注意力权重
02_trainable_weights	3.4.2 实现一个简洁的自注意力Python类
03_causal_attention	3.5 使用因果注意力隐藏未来的词
03_causal_attention	3.5.1 应用因果注意力掩码
04_dropout	3.5.2 使用dropout屏蔽额外的注意力权重
05_causal_class	3.5.3 实现一个紧凑的因果注意力类
06_multi_head_attention	3.6 将单头注意力扩展为多头注意力
06_multi_head_attention	3.6.1 堆叠多个单头注意力层
06_multi_head_attention	3.6.2 使用权重分割实现多头注意力
TSV
nospace() { tr -d ' ' ; }
# ATTN_VERDICT_STEPS=0: lesson 21 runs its quick part, as --check does, not GPT-2 small's ten epochs
for f in lessons/*.lua; do
    name=$(basename "$f" .lua)
    ATTN_VERDICT_STEPS=0 "$BIN" "$f" >"$TMP/$name.out" 2>&1
done
STATUS=0
while IFS='	' read -r name heading; do
    # a section's rule: "══ 3.3.1  没有可训练权重的简单自注意力机制 ═══…"; its text, spaces removed
    grep '^══ ' "$TMP/$name.out" | sed 's/^══ //; s/ ═*$//' | nospace >"$TMP/$name.headings"
    cp "$TMP/$name.headings" "$OUT"
    : >"$ERR"
    check "$name shows the book's heading: $heading" grep -qxF -- "$(printf '%s' "$heading" | nospace)" "$TMP/$name.headings"
done <"$TMP/headings"

for f in lessons/*.lua; do
    name=$(basename "$f" .lua)
    cp "$TMP/$name.out" "$OUT"
    : >"$ERR"
    grep -nP '[\p{Han}\x{3000}-\x{303F}\x{FF00}-\x{FFEF}][:"]' "$OUT" >"$ERR"
    grep -nP '^\s*[，。、；：！？）”’》]' "$OUT" >>"$ERR"
    check "$name in Chinese: no ':' or '\"' after Chinese text, no line opening with closing punctuation" \
        test ! -s "$ERR"
done
tap_end
