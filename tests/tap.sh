# tap.sh — TAP output for the shell tests (tests/*/test_*.sh), sourced with `. tests/tap.sh`.
# A test may define diagnose() after sourcing: it runs after each failure and prints "# ..." lines.
n=0
failed=0
diagnose() { :; }
ok() {
    n=$((n + 1))
    echo "ok $n - $1"
}
not_ok() {
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $1"
    diagnose
}
check() { # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
    d=$1
    shift
    if "$@"; then ok "$d"; else not_ok "$d"; fi
}
tap_end() { # the plan line, and the exit status
    echo "1..$n"
    [ "$failed" -eq 0 ]
}
