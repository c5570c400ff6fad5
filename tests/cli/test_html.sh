#!/bin/sh
# test_html.sh — `attn --html` on the command line (the pages themselves are tested in a browser:
# tests/browser/test_pages.mjs): what it writes, what it says, its errors. TAP output.
#   sh tests/cli/test_html.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
. "$(dirname "$0")/../cmd.sh"
out_has() { grep -q -- "$1" "$OUT"; }
err_has() { grep -q -- "$1" "$ERR"; }
page_has() { grep -q -- "$1" "$TMP/page.html"; }
page_lacks() { ! grep -q -- "$1" "$TMP/page.html"; }

run --html "$TMP/page.html" lessons/03_causal_attention.lua
check "--html OUT LESSON writes the page and says where, how big, and the checks" all status_is 0 -- \
    out_has "lessons/03_causal_attention.lua: $TMP/page.html ([0-9]* bytes; checks: 15 passed, 0 failed)" -- \
    test -s "$TMP/page.html" -- err_empty
check "the page is one document: doctype, inline style and script, its steps" all \
    page_has '^<!DOCTYPE html>' -- page_has '<style>' -- page_has '<script>' -- page_has 'id="step-11"' -- \
    page_has 'Causal attention: hiding future words'
check "the page loads nothing: no src=, no href= but its own steps, no url(" all \
    page_lacks ' src=' -- page_lacks 'href="[^#]' -- page_lacks 'url(' -- page_lacks '@import'
check "the page forbids any request (Content-Security-Policy default-src 'none')" \
    page_has "default-src 'none'"
SIZE=$(wc -c <"$TMP/page.html")
check "lesson 03's page is under 300 KB ($SIZE bytes)" [ "$SIZE" -lt 307200 ]

run --html "$TMP/page2.html" 03_causal_attention
check "a lesson named as --step names it (03_causal_attention)" all status_is 0 -- test -s "$TMP/page2.html"
check "the same lesson gives the same page, byte for byte" cmp -s "$TMP/page.html" "$TMP/page2.html"

run --html "$TMP/pages" lessons/01_simple_attention.lua lessons/02_trainable_weights.lua
check "--html DIR with several lessons writes one page each into DIR" all status_is 0 -- \
    test -s "$TMP/pages/01_simple_attention.html" -- test -s "$TMP/pages/02_trainable_weights.html"

run --html /nonexistent/dir/page.html lessons/03_causal_attention.lua
check "a page that cannot be written: a clear error, exit 1" all status_is 1 -- \
    err_has "attn: --html: cannot write /nonexistent/dir/page.html: No such file or directory"

run --html "$TMP/x.html"
check "--html without a lesson says what it needs" all status_is 1 -- err_has "attn: --html needs a lesson file"

run --html
check "--html without its page's name says it needs an argument" all status_is 1 -- \
    err_has "'--html' needs argument"

run --html "$TMP/y.html" --check lessons/03_causal_attention.lua
check "--html with --check: one lesson mode at a time" all status_is 1 -- \
    err_has "cannot go with '--html': one lesson mode at a time"

printf 'lesson.title("broken")\nlesson.step("one", function() error("boom") end)\n' >"$TMP/broken.lua"
run --html "$TMP/broken.html" "$TMP/broken.lua"
check "a lesson that stops with an error: the page shows it as a failed check, exit 1" all status_is 1 -- \
    out_has "checks: 0 passed, 1 failed" -- grep -q "boom" "$TMP/broken.html"

run --html "$TMP/missing.html" "$TMP/no_such_lesson.lua"
check "a lesson file that does not exist: said on the page and in the exit status" all status_is 1 -- \
    out_has "1 failed" -- grep -q "no_such_lesson.lua" "$TMP/missing.html"

tap_end
