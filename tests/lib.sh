# Shared by the tests/cli-*.sh scripts: the binary, a scratch directory, and expectations.
set -u
BIN=${ROOFTIME_BIN:-./rooftime}
SRC=${ROOFTIME_SRC:-..}
export LC_ALL=C
TMP=$(mktemp -d /tmp/rooftime-cli-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
PASSES=0

# expect CODE PATTERN -- ARGS...: run rooftime ARGS, check the exit code and that stderr matches PATTERN.
expect() {
    local code=$1 pattern=$2
    shift 3
    "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    if [ "$got" -ne "$code" ]; then
        echo "FAIL: rooftime $* -> exit $got, expected $code"; sed 's/^/  stderr: /' "$TMP/err" | head -5
        FAILS=$((FAILS + 1)); return
    fi
    if [ -n "$pattern" ] && ! grep -qE -- "$pattern" "$TMP/err"; then
        echo "FAIL: rooftime $* -> stderr lacks /$pattern/"; sed 's/^/  stderr: /' "$TMP/err" | head -5
        FAILS=$((FAILS + 1)); return
    fi
    PASSES=$((PASSES + 1))
}

# check CONDITION-COMMAND... DESCRIPTION: a plain assertion.
check() {
    local desc=$1
    shift
    if "$@"; then PASSES=$((PASSES + 1)); else echo "FAIL: $desc"; FAILS=$((FAILS + 1)); fi
}

# golden_compare NAME EXIT: $TMP/NAME (written by a command that exited EXIT) against
# $SRC/tests/golden/NAME; ROOFTIME_REGEN=1 rewrites the golden first.
golden_compare() {
    local name=$1 rc=$2 g=$SRC/tests/golden/$1
    check "$name: exit 0" test "$rc" -eq 0
    if [ "${ROOFTIME_REGEN:-0}" = 1 ]; then
        cp "$TMP/$name" "$g"
        echo "regenerated $g"
    fi
    if ! diff -u "$g" "$TMP/$name" >"$TMP/golden.diff"; then
        echo "FAIL: $name differs from $g"; head -30 "$TMP/golden.diff"
        FAILS=$((FAILS + 1))
    else
        PASSES=$((PASSES + 1))
    fi
}

finish() {
    echo "$PASSES passed, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}

# json FILE PYTHON-EXPRESSION: evaluate with p = the loaded profile (ks its kernels, notes its
# provenance notes, op(k) a kernel's operator, has(k, "flops"), share("uncovered") a percentage of
# the torch cost model's coverage note); exit status from its truth.
json() {
    python3 - "$1" "$2" <<'PY'
import json, re, sys
p = json.load(open(sys.argv[1]))
ks = p["kernels"]
def op(k): return k["name"].split(" ")[0]
def has(k, what): return sum(k.get(what, {}).values()) > 0
notes = p.get("provenance", {}).get("notes", {})
def share(what):
    return float(re.search(r"([0-9.]+)% " + what, notes["torch_coverage"]).group(1))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
