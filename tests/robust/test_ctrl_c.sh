#!/bin/sh
# test_ctrl_c.sh — Ctrl-C in a real terminal (tmux) stops what attn is computing and brings the prompt
# back, with the session's variables intact: a sum over 2^40 elements (an expanded view: hours of work),
# a long torch.rand, and a Tab completion that runs a user's __index that never returns; and a C
# function that cannot be stopped (a Lua pattern search that backtracks for ever): the first Ctrl-C is
# not seen, a second one within 2 s ends attn with a message, the history saved, as lua does.
# TAP output.   sh tests/robust/test_ctrl_c.sh [path/to/attn]      (default ./attn)
#
# On a loaded machine: a Ctrl-C is sent only once the code it must stop is running, which the code says
# itself (each line typed below prints a marker first, from inside the chunk, so attn's handler is in
# place; a fixed sleep instead let a Ctrl-C reach the prompt before the line ran). Every wait is bounded,
# generously: the bounds catch a Ctrl-C that is not acted on (the computations would run for hours) and
# hangs, they measure no speed.
set -u

BIN=${1:-./attn}
SOCK=attn-ctrl-c-$$ # a private tmux server: never touches the user's sessions
DIAG_LINES=15
. "$(dirname "$0")/../tmux.sh"
BOUND=300 # tenths of a second: the longest any wait below waits (30 s)

ctrl_c() { t send-keys -t "$S" C-c; }

# running MARKER NAME: the marker a typed line printed is on the screen, so NAME runs. Then a moment
# more, so that the Ctrl-C finds the computation itself under way, not the print before it.
running() {
    check "$2 runs (it printed '$1')" wait_for "^$1\$" "$BOUND"
    sleep 0.2
}

start HOME="$TMPHOME" NO_COLOR=1
check "prompt" wait_for '^attn> $' "$BOUND"
type_line 'x = torch.tensor{1.0, 2.0, 3.0}'
type_line 'local y = 42'

# ctrl_c_stops NAME CODE N: types CODE (after a marker), sends Ctrl-C once it runs; the N-th
# "error: interrupted" must appear, and the next line must still see x and y.
ctrl_c_stops() {
    type_line "print('running $3') $2"
    running "running $3" "$1"
    ctrl_c
    check "Ctrl-C stops $1: error: interrupted" wait_count '^error: interrupted$' "$3" "$BOUND"
    type_line "print(x, y, '$3')"
    check "after Ctrl-C in $1 the variables are intact" \
        wait_for "^tensor\\(\\[1\\., 2\\., 3\\.\\]\\) +42 +$3\$" "$BOUND"
}
ctrl_c_stops "torch.ones(1):expand(2^40):sum()" 'torch.ones(1):expand(2^40):sum()' 1
ctrl_c_stops "a long torch.rand" 'r = torch.rand(1e8)' 2
ctrl_c_stops "a mean over 2^40 elements" 'torch.ones(1, 1):expand(2^20, 2^20):mean(1)' 3
type_line 'print(r)'
check "the interrupted assignment left r unset" wait_for '^nil$' "$BOUND"

# the __index says it was called (on a line of its own), then never returns
type_line 'loop = setmetatable({}, {__index = function() io.stderr:write("\nin __index\n") while true do end end})'
type_keys 'loop.a.'
t send-keys -t "$S" Tab
running 'in __index' "a Tab completion that calls the user's __index"
ctrl_c
type_line 'print(x, y, "after Tab")'
check "Ctrl-C stops a Tab completion stuck in a user's __index; the line is abandoned" \
    wait_for '^tensor\(\[1\., 2\., 3\.\]\) +42 +after Tab$' "$BOUND"

t send-keys -t "$S" C-d
check "Ctrl-D quits with status 0" wait_for '^\[attn exited with status 0\]$' "$BOUND"

# string.find is C: no hook runs inside it and it polls nothing, so one Ctrl-C cannot stop it.
start HOME="$TMPHOME" NO_COLOR=1
check "prompt (second session)" wait_for '^attn> $' "$BOUND"
type_line 'x = 1'
type_line 'print("searching") string.find(string.rep("a", 60), string.rep("a*", 25) .. "b")'
running searching "the pattern search"
ctrl_c
sleep 0.5
check "one Ctrl-C does not end the pattern search (nor attn)" absent 'attn exited'
ctrl_c
check "a second Ctrl-C within 2 s ends attn with status 130, saying why" \
    wait_for '^\[attn exited with status 130\]$' "$BOUND"
check "... the message names the cause" wait_for 'second Ctrl-C: the running C function cannot be interrupted'
check "... and the history holds the line that hung" \
    grep -q 'string.find(string.rep("a", 60)' "$TMPHOME/.attn_history"

# Two Ctrl-C, the second after the first was seen, stop two computations and leave attn running.
start HOME="$TMPHOME" NO_COLOR=1
check "prompt (third session)" wait_for '^attn> $' "$BOUND"
type_line 'print("looping 1") while true do end'
running 'looping 1' "a Lua loop"
ctrl_c
check "a Ctrl-C a Lua loop sees stops it" wait_count '^error: interrupted$' 1 "$BOUND"
type_line 'print("looping 2") while true do end'
running 'looping 2' "the next Lua loop"
ctrl_c
check "a second one, after the first was seen, stops the next loop, not attn" \
    wait_count '^error: interrupted$' 2 "$BOUND"
type_line 'print("still here")'
check "attn still runs" wait_for '^still here$' "$BOUND"

# A method called with a dot: the message says so (and points at the user's line, not into attn).
type_line 'l = nn.Linear(3, 2)'
type_line 'l.forward(nil, torch.ones(2, 3))'
check "l.forward(nil, x) says forward was called with '.' instead of ':'" \
    wait_for "forward was called with '\\.' instead of ':' \\(self is nil\\): write m:forward" "$BOUND"
check "... and not attn's own file" absent 'layers\.lua'
tap_end
