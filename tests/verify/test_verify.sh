#!/bin/sh
# test_verify.sh — attn --verify (notes in Markdown), --update and --markdown (lessons as handouts).
# TAP output.
#   sh tests/verify/test_verify.sh [path/to/attn] [handouts]
# With "handouts", every lesson is also written with --markdown and checked with --verify (slow under
# ASan, so the ASan run leaves it out).
set -u

BIN=${1:-./attn}
HANDOUTS=${2:-}
DIAG_LINES=30
. "$(dirname "$0")/../cmd.sh"
DIR=tests/verify
same() { cmp -s "$1" "$2"; }
same_text() { [ "$(cat "$1")" = "$2" ]; }
# once TEXT: the output holds TEXT on exactly one line
once() { [ "$(grep -c -F -- "$1" "$OUT")" -eq 1 ]; }
# line_of FILE TEXT: the number of the first line of FILE holding TEXT
line_of() { grep -n -F -- "$2" "$1" | head -n 1 | cut -d: -f1; }
# without_outputs FILE: FILE without its ```output blocks (as notes are before --update writes them)
without_outputs() {
    awk '/^ *>? *```output/ { skip = 1; next } skip && /^ *>? *```/ { skip = 0; next } !skip' "$1"
}

# ---- the six-token walkthrough, in English and in Chinese ------------------------------------------
for lang in en zh; do
    notes=$DIR/six_tokens.md
    [ "$lang" = zh ] && notes=$DIR/six_tokens.zh.md
    run --verify "$notes"
    check "$lang: the six-token notes pass --verify (8 blocks)" all status_is 0 -- \
        last_line_is "8 passed, 0 failed" -- err_empty

    # one digit changed in an output block: a failure at that line, with the numbers marked
    cp "$notes" "$TMP/digit.md"
    sed -i 's/0\.1385, 0\.2379, 0\.2333/0.1385, 0.2378, 0.2333/' "$TMP/digit.md"
    line=$(line_of "$TMP/digit.md" "0.2378")
    run --verify "$TMP/digit.md"
    check "$lang: one digit changed fails, naming its line ($line) and the largest difference" all \
        status_is 1 -- out_has "✗ $TMP/digit.md:$line: the output differs" -- \
        out_has "largest difference 1.0e-04 at line $line: 0.2379 printed where the notes show 0.2378" -- \
        out_has "^^^^^^" -- last_line_is "7 passed, 1 failed"

    # --update puts the digit back and changes nothing else; --verify then passes
    run --verify --update "$TMP/digit.md"
    check "$lang: --update rewrites the changed block, and the file is the original byte for byte" all \
        status_is 0 -- same "$notes" "$TMP/digit.md" -- out_has "output blocks rewritten: 1, added: 0"
    run --verify "$TMP/digit.md"
    check "$lang: --verify passes after --update" all status_is 0 -- last_line_is "8 passed, 0 failed"

    # notes written from scratch: no output blocks; --update adds them, giving the notes we ship
    without_outputs "$notes" >"$TMP/bare.md"
    run --verify --update "$TMP/bare.md"
    check "$lang: --update adds every missing output block, in lists and quotes too: the shipped file" all \
        status_is 0 -- same "$notes" "$TMP/bare.md" -- out_has "output blocks rewritten: 0, added: 8"

    cp "$notes" "$TMP/again.md"
    run --verify --update "$TMP/again.md"
    check "$lang: --update on notes that pass changes nothing" all status_is 0 -- same "$notes" "$TMP/again.md"
done

# ---- README's example: what it shows is what attn prints ---------------------------------------------
README=$(pwd)/README.md
cp "$DIR/short.md" "$TMP/short.md"
cd "$TMP" || exit 2
run --verify short.md
check "README: short.md passes" all status_is 0 -- last_line_is "1 passed, 0 failed"
sed -i 's/0\.2272/0.2727/' short.md
run --verify short.md
check "README: short.md with a typo fails as README shows, line for line" all status_is 1 -- \
    sh -c "while IFS= read -r l; do grep -q -F -x -- \"\$l\" '$README' || exit 1; done <'$OUT'"
cd - >/dev/null || exit 2

# ---- what a comparison accepts --------------------------------------------------------------------
printf '# Rounded\n\n```lua\nprint(torch.tensor{0.123456, 2.5})\nprint("a  ")\n```\n```output\ntensor([0.12, 2.5])\na\n```\n' >"$TMP/round.md"
run --verify "$TMP/round.md"
check "numbers within half a unit of the notes' last digit pass; trailing spaces do not count" all \
    status_is 0 -- last_line_is "1 passed, 0 failed"

