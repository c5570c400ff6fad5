#!/bin/sh
# test_repl_zh.sh — a Chinese REPL session in a real terminal (tmux), started with LANG=zh_CN.UTF-8:
# the banner, help(), ?attention.softmax, ?glossary, a Python habit's hint, and a heatmap whose
# tokens are Chinese words, lined up in display columns (a Chinese character takes two). TAP output.
#   sh tests/i18n/test_repl_zh.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
SOCK=attn-zh-$$
SCREEN_H=50
SCROLLBACK=2000
. "$(dirname "$0")/../tmux.sh"

start HOME="$TMPHOME" NO_COLOR=1 ATTN_LANG= LANGUAGE= LC_ALL= LC_MESSAGES= LANG=zh_CN.UTF-8
check "the banner is Chinese" wait_for '^attn 0\.1 —— 带张量和注意力各阶段的 Lua 5\.4。help\(\) 查看导览，\?名称 查看一个函数。$'
wait_for '^attn> $' >/dev/null

type_line 'help()'
check "help() is the Chinese tour" wait_for '^注意力，一次一个阶段（\?attention 列出各个阶段）$'
type_line '?attention.softmax'
check "?attention.softmax: its signature and the Chinese example label" \
    all wait_for '^attention\.softmax\(s \[, dim\]\)$' -- wait_for '^  示例：'
type_line '?glossary'
check "?glossary lists the terms" wait_for '^  attention weight +注意力权重 '
type_line 'a = torch.ones(2, 2); a @ a'
check "a Python habit gets its hint in Chinese" wait_for 'Lua 没有 @：矩阵乘法写作 a:matmul\(b\)'

type_line 'inputs = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64}, {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}'
type_line 'w = attention.softmax(attention.scores(inputs, inputs))'
type_line 'tokens = {"你的", "旅程", "始于", "一", "小", "步"}'
type_line 'attention.heatmap(w, {rows = tokens, cols = tokens})'
# the book's α2 (ch. 3 §3.3.1) in the row of 旅程 ("journey"); each label padded to 4 columns
check "the heatmap's header: Chinese tokens right-aligned over their columns" \
    wait_for '^         你的     旅程     始于       一       小       步$'
check "the row of 旅程 is the book's α2, lined up" \
    wait_for '^旅程  0\.1385░  0\.2379█  0\.2333█  0\.1240░  0\.1082   0\.1581▒$'
check "a one-character label is padded to the same width" \
    wait_for '^一    0\.1435░  0\.2074▓  0\.2046▓  0\.1462░  0\.1263░  0\.1720▒$'
type_line 'attn.lang("en"); help()'
check "attn.lang('en') switches back to English" wait_for '^Attention one stage at a time \(\?attention lists the stages\)$'
tap_end
