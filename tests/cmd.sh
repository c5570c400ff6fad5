# cmd.sh — runs attn as a command for the shell tests of the command line (tests/cli/test_cli.sh,
# tests/lessons/test_lessons.sh, tests/lessons/test_book_tensors.sh): sourced after setting BIN (the
# attn to run); skips the whole test when BIN is not built, makes $TMP (removed on exit) and sources
# tap.sh. Optional, before sourcing: DIAG_LINES, how many stdout lines a failure prints (default 10).
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
if [ ! -x "$BIN" ]; then
    echo "1..0 # SKIP $BIN is not built"
    exit 0
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out
ERR=$TMP/err
. "$(dirname "$0")/../tap.sh"
diagnose() {
    echo "# status $STATUS; stdout:"
    sed 's/^/#   /' "$OUT" | head -n "${DIAG_LINES:-10}"
    echo "# stderr:"
    sed 's/^/#   /' "$ERR" | head -n 10
}

# run [ARGS...]: runs attn with stdin from $IN (default: empty), keeps status, stdout, stderr.
IN=/dev/null
run() {
    "$BIN" "$@" <"$IN" >"$OUT" 2>"$ERR"
    STATUS=$?
    IN=/dev/null
}
# What the last run did, for check and all (tap.sh). *_has and *_lacks take a fixed string; *_matches
# a regular expression, grep's basic ones (BRE, where ( ) { } + ? | stand for themselves).
status_is() { [ "$STATUS" -eq "$1" ]; }
out_is() { [ "$(cat "$OUT")" = "$1" ]; }
err_empty() { [ ! -s "$ERR" ]; }
out_has() { grep -q -F -- "$1" "$OUT"; }
out_lacks() { ! grep -q -F -- "$1" "$OUT"; }
err_has() { grep -q -F -- "$1" "$ERR"; }
out_matches() { grep -q -- "$1" "$OUT"; }
err_matches() { grep -q -- "$1" "$ERR"; }
last_line_is() { [ "$(tail -n 1 "$OUT")" = "$1" ]; }
