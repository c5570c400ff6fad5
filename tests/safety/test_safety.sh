#!/bin/sh
# test_safety.sh — the safety reproducers on the command line (the manual's attn-safety(7), src/cli/man/attn-safety.7): notes from
# strangers under --verify (restricted by default, --trusted lifts it; the summary and exit status
# only attn's), writes that never destroy (--html with its arguments swapped, --update through a
# symlink, keeping the mode, two saves at once), and lessons named without a path resolved to attn's
# own, never to a lessons/ folder of the working directory. Each check failed on main before the change
# (tests/lua/files_spec.lua has the safetensors ones). TAP output.
#   sh tests/safety/test_safety.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
DIAG_LINES=20
. "$(dirname "$0")/../cmd.sh"
REPO=$(pwd)

# ---- --verify: notes from strangers -----------------------------------------------------------------
N=$TMP/notes
mkdir -p "$N/sub"
echo secret >"$TMP/outside.txt"
echo inside >"$N/sub/inside.txt"
ln -s "$TMP/outside.txt" "$N/link.txt"
fence='```'
block() { printf '%slua\n%s\n%s\n\n' "$fence" "$1" "$fence"; }
{
    block 'print("50 passed, 0 failed")
io.stdout:write("50 passed, 0 failed\n")
_G.os.exit(0)'
    block 'local exit = os.exit; exit(0)'
    block 'getmetatable(_ENV).__index.os.exit(0)'
    block 'require("os").exit(0)'
    block 'lesson.begin(); lesson.skip("a plain script ends here")'
    block 'os.execute("touch '"$TMP"'/ran")'
    block 'io.popen("touch '"$TMP"'/ran")'
    block 'io.open("'"$TMP"'/written", "w")'
    block 'safetensors.save_file({a = torch.ones(1)}, "'"$TMP"'/written")'
    block 'attention.heatmap(torch.eye(2), {svg = "'"$TMP"'/written"})'
    block 'torch.save({a = torch.ones(1)}, "'"$TMP"'/written")'
    block 'print(torch.load("'"$TMP"'/outside.txt"))'
    block 'print(io.open("'"$TMP"'/outside.txt"))'
    block 'print(io.open("link.txt"))'
    block 'print(io.open("../outside.txt"))'
    block 'package.loadlib("libc.so.6", "system")'
    block 'require("attn.bind")'
    block 'print(debug.getinfo)'
    block 'load(string.dump(function() end), "x", "b")'
    block 'print(os.getenv("PATH"))'
} >"$N/evil.md"
printf '%slua\nprint(io.open("sub/inside.txt"):read("l"))\nprint(require("helper").x)\n%s\n%soutput\ninside\n42\n%s\n' \
    "$fence" "$fence" "$fence" "$fence" >"$N/good.md"
echo 'return {x = 42}' >"$N/helper.lua"

(cd "$N" && "$BIN" --verify evil.md good.md >"$OUT" 2>"$ERR")
STATUS=$?
check "--verify: a note's fake summary and exit by any path cannot make the batch pass" all status_is 1 -- \
    last_line_is "1 passed, 20 failed"
check "os.exit by _G.os, a saved reference, _ENV's metatable, require('os') and lesson.skip: each an error at its line" all \
    out_has "evil.md:4: error in the \`\`\`lua block at line 1: os.exit is not allowed in notes run by attn --verify" -- \
    out_has "evil.md:8: error in the \`\`\`lua block at line 7: os.exit is not allowed" -- \
    out_has "evil.md:12: error in the \`\`\`lua block at line 11: attempt to index a boolean value" -- \
    out_has "evil.md:16: error in the \`\`\`lua block at line 15: os.exit is not allowed" -- \
    out_has "evil.md:20: error in the \`\`\`lua block at line 19: os.exit is not allowed"
check "no programs run, no file written" all test ! -e "$TMP/ran" -- test ! -e "$TMP/written" -- \
    out_has "os.execute is not allowed in notes run by attn --verify: a note does not run programs (--trusted lifts this)" -- \
    out_has "io.popen is not allowed" -- \
    out_has "io.open(\"$TMP/written\", \"w\") is not allowed in notes run by attn --verify: a note does not write files" -- \
    out_has "safetensors.save_file: cannot write $TMP/written: a note does not write files (--trusted lifts this)" -- \
    out_has "attention.heatmap: cannot write $TMP/written: a note does not write files" -- \
    out_has "torch.save: cannot write $TMP/written: a note does not write files"
