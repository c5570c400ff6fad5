#!/bin/sh
# test_lessons.sh — the lesson modes of the command line: --check (failures, the summary line, the
# exit status, errors inside a lesson, a fresh state per lesson), --check --tap, --list, --step and
# --step=line with keys from a pipe (a real terminal: test_step_tty.sh). TAP output.
#   sh tests/lessons/test_lessons.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
DIAG_LINES=20
. "$(dirname "$0")/../cmd.sh"
FIX=tests/lessons/fixtures
L01=lessons/01_simple_attention.lua
keys() { # keys TEXT: the next run reads TEXT (printf escapes) as its keys
    printf "$1" >"$TMP/keys"
    IN=$TMP/keys
}

# ---- --check -------------------------------------------------------------------------------------
run --check "$L01"
check "--check on lesson 01: only the summary (identities apart, then N passed, N failed), exit 0" all \
    status_is 0 -- out_is "$(printf '26 checks: 20 against the book or PyTorch, 6 identities\n26 passed, 0 failed')" -- \
    err_empty

run --check "$FIX/begins_own_run.lua"
check "--check: a lesson that calls lesson.begin cannot hide its failures (they count, exit 1)" all \
    status_is 1 -- out_has "✗ wrong on purpose" -- out_has "lesson.begin, which only the runner may call" -- \
    last_line_is "0 passed, 2 failed"

run --check "$FIX/failing.lua"
check "--check: a failing check gives exit 1, its ✗ line and the summary" all status_is 1 -- \
    out_has "✗ failing: wrong on purpose" -- last_line_is "1 passed, 1 failed" -- out_lacks "right"
check "--check: expected, got and the largest difference with its index" all \
    out_has "    expected  tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7071, 1.0865])" -- \
    out_has "    got       tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])" -- \
    out_has "    largest difference 1.0e-04 at [5]"
check "--check prints no colour" all out_lacks "$(printf '\033')"

run --check "$FIX/error.lua" "$FIX/failing.lua"
check "--check: an error is a failure naming the lesson and the line; the next lesson still runs" all \
    status_is 1 -- \
    out_has "✗ error: error at line 6: matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)" -- \
    out_has "✗ failing: wrong on purpose" -- last_line_is "2 passed, 2 failed"

run --check --trusted "$FIX/exits.lua" "$FIX/leak_a.lua"
check "--check: a lesson calling os.exit(0) fails at that line; the next lesson still runs; exit 1" all \
    status_is 1 -- out_has "✗ exits: error at line 7: os.exit(0): a lesson cannot end the program" -- \
    out_has "✗ exits: wrong on purpose" -- last_line_is "1 passed, 2 failed"
run --check --tap "$FIX/early.lua" "$FIX/leak_a.lua"
check "--check --tap: a lesson that returns before its last step fails; the next lesson still runs" all \
    status_is 1 -- out_has "not ok 2 - early: error: the lesson ended after step 1 of its 2 steps" -- \
    out_has "ok 3 - leak_a: set a global" -- last_line_is "# 2 passed, 1 failed"

run --check "$FIX/leak_a.lua" "$FIX/leak_b.lua"
check "--check runs each lesson in a fresh state (no globals leak)" all status_is 0 -- \
    out_is "2 passed, 0 failed"

run --check "$FIX/identities.lua"
check "--check: identities (lesson.agree) count as checks, a failed one with its ≡, a and b" all \
    status_is 1 -- out_has "✗ identities: ≡ wrong on purpose" -- \
    out_has "    a         tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])" -- \
    out_has "    b         tensor([0.9554, 1.4960, 1.4764, 0.8444, 0.7080, 1.0875])" -- \
    out_has "    largest difference 1.0e-03 at [2], tolerance 1e-06" -- out_lacks "matmul = the loop" -- \
    out_has "4 checks: 1 against the book or PyTorch, 3 identities" -- last_line_is "3 passed, 1 failed"

