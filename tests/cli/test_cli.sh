#!/bin/sh
# test_cli.sh — attn's command line: options, the arg table, exit statuses, messages. TAP output.
#   sh tests/cli/test_cli.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
. "$(dirname "$0")/../cmd.sh"

# ---- -e ------------------------------------------------------------------------------------------
run -e 'print(1 + 1)'
check "-e runs a string" all status_is 0 -- out_is 2 -- err_empty

run -e 'print(torch.tensor{{0.43,0.15,0.89},{0.55,0.87,0.66}}:matmul(torch.tensor{0.55,0.87,0.66}))'
check "-e computes the book's first scores (the first example of chapter 3)" all status_is 0 -- \
    out_is 'tensor([0.9544, 1.4950])' -- err_empty

run -e 'x = 20' -e 'y = 1' -e 'print(x * 2 + y)'
check "several -e run in order" all status_is 0 -- out_is 41

run -e'print("glued")'
check "-e with its argument glued on" all status_is 0 -- out_is glued

run -e 'print(arg[0] == arg[0], arg[1], #arg)'
check "-e without a script: arg holds the options after the interpreter, as in lua" \
    out_is "true	-e	2"

run -e 'error("bad -e")'
check "an error in -e exits 1 with the message" all status_is 1 -- err_matches '(command line):1: bad -e'

run -e 'os.exit(3)'
check "os.exit(3) exits 3" status_is 3

run -v -e 'print("after version")'
check "-v then -e prints both" all status_is 0 -- out_matches '^attn 0\.1 (Lua 5\.4' -- out_matches '^after version$'