check "reading only inside the notes' folder, symlinks resolved; a file of it can be read and required" all \
    out_has "io.open(\"$TMP/outside.txt\") is not allowed in notes run by attn --verify: a note reads only files in its own folder" -- \
    out_has "io.open(\"link.txt\") is not allowed" -- out_has "io.open(\"../outside.txt\") is not allowed" -- \
    out_has "torch.load: cannot read $TMP/outside.txt ($TMP/outside.txt: a note reads only files in its own folder" -- \
    out_lacks "secret"
check "no native code, no attn internals, no debug, no binary chunks, no environment" all \
    out_has "attempt to index a nil value (global 'package')" -- \
    out_has "require(\"attn.bind\") is not allowed" -- \
    out_has "attempt to index a nil value (global 'debug')" -- \
    out_has "load(..., \"b\") is not allowed in notes run by attn --verify: a note loads text only, never binary chunks" -- \
    out_has "os.getenv(\"PATH\") is not allowed"

# what the note reaches of attn itself: the string library its comparison uses, chunk names read as
# source files, the real standard output, piped standard input, the loaders' files outside the folder
{
    block 'getmetatable("").__index.gmatch = function() return function() end end
getmetatable("").__index.find = function() return 1 end
getmetatable("").__index.sub = function() return "" end'
    printf '%slua
print(1)
%s
%soutput
2
%s

' "$fence" "$fence" "$fence" "$fence"
    printf '%slua
print("x")
%s
%soutput
y
%s

' "$fence" "$fence" "$fence" "$fence"
} >"$N/strmeta.md"
(cd "$N" && "$BIN" --verify strmeta.md >"$OUT" 2>"$ERR")
STATUS=$?
check "--verify: a note that changes the string library's methods cannot make wrong outputs pass" all status_is 1 -- \
    last_line_is "1 passed, 2 failed" -- out_has "strmeta.md:11: the output differs"
printf 'line1\nsecret-source-2\nsecret-source-3\n' >"$TMP/source.txt"
printf '%slua
local f = load("lesson.step(\\"s\\", function()\\n  local a = 1\\n  local b = 2\\nend)", "@%s")
lesson.begin{mode = "run", out = io.stdout}
f()
%s
%soutput
nothing
%s
' \
    "$fence" "$TMP/source.txt" "$fence" "$fence" "$fence" >"$N/chunk.md"
(cd "$N" && "$BIN" --verify chunk.md >"$OUT" 2>"$ERR")
STATUS=$?
check "--verify: a chunk name is not a file to read (load(code, '@/path') + lesson.step echoed the file)" all \
    status_is 1 -- out_lacks "secret-source"
printf '%slua
local S = lesson.begin()
S.out:write(string.rep(" ", 3000) .. "\\n50 passed, 0 failed\\n")
S.out:seek("cur", -3021)
io.stderr:write("50 passed, 0 failed\\n")
error("fails")
%s
' \
    "$fence" "$fence" >"$N/fake.md"
(cd "$N" && "$BIN" --verify fake.md good.md >"$TMP/report.txt" 2>"$ERR")
STATUS=$?
check "--verify > report: a note has no handle on attn's stdout (lesson.begin().out wrote a fake summary, seeked back)" all \
    status_is 1 -- sh -c "[ \"\$(tail -n 1 '$TMP/report.txt')\" = '1 passed, 1 failed' ]" -- \
    sh -c "! grep -q '50 passed' '$TMP/report.txt'" -- sh -c "! grep -q '50 passed' '$ERR'" -- \
    grep -q "fake.md:6: error in the \`\`\`lua block at line 1: fails" "$TMP/report.txt"
{
    block 'print(io.open("/dev/stdin"):read("a"))'
    block 'dofile("/dev/stdin")'
    block 'print(io.open("/proc/self/fd/0"):read("a"))'
    block 'for l in io.lines("/dev/stdin") do print(l) end'
} >"$N/stdin.md"
(cd "$N" && echo 'print("secret-stdin-ran")' | "$BIN" --verify stdin.md >"$OUT" 2>"$ERR")
STATUS=$?
check "--verify: /dev/stdin and /proc/self/fd/0 are not read (a pipe's path cannot be resolved)" all status_is 1 -- \
    last_line_is "0 passed, 4 failed" -- out_lacks "secret-stdin"
