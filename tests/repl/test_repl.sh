#!/bin/sh
# test_repl.sh — drives the real REPL in a pseudo-terminal through tmux: types keys, reads the
# screen, checks what a person would see. Output is TAP.
#   sh tests/repl/test_repl.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
SOCK=attn-test-$$ # a private tmux server: never touches the user's sessions
DIAG_LINES=15
. "$(dirname "$0")/../tmux.sh"

# ---- one session, many checks --------------------------------------------------------------------
start HOME="$TMPHOME" NO_COLOR=1

check "banner" wait_for '^attn 0\.1 .*help\(\) for a tour, \?name for one function\.$'
check "prompt" wait_for '^attn> $'

type_line '6 * 7'
check "an expression's value is printed" wait_for '^42$'

type_line 'function sq(v)'
type_line 'return v * v'
type_line 'end'
type_line 'sq(12)'
check "a multi-line function definition runs" wait_for '^144$'
check "continuation lines get the '  ..> ' prompt" wait_for '^  \.\.> return v \* v$' 1

type_line 'local lx = 5'
type_line 'lx + 1'
check "local x = 5 survives to the next line" wait_for '^6$'

type_line 'error("boom")'
check "error() shows error: boom" wait_for '^error: boom$'
type_line '100 + 1'
check "the REPL goes on after an error" wait_for '^101$'

type_line 'string.rep()'
check "a bad argument shows error: bad argument ..." wait_for "^error: bad argument #1 to 'rep'"
type_line '200 + 2'
check "the REPL goes on after a bad argument" wait_for '^202$'

# Tab completion: torch.softm<Tab> once torch has softmax, a global until then.
if "$BIN" -e 'os.exit(type(torch) == "table" and torch.softmax ~= nil and 0 or 1)' 2>/dev/null; then
    type_keys 'torch.softm'
    t send-keys -t "$S" Tab
    check "Tab completes torch.softm to torch.softmax" wait_for '^attn> torch\.softmax$' 20
    t send-keys -t "$S" C-u
else
    type_keys 'collectg'
    t send-keys -t "$S" Tab
    check "Tab completes collectg to collectgarbage" wait_for '^attn> collectgarbage$' 20
    t send-keys -t "$S" C-u
fi
type_line 'word = "abc"'
type_keys 'word:upp'
t send-keys -t "$S" Tab
check "Tab completes a method after ':'" wait_for '^attn> word:upper$' 20
type_line '()'
check "the completed line runs" wait_for '^ABC$'

type_line '300 + 3'
wait_for '^303$' >/dev/null
t send-keys -t "$S" Up
check "Up recalls the previous line" wait_for '^attn> 300 \+ 3$'
t send-keys -t "$S" Enter
check "the recalled line runs" wait_count '^303$' 2

# the Ctrl-C goes once the loop runs (it says so first): sent at a fixed time, on a loaded machine it
# could reach the prompt before the line ran (tests/robust/test_ctrl_c.sh does the same)
type_line 'print("looping") while true do end'
wait_for '^looping$' 300 >/dev/null
sleep 0.2
t send-keys -t "$S" C-c
check "Ctrl-C stops a running loop with an error" wait_for '^error: interrupted$' 300
type_line '1 + 1'
check "the REPL evaluates 1+1 after Ctrl-C" wait_for '^2$'

type_keys 'discarded = 1'
t send-keys -t "$S" C-c
type_line 'function pending()'
t send-keys -t "$S" C-c
type_line 'print(discarded, pending, "after ^C")'
check "Ctrl-C at the prompt discards the line and pending lines" wait_for '^nil +nil +after \^C$'

t send-keys -t "$S" C-d
check "Ctrl-D on an empty line quits with status 0" wait_for '^\[attn exited with status 0\]$'
prompt_before_exit() { [ "$(screen | grep -B1 '^\[attn exited' | head -n 1)" = "attn> " ]; }
check "Ctrl-D ends the prompt line with a newline" prompt_before_exit
check "~/.attn_history has the lines typed" sh -c \
    "grep -qx '300 + 3' '$TMPHOME/.attn_history' && grep -qx 'local lx = 5' '$TMPHOME/.attn_history'"
check "a multi-line chunk is saved with all its lines" grep -qx 'return v \* v' "$TMPHOME/.attn_history"

# ---- history across sessions --------------------------------------------------------------------
start HOME="$TMPHOME" NO_COLOR=1
wait_for '^attn> $' >/dev/null
t send-keys -t "$S" Up
check "history is read back at start" wait_for '^attn> print\(discarded, pending, "after \^C"\)$'
t send-keys -t "$S" C-u C-d
wait_for '^\[attn exited' >/dev/null

# ---- no usable HOME ------------------------------------------------------------------------------
start HOME=/nonexistent/attn-home NO_COLOR=1
wait_for '^attn> $' >/dev/null
type_line '7 * 7'
check "an unusable HOME does not break the REPL" wait_for '^49$'
t send-keys -t "$S" C-d
check "and it still quits cleanly" wait_for '^\[attn exited with status 0\]$'

# ---- colours -------------------------------------------------------------------------------------
esc=$(printf '\033')
no_escape() { ! has_escape "$1" "$esc"; }

start HOME="$TMPHOME" NO_COLOR=1
wait_for '^attn> $' >/dev/null
type_line 'error("plain")'
wait_for '^error: plain$' >/dev/null
check "NO_COLOR=1: no escape sequences in the prompt" no_escape 'attn>'
check "NO_COLOR=1: no escape sequences in errors" no_escape 'error: plain'

start -u NO_COLOR HOME="$TMPHOME"
wait_for '^attn> $' >/dev/null
type_line 'error("red")'
wait_for '^error: red' >/dev/null
check "without NO_COLOR the prompt is coloured" has_escape 'attn>' "$esc"
check "without NO_COLOR errors are red" has_escape 'error: red' "${esc}\\[[0-9;]*31m"

tap_end
