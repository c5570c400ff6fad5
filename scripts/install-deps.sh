#!/bin/sh
# Installs the Debian/Ubuntu packages attn needs to build and test, and only those that are missing.
# Called by `make run` and `make test`; safe to run again (does nothing when all are present).
# Works as root, or as a user through sudo. Extra package names given as arguments are installed too
# (scripts/gen-torch-reference.sh asks for python3-torch this way).
set -eu

# build: compiler, pkg-config, Lua 5.4, OpenBLAS (matrix products), GNU readline (REPL line editing),
#        cJSON (safetensors headers, config.json, encoder.json), PCRE2 (GPT-2's pre-tokenisation regex),
#        utf8proc (the NFC normalizer of Hugging Face tokenizer.json files),
#        SLEEF (exp/log/tanh exactly as PyTorch's CPU kernels compute them), libcmark (CommonMark:
#        the code blocks of the notes `attn --verify` checks),
#        gettext (msgfmt compiles the translation catalogs; xgettext, msgmerge for translators),
#        ZeroMQ and OpenSSL's libcrypto (the Jupyter kernel's sockets and message signatures, src/cli/kernel*.c)
# test:  cmocka (C tests), busted (Lua tests, run inside attn), tmux (drives the REPL in a terminal),
#        lua5.4 (the baseline of the startup benchmark, and the stock interpreter that loads attn.so in
#        tests/install), man-db (man --warnings checks the man page src/cli/attn.1), luarocks (builds the
#        rockspec)
PACKAGES="gcc make pkg-config gettext liblua5.4-dev libopenblas-dev libreadline-dev libsleef-dev libcjson-dev libpcre2-dev libutf8proc-dev libcmark-dev libzmq3-dev libssl-dev libcmocka-dev lua-busted tmux lua5.4 man-db luarocks $*"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: this is not a Debian/Ubuntu system; install these by hand: $PACKAGES" >&2
    exit 1
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "install-deps: missing packages:$missing; run as root or install sudo" >&2
    exit 1
fi

echo "install-deps: installing$missing"
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086  # word splitting of the package list is intended
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