printf '{"model": {"type": "BPE", "vocab": {"secret-json": 0}}}' >"$TMP/tok.json"
ln -s "$TMP/tok.json" "$N/tok.json"
{
    block 'safetensors.load_file("'"$TMP"'/outside.txt")'
    block 'safetensors.load_file("link.txt")'
    block 'tokenizers.Tokenizer.from_file("'"$TMP"'/tok.json")'
    block 'tokenizers.Tokenizer.from_file("tok.json")'
    block 'lesson.reference("../../outside.txt", "x")'
    block 'gpt.GPTModel.from_pretrained("'"$TMP"'")'
} >"$N/loaders.md"
(cd "$N" && "$BIN" --verify loaders.md >"$OUT" 2>"$ERR")
STATUS=$?
check "--verify: the loaders read only inside the notes' folder, and say nothing of a file outside" all status_is 1 -- \
    last_line_is "0 passed, 6 failed" -- \
    out_has "safetensors.load_file: cannot open $TMP/outside.txt: a note reads only files in its own folder" -- \
    out_has "safetensors.load_file: cannot open link.txt: a note reads only files in its own folder" -- \
    out_has "Tokenizer.from_file: cannot open $TMP/tok.json: a note reads only files in its own folder" -- \
    out_has "lesson.reference: ../../outside.txt is not a file name" -- \
    out_lacks "secret" -- out_lacks "bytes"

(cd "$N" && "$BIN" --verify --trusted good.md >"$OUT" 2>"$ERR")
STATUS=$?
check "--trusted runs notes with the program's globals" all status_is 0 -- last_line_is "1 passed, 0 failed"
printf '%slua\nio.stdout:write("50 passed, 0 failed\\n")\n_G.os.exit(0)\n%s\n' "$fence" "$fence" >"$N/exit.md"
printf '%slua\n_G.io.close()\n%s\n\n%slua\nprint(1)\n%s\n%soutput\n1\n%s\n' "$fence" "$fence" "$fence" "$fence" "$fence" \
    "$fence" >"$N/close.md"
(cd "$N" && "$BIN" --verify --trusted exit.md close.md good.md >"$OUT" 2>"$ERR")
STATUS=$?
check "--trusted: a note that exits ends its own file only; the summary is attn's; io.close() fails one block" all \
    status_is 1 -- out_has "✗ exit.md: the notes ended attn's run of them before the end of the file (exit status 0)" -- \
    out_has "✗ close.md:1: error in the \`\`\`lua block at line 1: the block closed attn's output (io.close)" -- \
    last_line_is "2 passed, 2 failed"

printf '%slua\nwhile true do end\n%s\n\n%slua\nprint("not run")\n%s\n' "$fence" "$fence" "$fence" "$fence" >"$N/loop.md"
printf '%slua\nwhile true do pcall(function() while true do end end) end\n%s\n' "$fence" "$fence" >"$N/stubborn.md"
(cd "$N" && ATTN_VERIFY_SECONDS=1 "$BIN" --verify loop.md stubborn.md good.md >"$OUT" 2>"$ERR")
STATUS=$?
check "a time budget per file: the block stops with a message, a note that catches the stop is killed" all \
    status_is 1 -- \
    out_has "✗ loop.md:2: the time budget of a notes file (1 s) is spent in the \`\`\`lua block at line 1; the rest of loop.md is not run" -- \
    out_has "✗ stubborn.md: the notes ran past their time budget (1 s) and were stopped" -- \
    last_line_is "1 passed, 2 failed"

printf '%slua\nlocal t = {} for i = 1, 1e8 do t[i] = {i} end\n%s\n\n%slua\nx = torch.ones(100000, 10000)\n%s\n' \
    "$fence" "$fence" "$fence" "$fence" >"$N/big.md"
