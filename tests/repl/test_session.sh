#!/bin/sh
# test_session.sh — the REPL session the project was designed around (the manual's "The REPL": src/cli/man/attn-tour.7), typed into
# the real REPL in a pseudo-terminal through tmux, as a student reading the book would: the 6-token
# inputs over two lines, a product, softmax of `_`, a wrong product, ?attention.softmax, a tracer
# stepped twice, the book's MultiHeadAttention on a stacked batch, a heatmap, Tab completion of
# attention. names and tracer methods, an error inside a library class, help(), and Ctrl-C in the
# middle of a long staged attention. The numbers checked are the book's (ch. 3 §3.3, §3.6), as
# printed there; attn computes them. Output is TAP.
#   sh tests/repl/test_session.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
SOCK=attn-session-$$ # a private tmux server: never touches the user's sessions
SCREEN_H=50
SCROLLBACK=2000
. "$(dirname "$0")/../tmux.sh"

# the last prompt line on the screen, without its trailing spaces
last_prompt() { screen | grep -E '^attn> ' | tail -n 1 | sed 's/ *$//'; }
prompt_is() { i=0; while [ "$i" -lt 30 ]; do [ "$(last_prompt)" = "$1" ] && return 0; sleep 0.1; i=$((i + 1)); done; return 1; }

start HOME="$TMPHOME" NO_COLOR=1
check "the banner names help() and ?name" wait_for '^attn 0\.1 — Lua 5\.4 .*help\(\) for a tour, \?name for one function\.$'
wait_for '^attn> $' >/dev/null

# ---- the sketch, line by line --------------------------------------------------------------------
type_line 'inputs = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},'
check "an unfinished table continues on a '  ..>' line" wait_for '^  \.\.> $'
type_line '                      {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}}'
type_line 'query = inputs[2]            -- x^(2), "journey" (Python: inputs[1])'
type_line 'inputs:matmul(query)'
# the book's attention scores ω2 (ch. 3 §3.3.1, In [3])
check "inputs:matmul(query) prints the book's ω2" \
    wait_for '^tensor\(\[0\.9544, 1\.4950, 1\.4754, 0\.8434, 0\.7070, 1\.0865\]\)$'
type_line 'torch.softmax(_, -1)         -- _ is the last result'
check "torch.softmax(_, -1) prints the book's α2 (In [6])" \
    wait_for '^tensor\(\[0\.1385, 0\.2379, 0\.2333, 0\.1240, 0\.1082, 0\.1581\]\)$'
type_line 'inputs:matmul(torch.ones(2, 3))'
check "a wrong product: error: matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)" \
    wait_for '^error: matmul: cannot multiply \[6, 3\] by \[2, 3\] \(3 ≠ 2\)$'

type_line '?attention.softmax'
check "?attention.softmax shows its signature" wait_for '^attention\.softmax\(s \[, dim\]\)$'
check "... what it does, and an example" wait_for '^  Example: .*attention\.softmax\('

type_line 'tr = attention.trace{x = inputs, tokens = {"Your", "journey", "starts", "with", "one", "step"}}'
type_line 'tr:step()'
check "tr:step() shows stage 1, the scores, with formula and shape" \
    wait_for '^\[1/3\] scores  +ω = X·Xᵀ +shape \[6, 6\]$'
check "... row 'journey' is the book's ω2" wait_for '^  journey +0\.9544 +1\.4950 +1\.4754 +0\.8434 +0\.7070 +1\.0865$'
type_line 'tr:step()'
check "the second tr:step() shows stage 2, the weights" \
    wait_for '^\[2/3\] weights  +α = softmax\(ω, dim=-1\) +shape \[6, 6\]$'
check "... row 'journey' is the book's α2, shaded" \
    wait_for '^  journey +0\.1385░ +0\.2379█ +0\.2333█ +0\.1240░ +0\.1082 +0\.1581▒$'
type_line 'tr'
check "tr shows where the tracer is" wait_for '^attention\.trace of self-attention without weights: 2 of 3 stages shown'
check "... and the stages, the current one in brackets" wait_for '^  scores → \[weights\] → context$'

# ---- the book's MultiHeadAttention on a stacked batch (ch. 3 §3.6, In [54]) ---------------------
type_line 'torch.manual_seed(123)'
type_line 'batch = torch.stack({inputs, inputs}, 1)    -- Python: torch.stack((inputs, inputs), dim=0)'
type_line 'mha = nn.MultiHeadAttention(3, 2, 6, 0.0, 2)'
type_line 'mha'
check "printing the module shows its layers as PyTorch does" \
    wait_for '^  \(W_query\): Linear\(in_features=3, out_features=2, bias=False\)$'
