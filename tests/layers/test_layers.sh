#!/bin/sh
# test_layers.sh — the layering rules of README.md ("Where things live"), checked on the source. TAP output.
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
    "$(grep -rn '#include "\(bind\|attn_lua\|lua_embed\|cli\)\.h"' src/core)"
no_lines "src/core never prints, aborts or exits" \
    "$(grep -rn --include='*.c' '\<printf\s*(\|\<fprintf\|\<puts\s*(\|\<putchar\|\<abort\s*(\|\<exit\s*(' src/core)"
# One dispatch (src/core/isa.h): only src/core/x86/dispatch.c asks the CPU, and x86 intrinsics, gcc's
# target attributes and clones live under src/core/x86/ (compiled on x86-64 only), each with a portable
# twin that gives its bits; nothing else in src/ is x86's.
no_lines "only src/core/x86/dispatch.c calls __builtin_cpu_supports (or __builtin_cpu_is)" \
    "$(grep -rn '__builtin_cpu_\(supports\|is\|init\)' src | grep -v '^src/core/x86/dispatch\.c:')"
no_lines "x86 intrinsics, target attributes and target_clones appear only under src/core/x86/" \
    "$(grep -rnE 'intrin\.h|\<__m(128|256|512)[di]?\>|target_clones|__attribute__ *\(\( *target *\(' src |
        grep -v '^src/core/x86/')"
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
# Linux's own calls each in one file with a POSIX fallback (macOS builds the rest unchanged): the running
# executable and memory files in src/cli/platform.c, /proc and cgroups in src/core/memlimit.c (unknown limits
# elsewhere), the path of an open file in src/core/safe_read.c (realpath where /proc is not mounted), huge
# pages in src/core/storage.c (under #ifdef MADV_HUGEPAGE).
no_lines "Linux-only calls (/proc, memfd_create, getrandom, prctl, seccomp, landlock, madvise) stay in their one file each" \
    "$(grep -rnE '"/proc/|memfd_create *\(|getrandom *\(|prctl *\(|seccomp|landlock|madvise *\(' src --include='*.c' |
        grep -v '^src/cli/platform\.c:\|^src/core/memlimit\.c:\|^src/core/safe_read\.c:\|^src/core/storage\.c:')"
# Files a reader can take in: no source file under src/ (C, header, Lua) longer than 450 lines; split it
# along its own sections instead. (The translation catalogs, src/po, are data and not counted.)
no_lines "no .c, .h or .lua file under src/ is longer than 450 lines" \
    "$(find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.lua' \) -exec wc -l {} + |
        awk '$2 != "total" && $1 > 450')"

# ---- the Lua side (src/lua, lessons/): read with luac's listing, so strings and comments never count ----
# globals FILE: the globals FILE's code writes (SET) or reads (GET), as "SET name" / "GET name" lines.
globals() {
    luac5.4 -p -l "$1" | sed -n 's/.*\(SET\|GET\)TABUP.*; _ENV "\([A-Za-z_][A-Za-z0-9_]*\)".*/\1 \2/p' | sort -u
}
LUA_FILES=$(find src/lua -name '*.lua' | sort)
OFFENDING=""
for f in $LUA_FILES; do
    OFFENDING="$OFFENDING$(globals "$f" | sed -n "s|^SET |$f: sets the global |p")"
done
no_lines "no Lua module assigns a global (src/bind/init.c makes the globals from what attn.init returns)" \
    "$OFFENDING"
# Writes through _G are the user's own globals, made on the user's behalf in two places only: a lesson's
# globals (lesson/run.lua runs the lesson's chunk in an environment over _G) and the REPL's _ (the last
# result). Anything else writing into _G is a module setting a global.
no_lines "no Lua module writes into _G, but a lesson's own globals (lesson/run.lua) and the REPL's _" \
    "$(grep -rnE '(^|[^.[:alnum:]_])_G *(\.[A-Za-z_]+|\[[^]]+\]) *=[^=]|rawset *\( *_G' src/lua \
        | grep -v '^src/lua/lesson/run\.lua:.*_G\[k\] = \|^src/lua/repl/init\.lua:.*_G\._ = ')"
# (The Jupyter kernel, src/lua/kernel, is a front end too: it runs cells as the REPL runs chunks.)
no_lines "the library does not require the REPL (only src/lua/repl and src/lua/kernel require attn.repl.*)" \
    "$(grep -rn 'attn\.repl' src/lua | grep -v '^src/lua/repl/\|^src/lua/kernel/')"
# A lesson reads only the public globals (the tables src/lua/init.lua returns, which the wiring point
# makes globals: torch, nn, attention, help, lesson, ...), Lua's own, and the globals it sets itself: no
# require, no attn.bind, no debug or package tricks.
PUBLIC="$(sed -n '/^return {/,/^}/s/^ *\([A-Za-z_][A-Za-z0-9_]*\) *=.*/\1/p' src/lua/init.lua | tr '\n' ' ')
print ipairs pairs math string table tostring tonumber type select error assert pcall xpcall os io
setmetatable getmetatable rawget rawset rawequal rawlen next utf8 collectgarbage"
OFFENDING=""
for f in lessons/*.lua; do
    own=$(globals "$f" | sed -n 's/^SET //p')
    for name in $(globals "$f" | sed -n 's/^GET //p'); do
        case " $(echo $PUBLIC $own) " in
        *" $name "*) ;;
        *) OFFENDING="$OFFENDING$f: reads the global $name
" ;;
        esac
    done
done
no_lines "lessons use only the public API: the globals src/lua/init.lua gives (torch, nn, ...) and Lua's own" \
    "$OFFENDING"
no_lines "lessons require no module (not even attn.*)" "$(grep -n 'require *[("]' lessons/*.lua)"
tap_end