printf '# Text\n\n```lua\nprint("one step")\n```\n\n```text\none stop\n```\n' >"$TMP/text.md"
run --verify "$TMP/text.md"
check "a \`\`\`text block after a \`\`\`lua block is its output; a word changed fails at its line and column" all \
    status_is 1 -- out_has "✗ $TMP/text.md:8: the output differs" -- \
    out_has "the text differs at line 8, column 7"

# a block that errors keeps its output block; the others are still brought up to date
printf '```lua\nprint(1 + 1)\n```\n\n```output\n3\n```\n\n```lua\nerror("boom")\n```\n\n```output\nold\n```\n' >"$TMP/partial.md"
run --verify --update "$TMP/partial.md"
check "--update with a block that errors rewrites the wrong number of the others, leaves the erring one's" all \
    status_is 1 -- out_has "boom" -- out_has "updated (output blocks rewritten: 1, added: 0; blocks with an error left as they were: 1)" -- \
    same_text "$TMP/partial.md" "$(printf '```lua\nprint(1 + 1)\n```\n\n```output\n2\n```\n\n```lua\nerror("boom")\n```\n\n```output\nold\n```')"

printf '# Python\n\n```lua\ninputs = torch.ones(2, 2)\nprint(inputs @ inputs)\n```\n' >"$TMP/python.md"
run --verify "$TMP/python.md"
check "a Python habit in a block gets the prompt's hint (Lua has no @)" all status_is 1 -- \
    out_has "near '@'  (Lua has no @: the matrix product is a:matmul(b))"

# PyTorch's UserWarning (mse_loss of [3] and [3, 1]) is not output: the block passes with the value alone,
# and the report names the note's line, once for a line that warns three times (Python's default)
printf '# Broadcast\n\n```lua\na, b = torch.tensor{1.0, 2, 3}, torch.tensor{{1.0}, {2}, {4}}\nfor i = 1, 3 do l = nn.functional.mse_loss(a, b) end\nprint(l)\n```\n\n```output\ntensor(2.3333)\n```\n' >"$TMP/warns.md"
run --verify "$TMP/warns.md"
check "a UserWarning goes to the report, naming the note's line once; the output block holds the value alone" all \
    status_is 0 -- last_line_is "1 passed, 0 failed" -- \
    out_has "$TMP/warns.md:5: UserWarning: Using a target size (torch.Size([3, 1])) that is different to the input size (torch.Size([3]))." -- \
    once "UserWarning"

printf '```lua\nx = 1\n```\n\n```lua skip\nx = 2\n```\n\n```python\nx = 3\n```\n\n    x = 4\n\n```lua\nprint(x)\n```\n```output\n1\n```\n' >"$TMP/kinds.md"
run --verify "$TMP/kinds.md"
check "\`\`\`lua skip, other languages and indented code are not run; globals stay for the next block" all \
    status_is 0 -- last_line_is "2 passed, 0 failed"

printf '# Crlf\r\n\r\n```lua\r\nprint(6 * 7)\r\n```\r\n' >"$TMP/crlf.md"
run --verify --update "$TMP/crlf.md"
check "--update keeps a file's CRLF line ends" all status_is 0 -- \
    same "$TMP/crlf.md" /dev/stdin <<EOF
$(printf '# Crlf\r\n\r\n```lua\r\nprint(6 * 7)\r\n```\r\n```output\r\n42\r\n```\r')
EOF

# a UTF-8 byte order mark before the first block: the block is still read (it used to be skipped, and a
# wrong output block after it passed unseen); --update keeps the mark
printf '\357\273\277```lua\nprint(6 * 7)\n```\n\n```output\n41\n```\n' >"$TMP/bom.md"
run --verify "$TMP/bom.md"
check "a note starting with a UTF-8 BOM: its first block is run and compared (41 is not 42)" all status_is 1 -- \
    out_has "✗ $TMP/bom.md:6: the output differs" -- last_line_is "0 passed, 1 failed"
run --verify --update "$TMP/bom.md"
printf '\357\273\277```lua\nprint(6 * 7)\n```\n\n```output\n42\n```\n' >"$TMP/bom_expected.md"
check "--update on a note with a BOM keeps the BOM and writes 42" all status_is 0 -- \
    same "$TMP/bom.md" "$TMP/bom_expected.md"