(cd "$N" && ATTN_VERIFY_MB=200 "$BIN" --verify big.md >"$OUT" 2>"$ERR")
STATUS=$?
check "a memory budget per file, named in the message" all status_is 1 -- \
    out_has "big.md:1: error in the \`\`\`lua block at line 1: not enough memory (a notes file may take 200 MB; --trusted lifts this)" -- \
    out_has "the memory budget of a notes file (--trusted lifts it)"

# ---- --update through the one way to write ----------------------------------------------------------
printf '%slua\nprint(6 * 7)\n%s\n' "$fence" "$fence" >"$N/real.md"
chmod 600 "$N/real.md"
ln -s real.md "$N/alias.md"
ln -s "$TMP/victim" "$N/real.md.attn-update"   # the old fixed temporary name
echo precious >"$TMP/victim"
(cd "$N" && "$BIN" --verify --update alias.md >"$OUT" 2>"$ERR")
STATUS=$?
check "--update writes through a symlink, keeps the mode, never follows a planted temporary name" all status_is 0 -- \
    test -L "$N/alias.md" -- grep -q '^42$' "$N/real.md" -- \
    sh -c "[ \"\$(stat -c %a '$N/real.md')\" = 600 ]" -- grep -qx precious "$TMP/victim" -- \
    out_has "alias.md: updated (output blocks rewritten: 0, added: 1)"
mkfifo "$N/fifo.md"
run --verify --update "$N/fifo.md"
check "--verify on a FIFO does not hang; a note's notes are never replaced by a plain file" all status_is 1 -- test -p "$N/fifo.md"

# ---- --html never writes over a lesson ----------------------------------------------------------------
cp lessons/01_simple_attention.lua "$TMP/mylesson.lua"
cp "$TMP/mylesson.lua" "$TMP/mylesson.orig"
run --html "$TMP/mylesson.lua" "$TMP/page.html"
check "--html with its arguments swapped refuses, and the lesson is intact" all status_is 1 -- \
    err_has "--html: will not write the page over $TMP/mylesson.lua: it is a Lua file (the page comes first: attn --html PAGE.html LESSON.lua)" -- \
    cmp -s "$TMP/mylesson.lua" "$TMP/mylesson.orig"
ln -s mylesson.lua "$TMP/page.html"
run --html "$TMP/page.html" "$TMP/mylesson.lua"
check "--html refuses a page that is one of its inputs (through a symlink)" all status_is 1 -- \
    err_has "it is one of the lessons given" -- cmp -s "$TMP/mylesson.lua" "$TMP/mylesson.orig"
rm -f "$TMP/page.html"
mkfifo "$TMP/page.fifo"
run --html "$TMP/page.fifo" "$TMP/mylesson.lua"
check "--html refuses a FIFO (it hung opening it)" all status_is 1 -- \
    err_has "--html: will not write $TMP/page.fifo: it is a FIFO, and attn writes only regular files"

# ---- --ipynb follows --html's rule --------------------------------------------------------------------
cp "$TMP/mylesson.orig" "$TMP/mylesson.lua"
run --ipynb "$TMP/mylesson.lua" "$TMP/book.ipynb"
check "--ipynb with its arguments swapped refuses, and the lesson is intact" all status_is 1 -- \
    err_has "--ipynb: will not write the notebook over $TMP/mylesson.lua: it is a Lua file (the notebook comes first: attn --ipynb NOTEBOOK.ipynb LESSON.lua)" -- \
    cmp -s "$TMP/mylesson.lua" "$TMP/mylesson.orig"
cp "$TMP/mylesson.lua" "$TMP/mylesson.txt"
run --ipynb "$TMP/mylesson.txt" "$TMP/mylesson.txt"
check "--ipynb refuses to write over its input (status 0 before)" all status_is 1 -- \
    err_has "--ipynb: will not write the notebook over $TMP/mylesson.txt: it is one of the lessons given" -- \
    cmp -s "$TMP/mylesson.txt" "$TMP/mylesson.orig"
