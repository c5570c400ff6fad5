#!/bin/sh
# test_ctrl_c.sh — Ctrl-C in a real terminal (tmux) stops what attn is computing and brings the prompt
# back within a second, with the session's variables intact: a sum over 2^40 elements (an expanded view:
# hours of work), a long torch.rand, and a Tab completion that runs a user's __index that never returns;
# and a C function that cannot be stopped (a Lua pattern search that backtracks for ever): the first
# Ctrl-C is not seen, a second one within 2 s ends attn with a message, the history saved, as lua does.
# TAP output.   sh tests/robust/test_ctrl_c.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
SOCK=attn-ctrl-c-$$ # a private tmux server: never touches the user's sessions
DIAG_LINES=15
. "$(dirname "$0")/../tmux.sh"

start HOME="$TMPHOME" NO_COLOR=1
check "prompt" wait_for '^attn> $'
type_line 'x = torch.tensor{1.0, 2.0, 3.0}'
type_line 'local y = 42'

# ctrl_c_stops NAME CODE N: types CODE, lets it run, sends Ctrl-C; the N-th "error: interrupted" must
# appear within a second, and the next line must still see x and y.
ctrl_c_stops() {
    type_line "$2"
    sleep 0.5
    t send-keys -t "$S" C-c
    check "Ctrl-C stops $1 within 1 s: error: interrupted" wait_count '^error: interrupted$' "$3" 10
    type_line "print(x, y, '$3')"
    check "after Ctrl-C in $1 the variables are intact" wait_for "^tensor\(\[1\., 2\., 3\.\]\) +42 +$3\$"
}
ctrl_c_stops "torch.ones(1):expand(2^40):sum()" 'torch.ones(1):expand(2^40):sum()' 1
ctrl_c_stops "a long torch.rand" 'r = torch.rand(1e8)' 2
ctrl_c_stops "a mean over 2^40 elements" 'torch.ones(1, 1):expand(2^20, 2^20):mean(1)' 3
type_line 'print(r)'
check "the interrupted assignment left r unset" wait_for '^nil$'

type_line 'loop = setmetatable({}, {__index = function() while true do end end})'
type_keys 'loop.a.'
t send-keys -t "$S" Tab
sleep 0.5
t send-keys -t "$S" C-c
type_line 'print(x, y, "after Tab")'
check "Ctrl-C stops a Tab completion stuck in a user's __index; the line is abandoned" \
    wait_for '^tensor\(\[1\., 2\., 3\.\]\) +42 +after Tab$' 10

t send-keys -t "$S" C-d
check "Ctrl-D quits with status 0" wait_for '^\[attn exited with status 0\]$'

# string.find is C: no hook runs inside it and it polls nothing, so one Ctrl-C cannot stop it.
start HOME="$TMPHOME" NO_COLOR=1
check "prompt (second session)" wait_for '^attn> $'
type_line 'x = 1'
type_line 'string.find(string.rep("a", 60), string.rep("a*", 25) .. "b")'
sleep 0.5
t send-keys -t "$S" C-c
sleep 0.5
check "one Ctrl-C does not end the pattern search (nor attn)" absent 'attn exited'
t send-keys -t "$S" C-c
check "a second Ctrl-C within 2 s ends attn with status 130, saying why" \
    wait_for '^\[attn exited with status 130\]$' 10
check "... the message names the cause" wait_for 'second Ctrl-C: the running C function cannot be interrupted'
check "... and the history holds the line that hung" \
    grep -q 'string.find(string.rep("a", 60)' "$TMPHOME/.attn_history"

# Two Ctrl-C more than 2 s apart, each seen, stop two computations and leave attn running.
start HOME="$TMPHOME" NO_COLOR=1
check "prompt (third session)" wait_for '^attn> $'
type_line 'while true do end'
sleep 0.3
t send-keys -t "$S" C-c
check "a Ctrl-C a Lua loop sees stops it" wait_count '^error: interrupted$' 1 10
type_line 'while true do end'
sleep 0.3
t send-keys -t "$S" C-c
check "a second one, after the first was seen, stops the next loop, not attn" wait_count '^error: interrupted$' 2 10
type_line 'print("still here")'
check "attn still runs" wait_for '^still here$'

# A method called with a dot: the message says so (and points at the user's line, not into attn).
type_line 'l = nn.Linear(3, 2)'
type_line 'l.forward(nil, torch.ones(2, 3))'
check "l.forward(nil, x) says forward was called with '.' instead of ':'" \
    wait_for "forward was called with '\.' instead of ':' \(self is nil\): write m:forward"
check "... and not attn's own file" absent 'layers\.lua'
tap_end
