#!/bin/sh
# test_chinese.sh — the Chinese edition from the command line. TAP output.
#   sh tests/i18n/test_chinese.sh [path/to/attn]      (default ./attn)
# Every lesson runs in check mode in English and in Chinese: the same checks pass (the counts are
# identical), and in Chinese every message the lesson library looks up (prose, titles, labels) is
# found in the catalogs (ATTN_I18N_MISSES=1 makes attn.i18n name each one it misses on stderr) —
# except for the lessons whose catalog src/po/zh_CN/TODO still lists. Then the language choice
# (LANG, LANGUAGE, --lang, attn.lang), the step-mode interface, --list, help(), ?name and ?glossary.
set -u

BIN=${1:-./attn}
. "$(dirname "$0")/../cmd.sh"
unset LANGUAGE LC_ALL LC_MESSAGES ATTN_LANG
export LANG=C.UTF-8
todo() { grep -qx "$1" src/po/zh_CN/TODO 2>/dev/null; }

# ---- every lesson, in check mode, in both languages --------------------------------------------
for f in lessons/*.lua; do
    name=$(basename "$f" .lua)
    "$BIN" --check "$f" >"$TMP/en" 2>&1
    run --lang zh_CN --check "$f"
    ATTN_I18N_MISSES=1 "$BIN" --lang zh_CN --check "$f" >"$TMP/zh" 2>"$TMP/zh.err"
    # the same lines with the same numbers: "N passed, N failed" last in both, the line before it translated
    tr -dc '0-9\n' <"$TMP/en" >"$TMP/en.n"
    tr -dc '0-9\n' <"$TMP/zh" >"$TMP/zh.n"
    check "$name: the same checks pass in English and in Chinese" \
        all cmp -s "$TMP/en.n" "$TMP/zh.n" -- sh -c "[ \"\$(tail -n 1 '$TMP/en')\" = \"\$(tail -n 1 '$TMP/zh')\" ]"
    if todo "lessons/$name"; then
        ok "$name: every message translated # SKIP its catalog is in src/po/zh_CN/TODO"
    else
        cp "$TMP/zh.err" "$ERR"
        check "$name: every message the lesson looks up has its Chinese translation" \
            all status_is 0 -- sh -c "! grep -q 'no zh_CN translation' '$TMP/zh.err'"
    fi
done

# ---- choosing the language ---------------------------------------------------------------------
run -e 'print(attn.lang())'
check "English when the locale is C.UTF-8" out_is en
LANG=zh_CN.UTF-8 run -e 'print(attn.lang())'
check "LANG=zh_CN.UTF-8 means Chinese" out_is zh_CN
LANGUAGE=zh_CN:en run -e 'print(attn.lang())'
check "LANGUAGE=zh_CN:en means Chinese" out_is zh_CN
LANG=zh_CN.UTF-8 run --lang en -e 'print(attn.lang())'
check "--lang en beats LANG=zh_CN.UTF-8" out_is en
LANG=fr_FR.UTF-8 run -e 'print(attn.lang())'
check "a language without a catalog is English" out_is en
run --lang fr -e ''
check "--lang fr: no catalog, said so" all status_is 1 -- err_matches "--lang: no catalog for 'fr' (there are: en, zh_CN)"
run -e 'attn.lang("zh_CN"); help()'
check "attn.lang('zh_CN') switches help() to Chinese" out_matches '注意力'
run -e 'attn.lang("xx")'
check "attn.lang('xx') is an error naming attn.lang" all status_is 1 -- err_matches 'attn.lang: no catalog for xx'

# ---- the interface -----------------------------------------------------------------------------
IN=/dev/null LANG=zh_CN.UTF-8 run --step lessons/01_simple_attention.lua
check "LANG=zh_CN.UTF-8 --step: Chinese step titles and key line" \
    all out_matches '── 第 1/[0-9]* 步 · ' -- out_matches '下一步 · b 后退'
printf 'l\n?\ng\n3\nq\n' >"$TMP/keys"
IN=$TMP/keys run --lang zh_CN --step lessons/01_simple_attention.lua
check "--lang zh_CN --step: l, ? and g in Chinese (the list with its mark, the keys, the question)" all \
    out_matches '^本课的步骤（▸ 标出当前这一步）：$' -- out_matches '^  ▸   1  输入 x^(1) … x^(6)$' -- \
    out_matches '^  b             后退一步$' -- out_matches '^跳到第几步（1 到 15，直接按 Enter：留在这里）：' -- \
    out_matches '^── 第 3/15 步 · '
run --lang zh_CN --list
check "--list in Chinese keeps a line per lesson, its path as typed from here" out_matches '^lessons/01_simple_attention.lua  '
check "--list in Chinese names the books by their Chinese titles" out_matches '^  *《从零构建大模型》（中译本）第 3 章 §3.3.1'
ATTN_GPT2_DIR=$TMP/no-gpt2 run --lang zh_CN --check lessons/15_real_model.lua
check "--check in Chinese: a lesson lesson.skip stops is said to be skipped in Chinese" \
    all status_is 0 -- out_matches '^跳过 1 课：lessons/15_real_model.lua：这节课需要 GPT-2 small 的权重' -- out_matches '^0 passed, 0 failed, 1 skipped$'
run --lang zh_CN -e 'help()'
check "help() in Chinese" all out_matches '^张量' -- out_matches '注意力，一次一个阶段'
run --lang zh_CN -e 'help("attention.softmax")'
check "?attention.softmax in Chinese" all out_matches '^attention.softmax(s \[, dim\])$' -- out_matches '示例：'
run --lang zh_CN -e 'help("nn.MultiHeadAttention")'
check "?nn.MultiHeadAttention in Chinese" all out_matches '^nn.MultiHeadAttention(' -- out_matches '示例：'
run --lang zh_CN -e 'help("glossary")'
check "?glossary: the terms, English and Chinese" all out_matches '^术语表' -- out_matches 'attention weight  *注意力权重'

# ---- layout in display columns -----------------------------------------------------------------
run -e 'local w = require("attn.text.wrap"); for _, l in ipairs(w.line("注意力权重是归一化后的注意力分数，每一行的和为 1。", 20)) do print(l) end'
check "Chinese wraps between characters, never before ，or 。" \
    all out_is "$(printf '注意力权重是归一化后\n的注意力分数，每一行\n的和为 1。')"
run -e 'local w = require("attn.text.wrap"); for _, l in ipairs(w.line("the matmul（矩阵乘法）of inputs", 12)) do print(l) end'
check "a word is never split, an opening bracket stays with what follows" \
    all out_is "$(printf 'the matmul\n（矩阵乘法）\nof inputs')"
run --lang zh_CN -e 'lesson.section("中文标题")'
check "a section rule is measured in display columns (80)" \
    sh -c "[ \"\$(sed -n 2p '$OUT' | '$BIN' -e 'print(require(\"attn.text.width\").of(io.read(\"l\")))')\" = 80 ]"

tap_end
