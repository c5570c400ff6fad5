#!/bin/sh
# test_isa_outputs.sh ATTN — the same bits on every instruction set this CPU runs (isa.h): lessons, the book
# prints and the core's C tests (tests/isa/outputs.sh) under ATTN_ISA=portable, then under each wider set
# (avx2, avx512) this CPU has; every output byte for byte as the portable one. The C tests must also pass
# under each. TAP output.
cd "$(dirname "$0")/../.." || exit 2
. tests/tap.sh
. tests/isa/same_files.sh
attn=${1:-./attn}
dir=build/test-isa
rm -rf "$dir"
# lessons 16 and 22 too: AVX-512's kernels once changed their bits;
# not lesson 18: it prints attention.fused's distance from the staged path, which depends on the vector
# width by design (the fused pass promises 1e-5, not bits)
lessons="01 02 03 04 05 16 19 20 22"
ATTN_ISA=portable ATTN_OUTPUT_LESSONS=$lessons sh tests/isa/outputs.sh "$dir/portable" "$attn" build/release/tests
for f in "$dir"/portable/c-*.txt; do
    check "portable: $(basename "$f" .txt) passes" grep -qx 'exit 0' "$f"
done
isas=""
sh scripts/cpu-has.sh avx2 fma && isas="avx2"
sh scripts/cpu-has.sh avx2 fma avx512f avx512bw avx512dq avx512vl && isas="$isas avx512"
for isa in $isas; do
    ATTN_ISA=$isa ATTN_OUTPUT_LESSONS=$lessons sh tests/isa/outputs.sh "$dir/$isa" "$attn" build/release/tests
    same_files "$dir/portable" "$dir/$isa" "$isa"
done
[ -n "$isas" ] || echo "# this CPU runs only the portable code: nothing to compare it with"
tap_end
