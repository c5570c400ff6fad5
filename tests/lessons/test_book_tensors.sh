#!/bin/sh
# test_book_tensors.sh — "every distinct tensor printed in ch. 3 appears verbatim in the
# output of the chapter-3 lessons": runs every chapter-3 lesson (lessons/01-06) straight through (no colour) and
# reports, per tensor of tests/data/book/ch3_tensors.txt (made by scripts/extract-book-tensors.lua),
# whether its text appears in that output character for character. TAP output.
#   sh tests/lessons/test_book_tensors.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
. "$(dirname "$0")/../cmd.sh"
DATA=tests/data/book/ch3_tensors.txt

status=0
for f in lessons/0[1-6]_*.lua; do # the chapter-3 lessons
    [ -e "$f" ] || continue
    if ! NO_COLOR=1 "$BIN" "$f" >>"$TMP/out" 2>>"$TMP/err" </dev/null; then
        echo "# $f did not run through:"
        sed 's/^/#   /' "$TMP/err" | tail -n 5
        status=1
    fi
done
touch "$TMP/out"

# One TAP line per tensor of the data file ("=== N  (In [k], line L)" then the tensor's text).
"$BIN" - "$DATA" "$TMP/out" <<'LUA' || status=1
local function slurp(path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("a")
    f:close()
    return s
end
local data, out = slurp(arg[1]), slurp(arg[2])
local list = {}
for line in data:gmatch("([^\n]*)\n") do
    local head = line:match("^=== (.*)$")
    if head then
        list[#list + 1] = {head = head, lines = {}}
    elseif #list > 0 then
        table.insert(list[#list].lines, line)
    end
end
for _, t in ipairs(list) do t.text = table.concat(t.lines, "\n") end
local failed = 0
for i, t in ipairs(list) do
    if out:find(t.text, 1, true) then
        print(string.format("ok %d - tensor %s appears verbatim", i, t.head))
    else
        failed = failed + 1
        print(string.format("not ok %d - tensor %s appears verbatim", i, t.head))
        print("#   " .. t.text:gsub("\n", "\n#   "))
    end
end
print("1.." .. #list)
print(string.format("# %d of %d book tensors appear in the lessons' output", #list - failed, #list))
os.exit(failed == 0)
LUA
exit $status
