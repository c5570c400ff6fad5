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
# Files a reader can take in: no source file under src/ (C, header, Lua) longer than 450 lines. A split
# follows a concept: a file holds one concept, and one that outgrows the cap is split where its concepts
# part (the stages from the drawing, the plan from the task), never at a line count into halves that call
# each other back (a new loop between files fails below). (The catalogs, src/po, are data: not counted.)
no_lines "no .c, .h or .lua file under src/ is longer than 450 lines" \
    "$(find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.lua' \) -exec wc -l {} + |
        awk '$2 != "total" && $1 > 450')"

# ---- loops between files -----------------------------------------------------------------------------
# sccs: the strongly connected components (more than one node) of the graph on stdin, lines "a b" for
# a -> b: one line each, its nodes sorted, the lines sorted.
sccs() {
    awk '{ if (!($1 in id)) { id[$1] = ++n; name[n] = $1 } if (!($2 in id)) { id[$2] = ++n; name[n] = $2 }
           r[id[$1], id[$2]] = 1 }
         END {
             for (k = 1; k <= n; k++) for (i = 1; i <= n; i++) if ((i, k) in r)
                 for (j = 1; j <= n; j++) if ((k, j) in r) r[i, j] = 1
             for (i = 1; i <= n; i++) {
                 if (done[i]) continue
                 count = 0
                 for (j = 1; j <= n; j++) if (j == i || (((i, j) in r) && ((j, i) in r))) { done[j] = 1; m[++count] = name[j] }
                 if (count < 2) continue
                 for (a = 1; a <= count; a++) for (b = a + 1; b <= count; b++) if (m[b] < m[a]) { t = m[a]; m[a] = m[b]; m[b] = t }
                 line = m[1]
                 for (a = 2; a <= count; a++) line = line " " m[a]
                 print line
             }
         }' | sort
}
# known LOOPS FOUND: the loops found that are not among the known ones (lines of both).
# listed LIST: the items of a list written in this file, one a line, without their indentation.
listed() { printf '%s\n' "$1" | sed 's/^ *//' | grep -v '^$'; }
# missing_from LINES LIST: the lines not among the list's items (an empty list: every line).
missing_from() { printf '%s\n' "$1" | grep -v '^$' | grep -vxF "$(listed "$2")"; }

# C: a.c -> b.c when a.c uses a name b.c defines without static (a definition starts at column 0 with
# its type; comments and strings are left out), within one folder. Today's loops, to be untied, not grown:
C_LOOPS="
    src/bind/args.c src/bind/autograd.c src/bind/index.c src/bind/options.c src/bind/tensor.c src/bind/views.c
    src/core/copy.c src/core/dtype.c src/core/memlimit.c src/core/storage.c src/core/tensor.c src/core/view.c"
