#!/bin/sh
# test_catalogs.sh — the translation catalogs (src/po) against the sources: every message marked
# translatable is in its language's catalog, translated, not fuzzy (msgcmp, msgfmt --check
# --statistics; scripts/po.sh check). A new English string without its translation fails here.
#   sh tests/i18n/test_catalogs.sh [path/to/attn]      (default ./attn)
set -u
BIN=${1:-./attn}
if ! command -v msgfmt >/dev/null 2>&1; then
    echo "1..0 # SKIP gettext is not installed"
    exit 0
fi
exec sh scripts/po.sh check "$BIN"
