# docs/ci-gate.md's CI example, run as written: each block after a `<!-- ci-example: NAME -->`
# line, by bash, in a scratch workspace holding the gate's workload as step.py, with this build's
# rooftime on PATH and PYTHON=/usr/bin/python3 (Debian's torch). The verdict is the machine's: the
# test checks the exit status is the one the verdict line gives and the files are whole, and
# prints the verdict. Skipped with a message when /usr/bin/python3 cannot import torch.
. "$(dirname "$0")/lib.sh"
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 cannot import torch"
    exit 77
fi
DOC=$SRC/docs/ci-gate.md
# block NAME: the fenced block after the marker, as written
block() {
    awk -v want="<!-- ci-example: $1 -->" '
        $0 == want { found = 1; next }
        found == 1 && /^```/ { found = 2; next }
        found == 2 && /^```/ { exit }
        found == 2 { print }' "$DOC"
}
for b in baseline gate; do
    block "$b" >"$TMP/$b.sh"
    check "the doc has the '$b' block" test -s "$TMP/$b.sh"
done
W=$TMP/ws
mkdir -p "$W"
cp "$SRC/tests/data/gate/step.py" "$W/step.py"
BINDIR=$(cd "$(dirname "$BIN")" && pwd)
run_block() { (cd "$W" && PATH="$BINDIR:$PATH" PYTHON=/usr/bin/python3 bash "$TMP/$1.sh") >"$TMP/$1.out" 2>"$TMP/$1.err"; }
run_block baseline
check "baseline: exit 0 ($(tail -2 "$TMP/baseline.err"))" test $? -eq 0
check "baseline: five runs kept" test "$(ls "$W"/perf/baseline/run-*.json | wc -l)" -eq 5
run_block gate
rc=$?
verdict=$(grep '^gate: ' "$TMP/gate.out")
echo "  the example's gate on this machine: exit $rc; $verdict"
grep -E '^(FAIL|UNJUDGED|note)' "$TMP/gate.out" | sed 's/^/  /' | head -8
check "gate: three runs after" test "$(ls "$W"/perf/after/run-*.json | wc -l)" -eq 3
case $verdict in
"gate: pass: "*) want=0 ;;
*) want=1 ;;
esac
check "gate: the exit status is the verdict's ($rc, want $want)" test "$rc" -eq "$want"
check "gate: BEFORE 5 runs, AFTER 3" sh -c "echo '$verdict' | grep -q 'BEFORE 5 runs, AFTER 3 runs$'"
python3 -c 'import sys, xml.etree.ElementTree as E; s = E.parse(sys.argv[1]).getroot().find("testsuite"); assert int(s.get("tests")) > 0' "$W/perf/gate.xml"
check "gate: perf/gate.xml is JUnit XML with test cases" test $? -eq 0
check "gate: perf/gate.md has the verdict" grep -q "^### rooftime diff --gate: \(pass\|FAIL\)" "$W/perf/gate.md"
finish
