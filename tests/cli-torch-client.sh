# The study's PyTorch client (scripts/torch-client.py) as the study drives it: its pytest suite
# (tests/torch-client/): the go-ahead that holds a point's measured iterations until the study has
# read the previous trace. Debian's python3 with python3-pytest and python3-torch; skips (77) with
# one line without them.
SRC=${ROOFTIME_SRC:?ROOFTIME_SRC names the checkout}
. "$(dirname "$0")/python-lib.sh"
need_modules pytest torch
cd "$SRC" || exit 1
PYTHONDONTWRITEBYTECODE=1 exec "$PY" -m pytest -q -p no:cacheprovider tests/torch-client
