# Every importer is linear in distinct kernels (issue 25): bench-scale imports 10k and 80k distinct
# kernels through torch (with the cost model), ncu, onednn and table, and fails when an import's
# CPU time(80k)/time(10k) exceeds 20 (linear: about 8; quadratic: about 64). The fastest of three
# runs of each counts, so a busy machine does not fail it.
. "$(dirname "$0")/lib.sh"

BENCH=${ROOFTIME_BUILD:-.}/bench-scale
if [ ! -x "$BENCH" ]; then
    echo "SKIP: no $BENCH (benchmarks not built)"
    exit 77
fi
"$BENCH" --import-only --repeat 3 --max-ratio 20 10000 80000 >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out"
sed 's/^/  stderr: /' "$TMP/err" | head -5
check "bench-scale --import-only exits 0 (every ratio under 20)" test "$rc" -eq 0
for imp in torch ncu onednn table; do
    check "import $imp: both sizes ran" test "$(grep -c "kernels $imp .* s CPU" "$TMP/out")" -eq 2
    check "import $imp: a ratio printed" grep -q "^import $imp time(80000)/time(10000)" "$TMP/out"
done
finish
