#!/bin/sh
# test_node.sh — the WebAssembly build against the native one: attn's command line compiled with emcc
# (build/wasm/attn.js, run by node) must print, byte for byte, what ./attn prints (stdout, stderr and the
# exit status), for every lesson in check mode, for the chapter-3 lessons run straight through (the book's
# prints) and for products of every tile shape. A diff, not a tolerance: the same kernels in the same order
# give the same bits. TAP output.
#   sh tests/web/test_node.sh ./attn build/wasm/attn.js
set -u
NATIVE=${1:-./attn}
WASM=${2:-build/wasm/attn.js}
. "$(dirname "$0")/../tap.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# same NAME ARGS...: ./attn ARGS and node attn.js ARGS print the same bytes and end with the same status.
same() {
    name=$1
    shift
    # the two side by side (the machine's two cores): the suite's time is the wasm runs'
    (NO_COLOR=1 "$NATIVE" "$@" >"$TMP/native.out" 2>"$TMP/native.err" </dev/null
     echo "status $?" >>"$TMP/native.err") &
    NO_COLOR=1 node "$WASM" "$@" >"$TMP/wasm.out" 2>"$TMP/wasm.err" </dev/null
    echo "status $?" >>"$TMP/wasm.err"
    wait
    # a lesson's timings ("nn.MultiHeadAttention (fused):    0.623 s") differ from run to run anywhere
    cat "$TMP/native.out" "$TMP/native.err" | sed -E 's/[0-9]+\.[0-9]+ s$/(seconds) s/' >"$TMP/native"
    cat "$TMP/wasm.out" "$TMP/wasm.err" | sed -E 's/[0-9]+\.[0-9]+ s$/(seconds) s/' >"$TMP/wasm"
    if cmp -s "$TMP/native" "$TMP/wasm"; then
        ok "$name: byte-identical"
        return
    fi
    lines=$(diff "$TMP/native" "$TMP/wasm" | grep -c '^>')
    not_ok "$name: $lines lines differ from ./attn's"
    diff "$TMP/native" "$TMP/wasm" | head -n 20 | sed 's/^/#   /'
}

# Every lesson. 15 and 23 read files attn does not ship (lesson.needs): the wasm build looks for them where
# ./attn does (src/lua/places.lua, through src/web/node_env.js's /proc/self/exe), and runs them as attn's own
# lessons, trusted (src/cli/lessons.c: build/wasm/attn.js's ../../lessons), as ./attn does. 21 evaluates
# GPT-2 small some ten times: about a minute and a half under node with WebAssembly's SIMD kernels.
for f in lessons/*.lua; do
    same "$(basename "$f" .lua) --check" --check "$f"
done
for f in lessons/0[1-6]_*.lua; do # the chapter-3 lessons, as the book prints them
    same "$(basename "$f" .lua) straight through" "$f"
done
# the products' bits: WebAssembly's SIMD kernels (src/core/wasm) and the portable C, against the CPU's fma
same "gemm_bits.lua: products of every tile shape" tests/web/gemm_bits.lua
ATTN_ISA=portable same "gemm_bits.lua: products of every tile shape, portable C" tests/web/gemm_bits.lua
# glibc's erff and tanhf on the scalar paths (src/web/web.mk compiles them from Debian's glibc source)
same "libm_bits.lua: glibc's erff, tanhf, expf" tests/web/libm_bits.lua
# the command line's own words, in both languages
same "--help" --help
ATTN_LANG=zh_CN same "--help in Chinese" --help
same "an error names the user's line" -e 'local x = torch.zeros(2)
return x + "a"'
echo "1..$n"
