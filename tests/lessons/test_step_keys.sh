#!/bin/sh
# test_step_keys.sh — step mode's keys on a real lesson (01) in a pseudo-terminal (tmux), reading the
# screen back: b, g, l, ?, c, r, --from, --clear, the "more" pause, the end-of-lesson counts against
# --check's, Ctrl-C, and b/g in --step=line. Output is TAP.
#   sh tests/lessons/test_step_keys.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
SOCK=attn-keys-test-$$ # a private tmux server: never touches the user's sessions
SCREEN_H=50
SCROLLBACK=2000
DIAG_LINES=25
. "$(dirname "$0")/../tmux.sh"
L01=$(pwd)/lessons/01_simple_attention.lua
key() { type_keys "$1"; } # one key, as typed (no Enter after it)
visible() { t capture-pane -p -J -t "$S" 2>/dev/null; } # the window only, no scrollback

PROMPT='^\[Enter\] next · b back · r repeat · g go to · l list · s next section · c clear · \? keys · q quit'
HEAD='^── step' # a step's rule
P2='^We compute the context vector z\^\(2\) of the second token'   # the paragraph before step 2

# The block step N shows, as the screen has it (with its colours: screen_e): from the paragraph
# before it to the last line before the key line. last_block PATTERN: the last one that begins
# with a line matching PATTERN.
last_block() {
    screen_e | awk -v first="$1" '
        { plain = $0; gsub(/\033\[[0-9;]*m/, "", plain) }
        plain ~ first { n = 0; on = 1 }
        on && plain ~ /^\[Enter\] next/ { on = 0; done = 1 }
        on { block[n++] = $0 }
        END { if (done || n) for (i = 0; i < n; i++) print block[i] }'
}
# waits for the key line to be the last line written (after a key: the lesson ran and showed a step)
settle() { sleep 0.3 && wait_for "$PROMPT" 100 >/dev/null; }

# ---- b: step 2 again, byte for byte (colours included) --------------------------------------------
start -u NO_COLOR -- --step "$L01" # with colour: the comparison covers the escape sequences too
settle
key ' '
wait_for "${HEAD} 2/15 " 100 >/dev/null && settle
last_block "$P2" >"$TMPHOME/first"
key ' '
wait_for "${HEAD} 3/15 " 100 >/dev/null && settle
key b
check "b after step 3: step 2 again" wait_count "${HEAD} 2/15 " 2 100
settle
last_block "$P2" >"$TMPHOME/again"
check "b: step 2's paragraph, code, output and check, identical to the first time (with colours)" all \
    grep -q 'attn_scores_2:.*tensor' "$TMPHOME/first" -- grep -q '✓' "$TMPHOME/first" -- cmp -s "$TMPHOME/first" "$TMPHOME/again"
check "b: one key line on the screen (the answered ones are erased)" count_is "$PROMPT" 1
key q

# ---- g: forward and back --------------------------------------------------------------------------
start NO_COLOR=1 -- --step "$L01"
settle
key ' '
wait_for "${HEAD} 2/15 " 100 >/dev/null && settle
key g
check "g asks for a step number" wait_for '^go to step \(1 to 15, Enter alone: stay here\): '
type_line 7
check "g 7 from step 2: step 7" wait_for '^── step 7/15 · torch\.softmax ─+$' 100
settle
check "g 7: steps 3 to 6 not shown" absent "${HEAD} [3-6]/15 "
check "g 7: the question is erased" absent '^go to step'
check "g 7: step 7's output" wait_for '^Attention weights: tensor\(\[0\.1385, 0\.2379, 0\.2333, 0\.1240, 0\.1082, 0\.1581\]\)$'
key g
type_line 2
check "g 2 from step 7: step 2" wait_count "${HEAD} 2/15 " 2 100
settle
check "g 2: step 2's scores again" wait_count '^attn_scores_2: tensor\(\[0\.9544, 1\.4950, 1\.4754, 0\.8434, 0\.7070, 1\.0865\]\)$' 2
heads=$(screen | grep -c "${HEAD} ")
key g
type_line 99
check "g 99: there is no such step, and it stays at step 2" \
    wait_for "^there is no step 99: this lesson's steps are 1 to 15$"
check "g 99: nothing ran" count_is "${HEAD} " "$heads"

# ---- l, ?, c ---------------------------------------------------------------------------------------
key l
check "l: the list of steps" wait_for '^the steps of this lesson \(▸ marks this one\):$'
check "l: both sections" all wait_for '^  3\.3\.1  A simple self-attention mechanism without trainable weights$' -- \
    wait_for '^  3\.3\.2  Computing attention weights for all input tokens$'
check "l: every step, 1 to 15, one line each" count_is '^  [ ▸] +([1-9]|1[0-5])  [^ ]' 15
check "l: the current step (2) marked" wait_for '^  ▸   2  attention scores ω2j = x\^\(2\) · x\^\(j\), by a loop$'
check "l: step 15's title" wait_for '^     15  row 2 of Z is z\^\(2\)$'
key '?'
check "?: the keys" all wait_for '^Keys after a step:$' -- wait_for '^  b             back one step$' -- \
    wait_for '^  c             clear the screen before each step'
key c
check "c: clearing the screen from the next step on" \
    wait_for '^from the next step on, the screen is cleared before each step$'
key ' '
sleep 0.5
check "c, then Enter: step 3's title on the window's first line" \
    eval 'visible | head -n 1 | grep -q "^── step 3/15 · the dot product by hand ─"'
key q
check "q: exit status 0" wait_for '^\[attn exited with status 0\]$'

# ---- --from, --clear ------------------------------------------------------------------------------
start NO_COLOR=1 -- --step --from 5 "$L01"
check "--from 5: step 5" wait_for '^── step 5/15 · naive normalisation α2j = ω2j / Σ ω2j ─+$' 100
settle
check "--from 5: steps 1 to 4 not shown" absent "${HEAD} [1-4]/15 "
check "--from 5: step 5's output (computed from steps 1 to 4)" \
    wait_for '^Attention weights: tensor\(\[0\.1455, 0\.2278, 0\.2249, 0\.1285, 0\.1077, 0\.1656\]\)$'
check "--from 5: the lesson's title above it" wait_for '^Simple self-attention without trainable weights$'
key b
check "b from step 5 (started with --from): step 4" wait_for "${HEAD} 4/15 " 100
key q

start NO_COLOR=1 -- --step --clear "$L01"
settle
check "--clear: step 1's title on the window's first line" \
    eval 'visible | head -n 1 | grep -q "^── step 1/15 · the inputs x^(1) … x^(6) ─"'
check "--clear: the lesson's title and paragraph below it" all \
    wait_for '^Simple self-attention without trainable weights$' -- wait_for '^Self-attention turns every input'
key ' '
sleep 0.5
check "--clear, Enter: step 2's title on the first line" \
    eval 'visible | head -n 1 | grep -q "^── step 2/15 · attention scores"'
check "--clear: step 1 is gone from the window" eval '! visible | grep -q "step 1/15"'
key q

# ---- a step taller than the window: "more" --------------------------------------------------------
SCREEN_H=12 # lesson 01's title, paragraph and step 1 take 22 lines
start NO_COLOR=1 -- --step "$L01"
MORE='^-- more -- \[Enter\] next screen · q skip the rest of this output$'
check "taller than the window: the \"more\" line" wait_for "$MORE" 100
check "more: on the window's last line, the key line not yet shown" all \
    eval 'visible | sed "/^\$/d" | tail -n 1 | grep -q -- "-- more --"' -- absent "$PROMPT"
check "more: the first screenful begins with the lesson's title (nothing scrolled away unseen)" \
    eval 'visible | head -n 1 | grep -q "^Simple self-attention without trainable weights$"'
key x
sleep 0.3
check "more: a key other than Enter, space or q does nothing" wait_for "$MORE"
key ' '
check "more, space: the rest of the step, then the key line" wait_for "$PROMPT" 50
check "more: step 1's check shown" wait_for "^  ✓ 6 tokens, 3 dimensions each"
key q
SCREEN_H=50

# ---- the counts at the end are --check's ------------------------------------------------------------
"$BIN" --check "$L01" >"$TMPHOME/check" 2>&1
CHECK_LAST=$(tail -n 1 "$TMPHOME/check")                                           # "26 passed, 0 failed"
IDENT=$(sed -n 's/^[0-9]* checks: .*, \([0-9]*\) identities$/\1/p' "$TMPHOME/check")
start NO_COLOR=1 -- --step "$L01"
settle
key ' ' && settle
key r && sleep 0.5 && settle          # step 2 again
key b && sleep 0.5 && settle          # step 1
key g && type_line 9 && sleep 0.5 && settle
key g && type_line 4 && sleep 0.5 && settle
step=4 # (not i: wait_for counts with i)
while [ "$step" -le 15 ]; do
    wait_for "${HEAD} $step/15 " 100 >/dev/null && settle
    key ' '
    step=$((step + 1))
done
check "after r, b and g back and forth, the summary's counts are --check's ($CHECK_LAST, $IDENT identities)" \
    wait_for "^══ end of lesson · checks: $CHECK_LAST \\($IDENT of them identities\\) ═+\$" 100
check "and the lesson exits 0" wait_for '^\[attn exited with status 0\]$'

# ---- Ctrl-C ----------------------------------------------------------------------------------------
start NO_COLOR=1 -- --step "$L01"
settle
key ' ' && settle
t send-keys -t "$S" C-c
check "Ctrl-C at the key line: stops, says at which step and how to start there again" \
    wait_for '^attn: interrupted at step 2 \(--from 2 starts there again\)$'
check "Ctrl-C: exit status 1" wait_for '^\[attn exited with status 1\]$'

# ---- --step=line: b and g ----------------------------------------------------------------------------
LINE_PROMPT='^\[Enter\] next line · c (continue to the )?next step · b back'
start NO_COLOR=1 -- --step=line "$L01"
wait_for '^  20 │ inputs = torch\.tensor\{$' 100 >/dev/null
enter
check "--step=line: step 2's first line" wait_for '^  42 │ query = inputs\[2\]' 100
key b
check "--step=line, b: back to step 1's first line" wait_count '^  20 │ inputs = torch\.tensor\{$' 2 100
key g
type_line 5
check "--step=line, g 5: step 5's first line" wait_for '^ *[0-9]+ │ attn_weights_2_tmp = attn_scores_2 / attn_scores_2:sum\(\)' 100
key l
check "--step=line, l: the list with step 5 marked" wait_for '^  ▸   5  naive normalisation'
key q
check "--step=line, q: exit 0" wait_for '^\[attn exited with status 0\]$'

tap_end
