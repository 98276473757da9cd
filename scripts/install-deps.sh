#!/usr/bin/env bash
# Install the Debian packages rooftime needs, only those missing; run as root (CI and `make` call it).
set -euo pipefail

# Build and test: compiler, CMake, pkg-config, JSON (jansson), tests (cmocka).
# Features: cairo (PNG/PDF charts), hwloc (cache sizes), OpenBLAS and oneDNN (study kernels),
# OpenCL + PoCL (launch-overhead benchmark), likwid (peer benchmark), chromium (report check),
# python3-torch (the PyTorch client of the study and of `rooftime profile`), clang and its
# libFuzzer runtime (the parsers' fuzz targets, tests/fuzz), Open MPI (the --mpi options, optional).
PACKAGES="build-essential cmake pkg-config libjansson-dev libcmocka-dev libcairo2-dev libhwloc-dev
libopenblas-dev libdnnl-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd likwid chromium
python3 python3-torch clang libclang-rt-14-dev libopenmpi-dev openmpi-bin"

missing=()
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "rooftime: missing Debian packages: ${missing[*]}" >&2
    echo "rooftime: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "rooftime: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
