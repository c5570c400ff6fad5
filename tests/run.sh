#!/bin/sh
# Runs every test suite of attn and prints "N passed, N failed" as its last line.
# Called by `make test` after the build (./attn, build/asan/attn, the C test binaries).
#
# Every suite speaks TAP ("ok N - ...", "not ok N - ..."); this script counts those lines. A suite
# that dies, reports fewer results than its plan ("1..N") promised, or says nothing at all (no result,
# no plan: it ended before its first test) counts as failed too. Only results at the start of a line
# count: node's test runner (tests/browser) indents the results of subtests, which our tests do not have.
#   c/        C tests of the core (cmocka), release and ASan+UBSan builds
#   lua/      Lua tests of the API (busted, run inside attn), release and ASan+UBSan builds
#   cli/      the command line; repl/ real terminal sessions driven through tmux (the REPL, a trace)
#   robust/   what a hostile user types: huge sizes, Ctrl-C, memory limits, memory soaks, the gradient fuzzer
#   isa/      every instruction set this CPU runs prints the same (lessons, book prints, C tests)
#   arm64/    the aarch64 cross build under qemu-user prints what the native build prints
#   layers/   the layering rules of README.md's "Where things live" (no Lua in src/core, the core never
#             prints, one wiring point, the library apart from the REPL, lessons on the public API)
#   install/  make install into a temporary DESTDIR: the installed attn, its man page, attn.so under lua5.4
#   i18n/     the translation catalogs against the sources, and the Chinese edition (every lesson's
#             steps walked in Chinese)
#   lessons/  the lesson modes of the command line (--check, --list, --step through a pipe and through
#             tmux, step mode's keys), and every lesson in check mode
#   html      --html on the command line (tests/cli/test_html.sh); browser/ the pages in headless
#             Chromium (tests/browser/test_pages.mjs and test_plots.mjs: node:test tests, run with
#             node's TAP reporter)
#   verify/   notes in Markdown (--verify, --update) and lessons as handouts (--markdown)
#   web/      the WebAssembly build (make web) under node against ./attn; browser/test_web.mjs its page
#             in Chromium
#   safety/   the safety reproducers: notes from strangers, writes that never destroy, lessons by name
#   jupyter/  the Jupyter kernel (attn --kernel) through Jupyter's own clients, --ipynb, --install-kernel
set -u
cd "$(dirname "$0")/.." || exit 2
# attn's text is English in every test but those of the Chinese edition (tests/i18n), whatever the
# locale of the machine: ATTN_LANG is what --lang sets (src/lua/i18n.lua).
export ATTN_LANG=en
LOG=build/test-logs
rm -rf "$LOG"
mkdir -p "$LOG"
total_pass=0
total_fail=0

# run_suite NAME COMMAND...: runs COMMAND with TAP on stdout, logs to $LOG/NAME.{tap,err}.
run_suite() {
    name=$1
    shift
    "$@" >"$LOG/$name.tap" 2>"$LOG/$name.err"
    status=$?
    pass=$(grep -c '^ok ' "$LOG/$name.tap")
    fail=$(grep -c '^not ok ' "$LOG/$name.tap")
    plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$LOG/$name.tap" | tail -n 1)
    missing=0
    why=""
    if [ -n "$plan" ] && [ $((pass + fail)) -lt "$plan" ]; then
        missing=$((plan - pass - fail))
        why="it reported $((pass + fail)) of the $plan results its plan promised"
    fi
    if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && [ "$missing" -eq 0 ]; then
        missing=1
        why="it died without saying which test failed"
    elif [ -z "$plan" ] && [ $((pass + fail)) -eq 0 ]; then
        missing=1 # not even "1..0 # SKIP"
        why="no result and no plan: it stopped before its first test"
    fi
    fail=$((fail + missing))
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail))
    if [ "$fail" -eq 0 ]; then
        printf '  %-22s %4d passed\n' "$name" "$pass"
    else
        printf '  %-22s %4d passed, %d FAILED (exit %d)\n' "$name" "$pass" "$fail" "$status"
        grep -A 12 '^not ok ' "$LOG/$name.tap" | sed 's/^/      /' | head -n 60
        if [ "$missing" -gt 0 ]; then
            echo "      $why"
            # node's test runner reports an error outside any test as a TAP comment, not on stderr
            grep -E '^# (Error|Warning): ' "$LOG/$name.tap" | tail -n 5 | sed 's/^/      /'
            tail -n 15 "$LOG/$name.err" | sed 's/^/      stderr: /'
        fi
    fi
}

