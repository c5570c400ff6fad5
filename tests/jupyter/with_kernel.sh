#!/bin/sh
# with_kernel.sh — runs a Jupyter test with attn's kernelspec installed where only that test sees it:
# `attn --install-kernel --prefix TMP`, then JUPYTER_PATH=TMP/share/jupyter, and Jupyter's runtime and
# data files (connection files, the console's history) in TMP too, not in the user's home.
#   sh tests/jupyter/with_kernel.sh ATTN COMMAND...      (COMMAND gets ATTN's absolute path as $ATTN)
set -u
ATTN=$(readlink -f "$1")
shift
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
if ! "$ATTN" --install-kernel --prefix "$TMP" >"$TMP/install.log" 2>&1; then
    echo "not ok 1 - attn --install-kernel --prefix: $(cat "$TMP/install.log")"
    exit 1
fi
export ATTN
export JUPYTER_PATH="$TMP/share/jupyter"
export JUPYTER_RUNTIME_DIR="$TMP/runtime" JUPYTER_DATA_DIR="$TMP/data" JUPYTER_CONFIG_DIR="$TMP/config"
export IPYTHONDIR="$TMP/ipython" PYDEVD_DISABLE_FILE_VALIDATION=1
"$@"