# ---- scripts and arg -----------------------------------------------------------------------------
cat >"$TMP/args.lua" <<'EOF'
print(arg[0], arg[1], arg[2], #arg, select("#", ...), ...)
print(arg[-1], arg[-2], arg[-3])
EOF
run "$TMP/args.lua" one two
check "a script gets arg[0], arg[1..] and ..." out_matches "^$TMP/args.lua	one	two	2	2	one	two$"
check "a script without options has the interpreter at arg[-1]" out_matches "^$BIN	nil	nil$"

run -e 'z = 1' "$TMP/args.lua" a
check "interpreter options go to negative indices" out_matches "^z = 1	-e	$BIN$"

run -- "$TMP/args.lua" -e
check "-- ends the options: -e goes to the script" out_matches "^$TMP/args.lua	-e	nil	1	1	-e$"

printf 'print("from stdin", ...)\n' >"$TMP/in.lua"
IN=$TMP/in.lua
run - a b
check "- runs the script from stdin with its arguments" all status_is 0 -- out_is "from stdin	a	b"

IN=$TMP/in.lua
run
check "no arguments and stdin not a terminal: stdin runs as a script" all status_is 0 -- out_is "from stdin"

cat >"$TMP/err.lua" <<'EOF'
local function inner() error("boom") end
inner()
EOF
run "$TMP/err.lua"
check "a script error exits 1" status_is 1
check "  with the message on stderr" err_matches "^attn: $TMP/err.lua:1: boom$"
check "  and the Lua traceback" all err_matches '^stack traceback:' -- err_matches "in local 'inner'"

printf 'x = = 1\n' >"$TMP/syntax.lua"
run "$TMP/syntax.lua"
check "a syntax error in a file exits 1 naming the file" all status_is 1 -- err_matches "$TMP/syntax.lua:1: unexpected symbol near '='"

run "$TMP/no-such-file.lua"
check "a missing file exits 1 with a clear message" all status_is 1 -- \
    err_matches "cannot open $TMP/no-such-file.lua: No such file or directory"

run -e 'error(setmetatable({}, {__tostring = function() return "custom error" end}))'
check "an error object with __tostring is reported" all status_is 1 -- err_matches 'custom error'

run -e 'error()'
check "error() with nil is reported, not a crash" all status_is 1 -- err_matches 'error object is a nil value'

# ---- -l ------------------------------------------------------------------------------------------
printf 'return {answer = 42}\n' >"$TMP/mymod.lua"
LUA_PATH="$TMP/?.lua;;" run -l mymod -e 'print(mymod.answer)'
check "-l mod requires mod into global mod" all status_is 0 -- out_is 42
LUA_PATH="$TMP/?.lua;;" run -l m=mymod -e 'print(m.answer)'
check "-l g=mod requires mod into global g" all status_is 0 -- out_is 42
run -l no_such_module_here
check "-l of a missing module exits 1" all status_is 1 -- err_matches "module 'no_such_module_here' not found"

# ---- -i with piped stdin -------------------------------------------------------------------------
printf 'x + 1\nprint("printed")\n' >"$TMP/repl.in"
IN=$TMP/repl.in
run -e 'x = 41' -i
check "-i after -e: the REPL reads stdin, prints values, no prompt or banner" \
    all status_is 0 -- out_is "42
printed"

printf 'local v = 5\nv * 2\nerror("oops")\nfunction f()\n  return "multi"\nend\nf()\nnil_value.field\n' >"$TMP/repl2.in"
IN=$TMP/repl2.in
run -i
check "piped REPL: locals persist and multi-line chunks run" all status_is 0 -- out_is "10
multi"
check "piped REPL: errors go to stderr as error: ..." all err_matches '^error: oops$' -- err_matches "^error: attempt to index a nil value (global 'nil_value')$"

printf 'function g()\n' >"$TMP/repl3.in"
IN=$TMP/repl3.in
run -i
check "piped REPL: an unfinished chunk at the end is reported" all status_is 0 -- err_matches "'end' expected near <eof>"

printf '?\n' >"$TMP/repl4.in"
IN=$TMP/repl4.in
run -i
check "piped REPL: ? prints the help tour" out_matches 'help() for a tour\|?torch.softmax'

# ---- options -------------------------------------------------------------------------------------
run --help
check "--help exits 0" status_is 0
for opt in ' -e stat ' ' -i ' ' -l mod ' ' -l g=mod ' ' -v,' ' --version ' ' -h,' ' --help ' ' -W ' \
    '^  --  ' '^  -  '; do
    check "--help lists '$opt'" out_matches "$opt"
done
# --trusted says what it lifts, and for what: notes (--verify) and lessons given by path (it said --verify only)
check "--help's --trusted names --verify and the lesson modes it lifts the sandbox of" all \
    out_matches '^  --trusted  .*--verify' -- \
    out_matches 'given by path to --check, --step, --html, --markdown or --ipynb' -- \
    out_matches "attn's own lessons always are"
run --lang zh_CN --help
check "--help in Chinese: --trusted names the lesson modes too" all status_is 0 -- \
    out_matches '^  --trusted  .*--verify.*按路径交给 --check' -- out_matches '--step、--html、--markdown 或 --ipynb 的课程'
run -h
check "-h prints the same usage" all status_is 0 -- out_matches '^usage: attn \[options\] \[script \[args\]\]'

run --version
check "--version prints attn and Lua versions" all status_is 0 -- out_matches '^attn 0\.1 (Lua 5\.4\.[0-9]*)$'
run -v
check "-v prints the version" all status_is 0 -- out_matches '^attn 0\.1 (Lua 5\.4\.[0-9]*)$'

run -x
check "an unknown option exits 1 with a usage message" all status_is 1 -- \
    err_matches "unrecognized option '-x'" -- err_matches '^usage: attn'
run --bogus
check "an unknown long option exits 1" all status_is 1 -- err_matches "unrecognized option '--bogus'"
run -e
check "-e without an argument exits 1" all status_is 1 -- err_matches "'-e' needs argument"

run -W -e 'warn("careful")'
check "-W turns warnings on" err_matches 'Lua warning: careful'

# ---- Ctrl-C in a script --------------------------------------------------------------------------
# attn sets its SIGINT handler when the chunk starts, so SIGINT goes only once the script says it runs
# (its first line, printed from inside the chunk). Sent earlier it is lost: waiting instead for SIGINT's
# bit in /proc/PID/status was fooled on a loaded machine by the shell's own handler, which the child
# keeps between fork and exec; the job then ignored SIGINT and `wait` waited for ever. Both waits are
# bounded, generously (they catch hangs, they measure no speed): timeout passes our SIGINT on to the
# script and kills it after 120 s (status 137: the check below fails).
# (--foreground: without it timeout passes the SIGINT on twice, to the script and to its whole process
# group, and a script's second Ctrl-C ends it at once, as lua.c's does: status 130, now and then)
timeout --foreground -s KILL 120 "$BIN" -e 'print("running") io.stdout:flush() while true do end' >"$OUT" 2>"$ERR" &
pid=$!
i=0
while [ "$i" -lt 600 ] && ! grep -q '^running$' "$OUT"; do
    sleep 0.1
    i=$((i + 1))
done
check "a script started in the background says it runs (within 60 s)" grep -q '^running$' "$OUT"
kill -INT "$pid"
wait "$pid"
STATUS=$?
check "SIGINT stops a running script: exit 1, 'interrupted' and a traceback" all status_is 1 -- \
    err_matches 'interrupted' -- err_matches 'stack traceback'

tap_end
