#!/bin/sh
# test_install.sh — attn as a Unix tool and as a Lua library, installed: `make install` into a temporary
# DESTDIR (PREFIX=/usr/local, and once with another PREFIX), then the installed attn run from a
# directory that has no lessons/ (so --list must find them relative to the binary), its man pages (attn.1
# and the manual's of section 7, in both languages) checked with man --warnings, and attn.so loaded by stock lua5.4 (require "attn", and a busted spec);
# the rockspec built with LuaRocks into a temporary tree.
# TAP output.
cd "$(dirname "$0")/../.." || exit 2
. tests/tap.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out
ERR=$TMP/err
# shellcheck disable=SC2317  # called from tap.sh
diagnose() {
    sed 's/^/#   /' "$OUT" | head -n 10
    sed 's/^/#   stderr: /' "$ERR" | head -n 10
}
# run COMMAND...: from the empty directory $TMP/elsewhere, keeping stdout and stderr
mkdir -p "$TMP/elsewhere"
run() { (cd "$TMP/elsewhere" && "$@") >"$OUT" 2>"$ERR"; }
# lines_are N PATTERN: N lines of the last run's stdout match PATTERN
lines_are() { [ "$(grep -c "$2" "$OUT")" -eq "$1" ]; }

STAGE=$TMP/stage
ROOT=$STAGE/usr/local
check "make install DESTDIR=<tmp> PREFIX=/usr/local succeeds" \
    run make --no-print-directory -C "$PWD" install DESTDIR="$STAGE" PREFIX=/usr/local
check "it installs bin/attn, the man page, the lessons and lib/lua/5.4/attn.so" \
    all test -x "$ROOT/bin/attn" -- test -f "$ROOT/share/man/man1/attn.1" -- \
        test -f "$ROOT/share/attn/lessons/01_simple_attention.lua" -- test -f "$ROOT/lib/lua/5.4/attn.so"

check "it installs the Jupyter kernelspecs, whose kernel.json starts the installed attn (not the build's)" \
    all test -f "$ROOT/share/jupyter/kernels/attn/logo-64x64.png" -- \
        grep -q '"/usr/local/bin/attn"' "$ROOT/share/jupyter/kernels/attn/kernel.json" -- \
        grep -q '"ATTN_LANG":[[:space:]]*"zh_CN"' "$ROOT/share/jupyter/kernels/attn-zh_cn/kernel.json"

check "man --warnings renders attn.1 without a warning" \
    all run man --warnings -E UTF-8 -l "$ROOT/share/man/man1/attn.1" -- test ! -s "$ERR" -- \
        grep -q "attn - a step-through interpreter" "$OUT"

check "the Chinese man page is installed where man -L zh_CN looks: share/man/zh_CN/man1/attn.1" \
    test -f "$ROOT/share/man/zh_CN/man1/attn.1"
check "man --warnings renders the Chinese attn.1 without a warning" \
    all run man --warnings -E UTF-8 -l "$ROOT/share/man/zh_CN/man1/attn.1" -- test ! -s "$ERR" -- \
        grep -q "attn - 逐步演示注意力机制的解释器" "$OUT"
check "man -L zh_CN attn finds the Chinese page, man -L en the English one (MANPATH = the install)" \
    all run env MANPATH="$ROOT/share/man" man -E UTF-8 -L zh_CN attn -- grep -q "逐步演示注意力机制" "$OUT" -- \
        run env MANPATH="$ROOT/share/man" man -E UTF-8 -L en attn -- grep -q "a step-through interpreter" "$OUT"

for topic in tour exact safety performance; do
    check "the manual's attn-$topic(7) is installed in English and Chinese, and man --warnings renders both" \
        all test -f "$ROOT/share/man/man7/attn-$topic.7" -- test -f "$ROOT/share/man/zh_CN/man7/attn-$topic.7" -- \
            run man --warnings -E UTF-8 -l "$ROOT/share/man/man7/attn-$topic.7" -- test ! -s "$ERR" -- \
            grep -q "attn-$topic  *- " "$OUT" -- \
            run man --warnings -E UTF-8 -l "$ROOT/share/man/zh_CN/man7/attn-$topic.7" -- test ! -s "$ERR" -- \
            grep -q "^名称" "$OUT"