echo "attn tests (logs in $LOG/)"

# No OPENBLAS_CORETYPE: attn's products are its own (src/core/gemm.c), in the order of OpenBLAS's Haswell
# kernels on one thread (what tests/data/torch was made with) whatever kernels OpenBLAS picks for this CPU.

# GPT-2's vocabulary for the tokenizer tests: make test fetched it here (scripts/fetch-gpt2-vocab.sh).
ATTN_TIKTOKEN_DIR="$(pwd)/build/gpt2-vocab"
export ATTN_TIKTOKEN_DIR
# Qwen3's and Llama 3's tokenizer.json, there too (scripts/fetch-hf-tokenizers.sh): the tokenizer tests and
# lesson 23 read them, from any directory
ATTN_HF_TOKENIZERS_DIR="$(pwd)/build/hf-tokenizers"
export ATTN_HF_TOKENIZERS_DIR

# Sanitizers: fail on the first UBSan report; LeakSanitizer needs ptrace, which some sandboxes forbid,
# so leak checking is on only where it works.
ASAN_OPTIONS="abort_on_error=0:halt_on_error=1"
if ! ASAN_OPTIONS=detect_leaks=1 build/asan/attn -e '' >/dev/null 2>&1; then
    ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    echo "  (LeakSanitizer is not available here; ASan runs without leak checks)"
fi
export ASAN_OPTIONS
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

for t in build/release/tests/test_*; do
    [ -x "$t" ] || continue   # the test programs, not files beside them (a compiler's .d)
    run_suite "c:$(basename "$t")" "$t"
done
for t in build/asan/tests/test_*; do
    [ -x "$t" ] || continue   # the test programs, not files beside them (a compiler's .d)
    run_suite "c-asan:$(basename "$t")" "$t"
done

run_suite "lua" ./attn /usr/bin/busted -o TAP tests/lua
run_suite "lua-asan" build/asan/attn /usr/bin/busted -o TAP tests/lua
# The matrix products again with OpenBLAS told to use its SkylakeX kernels (which add in another order):
# attn's results stay those of the Haswell order, products.txt. Only a CPU with AVX-512 can run them.
if sh scripts/cpu-has.sh avx512f avx512bw avx512dq avx512vl; then
    run_suite "lua-skylakex" env OPENBLAS_CORETYPE=SkylakeX ./attn /usr/bin/busted -o TAP tests/lua/products_spec.lua
else
    echo "  lua-skylakex           SKIP: this CPU has no AVX-512 (OpenBLAS's SkylakeX kernels cannot run here)"
fi

run_suite "cli" sh tests/cli/test_cli.sh ./attn
run_suite "cli-asan" sh tests/cli/test_cli.sh build/asan/attn
run_suite "repl" sh tests/repl/test_repl.sh ./attn
run_suite "repl-trace" sh tests/repl/test_trace.sh ./attn
run_suite "repl-session" sh tests/repl/test_session.sh ./attn
run_suite "robust-examples" sh tests/robust/test_examples.sh ./attn 2
run_suite "robust-examples-asan" sh tests/robust/test_examples.sh build/asan/attn 10
run_suite "robust-ctrl-c" sh tests/robust/test_ctrl_c.sh ./attn
run_suite "robust-memory-limit" sh tests/robust/test_memory_limit.sh ./attn
run_suite "robust-soak" sh tests/robust/test_soak.sh ./attn
run_suite "robust-autograd-soak" sh tests/robust/test_autograd_soak.sh ./attn
run_suite "robust-fuzz-grads" sh tests/robust/test_fuzz_grads.sh ./attn
run_suite "layers" sh tests/layers/test_layers.sh
# isa/: the same output under every instruction set this CPU runs (ATTN_ISA=portable, avx2, avx512)
run_suite "isa-outputs" sh tests/isa/test_isa_outputs.sh ./attn
# arm64/: the aarch64 build under qemu-user prints what the native one prints (scripts/install-arm64-cross.sh
# installs the cross compiler, qemu and the arm64 libraries; make test builds it where they are). Skipped,
# with a line that says so, only where they could not be installed; on CI (CI set) that is a failure.
if command -v qemu-aarch64 >/dev/null 2>&1 && command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
    run_suite "arm64-qemu" sh tests/arm64/test_arm64.sh
