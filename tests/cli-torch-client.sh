# The study's PyTorch client (scripts/torch-client.py) as the study drives it: its pytest suite
# (tests/torch-client/): the go-ahead that holds a point's measured iterations until the study has
# read the previous trace. Debian's python3 with python3-pytest and python3-torch; skips (77) with
# one line without them.
SRC=${ROOFTIME_SRC:?ROOFTIME_SRC names the checkout}
PY=${ROOFTIME_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
for m in pytest torch; do
    if ! "$PY" -c "import $m" 2>/dev/null; then
        echo "skipped: $PY has no $m (Debian python3-$m; bash scripts/install-deps.sh)"
        exit 77
    fi
done
cd "$SRC" || exit 1
PYTHONDONTWRITEBYTECODE=1 exec "$PY" -m pytest -q -p no:cacheprovider tests/torch-client
