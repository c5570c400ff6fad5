#!/bin/sh
# test_step_tty.sh — a recorded `--step` session through a pseudo-terminal (tmux): single key
# presses (no Enter needed), Enter, r, s and q on lesson 01, checking what the screen shows; then
# --step=line, and colour. Output is TAP.
#   sh tests/lessons/test_step_tty.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
if ! command -v tmux >/dev/null 2>&1; then
    echo "1..0 # SKIP tmux is not installed"
    exit 0
fi
if [ ! -x "$BIN" ]; then
    echo "1..0 # SKIP $BIN is not built"
    exit 0
fi
L01=$(pwd)/lessons/01_simple_attention.lua

SOCK=attn-step-test-$$ # a private tmux server: never touches the user's sessions
S=none
cleanup() {
    tmux -L "$SOCK" kill-server >/dev/null 2>&1
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

t() { tmux -u -L "$SOCK" "$@"; }

. "$(dirname "$0")/../tap.sh"
diagnose() { screen | sed -e '/^$/d' -e 's/^/#   /' | tail -n 25; }

# start ENV-ASSIGNMENTS... -- ARGS...: a new session running attn ARGS in a 100x60 terminal; when
# attn exits the pane prints its exit status and stays (as in tests/repl/test_repl.sh).
k=0
start() {
    k=$((k + 1))
    S=step$k
    envs=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    t new-session -d -s "$S" -x 100 -y 60 \
        "env $envs $BIN $*; echo \"[attn exited with status \$?]\"; exec sleep 600"
}
screen() { t capture-pane -p -J -t "$S" -S -1000 2>/dev/null; }
screen_e() { t capture-pane -p -e -t "$S" -S -1000 2>/dev/null; }
wait_for() { # wait_for PATTERN [TENTHS]: polls the screen until grep -E finds PATTERN (default 5 s)
    i=0
    while [ "$i" -lt "${2:-50}" ]; do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
count_is() { [ "$(screen | grep -Ec -- "$1")" -eq "$2" ]; }
absent() { ! screen | grep -Eq -- "$1"; }
key() { t send-keys -t "$S" -l "$1"; } # one key, as typed (no Enter after it)
enter() { t send-keys -t "$S" Enter; }

t new-session -d -s keep -x 20 -y 5 "exec sleep 600" # keeps the server up between sessions

PROMPT='^\[Enter\] next · r repeat · s next section · q quit'

# ---- Enter, r, s, q --------------------------------------------------------------------------------
start NO_COLOR=1 -- --step "$L01"
check "step 1 runs: header, its code echoed, its output, its check, then the prompt" \
    wait_for "$PROMPT"
check "step 1's header and echoed code" wait_for '^── step 1/15 · the inputs x\^\(1\) … x\^\(6\) ─+$'
check "step 1's code is echoed, indented" wait_for '^  inputs = torch\.tensor\{$'
check "step 1's output and check" wait_for '^inputs\.shape: torch\.Size\(\[6, 3\]\)$'
check "step 1's ✓ line" wait_for "^  ✓ 6 tokens, 3 dimensions each \\(the book's numbers\\)\$"
check "step 2 has not run yet" absent 'step 2/15'

enter
check "Enter: step 2 runs, after its paragraph" wait_for '^── step 2/15 · attention scores ω2j = x\^\(2\) · x\^\(j\), by a loop ─+$'
check "step 2: the Lua line with the book's Python beside it" \
    wait_for '^  query = inputs\[2\] +-- Python: query = inputs\[1\]$'
check "step 2: the scores" wait_for '^attn_scores_2: tensor\(\[0\.9544, 1\.4950, 1\.4754, 0\.8434, 0\.7070, 1\.0865\]\)$'
check "step 2: ✓ against the book" wait_for '^  ✓ ω2 by the loop \(In \[3\]\)$'
wait_for "$PROMPT" >/dev/null
check "an answered prompt is erased: one prompt on the screen" count_is "$PROMPT" 1

key r
check "r (a single key, no Enter): step 2 again" wait_for '^── step 2/15 · .* \(again\) ─+$'
wait_for "$PROMPT" >/dev/null
check "r: the scores are printed twice now" count_is '^attn_scores_2: tensor' 2
check "r: the check passes again" count_is '^  ✓ ω2 by the loop' 2

key s
check "s: on to section 3.3.2" wait_for '^══ 3\.3\.2  Computing attention weights for all input tokens ═+$'
check "s: its first step runs" wait_for '^── step 10/15 · all attention scores ω, by two loops ─+$'
check "s: the rest of 3.3.1 (steps 3 to 9) ran without output" absent 'step [3-9]/15'
check "s: ... nor their prose" absent 'A dot product multiplies'
wait_for "$PROMPT" >/dev/null

key q
check "q: quits with exit status 0" wait_for '^\[attn exited with status 0\]$'
check "q: step 11 never ran" absent 'step 11/15'

# ---- Enter to the end ------------------------------------------------------------------------------
start NO_COLOR=1 -- --step "$L01"
wait_for "$PROMPT" >/dev/null
i=1
while [ "$i" -le 15 ]; do
    wait_for "^── step $i/15 " >/dev/null && wait_for "$PROMPT" >/dev/null
    enter
    i=$((i + 1))
done
check "Enter through every step: the end of the lesson" \
    wait_for '^══ end of lesson · checks: 26 passed, 0 failed \(6 of them identities\) ═+$'
check "and exit status 0" wait_for '^\[attn exited with status 0\]$'
check "no check failed on the way" absent '✗'

# ---- --step=line ------------------------------------------------------------------------------------
LINE_PROMPT='^\[Enter\] next line · c continue to the next step · q quit'
start NO_COLOR=1 -- --step=line "$L01"
check "--step=line: the first line of step 1, numbered, before it runs" \
    wait_for '^  20 │ inputs = torch\.tensor\{$'
check "--step=line: with its continuation lines" wait_for '^     │ \}$'
check "--step=line: step 1's output has not appeared" absent '^inputs\.shape'
enter
check "--step=line: Enter runs the line; step 1 ends, step 2 stops at its first line" \
    wait_for '^  42 │ query = inputs\[2\]  -- Python: query = inputs\[1\]$'
check "--step=line: step 1's output came in between" wait_for '^inputs\.shape: torch\.Size\(\[6, 3\]\)$'
enter
check "--step=line: then the next line" wait_for '^  43 │ attn_scores_2 = torch\.empty'
key c
check "--step=line: c runs the rest of the step" wait_for '^attn_scores_2: tensor\(\[0\.9544'
check "--step=line: and stops at the next step's first line" wait_for '^  59 │ res = torch\.tensor\(0\.0\)'
key q
check "--step=line: q quits with exit status 0" wait_for '^\[attn exited with status 0\]$'

# ---- colour ----------------------------------------------------------------------------------------
esc=$(printf '\033')
has_escape() { screen_e | grep -E -- "$1" | grep -q -- "$2"; }
start -u NO_COLOR -- --step "$L01"
wait_for "$PROMPT" >/dev/null
check "on a terminal without NO_COLOR: ✓ is green" has_escape '6 tokens, 3 dimensions' "${esc}\\[[0-9;]*32m✓"
check "and the section header is coloured" has_escape '══ 3\.3\.1' "$esc"
key q
start NO_COLOR=1 -- --step "$L01"
wait_for "$PROMPT" >/dev/null
check "NO_COLOR=1: no escape sequences" eval "! screen_e | grep -q '$esc'"
key q

tap_end
