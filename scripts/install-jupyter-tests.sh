#!/bin/sh
# Installs what the Jupyter tests (tests/jupyter) need, and only what is missing, through
# scripts/install-deps.sh: Debian's jupyter_client (the library and jupyter-kernelspec), nbformat (the
# validator), nbconvert (runs notebooks), jupyter-console (the terminal client) and jupyter-notebook
# (the classic Notebook server the browser test opens). Called by `make test` after install-deps.sh.
# Where they cannot be installed (no Debian, no network), it says so and succeeds: tests/run.sh then
# prints a SKIP line for each Jupyter suite, except on CI (CI set), where their absence is a failure.
set -u
cd "$(dirname "$0")/.." || exit 1
sh scripts/install-deps.sh python3-jupyter-client jupyter-client python3-nbformat jupyter-nbconvert \
    jupyter-console jupyter-notebook ||
    echo "install-jupyter-tests: could not install Jupyter's packages; the Jupyter tests will be skipped" >&2
exit 0
