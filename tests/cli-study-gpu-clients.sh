# The GPU study's clients (scripts/study-gpu-torch.py, scripts/study-gpu-jax.py) without a GPU:
# their pytest suite (tests/study-gpu-clients/): plan checks, missing framework or device, marks,
# the correctness check's inputs and output against a plain-Python direct convolution. Debian's
# python3 with python3-pytest (python3-torch for the parts that run torch on the CPU); skips (77)
# with one line without pytest.
SRC=${ROOFTIME_SRC:?ROOFTIME_SRC names the checkout}
. "$(dirname "$0")/python-lib.sh"
need_modules pytest
cd "$SRC" || exit 1
PYTHONDONTWRITEBYTECODE=1 exec "$PY" -m pytest -q -p no:cacheprovider tests/study-gpu-clients
