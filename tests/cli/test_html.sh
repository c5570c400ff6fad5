#!/bin/sh
# test_html.sh — `attn --html` on the command line, attention.heatmap{svg =} and tr:save (the pages
# themselves are tested in a browser: tests/browser/test_pages.mjs): what they write, what they say,
# their errors. TAP output.
#   sh tests/cli/test_html.sh [path/to/attn]      (default ./attn)
set -u

BIN=${1:-./attn}
. "$(dirname "$0")/../cmd.sh"
page_has() { grep -q -- "$1" "$TMP/page.html"; }
page_lacks() { ! grep -q -- "$1" "$TMP/page.html"; }

run --html "$TMP/page.html" lessons/03_causal_attention.lua
check "--html OUT LESSON writes the page and says where, how big, and the checks" all status_is 0 -- \
    out_matches "lessons/03_causal_attention.lua: $TMP/page.html ([0-9]* bytes; checks: 16 passed, 0 failed)" -- \
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
    err_matches "attn: --html: cannot write /nonexistent/dir/page.html: No such file or directory"

run --lang zh_CN --html "$TMP/zh.html" lessons/03_causal_attention.lua
zh_has() { grep -q -- "$1" "$TMP/zh.html"; }
zh_lacks() { ! grep -q -- "$1" "$TMP/zh.html"; }
check "--lang zh_CN: the page is in Chinese, its own words too (lang, counts, buttons, summary)" all status_is 0 -- \
    zh_has '<html lang="zh-CN">' -- zh_lacks 'Causal attention: hiding future words' -- zh_lacks 'Present (P)' -- \
    zh_lacks 'steps: 11' -- zh_lacks '&larr; back\|← back' -- zh_lacks 'end of lesson' -- zh_lacks '<b>expected' -- \
    page_has '<html lang="en">'

run --html "$TMP/x.html"
check "--html without a lesson says what it needs" all status_is 1 -- err_matches "attn: --html needs a lesson file"

run --html
check "--html without its page's name says it needs an argument" all status_is 1 -- \
    err_matches "'--html' needs argument"

run --html "$TMP/y.html" --check lessons/03_causal_attention.lua
check "--html with --check: one lesson mode at a time" all status_is 1 -- \
    err_matches "cannot go with '--html': one lesson mode at a time"

printf 'lesson.title("broken")\nlesson.step("one", function() error("boom") end)\n' >"$TMP/broken.lua"
run --html "$TMP/broken.html" "$TMP/broken.lua"
check "a lesson that stops with an error: the page shows it as a failed check, exit 1" all status_is 1 -- \
    out_matches "checks: 0 passed, 1 failed" -- grep -q "boom" "$TMP/broken.html"

run --html "$TMP/missing.html" "$TMP/no_such_lesson.lua"
check "a lesson file that does not exist: said on the page and in the exit status" all status_is 1 -- \
    out_matches "1 failed" -- grep -q "no_such_lesson.lua" "$TMP/missing.html"

# ---- from the REPL: attention.heatmap{svg =}, tr:save ------------------------------------------------
W='w = torch.softmax(torch.tensor{{1.0, 2.0}, {3.0, 1.0}}, -1)'
run -e "$W" -e "attention.heatmap(w, {rows = {'<a>', 'b'}, svg = '$TMP/w.svg'})"
check "attention.heatmap{svg =} writes an SVG file and prints nothing" all status_is 0 -- out_is '' -- \
    grep -q '^<svg xmlns="http://www.w3.org/2000/svg"' "$TMP/w.svg" -- grep -q '>&lt;a&gt;<' "$TMP/w.svg" -- \
    grep -q '>0.7311<' "$TMP/w.svg"
run -e "$W" -e "attention.heatmap(w, {svg = '/nonexistent/w.svg'})"
check "an SVG file that cannot be written: a clear error at the user's line" all status_is 1 -- \
    err_matches "(command line):1: attention.heatmap: cannot write /nonexistent/w.svg: No such file or directory"
run -e "$W" -e "attention.heatmap(w, {svg = true})"
check "svg = true: the error says what svg must be" all status_is 1 -- \
    err_matches 'attention.heatmap: svg must be the name of the file to write, such as "w.svg", got true'
run -e "attention.heatmap(torch.rand(100, 100), {svg = '$TMP/big.svg'})"
check "a matrix printed summarised has no cells for an SVG: said, no file" all status_is 1 -- \
    err_matches 'attention.heatmap: a \[100, 100\] matrix has no cells to draw as SVG' -- test ! -e "$TMP/big.svg"
T='tr = attention.trace{x = torch.tensor{{1.0, 0.0}, {0.0, 1.0}}, tokens = {"a", "b"}}'
run -e "$T" -e 'tr:step()' -e "tr:save('$TMP/trace.html')" -e 'print(tr)'
check "tr:save writes every stage as a page; the tracer stays where it was" all status_is 0 -- \
    grep -q 'id="step-3"' "$TMP/trace.html" -- out_matches '1 of 3 stages shown'
run -e "$T" -e "tr:save('/nonexistent/t.html')"
check "tr:save to a file that cannot be written: a clear error" all status_is 1 -- \
    err_matches "attention.trace: tr:save: cannot write /nonexistent/t.html: No such file or directory"
run -e "$T" -e 'tr:save()'
check "tr:save without a name says what it needs" all status_is 1 -- \
    err_matches 'attention.trace: tr:save needs the name of the page to write, such as "trace.html", got nil'

tap_end
