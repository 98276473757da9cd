# The GPU study's clients (scripts/study-gpu-torch.py, scripts/study-gpu-jax.py) without a GPU:
# their pytest suite (tests/study-gpu-clients/): plan checks, missing framework or device, marks,
# the correctness check's inputs and output against a plain-Python direct convolution. Debian's
# python3 with python3-pytest (python3-torch for the parts that run torch on the CPU); skips (77)
# with one line without pytest.
SRC=${ROOFTIME_SRC:?ROOFTIME_SRC names the checkout}
PY=${ROOFTIME_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
if ! "$PY" -c "import pytest" 2>/dev/null; then
    echo "skipped: $PY has no pytest (Debian python3-pytest; bash scripts/install-deps.sh)"
    exit 77
fi
cd "$SRC" || exit 1
PYTHONDONTWRITEBYTECODE=1 exec "$PY" -m pytest -q -p no:cacheprovider tests/study-gpu-clients
