#!/bin/sh
# Installs what the aarch64 cross build and its test under qemu need (tests/arm64, `make build/aarch64/attn`),
# and only what is missing: Debian's cross compiler, qemu's user-mode emulator, and the arm64 builds of the
# libraries attn links (those of scripts/install-deps.sh), side by side with the machine's own (Debian's
# multiarch: dpkg --add-architecture arm64), so that the cross attn is the whole program.
# Called by `make test`. Where they cannot be installed (not Debian, no network, not root), it says so and
# succeeds: tests/run.sh then prints a SKIP line for the aarch64 suite, except on CI (CI set), where that fails.
set -u
cd "$(dirname "$0")/.." || exit 1

ARM64_LIBS="libc6-dev:arm64 liblua5.4-dev:arm64 libopenblas-dev:arm64 libreadline-dev:arm64 libsleef-dev:arm64 libcjson-dev:arm64 libpcre2-dev:arm64 libutf8proc-dev:arm64 libcmark-dev:arm64 libzmq3-dev:arm64 libssl-dev:arm64 libcmocka-dev:arm64"
TOOLS="gcc-aarch64-linux-gnu qemu-user"

command -v dpkg >/dev/null 2>&1 || { echo "install-arm64-cross: not a Debian system; the aarch64 suite will be skipped" >&2; exit 0; }
if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "install-arm64-cross: not root and no sudo; the aarch64 suite will be skipped" >&2
    exit 0
fi

missing=""
for p in $TOOLS $ARM64_LIBS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $as_root dpkg --add-architecture arm64 || exit 0
fi
echo "install-arm64-cross: installing$missing"
if ! $as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q ||
    ! $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing; then
    echo "install-arm64-cross: could not install$missing; the aarch64 suite will be skipped" >&2
fi
exit 0
