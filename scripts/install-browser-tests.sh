#!/bin/sh
# Installs what the browser tests (tests/browser) need, and only what is missing: Debian's chromium
# (and Node.js with npm, where there is none) through scripts/install-deps.sh, then the npm packages
# of tests/browser/package-lock.json (playwright-core, which drives that chromium; it downloads no
# browser of its own) with `npm ci`. Called by `make test` after install-deps.sh.
#
# Where they cannot be installed (no Debian, no network), it says so and succeeds: tests/run.sh then
# prints a SKIP line for the browser suite, except on CI (CI set), where a missing browser fails.
set -u
cd "$(dirname "$0")/.." || exit 1

missing=""
command -v chromium >/dev/null 2>&1 || missing="chromium"
# fonts: a page's text and the heatmaps' values drawn in the screenshots
[ -d /usr/share/fonts/truetype/dejavu ] || missing="$missing fonts-dejavu-core"
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
if [ -n "$missing" ]; then
    # shellcheck disable=SC2086  # one argument per package
    sh scripts/install-deps.sh $missing ||
        echo "install-browser-tests: could not install$missing; the browser tests will be skipped" >&2
fi

lock=tests/browser/package-lock.json
installed=tests/browser/node_modules/.package-lock.json
if command -v npm >/dev/null 2>&1; then
    if [ ! -f "$installed" ] || [ "$lock" -nt "$installed" ]; then
        echo "install-browser-tests: npm ci in tests/browser"
        (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error) ||
            echo "install-browser-tests: npm ci failed; the browser tests will be skipped" >&2
    fi
fi
exit 0