c_defs() {
    awk '/^[A-Za-z_]/ && !/^(typedef|extern|struct|enum|union|#)/ && !/(^|[[:space:]])static[[:space:]]/ && !/;[[:space:]]*$/ {
            if (match($0, /[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(/)) { s = substr($0, RSTART, RLENGTH); sub(/[[:space:]]*\($/, "", s); print s }
         }
         /^[A-Za-z_].*[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?[[:space:]]*=[^=]/ && !/^(typedef|extern|#)/ && !/(^|[[:space:]])static[[:space:]]/ && !/\(/ {
            s = $0; sub(/[[:space:]]*(\[[^]]*\])?[[:space:]]*=.*/, "", s); n = split(s, w, /[^A-Za-z0-9_]+/); print w[n] }' "$1"
}
c_edges() {
    defs=$(mktemp)
    for d in "$@"; do
        for f in "$d"/*.c; do c_defs "$f" | sed "s|^|$f |"; done >"$defs"
        for f in "$d"/*.c; do
            perl -0pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s{"(\\.|[^"\\\n])*"}{""}g' "$f" | grep -o '[A-Za-z_][A-Za-z0-9_]*' |
                sort -u | awk -v f="$f" 'NR == FNR { def[$2] = $1; next } ($1 in def) && def[$1] != f { print f, def[$1] }' "$defs" -
        done
    done
    rm -f "$defs"
}
C_FOUND=$(c_edges src/core src/core/x86 src/core/generic src/bind src/cli | sort -u | sccs)
check "the loops between C files are read (today's known ones are found)" [ -n "$C_FOUND" ]
no_lines "no new loop between C files (a.c uses b.c's names and b.c, through any others, a.c's)" \
    "$(missing_from "$C_FOUND" "$C_LOOPS")"
no_lines "every loop C_LOOPS lists is still there (an untied one leaves the list)" \
    "$(missing_from "$(listed "$C_LOOPS")" "$C_FOUND")"
# Headers: #include "x.h" between src/'s headers makes no loop.
no_lines "no loop of #include between headers" \
    "$(for h in $(find src -name '*.h'); do
           sed -n 's|^#include "\([^"]*\.h\)".*|\1|p' "$h" | while read -r inc; do echo "${h##*/} $inc"; done
       done | sccs)"

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

# The order of the Lua folders (a top-level file of src/lua counts as a folder of its own; bind is the C
# bindings, json the kernel's attn.json), lowest first: a file requires only modules of its own folder
# or of the folders before its own. requires FILE: "main MODULE" for a require of a literal attn.*
# module in the file's main chunk, "function MODULE" in a function's body, as luac lists them.
LUA_ORDER="
    bind json
    i18n errors warnings options check text term places ordered_dict
    autograd draw html attention
    nn data optim ipairs safetensors checkpoint hf tiktoken tokenizers gpt llm
    glossary manual help
    lesson verify
    repl kernel web
    docs init"
# Today's requires against the order, each to be untied (as drawing moved below the pages it draws on,
# and Markdown's printed text below both lesson and verify), never added to: "FOLDER REQUIRED-FOLDER".
# help loads docs on first use; lesson/run.lua runs a lesson given by path in verify/sandbox.lua's
# restricted globals (the sandbox belongs below both).
LUA_UPWARD="
    help docs
    lesson verify"
requires() {
    luac5.4 -p -l -l "$1" 2>/dev/null | awk '
        /^main </ { where = "main" } /^function </ { where = "function" }
        /GETTABUP.*; _ENV "require"$/ { want = 1; next }
        want && /LOADK.*; "attn[.A-Za-z0-9_]*"$/ { m = $NF; gsub(/"/, "", m); print where, m }
        { want = 0 }'
}
folder_of_file() { f=${1#src/lua/}; case $f in */*) echo "${f%%/*}" ;; *) echo "${f%.lua}" ;; esac; }
folder_of_module() { m=${1#attn}; m=${m#.}; echo "${m:-init}" | sed 's/\..*//'; }
rank() { echo $LUA_ORDER | tr ' ' '\n' | grep -nx "$1" | cut -d: -f1; }
LUA_EDGES=$(for f in $LUA_FILES; do
    from=$(folder_of_file "$f")
    luac5.4 -p "$f" 2>/dev/null || echo "$from ? unreadable $f by luac5.4 -p"
    requires "$f" | while read -r where m; do echo "$from $(folder_of_module "$m") $where $f $m"; done
done)
no_lines "every Lua file is read by luac5.4" "$(printf '%s\n' "$LUA_EDGES" | grep ' unreadable ')"
check "the Lua requires are read (src/lua/help.lua requires attn.i18n)" \
    sh -c "printf '%s\n' \"\$1\" | grep -q '^help i18n main src/lua/help.lua attn.i18n$'" - "$LUA_EDGES"
OFFENDING=""
for u in $(printf '%s\n' "$LUA_EDGES" | grep -v ' unreadable ' | awk '{ print $1; print $2 }' | sort -u); do
    [ -n "$(rank "$u")" ] || OFFENDING="$OFFENDING$u: a folder not in LUA_ORDER (tests/layers/test_layers.sh): place it
"
done
no_lines "every Lua folder has its place in the order (LUA_ORDER)" "$OFFENDING"
OFFENDING=$(printf '%s\n' "$LUA_EDGES" | while read -r from to where f m; do
    [ "$from" = "$to" ] && continue
    rf=$(rank "$from") rt=$(rank "$to")
    [ -n "$rf" ] && [ -n "$rt" ] && [ "$rt" -gt "$rf" ] || continue
    printf '%s\n' "$LUA_UPWARD" | grep -qx " *$from $to" && continue
    echo "$f requires $m: $from comes before $to in LUA_ORDER"
done)
no_lines "the Lua folders follow their order: a file requires its own folder's modules or lower folders'" "$OFFENDING"
no_lines "every exception in LUA_UPWARD is still needed (an untied one leaves the list)" \
    "$(missing_from "$(listed "$LUA_UPWARD")" "$(printf '%s\n' "$LUA_EDGES" | awk '{ print $1, $2 }' | sort -u)")"
# Module loops: a file that requires, through any others, itself.
LUA_MODULE_LOOPS=""
no_lines "no new loop between Lua modules" \
    "$(missing_from "$(printf '%s\n' "$LUA_EDGES" | awk '{
        f = $4; sub(/^src\/lua\//, "", f); sub(/\.lua$/, "", f); sub(/\/init$/, "", f); gsub(/\//, ".", f)
        m = f == "init" ? "attn" : "attn." f; if (m != $5) print m, $5 }' | sort -u | sccs)" "$LUA_MODULE_LOOPS")"
# Requires at the top of a file, where a reader sees what it depends on. Inside a function body only
# where the load must wait, "FILE MODULE": the docs, loaded the first time help is asked for (help.lua);
# the REPL's help, whose failure to load the prompt survives (repl/init.lua); ops_math, which is loaded
# after the tensor API it extends (autograd/tensor_api.lua requires it at its end too); what a lesson
# needs, checked only when it says it needs it (lesson/needs.lua). The rest came with work in progress
# (the lesson and notes sandboxes): to move up, never added to.
LUA_INNER_REQUIRES="
    src/lua/autograd/tensor_api.lua attn.autograd.ops_math
    src/lua/help.lua attn.docs
    src/lua/repl/init.lua attn.help
    src/lua/lesson/init.lua attn.lesson.needs
    src/lua/lesson/needs.lua attn.gpt.load
    src/lua/lesson/needs.lua attn.hf
    src/lua/lesson/needs.lua attn.places
    src/lua/lesson/needs.lua attn.tiktoken
    src/lua/lesson/needs.lua attn.tokenizers
    src/lua/lesson/run.lua attn.bind
    src/lua/tokenizers/init.lua attn.places
    src/lua/verify/run.lua attn.bind
    src/lua/verify/sandbox.lua attn.hf
    src/lua/verify/sandbox.lua attn.tiktoken"
LUA_INNER_FOUND=$(printf '%s\n' "$LUA_EDGES" | awk '$3 == "function" { print $4, $5 }' | sort -u)
no_lines "no require inside a function body but LUA_INNER_REQUIRES's" \
    "$(missing_from "$LUA_INNER_FOUND" "$LUA_INNER_REQUIRES")"
no_lines "every require LUA_INNER_REQUIRES lists is still inside a function (one moved up leaves the list)" \
    "$(missing_from "$(listed "$LUA_INNER_REQUIRES")" "$LUA_INNER_FOUND")"
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