elif [ -n "${CI:-}" ]; then
    run_suite "arm64-qemu" sh -c 'echo "not ok 1 - qemu-aarch64 or the aarch64 cross compiler missing on CI (scripts/install-arm64-cross.sh)"'
else
    echo "  arm64-qemu             SKIP: no qemu-aarch64 or aarch64 cross compiler here (scripts/install-arm64-cross.sh)"
fi
run_suite "i18n-catalogs" sh tests/i18n/test_catalogs.sh ./attn
run_suite "i18n-error-formats" sh tests/i18n/test_error_formats.sh
run_suite "i18n-errors" sh tests/i18n/test_errors_zh.sh ./attn
run_suite "i18n-terms" sh tests/i18n/test_terms.sh
run_suite "i18n-book-words" sh tests/i18n/test_book_words.sh ./attn
run_suite "i18n-chinese" sh tests/i18n/test_chinese.sh ./attn
run_suite "i18n-repl" sh tests/i18n/test_repl_zh.sh ./attn
# every lesson in step mode in Chinese, Enter after each step: no plumbing or English comment in the
# code a step shows, no English in what it prints outside code and names (tests/i18n/step_walk.lua)
run_suite "i18n-step-walk" sh tests/i18n/test_step_walk.sh ./attn
run_suite "install" sh tests/install/test_install.sh
run_suite "lesson-modes" sh tests/lessons/test_lessons.sh ./attn
run_suite "lesson-modes-asan" sh tests/lessons/test_lessons.sh build/asan/attn
run_suite "lesson-step-tty" sh tests/lessons/test_step_tty.sh ./attn
run_suite "lesson-step-keys" sh tests/lessons/test_step_keys.sh ./attn
run_suite "html" sh tests/cli/test_html.sh ./attn

# browser/: every lesson's --html page in Debian's headless Chromium, driven by playwright-core (both
# installed by scripts/install-browser-tests.sh). Skipped, with a line that says so, only where they
# could not be installed; on CI (CI set) their absence is a failure.
if command -v node >/dev/null 2>&1 && command -v chromium >/dev/null 2>&1 &&
    [ -d tests/browser/node_modules/playwright-core ]; then
    run_suite "browser" node --test-reporter=tap tests/browser/test_pages.mjs ./attn "$(command -v chromium)"
    # attention.plot's SVG: lesson 19's plot on its page, and a file of its own (test_plots.mjs)
    run_suite "browser-plots" node --test-reporter=tap tests/browser/test_plots.mjs ./attn "$(command -v chromium)"
elif [ -n "${CI:-}" ]; then
    run_suite "browser" sh -c 'echo "not ok 1 - Chromium, node or playwright-core missing on CI (scripts/install-browser-tests.sh)"'
else
    echo "  browser                SKIP: no Chromium, node or playwright-core here (scripts/install-browser-tests.sh could not install them)"
fi
# jupyter/: the kernel (attn --kernel) through Jupyter's own clients, Debian's packages installed by
# scripts/install-jupyter-tests.sh: jupyter_client (every message type, signatures, interrupts,
# robustness), nbconvert (every lesson's notebook run top to bottom), jupyter console in tmux, the
# kernelspec; the classic Notebook server in Chromium (tests/browser/test_notebook.mjs). Each runs with
# its own kernelspec in a temporary JUPYTER_PATH (tests/jupyter/with_kernel.sh).
if /usr/bin/python3 -c 'import jupyter_client, nbformat, nbconvert' 2>/dev/null; then
    run_suite "jupyter-kernelspec" sh tests/jupyter/with_kernel.sh ./attn sh tests/jupyter/test_kernelspec.sh
    run_suite "jupyter-protocol" sh tests/jupyter/with_kernel.sh ./attn /usr/bin/python3 tests/jupyter/test_protocol.py ./attn
    run_suite "jupyter-plots" sh tests/jupyter/with_kernel.sh ./attn /usr/bin/python3 tests/jupyter/test_plots.py ./attn
    # shellcheck disable=SC2046  # one argument per lesson file
    run_suite "jupyter-notebooks" sh tests/jupyter/with_kernel.sh ./attn sh -c \
        'd=$(mktemp -d) && /usr/bin/python3 tests/jupyter/test_notebooks.py ./attn "$d" lessons/*.lua; s=$?; rm -rf "$d"; exit $s'
    run_suite "jupyter-console" sh tests/jupyter/with_kernel.sh ./attn sh tests/jupyter/test_console.sh ./attn
    # the classic Notebook server in the browser suite's Chromium (its screenshot: build/test-logs/notebook-*.png)
    if command -v node >/dev/null 2>&1 && command -v chromium >/dev/null 2>&1 &&
        [ -d tests/browser/node_modules/playwright-core ] && [ -x /usr/bin/jupyter-notebook ]; then
        run_suite "jupyter-notebook" sh tests/jupyter/with_kernel.sh ./attn node --test-reporter=tap tests/browser/test_notebook.mjs ./attn "$(command -v chromium)"
    elif [ -n "${CI:-}" ]; then
        run_suite "jupyter-notebook" sh -c 'echo "not ok 1 - jupyter-notebook, Chromium or playwright-core missing on CI"'
    else
        echo "  jupyter-notebook       SKIP: no jupyter-notebook, Chromium, node or playwright-core here"
    fi
