#!/bin/sh
# fuzz.sh — a long run of the fuzzer (tests/lua/fuzz_spec.lua: every public function, files, notes; and
# tests/lua/fuzz_learn_spec.lua: autograd, optimizers, loaders, kernel requests) under the ASan+UBSan build: N random calls
# in slices of 20000, each slice with its own seed and under a time bound, so that a crash, a sanitizer
# report or a hang (a call that ignores the fuzzer's Ctrl-C-like deadline) stops the run and names the
# seed that reproduces it. Then the kernel's messages through its sockets, N / 5 of them (scripts/fuzz_kernel.py).
#   scripts/fuzz.sh N [FIRST_SEED]          e.g. scripts/fuzz.sh 1000000
# Reproduce a slice:  ATTN_FUZZ_ITERS=20000 ATTN_FUZZ_SEED=S build/asan/attn /usr/bin/busted tests/lua/fuzz_spec.lua \
#                         tests/lua/fuzz_learn_spec.lua
set -u
cd "$(dirname "$0")/.." || exit 2
N=${1:?usage: scripts/fuzz.sh N [FIRST_SEED]}
SEED=${2:-1}
SLICE=20000
SLICE_LIMIT=1200 # seconds: a slice takes a minute or two under ASan; far more is a hang
BIN=build/asan/attn

make -s "$BIN" || exit 2
# GPT-2's vocabulary, for the tokenizer's part of the fuzzer (tests/lua/fuzz_spec.lua skips it without)
sh scripts/fetch-gpt2-vocab.sh build/gpt2-vocab >/dev/null 2>&1
export ATTN_TIKTOKEN_DIR="${ATTN_TIKTOKEN_DIR:-$(pwd)/build/gpt2-vocab}"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
LOG=build/fuzz-logs
mkdir -p "$LOG"

done_calls=0
start=$(date +%s)
while [ "$done_calls" -lt "$N" ]; do
    n=$SLICE
    [ $((N - done_calls)) -lt "$n" ] && n=$((N - done_calls))
    log=$LOG/seed-$SEED.log
    ATTN_FUZZ_ITERS=$n ATTN_FUZZ_SEED=$SEED timeout -s KILL "$SLICE_LIMIT" \
        "$BIN" /usr/bin/busted -o TAP tests/lua/fuzz_spec.lua tests/lua/fuzz_learn_spec.lua >"$log" 2>&1
    status=$?
    if [ "$status" -ne 0 ] || ! grep -q '^ok 1 ' "$log" || grep -q '^not ok' "$log"; then
        case $status in
        137) what="a hang (killed after $SLICE_LIMIT s)" ;;
        0 | 1) what="a failed assertion or a sanitizer report" ;;
        *) what="a crash (status $status)" ;;
        esac
        echo "fuzz: seed $SEED: $what after $done_calls calls; log: $log"
        tail -n 30 "$log"
        exit 1
    fi
    done_calls=$((done_calls + n))
    # the figures each part prints ("# 20000 calls, ... errors", "# 5000 autograd calls, ...", ...)
    echo "fuzz: seed $SEED: $n calls ok ($(sed -n 's/^# \([0-9]\)/\1/p' "$log" | tr '\n' ';')) $done_calls of $N, $(($(date +%s) - start)) s"
    rm -f "$log"
    SEED=$((SEED + 1))
done
echo "fuzz: $N calls under ASan+UBSan, no crash, no hang, no sanitizer report ($(($(date +%s) - start)) s)"
# The kernel's C half (frames, signatures, JSON) through its sockets: N / 5 random messages
# (scripts/fuzz_kernel.py; needs Debian's jupyter_client and pyzmq, scripts/install-jupyter-tests.sh)
if /usr/bin/python3 -c 'import jupyter_client, zmq' 2>/dev/null; then
    /usr/bin/python3 scripts/fuzz_kernel.py "$BIN" $((N / 5)) "${2:-1}" >"$LOG/kernel.log" 2>&1 || {
        grep -v '^attn kernel: ' "$LOG/kernel.log" | tail -n 40
        exit 1
    }
    grep '^fuzz_kernel: ' "$LOG/kernel.log"
    rm -f "$LOG/kernel.log"
else
    echo "fuzz: the kernel's messages not fuzzed: jupyter_client and pyzmq are not installed"
fi
