#!/bin/sh
# test_layers.sh — the layering rules of ../shared/DESIGN.md, checked on the source. TAP output.
# Each layer knows only the ones below it: core <- bind <- cli; lessons and src/lua use the Lua API.
cd "$(dirname "$0")/../.." || exit 2
n=0
failed=0
check() { # check DESCRIPTION OFFENDING-LINES
    n=$((n + 1))
    if [ -z "$2" ]; then
        echo "ok $n - $1"
    else
        failed=$((failed + 1))
        echo "not ok $n - $1"
        printf '%s\n' "$2" | sed 's/^/#   /'
    fi
}
check "src/core has no Lua in it (grep -rn lua_ src/core finds nothing)" \
    "$(grep -rn 'lua_\|lauxlib\|lualib\|<lua\.h>' src/core)"
check "src/core includes nothing from src/bind or src/cli" \
    "$(grep -n '#include "\(bind\|attn_lua\|lua_embed\|cli\)\.h"' src/core/*)"
check "src/core never prints, aborts or exits" \
    "$(grep -n '\<printf\s*(\|\<fprintf\|\<puts\s*(\|\<putchar\|\<abort\s*(\|\<exit\s*(' src/core/*.c)"
check "src/bind includes nothing from src/cli" "$(grep -n '#include "cli\.h"' src/bind/*)"
echo "1..$n"
[ "$failed" -eq 0 ]
