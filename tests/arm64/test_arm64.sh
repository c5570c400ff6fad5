#!/bin/sh
# test_arm64.sh — attn built for aarch64 (make build/aarch64/attn, Debian's cross compiler and arm64
# libraries: scripts/install-arm64-cross.sh) and run under qemu-user gives the native run's output byte for
# byte: lessons 01 to 05, 19 and 20 as scripts and in --check, the book prints of tests/lua/book_33_spec.lua,
# and the core's C tests (tests/isa/outputs.sh says which, and why not lesson 06). The native side runs the
# portable code (ATTN_ISA=portable), the one aarch64 runs too, so that a C test that skips a vector table
# skips it on both; tests/isa/test_isa_outputs.sh shows the portable code prints what AVX2 and AVX-512 print.
# About 2 minutes of qemu on 2 cores. TAP output.
cd "$(dirname "$0")/../.." || exit 2
. tests/tap.sh
. tests/isa/same_files.sh
dir=build/test-arm64
rm -rf "$dir"
if ! check "build/aarch64/attn and the C tests in build/aarch64/ctests were built" \
    all test -x build/aarch64/attn -- test -x build/aarch64/ctests/test_isa; then
    tap_end
    exit 1
fi
ATTN_ISA=portable sh tests/isa/outputs.sh "$dir/native" ./attn build/release/tests
sh tests/isa/outputs.sh "$dir/aarch64" build/aarch64/attn build/aarch64/ctests qemu-aarch64
same_files "$dir/native" "$dir/aarch64" "aarch64 under qemu"
tap_end
