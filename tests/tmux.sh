# tmux.sh — drives the real attn in a pseudo-terminal through a private tmux server, for the shell
# tests that type keys and read the screen (tests/repl/*.sh, tests/lessons/test_step_tty.sh). Sourced
# after setting BIN (the attn to run) and SOCK (the server's name, one per test and process); it also
# sources tap.sh. It skips the whole test when tmux or BIN is missing. Optional, before sourcing:
#   SCREEN_W, SCREEN_H  the terminal of each session (default 100x40)
#   SCROLLBACK          how many lines above the screen `screen` reads back (default 300)
#   DIAG_LINES          how many screen lines a failure prints (default 20)
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
if ! command -v tmux >/dev/null 2>&1; then
    echo "1..0 # SKIP tmux is not installed"
    exit 0
fi
if [ ! -x "$BIN" ]; then
    echo "1..0 # SKIP $BIN is not built"
    exit 0
fi

S=none # the current session (see start)
TMPHOME=$(mktemp -d)

cleanup() {
    tmux -L "$SOCK" kill-server >/dev/null 2>&1
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK" # kill-server leaves the socket behind
    rm -rf "$TMPHOME"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

t() { tmux -u -L "$SOCK" "$@"; }

. "$(dirname "$0")/../tap.sh"
gave_up="" # what the last wait that gave up waited for (wait_for, wait_count), for the diagnosis
diagnose() {
    [ -n "$gave_up" ] && echo "# gave up waiting for $gave_up; the screen:"
    gave_up=""
    screen | sed -e '/^$/d' -e 's/^/#   /' | tail -n "${DIAG_LINES:-20}"
}

# start [ENV-ASSIGNMENTS...] [-- ARGS...]: a new session running `env ENV-ASSIGNMENTS... attn ARGS`.
# When attn exits, the pane prints its exit status and stays (no remain-on-exit: tmux 3.3 sometimes
# loses the status of a dead pane). Sessions are never killed one by one, so the server is never
# left empty and exiting while the next session starts.
k=0
start() {
    k=$((k + 1))
    S=s$k
    envs=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    [ $# -gt 0 ] && shift
    t new-session -d -s "$S" -x "${SCREEN_W:-100}" -y "${SCREEN_H:-40}" \
        "env$envs $BIN $*; echo \"[attn exited with status \$?]\"; exec sleep 600"
}
screen() { t capture-pane -p -J -t "$S" -S -"${SCROLLBACK:-300}" 2>/dev/null; }
screen_e() { t capture-pane -p -e -J -t "$S" -S -"${SCROLLBACK:-300}" 2>/dev/null; } # with escapes

# wait_for PATTERN [TENTHS]: polls the screen until grep -E finds PATTERN (default 5 s).
wait_for() {
    gave_up=""
    i=0
    while [ "$i" -lt "${2:-50}" ]; do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    gave_up="/$1/ (${2:-50} polls, 0.1 s apart)"
    return 1
}
# wait_count PATTERN N [TENTHS]: polls until PATTERN matches at least N lines (default 5 s).
wait_count() {
    gave_up=""
    i=0
    while [ "$i" -lt "${3:-50}" ]; do
        [ "$(screen | grep -Ec -- "$1")" -ge "$2" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    gave_up="$2 lines matching /$1/ (${3:-50} polls, 0.1 s apart; $(screen | grep -Ec -- "$1") found)"
    return 1
}
count_is() { [ "$(screen | grep -Ec -- "$1")" -eq "$2" ]; }
absent() { ! screen | grep -Eq -- "$1"; }
has_escape() { screen_e | grep -E -- "$1" | grep -q -- "$2"; } # lines matching $1 contain $2

type_keys() { t send-keys -t "$S" -l "$1"; } # literally: "end" is not the End key
enter() { t send-keys -t "$S" Enter; }
type_line() {
    type_keys "$1"
    enter
}

t new-session -d -s keep -x 20 -y 5 "exec sleep 600" # keeps the server up between sessions