run --check "$FIX/refused.lua"
check "--check: lesson.check refuses a tensor attn computed as its expected side, naming lesson.agree" all \
    status_is 1 -- out_has "✗ refused: error at line 5: lesson.check: the expected side is a tensor attn computed" -- \
    out_has "compare two computations with lesson.agree(what, a, b [, {tol = ...}])" -- \
    last_line_is "0 passed, 1 failed"

run "$FIX/identities.lua"
check "an identity prints ≡, what, and the largest difference (or exact) with the tolerance" all \
    out_has "  ✓ ω2 (the book's In [3])" -- \
    out_has "  ≡ matmul = the loop (exact)" -- \
    out_has "  ≡ row 2 of X·Xᵀ is ω2 (largest difference 1.19e-07, tolerance 2e-07)" -- out_has "  ✗ wrong on purpose"

run --check "$FIX/skipping.lua" "$L01"
check "--check: lesson.skip counts the lesson as skipped, not failed; the checks before it count; exit 0" all \
    status_is 0 -- out_has "skipped 1: $FIX/skipping.lua: The files are not here." -- \
    last_line_is "27 passed, 0 failed, 1 skipped" -- out_lacks "never reached"

run --check --tap "$FIX/skipping.lua" "$L01"
check "--check --tap: a skipped lesson is a TAP skip, numbered after the checks before it" all \
    status_is 0 -- out_has "ok 2 - $FIX/skipping.lua # SKIP The files are not here." -- out_has "1..28" -- \
    out_matches "^ok 3 - 01_simple_attention"

run "$FIX/skipping.lua"
check "a skipping lesson run straight through prints why and exits 0" all status_is 0 -- \
    out_has "Put them in /somewhere." -- out_lacks "never reached"

# lesson.needs (src/lua/lesson/needs.lua): lesson 23 needs GPT-2's vocabulary and Qwen3's tokenizer.json, which
# make run and make test fetch into build/ beside attn, where attn finds them with no variable set (and a
# HOME of nothing); only the real Qwen3-0.6B, which no registry ships, is skipped, saying where attn looked
# (an empty variable counts as unset: src/lua/places.lua)
run_home() { env HOME="$TMP" ATTN_TIKTOKEN_DIR= ATTN_HF_TOKENIZERS_DIR= ATTN_QWEN3_DIR= ATTN_GPT2_DIR= "$BIN" "$@" \
    </dev/null >"$OUT" 2>"$ERR"; STATUS=$?; }
run_home --check lessons/23_gpt2_to_qwen3.lua
check "--check lesson 23 after make test's fetch: runs on the files in build/, skips only Qwen3-0.6B's weights" all \
    status_is 0 -- \
    out_has "skipped 1: lessons/23_gpt2_to_qwen3.lua: This lesson needs Qwen3-0.6B's weights, which attn did not find." \
    -- last_line_is "31 passed, 0 failed, 1 skipped"
run_home lessons/15_real_model.lua
check "lesson 15 without GPT-2 small: where attn looked and how to get the files, no step of plumbing" all \
    status_is 0 -- out_has "    $TMP/.cache/attn/gpt2" -- out_has "    $TMP/.cache/huggingface/hub/models--gpt2" -- \
    out_has "curl -LO https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors" -- \
    out_lacks "pcall" -- out_lacks "os.getenv"

run --check "$TMP/no_such_lesson.lua"
check "--check: a missing lesson is a failure" all status_is 1 -- out_has "no_such_lesson" -- \
    last_line_is "0 passed, 1 failed"

run --check
check "--check without files checks every lesson in ./lessons" all status_is 0 -- \
    out_has " passed, 0 failed"

# ---- --check --tap -------------------------------------------------------------------------------
run --check --tap "$FIX/failing.lua" "$FIX/leak_a.lua"
check "--check --tap: numbered across lessons, a plan, exit 1 on a failure" all status_is 1 -- \
    out_has "ok 1 - failing: right" -- out_has "not ok 2 - failing: wrong on purpose" -- \
    out_has "#   largest difference 1.0e-04 at [5]" -- out_has "ok 3 - leak_a: set a global" -- \
    out_has "1..3"

