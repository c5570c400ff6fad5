#!/bin/sh
# test_lua.sh — the Lua tests (tests/lua, busted) inside the WebAssembly build under node, against the same
# spec files inside ./attn: each spec file's TAP output must be byte-identical. busted's three C modules
# cannot load in wasm; tests/web/busted_shims.lua stands in for what busted uses of them. Spec files that
# start processes (io.popen, os.execute: none in a browser) are skipped, saying so. TAP output, one line per
# spec file.
#   sh tests/web/test_lua.sh ./attn build/wasm/attn.js
set -u
NATIVE=${1:-./attn}
WASM=${2:-build/wasm/attn.js}
. "$(dirname "$0")/../tap.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for f in tests/lua/*_spec.lua; do
    name=$(basename "$f" .lua)
    if grep -q 'io\.popen\|os\.execute' "$f"; then
        ok "$name # SKIP it starts processes (io.popen, os.execute), which a browser has not"
        continue
    fi
    if [ "$name" = fuzz_spec ]; then # bind.testing.call_within's deadline is SIGALRM's (src/bind/deadline.c)
        ok "$name # SKIP its per-call deadlines need SIGALRM, which WebAssembly has not, and its counts depend on time"
        continue
    fi
    # the two side by side (the machine's two cores): the suite's time is the wasm run's. Tests tagged
    # #host_memory are left out of both: they size a tensor from the host's free memory (/proc/meminfo),
    # while a WebAssembly attn has at most its 4 GB memory and says so ("more than this machine can hold").
    NO_COLOR=1 "$NATIVE" /usr/bin/busted -o TAP --exclude-tags=host_memory "$f" >"$TMP/native" 2>&1 </dev/null &
    NO_COLOR=1 node "$WASM" -e 'dofile("tests/web/busted_shims.lua")' /usr/bin/busted -o TAP \
        --exclude-tags=host_memory "$f" >"$TMP/wasm" 2>&1 </dev/null
    wait
    if cmp -s "$TMP/native" "$TMP/wasm"; then
        ok "$name: byte-identical ($(grep -c '^ok ' "$TMP/wasm") results)"
        continue
    fi
    lines=$(diff "$TMP/native" "$TMP/wasm" | grep -c '^>')
    failing=$(grep -c '^not ok ' "$TMP/wasm")
    not_ok "$name: $lines lines differ from ./attn's, $failing tests fail in wasm"
    diff "$TMP/native" "$TMP/wasm" | head -n 20 | sed 's/^/#   /'
done
echo "1..$n"
