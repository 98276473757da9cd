# Every PyTorch path on the PyPI torch 2.x (Kineto) that scripts/install-deps.sh installs into a venv
# (tests/python-lib.sh: TORCH2_PY, ROOFTIME_TORCH2_PYTHON to name another): tests/torch-matrix.sh.
. "$(dirname "$0")/python-lib.sh"
TPY=$TORCH2_PY
GEN=2
SKIP_HOW="no PyPI torch in a venv at $TORCH2_PY; bash scripts/install-deps.sh as root makes it"
. "$(dirname "$0")/torch-matrix.sh"
