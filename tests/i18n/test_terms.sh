#!/bin/sh
# test_terms.sh — one term per concept in the Chinese edition: the terminology table
# src/po/zh_CN/terms.tsv names, for each concept, attn's term and the variants it does not use; no
# variant may appear in attn's own Chinese text — every msgstr of src/po/zh_CN, the glossary's term
# column, the Chinese man pages (attn.1 and the manual of section 7) — except inside a quotation (“…”, 「…」), which keeps a text's words.
# And the glossary itself gives each concept of the table with attn's term. TAP output.
#   sh tests/i18n/test_terms.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
TERMS=src/po/zh_CN/terms.tsv
. tests/tap.sh

# attn's Chinese text, one line per message (file:line: text), quotations removed
TEXT=$(mktemp)
trap 'rm -f "$TEXT"' EXIT
for po in $(find src/po/zh_CN -name '*.po' | sort); do
    perl -ne 'BEGIN { $in = 0 }
        if (/^msgstr (".*")$/) { $in = 1; $s = $1; } elsif ($in && /^(".*")$/) { $s = $1; } else { $in = 0; next; }
        $s =~ s/“[^”]*”//g; $s =~ s/「[^」]*」//g;
        print "$ARGV:$.: $s\n";' "$po"
done >"$TEXT"
awk -F '\t' '!/^#/ && NF >= 2 { print FILENAME ":" FNR ": " $2 }' src/po/zh_CN/glossary.tsv >>"$TEXT"
perl -ne 's/“[^”]*”//g; print "$ARGV:$.: $_"' src/cli/attn.zh_CN.1 src/cli/man/*.zh_CN.7 >>"$TEXT"

if [ ! -s "$TEXT" ] || ! grep -q '注意力' "$TEXT"; then
    not_ok "attn's Chinese text was read"
fi
# each row: concept, term, forbidden variants (a regex), the texts' words
SEP=$(printf '\001')   # not whitespace: an empty column stays a column
awk -F '\t' 'BEGIN { OFS = "\001" } !/^#/ { print $1, $2, $3 }' "$TERMS" | while IFS=$SEP read -r concept term variants; do
    [ -n "$variants" ] || continue
    hits=$(grep -P -- "$variants" "$TEXT" | head -n 5)
    if [ -n "$hits" ]; then
        echo "not ok - $concept: $term, not $variants"
        echo "$hits" | cut -c1-200 | sed 's/^/#   /'
    else
        echo "ok - $concept: $term, never $variants"
    fi
done >"$TEXT.rows"
while IFS= read -r line; do
    case $line in
    "ok - "*) ok "${line#ok - }" ;;
    "not ok - "*) not_ok "${line#not ok - }" ;;
    *) echo "$line" ;;
    esac
done <"$TEXT.rows"
rm -f "$TEXT.rows"

# sentences a native reader writes otherwise, and ASCII punctuation inside Chinese (the classroom review's findings): what attn
# must not say (a regex), then what it says instead
grep -n '中文' src/lua/kernel/spec.lua | sed 's/^/src\/lua\/kernel\/spec.lua:/' >>"$TEXT"
while IFS='|' read -r bad good; do
    hits=$(grep -P -- "$bad" "$TEXT" | head -n 3)
    if [ -n "$hits" ]; then
        not_ok "wording: $good, not $bad"
        echo "$hits" | cut -c1-200 | sed 's/^/#   /'
    else
        ok "wording: $good, never $bad"
    fi
done <<'WORDING'
看注意力学会|看注意力如何学会
键相遇|它的查询与 N 个键分别计算分数
所以求和和书中|所以这里的求和与书中一样用 float32 计算
已跳过第|跳过 N 课：
逐行跟读一本|用来逐行跟读用 PyTorch 讲解的书
中文, Lua|attn（中文，Lua 5.4）
[\x{4e00}-\x{9fff}]GPT-2|这里没有 GPT-2 的词表 (a space between Chinese and Latin)
WORDING

# the glossary's rows for the table's concepts give attn's term
for concept in "token" "thought vector" "general attention" "segment embedding" "scoring function" "batch" "vocabulary"; do
    term=$(awk -F '\t' -v c="$concept" '$1 == c { print $2 }' "$TERMS")
    if awk -F '\t' -v c="$concept" -v t="$term" '$1 == c && $2 == t { found = 1 } END { exit !found }' src/po/zh_CN/glossary.tsv; then
        ok "the glossary gives $concept as $term"
    else
        not_ok "the glossary gives $concept as $term (src/po/zh_CN/glossary.tsv)"
    fi
done
tap_end