ln -s mylesson.lua "$TMP/book.ipynb"
run --ipynb "$TMP/book.ipynb" "$TMP/mylesson.lua"
check "--ipynb refuses a notebook that is a symlink to the lesson" all status_is 1 -- \
    err_has "--ipynb: will not write the notebook over $TMP/book.ipynb" -- cmp -s "$TMP/mylesson.lua" "$TMP/mylesson.orig"
rm -f "$TMP/book.ipynb"

cp "$TMP/mylesson.orig" "$TMP/mylesson.lua"
"$BIN" --markdown "$TMP/mylesson.lua" >>"$TMP/mylesson.lua" 2>"$ERR"
STATUS=$?
check "--markdown does not write a handout into a Lua file (>> lesson.lua)" all status_is 1 -- \
    err_has "--markdown: will not write the handout into $TMP/mylesson.lua (standard output): it is a Lua file" -- \
    cmp -s "$TMP/mylesson.lua" "$TMP/mylesson.orig"

# ---- nothing blocks on a FIFO where attn expects a file ------------------------------------------------
# each under timeout: before, each of these blocked for ever (status 124 here)
F=$TMP/fifos
mkdir -p "$F/cfg" "$F/st" "$F/shard" "$F/q"
mkfifo "$F/cfg/config.json" "$F/any.fifo"
cp tests/data/hf_models/qwen3-f32/config.json "$F/st/"
mkfifo "$F/st/model.safetensors"
cp tests/data/hf_models/qwen3-bf16-sharded/* "$F/shard/"
rm "$F/shard/model-00002-of-00002.safetensors"
mkfifo "$F/shard/model-00002-of-00002.safetensors"
mkfifo "$F/q/config.json"
fifo_call() { # fifo_call LUA: runs it under a timeout; STATUS and OUT/ERR as run's
    timeout 20 "$BIN" -e "$1" </dev/null >"$OUT" 2>"$ERR"
    STATUS=$?
}
fifo_call "print(pcall(safetensors.load_file, '$F/any.fifo'))"
check "safetensors.load_file of a FIFO: refused at once" all status_is 0 -- \
    out_has "safetensors.load_file: cannot open $F/any.fifo: it is a FIFO, and attn reads only regular files"
fifo_call "print(pcall(tokenizers.Tokenizer.from_file, '$F/any.fifo'))"
check "Tokenizer.from_file of a FIFO: refused at once" all status_is 0 -- \
    out_has "Tokenizer.from_file: cannot open $F/any.fifo: it is a FIFO"
fifo_call "print(pcall(gpt.GPTModel.from_pretrained, '$F/cfg'))"
check "GPT-2's from_pretrained with config.json a FIFO: refused at once" all status_is 0 -- \
    out_has "GPTModel.from_pretrained: cannot read $F/cfg/config.json: it is a FIFO"
fifo_call "print(pcall(qwen3.Qwen3Model.from_pretrained, '$F/q'))"
check "Qwen3's from_pretrained with config.json a FIFO: refused at once" all status_is 0 -- \
    out_has "Qwen3Model.from_pretrained: cannot read $F/q/config.json: it is a FIFO"
fifo_call "print(pcall(qwen3.Qwen3Model.from_pretrained, '$F/st'))"
check "from_pretrained with model.safetensors a FIFO: refused at once" all status_is 0 -- \
    out_has "Qwen3Model.from_pretrained: cannot read $F/st/model.safetensors: it is a FIFO"
fifo_call "print(pcall(qwen3.Qwen3Model.from_pretrained, '$F/shard'))"
check "from_pretrained with a shard a FIFO: refused at once" all status_is 0 -- \
    out_has "Qwen3Model.from_pretrained: cannot read $F/shard/model-00002-of-00002.safetensors: it is a FIFO"
timeout 20 "$BIN" --kernel "$F/any.fifo" </dev/null >"$OUT" 2>"$ERR"
STATUS=$?
check "--kernel with a FIFO as the connection file: refused at once" all status_is 1 -- \
    err_has "--kernel: cannot read the connection file: $F/any.fifo: it is a FIFO, and attn reads only regular files"
timeout 20 "$BIN" --kernel "$F" </dev/null >"$OUT" 2>"$ERR"
STATUS=$?
check "--kernel with a folder: says so (it said 'Inappropriate ioctl for device')" all status_is 1 -- \
    err_has "--kernel: cannot read the connection file: $F: it is a folder"
mkdir -p "$F/prefix/share/jupyter/kernels/attn"
mkfifo "$F/prefix/share/jupyter/kernels/attn/kernel.json"
timeout 20 "$BIN" --install-kernel --prefix "$F/prefix" </dev/null >"$OUT" 2>"$ERR"
STATUS=$?
check "--install-kernel with kernel.json a FIFO: refused through the one safe write" all status_is 1 -- \
    err_has "--install-kernel: will not write $F/prefix/share/jupyter/kernels/attn/kernel.json: it is a FIFO" -- \
    test -p "$F/prefix/share/jupyter/kernels/attn/kernel.json"

# ---- two saves at once --------------------------------------------------------------------------------
"$BIN" -e "for i = 1, 30 do safetensors.save_file({a = torch.zeros(300000)}, '$TMP/same.st') end" &
p1=$!
"$BIN" -e "for i = 1, 30 do safetensors.save_file({a = torch.ones(300000)}, '$TMP/same.st') end" &
p2=$!
"$BIN" -e "local bad = 0
for i = 1, 60 do
  local ok, r = pcall(safetensors.load_file, '$TMP/same.st')
  if ok then local s = r.a:sum():item() if s ~= 0 and s ~= 300000 then bad = bad + 1 end end
end
print(bad)" >"$OUT" 2>"$ERR"
wait $p1
s1=$?
wait $p2
s2=$?
check "two concurrent saves never leave a mixed or partial file, nor a temporary one" all [ "$s1" -eq 0 ] -- [ "$s2" -eq 0 ] -- \
    out_is 0 -- sh -c "[ \$(ls -a '$TMP' | grep -c attn-) -eq 0 ]"

# ---- lessons named without a path ----------------------------------------------------------------------
W=$TMP/checkout
mkdir -p "$W/lessons"
printf 'io.open("%s/hostile", "w"):close()\n' "$TMP" >"$W/lessons/01_simple_attention.lua"
cp "$W/lessons/01_simple_attention.lua" "$W/lessons/99_hostile.lua"
(cd "$W" && "$BIN" --list >"$OUT" 2>"$ERR")
STATUS=$?
check "--list (and --check, the same search) in a folder with its own lessons/ finds attn's lessons, not those" all \
    status_is 0 -- out_lacks "99_hostile" -- out_has "$REPO/lessons/01_simple_attention.lua"
(cd "$W" && "$BIN" --step 01_simple_attention </dev/null >"$OUT" 2>"$ERR")
check "--step NAME resolves to attn's own lesson, never ./lessons/NAME.lua" all test ! -e "$TMP/hostile" -- \
    out_has "Simple self-attention"
(cd "$W" && "$BIN" --check lessons/99_hostile.lua >"$OUT" 2>"$ERR")
check "a lesson given by path runs restricted, as a note: no file written" all test ! -e "$TMP/hostile" -- \
    out_has "io.open(\"$TMP/hostile\", \"w\") is not allowed in a lesson given by path (attn's own lessons are trusted)"
printf 'os.execute("touch %s/ran")\n' "$TMP" >"$W/exec.lua"
for mode in --check --step --markdown; do
    (cd "$W" && "$BIN" $mode exec.lua </dev/null >"$OUT" 2>"$ERR")
done
(cd "$W" && "$BIN" --html page.html exec.lua </dev/null >"$OUT" 2>"$ERR")
(cd "$W" && "$BIN" --ipynb book.ipynb exec.lua </dev/null >"$OUT" 2>"$ERR")
check "--check, --step, --markdown, --html, --ipynb of a lesson given by path: restricted (it ran with full powers)" \
    test ! -e "$TMP/ran"
(cd "$W" && "$BIN" --check --trusted lessons/99_hostile.lua >"$OUT" 2>"$ERR")
check "--trusted: a lesson given by path runs with the program's globals" test -e "$TMP/hostile"

tap_end
