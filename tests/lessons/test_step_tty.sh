#!/bin/sh
# test_step_tty.sh — a recorded `--step` session through a pseudo-terminal (tmux): single key
# presses (no Enter needed), Enter, r, s and q on lesson 01, checking what the screen shows; then
# --step=line, and colour. Output is TAP.
#   sh tests/lessons/test_step_tty.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
SOCK=attn-step-test-$$ # a private tmux server: never touches the user's sessions
SCREEN_H=60
SCROLLBACK=1000
DIAG_LINES=25
. "$(dirname "$0")/../tmux.sh"
L01=$(pwd)/lessons/01_simple_attention.lua
key() { type_keys "$1"; } # one key, as typed (no Enter after it)

PROMPT='^\[Enter\] next · b back · r repeat · g go to · l list · s next section · c clear · \? keys · q quit'

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
check "r (a single key, no Enter): step 2 again" wait_count '^── step 2/15 · ' 2
wait_count "$PROMPT" 1 >/dev/null
check "r: the scores are printed twice now" wait_count '^attn_scores_2: tensor' 2
check "r: the check passes again" wait_count '^  ✓ ω2 by the loop' 2

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
LINE_PROMPT='^\[Enter\] next line · c (continue to the )?next step · b back · '
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