type_line 'mha(batch)'
check "mha(batch) prints the book's context vectors" wait_for '^tensor\(\[\[\[0\.3190, 0\.4858\],$'
check "... all six rows of the first text" wait_for '^         \[0\.2575, 0\.4028\]\],$'
type_line 'mha(batch).shape'
check "... of shape [2, 6, 2]" wait_for '^torch\.Size\(\[2, 6, 2\]\)$'

# ---- a heatmap ---------------------------------------------------------------------------------------
type_line 'tokens = {"Your", "journey", "starts", "with", "one", "step"}'
type_line 'attention.heatmap(tr.weights, {rows = tokens, cols = tokens})'
check "attention.heatmap labels rows and columns" wait_for '^ +Your +journey +starts +with +one +step$'
check "... and shades the book's weights" wait_count '^journey +0\.1385░ +0\.2379█ +0\.2333█ +0\.1240░ +0\.1082 +0\.1581▒$' 1

# ---- Tab completion -----------------------------------------------------------------------------------
type_keys 'attention.so'
t send-keys -t "$S" Tab
check "Tab completes attention.so to attention.softmax" prompt_is 'attn> attention.softmax'
t send-keys -t "$S" C-u
type_keys 'nn.MultiHeadAttentionW'
t send-keys -t "$S" Tab
check "Tab completes nn.MultiHeadAttentionW to nn.MultiHeadAttentionWrapper" prompt_is 'attn> nn.MultiHeadAttentionWrapper'
t send-keys -t "$S" C-u
type_keys 'tr:ste'
t send-keys -t "$S" Tab
check "Tab completes a tracer's method: tr:ste to tr:step" prompt_is 'attn> tr:step'
t send-keys -t "$S" C-u
type_keys 'tr:'
t send-keys -t "$S" Tab Tab
check "Tab Tab after tr: lists back, backward, run, run_backward, save and step (in columns)" \
    wait_for 'tr:backward +tr:run_backward +tr:step'
t send-keys -t "$S" C-u

# ---- an error inside a library class points at the user's line ----------------------------------------
type_line 'nn.PositionwiseFFN(4, 8, 0.0)(inputs)'
check "an error inside a library class names the class and the layer" \
    wait_for '^error: PositionwiseFFN: Linear: expected an input whose last dim is in_features = 4, got shape \[6, 3\]$'
type_line 'for i = 1, 1 do'
type_line '  local out = attention.forward{q = inputs, k = torch.ones(6, 2), v = inputs}'
type_line 'end'
check "in a multi-line chunk it points at the user's line, not at attn's library" \
    wait_for '^error: stdin:2: attention\.forward: attention\.scores: q \[6, 3\] and k \[6, 2\]'
check "no message points into [attn]/" absent '\[attn\]/'

# ---- help() -----------------------------------------------------------------------------------------------
type_line 'help()'
check "help() shows the tour" wait_for '^Attention one stage at a time \(\?attention lists the stages\)$'
check "... which covers the lessons" wait_for '^  \$ \./attn --check +-- every lesson'

# ---- Ctrl-C in the middle of a long staged attention ------------------------------------------------------
type_line 'q = torch.rand(4, 512, 64)'
# the Ctrl-C goes once the loop runs (it says so first, as in tests/robust/test_ctrl_c.sh)
type_line 'print("attending") for i = 1, 100000 do context = attention.forward{q = q, k = q, v = q, mask = "causal"} end'
wait_for '^attending$' 300 >/dev/null
sleep 1
t send-keys -t "$S" C-c
check "Ctrl-C stops a long staged attention: error: interrupted" wait_for '^error: interrupted$' 300
check "... and the prompt comes back" prompt_is 'attn>'
type_line 'context.shape'
check "the REPL works after the Ctrl-C" wait_for '^torch\.Size\(\[4, 512, 64\]\)$'
type_line 'inputs:matmul(query)'
check "and still computes the book's numbers" wait_count '^tensor\(\[0\.9544, 1\.4950, 1\.4754, 0\.8434, 0\.7070, 1\.0865\]\)$' 2

t send-keys -t "$S" C-d
check "Ctrl-D ends the session with status 0" wait_for '^\[attn exited with status 0\]$'

tap_end
