#!/bin/sh
# test_error_formats.sh — the C program's messages can be translated: every format given to attn_fail,
# rng.c's fail, lt_error and attn_tr in src/core, src/bind and src/cli is a string literal (xgettext
# extracts only literals into src/po/<lang>/lib/core.po; a format built at run time would stay
# English in every language). A macro or a variable there fails this test, naming the line.
# The catalog itself (every extracted format translated) is tests/i18n/test_catalogs.sh's.
#   sh tests/i18n/test_error_formats.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh
for f in src/core/*.c src/bind/*.c src/cli/*.c; do
    # each call of a keyword: the argument the format is (the 2nd of attn_fail/fail/lt_error, the 1st
    # of attn_tr) must start with a quote; the definitions and declarations of the functions are skipped
    bad=$(perl -0777 -ne '
        while (/\b(attn_fail|lt_error|fail|attn_tr)\s*\(/g) {
            my ($kw, $at) = ($1, pos);
            my $rest = substr($_, $at);
            next if $rest =~ /^\s*(const\s+)?(attn_error|lua_State|char)\b/;   # a definition
            my $arg = $kw eq "attn_tr" ? $rest : ($rest =~ /^[^,()]*(?:\([^()]*\)[^,()]*)*,(.*)$/s ? $1 : "");
            next if $arg =~ /^\s*"/;
            next if $kw eq "attn_tr" && $arg =~ /^fmt\)/;   # attn_fail, fail and lt_error passing theirs on
            my $line = 1 + (() = substr($_, 0, $at) =~ /\n/g);
            my ($text) = $rest =~ /^([^\n]*)/;
            print "$line: $kw($text\n";
        }' "$f")
    if [ -n "$bad" ]; then
        not_ok "$f: a format that is not a string literal"
        echo "$bad" | sed 's/^/#   /'
    else
        ok "$f"
    fi
done
# The Lua library: errors.raise and errors.raisef (and check.lua's fail, gpt/inspect.lua's fail_at)
# translate their first argument, which xgettext extracts only when it is one literal: a message
# begun as a literal and continued by concatenation ("... got " .. x) would be extracted as a
# fragment and never found.
for f in $(find src/lua -name '*.lua' | sort); do
    bad=$(perl -0777 -ne '
        my $lit = qr/"(?:[^"\\]|\\.)*"|\[\[.*?\]\]/s;   # "..." .. "..." is one literal to xgettext
        while (/\b(errors\.raisef?|raisef?|fail|fail_at)\s*\(\s*(?:fn\s*,\s*)?(?>(?:$lit)(?:\s*\.\.\s*(?:$lit))*)\s*\.\./gs) {
            my $kw = $1;
            my $line = 1 + (() = substr($_, 0, pos) =~ /\n/g);
            print "$line: $kw(\"...\" .. a value)\n";
        }' "$f")
    if [ -n "$bad" ]; then
        not_ok "$f: a message continued by concatenation (use raisef with a format)"
        echo "$bad" | sed 's/^/#   /'
    else
        ok "$f"
    fi
done
tap_end