# what a block prints may hold a carriage return, a NUL, an escape or a byte that is not UTF-8 (a token
# cut inside a character): --update writes them as control pictures and U+FFFD, and the file verifies
printf '# Bytes\n\n```lua\nprint("a\\rb\\0c\\27[1m" .. string.char(0xe6) .. "z")\nio.write("tail\\r")\n```\n' \
    >"$TMP/bytes.md"
run --verify --update "$TMP/bytes.md"
check "--update on output with CR, NUL, ESC and a lone byte writes valid UTF-8 (␍ ␀ ␛ U+FFFD)" all status_is 0 -- \
    grep -q -F "a␍b␀c␛[1m�z" "$TMP/bytes.md" -- iconv -f UTF-8 -t UTF-8 -o /dev/null "$TMP/bytes.md"
run --verify "$TMP/bytes.md"
check "... and that file passes --verify again" all status_is 0 -- last_line_is "1 passed, 0 failed"
printf '# Bytes\n\n```lua\nprint("a\\rb")\n```\n\n```output\nab\n```\n' >"$TMP/cr.md"
run --verify "$TMP/cr.md"
check "a carriage return printed is not silently dropped: a\\rb is not ab" all status_is 1 -- \
    out_has "the output differs"

# int64 differences do not wrap: math.mininteger printed where the notes show 0 fails
printf '```lua\nprint(math.mininteger)\n```\n\n```output\n0\n```\n' >"$TMP/minint.md"
run --verify "$TMP/minint.md"
check "math.mininteger is not within half a unit of 0" all status_is 1 -- out_has "the output differs"

# ---- bad input: a message naming the file and line, and the other files still run ------------------
printf '# Notes\n\nok\n\n\377 not UTF-8\n' >"$TMP/latin1.md"
printf '# Notes\n\n```lua\nprint(1)\n\nmore\n' >"$TMP/open.md"
printf '# Notes\n\nprose\n\n```output\n1\n```\n' >"$TMP/orphan.md"
printf '# Notes\n\n```lua\nprint("before")\nos.exit(3)\n```\n\n```lua\nprint("after")\n```\n```output\nafter\n```\n' >"$TMP/exit.md"
printf '# Notes\n\n```lua\nlocal x = torch.ones(6, 3)\n\nlocal y = x:matmul(torch.ones(2, 3))\n```\n' >"$TMP/error.md"
run --verify "$TMP/latin1.md" "$TMP/open.md" "$TMP/orphan.md" "$TMP/exit.md" "$TMP/error.md" "$DIR/six_tokens.md"
check "bad input: each file's message names its line; the good file's 8 blocks still pass" all status_is 1 -- \
    out_has "✗ $TMP/latin1.md:5: not UTF-8 text: the byte at line 5, column 1 is not UTF-8" -- \
    out_has "✗ $TMP/open.md:3: the \`\`\`lua fence opened here is never closed" -- \
    out_has "✗ $TMP/orphan.md:5: an \`\`\`output block with no \`\`\`lua block right before it" -- \
    out_has "✗ $TMP/exit.md:5: error in the \`\`\`lua block at line 3: os.exit is not allowed in notes run by attn --verify" -- \
    out_has "✗ $TMP/error.md:6: error in the \`\`\`lua block at line 3: matmul: cannot multiply [6, 3] by [2, 3]" -- \
    last_line_is "9 passed, 5 failed"

# a block that loops: Ctrl-C stops it, the file fails, the next file runs (--trusted: the block writes
# a file to say it has started)
printf '# Notes\n\n```lua\nio.open(arg_marker, "w"):close()\nwhile true do end\n```\n\n```lua\nprint("not run")\n```\n' |
    sed "s|arg_marker|\"$TMP/looping\"|" >"$TMP/loop.md"
"$BIN" --verify --trusted "$TMP/loop.md" "$DIR/six_tokens.md" >"$OUT" 2>"$ERR" &
pid=$!
i=0
while [ "$i" -lt 400 ] && [ ! -e "$TMP/looping" ]; do
    sleep 0.05
    i=$((i + 1))
done
kill -INT "$pid"
i=0
while [ "$i" -lt 400 ] && kill -0 "$pid" 2>/dev/null; do
    sleep 0.05
    i=$((i + 1))
done
kill -KILL "$pid" 2>/dev/null
wait "$pid"
STATUS=$?
check "a looping block: Ctrl-C stops it, it fails at its line, the next file still runs" all status_is 1 -- \
    out_has "✗ $TMP/loop.md:5: interrupted (Ctrl-C) in the \`\`\`lua block at line 3" -- \
    last_line_is "8 passed, 1 failed"

