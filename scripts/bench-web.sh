#!/bin/sh
# The page's budgets (make web's build/web/): page weight, time to the first prompt in headless Chromium,
# lesson 01 in check mode against the native attn; printed as ratios (tests/bench/bench_web.mjs).
# Needs make web, make attn, and the browser tests' Chromium and playwright-core.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/web/attn-page.wasm ] || [ ! -d tests/browser/node_modules/playwright-core ] || ! command -v chromium >/dev/null 2>&1; then
    echo "bench-web: skipped (needs make web, and scripts/install-browser-tests.sh's Chromium and playwright-core)"
    exit 0
fi
NODE_PATH=tests/browser/node_modules exec node tests/bench/bench_web.mjs "$(command -v chromium)"