run --tap --check "$L01"
check "--tap --check (either order) on lesson 01" all status_is 0 -- out_has "1..26" -- \
    out_has "ok 6 - 01_simple_attention: ≡ matmul gives the loop's scores (to the last bit, or one rounding apart)" -- \
    out_has "# 26 checks: 20 against the book or PyTorch, 6 identities" -- last_line_is "# 26 passed, 0 failed" -- \
    out_lacks "not ok"

run --tap "$L01"
check "--tap without --check is an error" all status_is 1 -- err_has "--tap goes with --check"

run --check --step "$L01"
check "two lesson modes at once are an error" all status_is 1 -- \
    err_has "'--step' cannot go with '--check': one lesson mode at a time"

# ---- --list --------------------------------------------------------------------------------------
run --list
# the titles line up after the longest file name, so the spaces after lesson 01's depend on the others
check "--list shows lesson 01 with its title, and its source below the title" all status_is 0 -- \
    out_matches "lessons/01_simple_attention\.lua \{2,\}Simple self-attention without trainable weights\$" -- \
    out_matches "^ \{30,\}Build a Large Language Model (From Scratch), ch\. 3 §3\.3\.1–3\.3\.2\$"

run --list "$FIX/failing.lua" "$FIX/leak_b.lua"
check "--list FILES: their titles" all status_is 0 -- \
    out_has "$FIX/failing.lua  A failing fixture" -- out_has "                                tests" -- \
    out_has "$FIX/leak_b.lua   Sees no global of another lesson"

run --list "$FIX" "$FIX/no_such_lesson.lua"
check "--list of a directory or a missing file: says it cannot read it, no Lua traceback" all status_is 0 -- \
    out_has "(cannot read: $FIX: Is a directory)" -- \
    out_has "(cannot read: $FIX/no_such_lesson.lua: No such file or directory)" -- err_empty

(cd "$TMP" && "$BIN" --list >"$OUT" 2>"$ERR")
STATUS=$?
# ./attn has lessons/ beside it, build/asan/attn finds them two folders up (src/cli/lessons.c)
check "--list elsewhere finds the lessons next to the executable" all status_is 0 -- \
    out_matches "/lessons/01_simple_attention\.lua \{2,\}Simple self-attention"

run --help
check "--help mentions the lesson modes" all status_is 0 -- out_has "--step LESSON" -- \
    out_has "--step=line" -- out_has "--check [LESSON...]" -- out_has "--list" -- out_has "--tap"

# ---- running a lesson ----------------------------------------------------------------------------
run "$L01"
check "a lesson runs straight through as a script" all status_is 0 -- out_lacks "✗" -- \
    out_has "── step 15/15 · row 2 of Z is z^(2) ─" -- out_lacks "[Enter]" -- err_empty

run "$FIX/error.lua"
check "an error in a lesson run as a script: the message, a traceback, exit 1" all status_is 1 -- \
    err_has "error.lua:6: matmul: cannot multiply [6, 3] by [2, 3]" -- err_has "stack traceback"

keys '\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n'
run --step "$L01"
check "--step: Enter through all 15 steps, then the end of the lesson" all status_is 0 -- \
    out_has "── step 15/15 · row 2 of Z is z^(2) ─" -- \
    out_has "══ end of lesson · checks: 26 passed, 0 failed (6 of them identities) ═" -- \
    out_has "[Enter] next · b back · r repeat · g go to · l list · s next section · c clear · ? keys · q quit"
check "--step: one prompt per step" [ "$(grep -c -F '[Enter] next' "$OUT")" -eq 15 ]

keys 'q\n'
run --step "$L01"
check "--step: q quits after the first step, exit 0" all status_is 0 -- \
    out_has "── step 1/15 ·" -- out_lacks "step 2/15" -- out_lacks "end of lesson"

