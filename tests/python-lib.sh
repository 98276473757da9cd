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
# The PyTorch 2.x that scripts/install-deps.sh installs into a venv of its own (ROOFTIME_TORCH2_PYTHON to
# name another); `need_torch2` skips the test (exit 77) with one line when it is absent.
TORCH2_PY=${ROOFTIME_TORCH2_PYTHON:-/var/cache/rooftime/torch2/bin/python}
need_torch2() {
    if ! "$TORCH2_PY" -c "import torch" 2>/dev/null; then
        echo "skipped: no PyTorch 2.x at $TORCH2_PY (bash scripts/install-deps.sh as root makes it)"
        exit 77
    fi
}
