# The Python package's pytest suite (python/tests) and the executed notebooks, against this
# build's librooftime.so (ROOFTIME_LIB, set by cmake/RooftimePython.cmake). Debian's python3 with
# python3-pytest and python3-pandas (scripts/install-deps.sh); skips (77) with one line without them.
SRC=${ROOFTIME_SRC:?ROOFTIME_SRC names the checkout}
. "$(dirname "$0")/python-lib.sh"
need_modules pytest pandas
cd "$SRC/python" || exit 1
exec "$PY" -m pytest -q -p no:cacheprovider tests
