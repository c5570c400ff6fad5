#!/bin/sh
# outputs.sh OUT ATTN CTESTS [WRAPPER...] — writes into the folder OUT what attn prints on the programs whose
# output must be the same on every machine and instruction set (isa.h), one file each, for a test to
# compare byte for byte (tests/isa/test_isa_outputs.sh: the instruction sets of this CPU; tests/arm64: an
# aarch64 build under qemu-user). ATTN is the attn to run, CTESTS the folder of the core's C tests built for
# it, WRAPPER what runs them (qemu-aarch64, or nothing). Every file ends with the program's exit status.
#   lesson-NN.txt   lesson NN run straight through as a script (every step's output)
#   check-NN.txt    lesson NN in --check --tap
#   book33.txt      the book prints of tests/lua/book_33_spec.lua (ch. 3.3 to 3.6; book_prints.lua runs it)
#   c-NAME.txt      the C test test_NAME (cmocka, TAP)
# Lessons: ATTN_OUTPUT_LESSONS (numbers; default 01 to 05, 19, 20: lesson 06 prints the time of a forward
# pass at GPT-2 size, never the same twice, and takes 7 minutes under qemu). C tests: ATTN_OUTPUT_CTESTS
# (default: those whose output is the machine's promise; not test_vsoftmax, which skips where a machine has
# no vector softmax, nor test_fused, which prints attention.fused's distance from the staged path).
set -u
cd "$(dirname "$0")/../.." || exit 2
out=$1 attn=$2 ctests=$3
shift 3
mkdir -p "$out"
export ATTN_LANG=en
for nn in ${ATTN_OUTPUT_LESSONS:-01 02 03 04 05 19 20}; do
    lesson=$(ls lessons/"$nn"_*.lua)
    { "$@" "$attn" "$lesson" 2>&1; echo "exit $?"; } >"$out/lesson-$nn.txt"
    { "$@" "$attn" --check --tap "$lesson" 2>&1; echo "exit $?"; } >"$out/check-$nn.txt"
done
{ "$@" "$attn" tests/isa/book_prints.lua tests/lua/book_33_spec.lua 2>&1; echo "exit $?"; } >"$out/book33.txt"
for name in ${ATTN_OUTPUT_CTESTS:-isa softmax layers rng reduce attention format}; do
    { "$@" "$ctests/test_$name" 2>&1; echo "exit $?"; } >"$out/c-$name.txt"
done
