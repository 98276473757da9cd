# Shared by the tests/*.sh scripts that run a pytest suite: PY, the python3 to run (ROOFTIME_PYTHON,
# else Debian's /usr/bin/python3), and `need_modules M...`, which skips the test (exit 77) with one
# line naming the first module PY cannot import and the Debian package that has it.
PY=${ROOFTIME_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
need_modules() {
    local m
    for m in "$@"; do
        if ! "$PY" -c "import $m" 2>/dev/null; then
            echo "skipped: $PY has no $m (Debian python3-$m; bash scripts/install-deps.sh)"
            exit 77
        fi
    done
}
