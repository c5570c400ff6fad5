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
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
all() { # all CMD1 -- CMD2 -- ...: every command succeeds
    while [ $# -gt 0 ]; do
        cmd=""
        while [ $# -gt 0 ] && [ "$1" != "--" ]; do
            cmd="$cmd $(quote "$1")"
            shift
        done
        [ $# -gt 0 ] && shift
        eval "$cmd" || return 1
    done
}
tap_end() { # the plan line, and the exit status
    echo "1..$n"
    [ "$failed" -eq 0 ]
}
