#!/usr/bin/env bash
# Install the Debian packages rooftime needs, only those missing; run as root (CI and `make` call it).
set -euo pipefail

# Build and test: compiler, CMake, pkg-config, JSON (jansson), tests (cmocka).
# Features: cairo (PNG/PDF charts), hwloc (cache sizes), OpenBLAS and oneDNN (study kernels),
# OpenCL + PoCL (launch-overhead benchmark), likwid (peer benchmark), chromium (report check),
# python3-torch (the PyTorch client of the study and of `rooftime profile`), clang and its
# libFuzzer runtime (the parsers' fuzz targets, tests/fuzz), Open MPI (the --mpi options, optional),
# python3-pip (to fetch NVRTC 12 from PyPI, below), python3-pandas, python3-pytest, python3-nbclient and
# python3-ipykernel (the Python package's tests and the notebooks, python/ and examples/*.ipynb).
PACKAGES="build-essential cmake pkg-config libjansson-dev libcmocka-dev libcairo2-dev libhwloc-dev
libopenblas-dev libdnnl-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd likwid chromium
python3 python3-pip python3-torch clang libclang-rt-14-dev libopenmpi-dev openmpi-bin
python3-pandas python3-pytest python3-nbclient python3-ipykernel python3-venv"

# NVRTC 12 from PyPI (nvidia-cuda-nvrtc-cu12): NVRTC 13 dropped sm_70, so the GPU probe's kernels are
# compiled for the V100 with it in tests/test-gpu-nvrtc.c (ROOFTIME_NVRTC_OLD). Optional: without it
# that test says it skipped sm_70.
NVRTC_OLD_DIR=${ROOFTIME_NVRTC_OLD_DIR:-/var/cache/rooftime/nvrtc12}
NVRTC_OLD_WHEEL="nvidia-cuda-nvrtc-cu12==12.9.86"
nvrtc_old() {
    [ -f "$NVRTC_OLD_DIR/libnvrtc.so.12" ] && return 0
    [ "$(id -u)" -eq 0 ] || { echo "rooftime: no NVRTC 12 in $NVRTC_OLD_DIR (run as root to fetch $NVRTC_OLD_WHEEL)" >&2; return 0; }
    local tmp
    tmp=$(mktemp -d)
    echo "rooftime: fetching $NVRTC_OLD_WHEEL (PyPI) into $NVRTC_OLD_DIR" >&2
    if /usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "$NVRTC_OLD_WHEEL" &&
        mkdir -p "$NVRTC_OLD_DIR" &&
        /usr/bin/python3 - "$tmp" "$NVRTC_OLD_DIR" <<'PY'
import glob, os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
(wheel,) = glob.glob(os.path.join(src, "*.whl"))
with zipfile.ZipFile(wheel) as z:
    for n in z.namelist():
        base = os.path.basename(n)
        if base == "libnvrtc.so.12" or (base.startswith("libnvrtc-builtins.so.12") and ".alt." not in base):
            with z.open(n) as i, open(os.path.join(dst, base + ".part"), "wb") as o:
                o.write(i.read())
            os.rename(os.path.join(dst, base + ".part"), os.path.join(dst, base))
PY
    then
        echo "rooftime: NVRTC 12 in $NVRTC_OLD_DIR" >&2
    else
        echo "rooftime: could not fetch $NVRTC_OLD_WHEEL: test-gpu-nvrtc will skip sm_70" >&2
    fi
    rm -rf "$tmp"
}

missing=()
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    nvrtc_old
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
nvrtc_old
