#!/bin/sh
# Installs what `make web` and the web suites (tests/web) need, and only what is missing: Debian's
# emscripten (emcc compiles the C core, Lua and the C libraries to WebAssembly), dpkg-dev (apt-get source
# unpacks Debian's source packages with dpkg-source), node and npm (the page's xterm.js comes from npm,
# pinned in src/web/package-lock.json; the wasm tests run under node), through scripts/install-deps.sh.
# Called by `make web` and `make test`.
#
# Where they cannot be installed (no Debian, no network), it says so and succeeds: tests/run.sh then
# prints a SKIP line for the web suites, except on CI (CI set), where a missing emscripten fails.
set -u
cd "$(dirname "$0")/.." || exit 1

missing=""
command -v emcc >/dev/null 2>&1 || missing="emscripten"
command -v dpkg-source >/dev/null 2>&1 || missing="$missing dpkg-dev"
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
# Chinese glyphs for the page's screenshots in headless Chromium (tests/browser/test_web.mjs)
[ -d /usr/share/fonts/truetype/wqy ] || missing="$missing fonts-wqy-microhei"
if [ -n "$missing" ]; then
    # shellcheck disable=SC2086  # one argument per package
    sh scripts/install-deps.sh $missing ||
        echo "install-web-deps: could not install$missing; make web cannot build, the web tests will be skipped" >&2
fi
exit 0