elif [ -n "${CI:-}" ]; then
    run_suite "jupyter" sh -c 'echo "not ok 1 - Jupyter packages missing on CI (scripts/install-jupyter-tests.sh)"'
else
    echo "  jupyter                SKIP: no jupyter_client, nbformat or nbconvert here (scripts/install-jupyter-tests.sh)"
fi
# web/: the WebAssembly build (make web; src/web/web.mk) against ./attn under node, byte for byte: every
# lesson in check mode, the chapter-3 lessons' prints, the command line's words (tests/web/test_node.sh),
# the Lua tests of tests/lua that start no process, each spec file's TAP output (tests/web/test_lua.sh).
# Skipped, with a line that says so, only where emscripten could not be installed
# (scripts/install-web-deps.sh); on CI its absence is a failure.
if command -v node >/dev/null 2>&1 && [ -f build/wasm/attn.js ]; then
    run_suite "web-node" sh tests/web/test_node.sh ./attn build/wasm/attn.js
    run_suite "web-lua" sh tests/web/test_lua.sh ./attn build/wasm/attn.js
    # the page itself in the browser suite's Chromium (tests/browser/test_web.mjs; screenshots
    # build/test-logs/web-*.png)
    if command -v chromium >/dev/null 2>&1 && [ -d tests/browser/node_modules/playwright-core ] &&
        [ -f build/web/attn-page.wasm ]; then
        run_suite "web-browser" node --test-reporter=tap tests/browser/test_web.mjs ./attn "$(command -v chromium)"
    elif [ -n "${CI:-}" ]; then
        run_suite "web-browser" sh -c 'echo "not ok 1 - Chromium, playwright-core or build/web missing on CI"'
    else
        echo "  web-browser            SKIP: no Chromium or playwright-core here (scripts/install-browser-tests.sh)"
    fi
elif [ -n "${CI:-}" ]; then
    run_suite "web-node" sh -c 'echo "not ok 1 - emscripten or node missing on CI: build/wasm/attn.js was not built (scripts/install-web-deps.sh)"'
else
    echo "  web-node               SKIP: no emscripten here (scripts/install-web-deps.sh could not install it)"
fi
run_suite "verify" sh tests/verify/test_verify.sh ./attn handouts
run_suite "verify-asan" sh tests/verify/test_verify.sh build/asan/attn
run_suite "safety" sh tests/safety/test_safety.sh ./attn
run_suite "safety-asan" sh tests/safety/test_safety.sh build/asan/attn

lessons=$(ls lessons/*.lua 2>/dev/null)
if [ -n "$lessons" ]; then
    # shellcheck disable=SC2086  # one argument per lesson file
    run_suite "lessons" ./attn --check --tap $lessons
    run_suite "lessons-asan" build/asan/attn --check --tap $lessons
    run_suite "book-tensors" sh tests/lessons/test_book_tensors.sh ./attn
    # the same bits under other kernels, instruction sets and thread counts (digests of every tensor)
    run_suite "lessons-same-bits" sh tests/lessons/test_same_bits.sh ./attn
else
    echo "  lessons                   none yet"
fi

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
