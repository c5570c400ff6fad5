#!/bin/sh
# test_layers.sh — the layering rules of ../shared/DESIGN.md, checked on the source. TAP output.
# Each layer knows only the ones below it: core <- bind <- cli; lessons and src/lua use the Lua API.
cd "$(dirname "$0")/../.." || exit 2
. tests/tap.sh
# shellcheck disable=SC2317  # called from tap.sh
diagnose() { printf '%s\n' "$OFFENDING" | sed 's/^/#   /'; }
no_lines() { # no_lines DESCRIPTION OFFENDING-LINES
    OFFENDING=$2
    check "$1" [ -z "$2" ]
}
no_lines "src/core has no Lua in it (grep -rn lua_ src/core finds nothing)" \
    "$(grep -rn 'lua_\|lauxlib\|lualib\|<lua\.h>' src/core)"
no_lines "src/core includes nothing from src/bind or src/cli" \
    "$(grep -n '#include "\(bind\|attn_lua\|lua_embed\|cli\)\.h"' src/core/*)"
no_lines "src/core never prints, aborts or exits" \
    "$(grep -n '\<printf\s*(\|\<fprintf\|\<puts\s*(\|\<putchar\|\<abort\s*(\|\<exit\s*(' src/core/*.c)"
no_lines "src/bind includes nothing from src/cli" "$(grep -n '#include "cli\.h"' src/bind/*)"
# One wiring point (src/bind/init.c): globals are set there and nowhere else, and the library's tables
# are passed as modules (attn.bind, require), never through registry keys.
no_lines "no C file but src/bind/init.c calls lua_setglobal" \
    "$(grep -rn 'lua_setglobal\s*(' src --include=*.c | grep -v '^src/bind/init\.c:')"
no_lines "no C file keeps tables in the registry (LUA_REGISTRYINDEX), no Lua file reads it" \
    "$(grep -rn 'LUA_REGISTRYINDEX\|getregistry' src)"
no_lines "the binding files open with luaopen_attn_* (no lt_open_*, no lt_register)" \
    "$(grep -rn 'lt_open_\|lt_register' src)"
# One error rule: which frame is the user's is decided in src/bind/args.c only.
OFFENDING=$(grep -rn '=\[attn\]/repl' src)
check "the REPL's chunk name, where the user's side begins, is written in one place" \
    [ "$(printf '%s\n' "$OFFENDING" | grep -c .)" -le 1 ]
tap_end