keys 'r\nq\n'
run --step 01_simple_attention
check "--step NAME finds the lesson; r shows the step again" all status_is 0 -- \
    eval '[ "$(grep -c -F "── step 1/15 · the inputs x^(1) … x^(6) ─" "$OUT")" -eq 2 ]'

keys 'b\nq\n'
run --step "$L01"
check "--step: b on step 1 says there is no step before it and stays (the step is not shown again)" \
    all status_is 0 -- out_has "this is the first step: there is none before it" -- \
    eval '[ "$(grep -c -F "── step 1/15 ·" "$OUT")" -eq 1 ]'

keys 's\n'
run --step "$L01"
check "--step: s skips the rest of the section, quietly, to 3.3.2" all status_is 0 -- \
    out_lacks "step 2/15" -- out_lacks "step 9/15" -- out_has "══ 3.3.2  Computing attention weights" -- \
    out_has "── step 10/15 · all attention scores ω, by two loops ─"

run --step
check "--step without a lesson is an error" all status_is 1 -- err_has "--step needs a lesson file"

# ---- --step=line ---------------------------------------------------------------------------------
keys '\n\n\n\n\n\n'
run --step=line "$FIX/failing.lua"
check "--step=line stops at each line of the lesson's code, showing it with its number" all \
    status_is 0 -- out_has "   5 │ inputs = torch.tensor{{0.43, 0.15, 0.89}," -- \
    out_has "     │                       {0.22, 0.58, 0.33}," -- \
    out_has "   7 │ scores = inputs:matmul(inputs[2])" -- \
    out_has "[Enter] next line · c continue to the next step · b back · r repeat · g go to · l list · ? keys · q quit"
check "--step=line: two stops in this lesson" [ "$(grep -c -F '[Enter] next line' "$OUT")" -eq 2 ]

keys 'c\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\n'
run --step=line "$L01"
check "--step=line: c runs on to the next step; lesson 01 to its end" all status_is 0 -- \
    out_has "end of lesson · checks: 26 passed, 0 failed (6 of them identities)" -- \
    out_has "│ query = inputs[2]  "
check "--step=line never shows a check's expected text (the book's numbers), nor an identity's call" all \
    out_lacks "lesson.check" -- out_lacks "[=[" -- out_lacks "lesson.agree"

keys 'q\n'
run --step=line "$L01"
check "--step=line: q quits at the first line" all status_is 0 -- \
    out_has "  20 │ inputs = torch.tensor{" -- out_lacks "inputs.shape:"

