#!/bin/sh
# Regenerates tests/data/torch/*.txt: PyTorch's own random numbers, for tests/c/test_rng.c.
# Uses Debian's python3-torch (a build without MKL, so dropout shows the "default" Bernoulli flavour)
# and Debian's /usr/bin/python3, not whatever python3 is first on PATH. Installs the package if missing
# (as root, or through sudo). Run from anywhere; writes into the repository.
set -eu

cd "$(dirname "$0")/.."

if ! dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q "install ok installed"; then
    if [ "$(id -u)" -eq 0 ]; then
        as_root=""
    elif command -v sudo >/dev/null 2>&1; then
        as_root="sudo"
    else
        echo "gen-torch-reference: python3-torch is missing; run as root or install sudo" >&2
        exit 1
    fi
    echo "gen-torch-reference: installing python3-torch (a few minutes)"
    $as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-torch
fi

# One thread and no user site-packages: the numbers must come from Debian's torch alone. The kernels
# must be the vectorised ones (see the CPU capability check in the script), so no override of them.
unset ATEN_CPU_CAPABILITY
OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1 /usr/bin/python3 -s scripts/gen_torch_reference.py tests/data/torch