done
check "man attn-tour and man -L zh_CN attn-tour find the installed pages (MANPATH = the install)" \
    all run env MANPATH="$ROOT/share/man" man -E UTF-8 -L en attn-tour -- grep -q "a tour of attn" "$OUT" -- \
        run env MANPATH="$ROOT/share/man" man -E UTF-8 -L zh_CN attn-tour -- grep -q "attn 导览" "$OUT"
check "the installed attn shows the same pages as ?tour, in English and in Chinese" \
    all run "$ROOT/bin/attn" -e 'help("tour")' -- grep -q "^  attn-tour - a tour of attn" "$OUT" -- \
        run "$ROOT/bin/attn" --lang zh_CN -e 'help("safety")' -- grep -q "^  attn-safety - 别人的笔记" "$OUT"

nlessons=$(ls lessons/*.lua | wc -l)
check "the installed attn --list, run elsewhere, lists all $nlessons lessons (found beside the binary)" \
    all run "$ROOT/bin/attn" --list -- lines_are "$nlessons" '\.lua'
check "... under their installed paths" lines_are "$nlessons" "^$ROOT/share/attn/lessons/[0-9]"
check "the installed attn --check runs an installed lesson (its PyTorch reference data found too)" \
    all run "$ROOT/bin/attn" --check "$ROOT/share/attn/lessons/01_simple_attention.lua" \
        "$ROOT/share/attn/lessons/10_general_attention.lua" -- grep -q ' 0 failed' "$OUT"
check "the lessons' data is installed beside them (lesson.data finds share/attn/lessons/data/), with its provenance" \
    all cmp -s lessons/data/the-verdict.txt "$ROOT/share/attn/lessons/data/the-verdict.txt" -- \
        test -f "$ROOT/share/attn/lessons/data/README.md"
check "the installed attn runs a lesson straight through as a script" \
    all run "$ROOT/bin/attn" "$ROOT/share/attn/lessons/01_simple_attention.lua" -- \
        grep -q "0.9544" "$OUT"

export LUA_CPATH="$ROOT/lib/lua/5.4/?.so;;"
check "lua5.4 -e 'local torch = require(\"attn\").torch' works with the installed attn.so" \
    all run lua5.4 -e 'local torch = require("attn").torch' -- test ! -s "$ERR"
check "... and prints PyTorch's numbers" \
    all run lua5.4 -e 'local torch = require("attn").torch; print(torch.softmax(torch.tensor{1.0, 2.0, 3.0}, -1))' -- \
        grep -qx "tensor(\[0.0900, 0.2447, 0.6652\])" "$OUT"
check "a busted spec under stock lua5.4 with require \"attn\" passes" \
    all run lua5.4 /usr/bin/busted -o TAP "$PWD/tests/install/attn_module_spec.lua" -- \
        grep -q '^1\.\.[1-9]' "$OUT" -- lines_are 0 '^not ok'
unset LUA_CPATH

check "the rockspec builds and installs attn.so with LuaRocks (luarocks --lua-version 5.4 make)" \
    all run sh -c "cd '$PWD' && luarocks --lua-version 5.4 make --tree '$TMP/rocks' scripts/attn-0.1-1.rockspec" -- \
        test -f "$TMP/rocks/lib/lua/5.4/attn.so" -- \
        run env LUA_CPATH="$TMP/rocks/lib/lua/5.4/?.so;;" lua5.4 -e 'print(require("attn").torch.ones(2))' -- \
        grep -qx 'tensor(\[1., 1.\])' "$OUT"

check "PREFIX is honoured: PREFIX=/opt/attn installs under it" \
    all run make --no-print-directory -C "$PWD" install DESTDIR="$TMP/stage2" PREFIX=/opt/attn -- \
        test -x "$TMP/stage2/opt/attn/bin/attn" -- test -f "$TMP/stage2/opt/attn/lib/lua/5.4/attn.so" -- \
        run "$TMP/stage2/opt/attn/bin/attn" --list -- grep -q 01_simple_attention "$OUT"
tap_end