# ---- step mode's keys through a pipe (each key on a line; after g, the number on the next one) -------
# (through a terminal, with the screen read back: tests/lessons/test_step_keys.sh)
# The block a step shows: from the paragraph before it to its key line. block N FILE: the Nth one that
# begins with the line $2 in $OUT.
block() { awk -v want="$1" -v first="$2" '
    $0 == first { n++; on = (n == want) }
    on && /^\[Enter\] next/ { exit }
    on { print }' "$OUT"; }
P2="We compute the context vector z^(2) of the second token, \"journey\", so x^(2) is the query."
keys '\n\nb\nq\n'
run --step "$L01"
block 1 "$P2" >"$TMP/first"
block 2 "$P2" >"$TMP/again"
check "--step: b after step 3 shows step 2 again, byte for byte what it showed the first time" all \
    status_is 0 -- grep -q "^attn_scores_2: tensor" "$TMP/first" -- cmp -s "$TMP/first" "$TMP/again" -- \
    eval '[ "$(grep -c "^── step 2/15 " "$OUT")" -eq 2 ]'

keys '\ng\n7\ng\n2\ng\n16\ng\nx\ng\n\nq\n'
run --step "$L01"
check "--step: g 7 from step 2 shows step 7 (3 to 6 unseen), g 2 from step 7 shows step 2" all \
    status_is 0 -- out_matches "^── step 7/15 · torch\.softmax ──*$" -- out_lacks "step 3/15" -- \
    out_lacks "step 6/15" -- eval '[ "$(grep -c "^── step 2/15 " "$OUT")" -eq 2 ]'
check "--step: g to a step that is not there (16, x) says so and stays; Enter alone stays" all \
    out_has "there is no step 16: this lesson's steps are 1 to 15" -- \
    out_has "there is no step x: this lesson's steps are 1 to 15" -- \
    eval '[ "$(grep -c "^── step " "$OUT")" -eq 4 ]'

keys '\nl\n?\nq\n'
run --step "$L01"
check "--step: l lists the 15 steps under their sections, the current one marked" all status_is 0 -- \
    out_has "the steps of this lesson (▸ marks this one):" -- \
    out_has "  3.3.1  A simple self-attention mechanism without trainable weights" -- \
    out_has "      1  the inputs x^(1) … x^(6)" -- \
    out_has "  ▸   2  attention scores ω2j = x^(2) · x^(j), by a loop" -- \
    out_has "     15  row 2 of Z is z^(2)" -- \
    eval '[ "$(grep -c -E "^  [ ▸] +[0-9]+  " "$OUT")" -eq 15 ]'
check "--step: ? shows the keys" all out_has "Keys after a step:" -- \
    out_has "  g             go to a step: type its number, then Enter"

keys 'q\n'
run --step --from 5 "$L01"
check "--step --from 5: the lesson's title, then step 5; steps 1 to 4 unseen" all status_is 0 -- \
    out_has "Simple self-attention without trainable weights" -- \
    out_matches "^── step 5/15 · naive normalisation" -- out_lacks "step 4/15" -- out_lacks "inputs.shape"
keys 'q\n'
run --step --from=15 "$L01"
check "--from=15 (one word) starts at the last step" all status_is 0 -- out_matches "^── step 15/15 "

run --step --from 16 "$L01"
check "--from beyond the last step: an error naming the number of steps, exit 1" all status_is 1 -- \
    err_has "--from 16: $L01 has 15 steps" -- out_lacks "step 1/15"
run --step --from x "$L01"
check "--from without a step number: an error" all status_is 1 -- \
    err_has "--from needs a step number (1, 2, ...), got 'x'"
run --check --from 2 "$L01"
check "--from and --clear go with --step only" all status_is 1 -- err_has "--from goes with --step or --step=line"
run --clear "$L01"
check "--clear without --step: an error" all status_is 1 -- err_has "--clear goes with --step or --step=line"

# The summary of a session that went back and forth counts what --check counts (run just above).
run --check "$L01"
CHECK_COUNTS=$(sed -n 's/^\([0-9]*\) checks: .*, \([0-9]*\) identities$/\1 \2/p' "$OUT")
CHECK_LAST=$(tail -n 1 "$OUT")
keys '\n\nr\nb\n\n\ng\n9\ng\n4\ns\n\n\n\n\n\n\n\n'
run --step "$L01"
SUMMARY=$(sed -n 's/^══ end of lesson · checks: \([0-9]* passed, [0-9]* failed\) (\([0-9]*\) of them identities) ═*$/\1 \2/p' "$OUT")
check "--step: after r, b, g and s, the summary's counts are --check's ($CHECK_LAST, ${CHECK_COUNTS#* } identities)" \
    all status_is 0 -- [ -n "$SUMMARY" ] -- [ "$SUMMARY" = "$CHECK_LAST ${CHECK_COUNTS#* }" ]

keys '\n\nb\ng\n5\nq\n'
run --step=line "$L01"
check "--step=line: b goes back to the step before, g 5 to step 5's first line" all status_is 0 -- \
    eval '[ "$(grep -c "^  20 │ inputs = torch.tensor{" "$OUT")" -eq 2 ]' -- \
    out_matches "^ *[0-9][0-9]* │ attn_weights_2_tmp = attn_scores_2 / attn_scores_2:sum()"

tap_end
