# The Python package's PyTorch paths on the PyPI torch 2.x of the venv scripts/install-deps.sh makes
# (tests/python-lib.sh: TORCH2_PY): rooftime.torch.profile() against `profile --torch`
# (python/tests/test_torch.py) and in a notebook run headless (nbclient, the venv's ipykernel:
# test_notebooks.py's torch notebook). Skips (77) with one line without that venv or its modules.
SRC=${ROOFTIME_SRC:?ROOFTIME_SRC names the checkout}
. "$(dirname "$0")/python-lib.sh"
need_torch2
PY=$TORCH2_PY
need_modules pytest pandas nbformat nbclient ipykernel
cd "$SRC/python" || exit 1
# one thread: the 2 cores are shared, and torch's OpenMP threads spin when both are taken
OMP_NUM_THREADS=1 exec "$PY" -m pytest -q -p no:cacheprovider tests/test_torch.py \
    "tests/test_notebooks.py::test_torch_notebook"
