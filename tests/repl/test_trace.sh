#!/bin/sh
# test_trace.sh — a tracer session on the book's 6-token example (ch. 3 §3.3), typed into the real
# REPL in a pseudo-terminal through tmux: each stage appears in order, with token labels, the book's
# numbers (computed by attn, compared with the text the book prints), shading without colour and
# 256-colour cells with colour. Output is TAP.
#   sh tests/repl/test_trace.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
SOCK=attn-trace-$$ # a private tmux server: never touches the user's sessions
SCREEN_W=110
SCREEN_H=50
SCROLLBACK=500
. "$(dirname "$0")/../tmux.sh"

# in_order P1 P2 ...: each pattern's first match comes after the previous one's
in_order() {
    last=0
    for p in "$@"; do
        at=$(screen | grep -nE -- "$p" | head -n 1 | cut -d: -f1)
        [ -n "$at" ] && [ "$at" -gt "$last" ] || return 1
        last=$at
    done
}

INPUTS='inputs = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64}, {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}'
TRACE='tr = attention.trace{x = inputs, tokens = {"Your", "journey", "starts", "with", "one", "step"}}'

# ---- without colour ------------------------------------------------------------------------------
start HOME="$TMPHOME" NO_COLOR=1
wait_for '^attn> $' >/dev/null
type_line "$INPUTS"
type_line "$TRACE"
type_line 'tr'
check "printing tr at the prompt shows a summary" \
    wait_for '^attention\.trace of self-attention without weights: 0 of 3 stages shown, next: tr:step\(\)$'

type_line 'tr:step()'
check "step 1 shows the scores with its formula and shape" wait_for '^\[1/3\] scores +ω = X·Xᵀ +shape \[6, 6\]$'
check "the scores have the tokens as column labels" wait_for '^ +Your +journey +starts +with +one +step$'
# the book's attn_scores (In [10]), row by row, with the token of each row in front
check "row 'journey' of the scores is the book's" \
    wait_for '^  journey +0\.9544 +1\.4950 +1\.4754 +0\.8434 +0\.7070 +1\.0865$'
check "row 'step' of the scores is the book's" \
    wait_for '^  step +0\.6310 +1\.0865 +1\.0605 +0\.6565 +0\.2935 +0\.9450$'

type_line 'tr:step()'
check "step 2 shows the weights" wait_for '^\[2/3\] weights +α = softmax\(ω, dim=-1\) +shape \[6, 6\]$'
# the book's attn_weights (In [11]), each value followed by its shade (colour is off)
check "row 'journey' of the weights is the book's, with shading" \
    wait_for '^  journey +0\.1385░ +0\.2379█ +0\.2333█ +0\.1240░ +0\.1082 +0\.1581▒$'

type_line 'tr:step()'
check "step 3 shows the context vectors" wait_for '^\[3/3\] context +Z = α·X +shape \[6, 3\]$'
check "row 'journey' of the context is the book's z(2) (In [13])" wait_for '^  journey +0\.4419 +0\.6515 +0\.5683$'
check "the stages appear in order: scores, weights, context" \
    in_order '^\[1/3\] scores' '^\[2/3\] weights' '^\[3/3\] context'

type_line 'tr:step()'
check "a step past the end says so" wait_for '^\(all 3 stages shown: tr\.context holds the result'
type_line 'tr:back()'
check "back() shows the weights again" wait_count '^\[2/3\] weights' 2
type_line 'tr.weights[2]'
check "tr.weights holds the weights (In [11], row 2)" \
    wait_for '^tensor\(\[0\.1385, 0\.2379, 0\.2333, 0\.1240, 0\.1082, 0\.1581\]\)$'
check "NO_COLOR=1: no escape sequences in the trace" sh -c "! tmux -L '$SOCK' capture-pane -p -e -t '$S' -S -500 | grep -q '$(printf '\033')\\[48'"
check "no error was shown" sh -c "! tmux -L '$SOCK' capture-pane -p -t '$S' -S -500 | grep -q '^error'"
t send-keys -t "$S" C-d
check "the session ends cleanly" wait_for '^\[attn exited with status 0\]$'

# ---- with colour ---------------------------------------------------------------------------------
start -u NO_COLOR HOME="$TMPHOME"
wait_for '^attn> $' >/dev/null
type_line "$INPUTS"
type_line "$TRACE"
type_line 'tr:run()'
wait_for '^\[3/3\] context' >/dev/null
esc=$(printf '\033')
# (tmux re-encodes the cell's "48;5;N;97m" as separate background and foreground sequences)
colour_cell() { screen_e | grep -q -- "${esc}\\[48;5;[0-9]*m  0\\.2379 "; }
check "with colour, the weights are 256-colour cells with the value inside" colour_cell
check "with colour, the stages still come in order" in_order '^\[1/3\] scores' '^\[2/3\] weights' '^\[3/3\] context'
t send-keys -t "$S" C-d
wait_for '^\[attn exited' >/dev/null

tap_end
