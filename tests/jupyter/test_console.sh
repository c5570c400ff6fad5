#!/bin/sh
# test_console.sh — `jupyter console --kernel attn` (Debian's jupyter-console) in a pseudo-terminal
# through tmux: a function typed across lines (the console asks the kernel's is_complete whether Enter
# runs the cell or opens a new line), Tab completion (complete_request), ?torch.softmax (the help), and
# a clean exit that leaves no kernel behind. Output is TAP.
#   sh tests/jupyter/test_console.sh ATTN      with JUPYTER_PATH naming a kernelspec of that attn
set -u
BIN=${1:-./attn}
SOCK=attn-jconsole-$$
SCREEN_W=100
SCREEN_H=40
. "$(dirname "$0")/../tmux.sh"
if ! command -v jupyter-console >/dev/null 2>&1; then
    echo "1..0 # SKIP jupyter-console is not installed (scripts/install-jupyter-tests.sh)"
    exit 0
fi

# a session running the console instead of attn (tmux.sh's start runs $BIN)
k=$((k + 1))
S=s$k
t new-session -d -s "$S" -x "$SCREEN_W" -y "$SCREEN_H" \
    "env HOME=$TMPHOME JUPYTER_PATH=$JUPYTER_PATH /usr/bin/jupyter-console --kernel attn; echo \"[console exited with status \$?]\"; exec sleep 600"
check "the console starts with attn's banner" wait_for 'attn .* Lua 5\.4 with tensors' 150
check "its first prompt" wait_for 'In \[1\]:' 100
# The console asks is_complete inside its key handler and cannot take keys typed meanwhile
# (jupyter-console 6.4's nested event loop): each line is typed once the one before is handled.
sleep 1
type_line 'function twice(x)'
check "Enter after an open function line continues the cell (is_complete: incomplete)" wait_count '^ +\.\.\.:' 1 50
type_line 'return 2 * x'
wait_count '^ +\.\.\.:' 2 50
type_line 'end'
check "the function defined across three lines runs as one cell (is_complete: complete)" wait_for 'In \[2\]:' 100
type_line 'twice(21)'
check "calling it shows its value as the REPL prints it" wait_for 'Out\[2\]: 42' 100

sleep 0.5
type_keys 'torch.softm'
sleep 0.5
t send-keys -t "$S" Tab
check "Tab completes torch.softm to torch.softmax (complete_request)" wait_for 'In \[3\]: torch\.softmax' 50
t send-keys -t "$S" C-u
sleep 0.5
type_line '?torch.softmax'
check "?torch.softmax shows the help" wait_for 'Normalises x along dim' 100

# only the kernel this test's console started: its connection file is in this test's runtime folder
# (tests/jupyter/with_kernel.sh), not any attn --kernel on the machine (a notebook a teacher has open)
kernels=$(pgrep -f -- "^$(readlink -f "$BIN") --kernel $JUPYTER_RUNTIME_DIR/" | tr '\n' ' ')
sleep 0.5
t send-keys -t "$S" C-d
if wait_for 'really want to exit' 20; then type_line y; fi
check "Ctrl-D ends the console, which shuts the kernel down" wait_for '\[console exited with status 0\]' 150
sleep 0.5
gone() { # within 5 s
    [ -n "$kernels" ] || return 1 # the console's kernel was never seen
    i=0
    while [ "$i" -lt 50 ]; do
        alive=0
        for p in $kernels; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ "$alive" -eq 0 ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
check "no kernel left behind (the console's kernel, pid $kernels, has ended)" gone
echo "1..$n"
[ "$failed" -eq 0 ]
