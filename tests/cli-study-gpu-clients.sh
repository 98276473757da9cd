# The GPU study's clients (scripts/study-gpu-torch.py, scripts/study-gpu-jax.py) without a GPU:
# their pytest suite (tests/study-gpu-clients/): plan checks, missing framework or device, marks,
# the correctness check's inputs and output against a plain-Python direct convolution. Debian's
# python3 with python3-pytest (python3-torch for the parts that run torch on the CPU); skips (77)
# with one line without pytest. Then the same suite on the PyTorch 2.x of scripts/install-deps.sh
# (TORCH2_PY; the GPU machine runs 2.11), where it is installed with pytest.
SRC=${ROOFTIME_SRC:?ROOFTIME_SRC names the checkout}
. "$(dirname "$0")/python-lib.sh"
need_modules pytest
cd "$SRC" || exit 1
PYTHONDONTWRITEBYTECODE=1 "$PY" -m pytest -q -p no:cacheprovider tests/study-gpu-clients || exit 1
if "$TORCH2_PY" -c "import torch, pytest" 2>/dev/null; then
    echo "again on $("$TORCH2_PY" -c 'import torch; print("torch", torch.__version__)'):"
    PYTHONDONTWRITEBYTECODE=1 exec "$TORCH2_PY" -m pytest -q -p no:cacheprovider tests/study-gpu-clients
fi
echo "note: no PyTorch 2.x with pytest at $TORCH2_PY: the suite ran on $PY only"
