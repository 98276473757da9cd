# The Python package's pytest suite (python/tests) and the executed notebooks, against this
# build's librooftime.so (ROOFTIME_LIB, set by cmake/RooftimePython.cmake). Debian's python3 with
# python3-pytest and python3-pandas (scripts/install-deps.sh); skips (77) with one line without them.
SRC=${ROOFTIME_SRC:?ROOFTIME_SRC names the checkout}
PY=${ROOFTIME_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
for m in pytest pandas; do
    if ! "$PY" -c "import $m" 2>/dev/null; then
        echo "skipped: $PY has no $m (Debian python3-$m; bash scripts/install-deps.sh)"
        exit 77
    fi
done
cd "$SRC/python" || exit 1
exec "$PY" -m pytest -q -p no:cacheprovider tests
