#!/usr/bin/env bash
# Install the Debian packages rooftime needs, only those missing; run as root (CI and `make` call it).
set -euo pipefail

# Build and test: compiler, CMake, pkg-config, JSON (jansson), gzip (zlib: traces read as .json.gz),
# GCC's demangler (libiberty, static: util/demangle.c), tests (cmocka).
# Features: cairo (PNG/PDF charts), hwloc (cache sizes), OpenBLAS and oneDNN (study kernels),
# OpenCL + PoCL (launch-overhead benchmark), likwid (peer benchmark), chromium (report check),
# python3-torch (the PyTorch client of the study and of `rooftime profile`), clang and its
# libFuzzer runtime (the parsers' fuzz targets, tests/fuzz), Open MPI (the --mpi options, optional),
# python3-pip (to fetch NVRTC 12 from PyPI, below), python3-pandas, python3-pytest, python3-nbclient and
# python3-ipykernel (the Python package's tests and the notebooks, python/ and examples/*.ipynb).
PACKAGES="build-essential cmake pkg-config libjansson-dev zlib1g-dev libiberty-dev libcmocka-dev libcairo2-dev libhwloc-dev
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

# PyTorch 2.x from PyPI, beside Debian's 1.13: the tests run every torch path on both. The PyPI wheel is
# the CUDA build; on a machine without a GPU it imports once the NVIDIA libraries it links at load time
# are present: cuFile, cuSPARSELt, NVSHMEM and NCCL (wheels, installed with --no-deps so that pip does
# not fetch the 3 GB CUDA runtime it would pull in), plus cuBLAS/cuDNN/CUDA runtime, which it finds
# through the loader (the CUDA toolkit's lib64 in ld.so.conf, or LD_LIBRARY_PATH). torch's pure-Python
# requirements come with their own dependencies; pandas, pytest, nbclient and ipykernel for the
# package's tests and the notebook. A venv of its own (no system site-packages: Debian's numpy 1.x
# modules would not load beside numpy 2), cached in TORCH2_VENV between runs; tests find it there
# (tests/python-lib.sh, ROOFTIME_TORCH2_PYTHON). Optional: without it those tests say they skipped.
TORCH2_VENV=${ROOFTIME_TORCH2_VENV:-/var/cache/rooftime/torch2}
TORCH2_WHEEL="torch==2.15.0"
TORCH2_NVIDIA="nvidia-cufile==1.20.0.107 nvidia-cusparselt-cu13==0.8.1 nvidia-nccl-cu13==2.30.7 nvidia-nvshmem-cu13==3.7.2"
TORCH2_PURE="filelock fsspec jinja2 networkx sympy typing-extensions>=4.13 setuptools>=77 numpy pandas pytest nbclient ipykernel"
torch2() {
    local py="$TORCH2_VENV/bin/python"
    [ -f "$TORCH2_VENV/.rooftime-ready" ] && "$py" -c 'import torch' 2>/dev/null && return 0
    [ "$(id -u)" -eq 0 ] || { echo "rooftime: no PyTorch 2.x venv in $TORCH2_VENV (run as root to make it)" >&2; return 0; }
    echo "rooftime: installing $TORCH2_WHEEL (PyPI) into $TORCH2_VENV (a few minutes, once)" >&2
    rm -rf "$TORCH2_VENV"
    if /usr/bin/python3 -m venv "$TORCH2_VENV" &&
        "$py" -m pip install --quiet --disable-pip-version-check --no-deps "$TORCH2_WHEEL" $TORCH2_NVIDIA &&
        "$py" -m pip install --quiet --disable-pip-version-check $TORCH2_PURE &&
        "$py" -c 'import torch; torch.ones(2) @ torch.ones(2)'; then
        touch "$TORCH2_VENV/.rooftime-ready"
        echo "rooftime: $("$py" -c 'import torch; print("torch", torch.__version__)') in $TORCH2_VENV" >&2
    else
        echo "rooftime: could not install $TORCH2_WHEEL: the torch 2.x tests will skip" >&2
    fi
}

# --torch2-python: print that venv's python when it is made and imports torch (`make demo` runs the
# study's PyTorch on it), nothing otherwise; installs nothing.
if [ "${1:-}" = --torch2-python ]; then
    [ -f "$TORCH2_VENV/.rooftime-ready" ] && "$TORCH2_VENV/bin/python" -c 'import torch' 2>/dev/null &&
        echo "$TORCH2_VENV/bin/python"
    exit 0
fi

missing=()
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    nvrtc_old
    torch2
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
torch2