printf '```lua\nprint("start")\n```\n\n```lua\nlesson.skip("no model here")\n```\n\n```lua\nprint("not run")\n```\n' >"$TMP/skip.md"
run --verify "$TMP/skip.md" "$DIR/six_tokens.md"
check "lesson.skip in a block: the file stops there, skipped (not failed), the next file runs" all status_is 0 -- \
    out_has "skipped: $TMP/skip.md:6: no model here — the rest of $TMP/skip.md is not run" -- \
    last_line_is "9 passed, 0 failed, 1 skipped"

run --update "$DIR/six_tokens.md"
check "--update without --verify is refused" all status_is 1 -- err_has "--update goes with --verify"
run --verify
check "--verify without files says what it needs" all status_is 1 -- err_has "--verify needs Markdown files"
run --verify "$TMP/no_such_notes.md"
check "a missing file is a failure naming it" all status_is 1 -- out_has "✗ $TMP/no_such_notes.md" -- \
    last_line_is "0 passed, 1 failed"

# ---- lessons as handouts -----------------------------------------------------------------------------
run --markdown lessons/02_trainable_weights.lua
check "--markdown: the title, sections, steps as \`\`\`lua and \`\`\`output blocks, checks as text" all \
    status_is 0 -- out_has "# Self-attention with trainable weights" -- \
    out_has "## 3.4.1  Computing the attention weights step by step" -- \
    out_has "### Step 2 · the inputs and the sizes d_in = 3, d_out = 2 (In [15])" -- \
    out_has "x_2: tensor([0.5500, 0.8700, 0.6600])" -- out_has "- ✓ d_in, the input embedding size, d=3" -- \
    out_lacks "lesson.check(" -- err_empty

run --lang zh_CN --markdown lessons/01_simple_attention.lua
cp "$OUT" "$TMP/zh01.md"
check "--markdown --lang zh_CN: the handout's own lines follow the language too (source, note, step headings)" all \
    status_is 0 -- out_has "# 没有可训练权重的简单自注意力机制" -- out_has "出处：《从零构建大模型》（中译本）第 3 章" -- \
    out_has "这份讲义由 \`attn --markdown lessons/01_simple_attention.lua\` 生成。" -- out_has "### 第 2 步 · " -- \
    out_lacks "### Step" -- out_lacks "A handout written" -- err_empty
run --lang zh_CN --verify "$TMP/zh01.md"
check "--markdown --lang zh_CN: the Chinese handout passes --lang zh_CN --verify" all status_is 0 -- out_lacks "✗" -- \
    sh -c "tail -n 1 '$OUT' | grep -q '^[1-9][0-9]* passed, 0 failed\$'"

run --markdown tests/lessons/fixtures/failing.lua
check "--markdown: a failed check is in the handout with its ✗ and explanation; exit 1, said on stderr" all \
    status_is 1 -- out_has "- ✗ wrong on purpose" -- out_has "largest difference 1.0e-04 at [5]" -- \
    err_has "failing.lua: 1 check(s) failed" -- sh -c "! grep -q traceback '$ERR'"
"$BIN" --markdown lessons/01_simple_attention.lua >/dev/full 2>"$ERR"
STATUS=$?
check "--markdown > /dev/full: says it could not write, status 1 (it said nothing and exited 0)" all status_is 1 -- \
    err_has "--markdown: cannot write the handout of lessons/01_simple_attention.lua to standard output: No space left on device"
"$BIN" --markdown lessons/01_simple_attention.lua >&- 2>"$ERR"
STATUS=$?
check "--markdown with stdout closed: says so, status 1" all status_is 1 -- \
    err_has "--markdown: cannot write the handout of lessons/01_simple_attention.lua to standard output"
run --markdown "$TMP/no_such_lesson.lua"
check "--markdown: a missing lesson writes nothing and says so" all status_is 1 -- out_is "" -- \
    err_has "cannot open $TMP/no_such_lesson.lua"

if [ "$HANDOUTS" = handouts ]; then
    : >"$TMP/markdown.err"
    for f in lessons/*.lua; do
        "$BIN" --markdown "$f" >"$TMP/$(basename "$f" .lua).md" 2>>"$TMP/markdown.err" ||
            echo "--markdown $f failed" >>"$TMP/markdown.err"
    done
    run --verify "$TMP"/[0-9]*.md
    check "every lesson written with --markdown passes --verify" all status_is 0 -- out_lacks "✗" -- \
        [ ! -s "$TMP/markdown.err" ]
fi

tap_end
