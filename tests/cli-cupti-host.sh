# The Range Profiler's host side, no GPU needed: the paper's metric set (`rooftime ncu-metrics`) on
# GV100..GH100 in one configuration each (two passes), and an unknown metric named. Skips without CUPTI.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
CHECK=${ROOFTIME_BUILD:-.}/cupti-host-check
if [ ! -x "$CHECK" ]; then
    echo "skipped: rooftime was built without CUPTI (no CUDA toolkit found)"
    exit 77
fi
METRICS=$("$BIN" ncu-metrics --arch sm_90 | awk 'NR > 2 && /^$/ { exit } NR > 2 { print }')
check "the mapping names 15 metrics" [ "$(echo "$METRICS" | wc -l)" -eq 15 ]
# shellcheck disable=SC2086
"$CHECK" $METRICS >"$TMP/out" 2>"$TMP/err"
check "every chip builds the configuration" [ $? -eq 0 ]
cat "$TMP/out" "$TMP/err"
for chip in GV100 TU102 GA100 GA102 AD102 GH100; do
    check "$chip: two passes" grep -q "^$chip: 15 metrics, config image [0-9]* bytes, 2 passes$" "$TMP/out"
done
"$CHECK" dram__bytes.sum sm__no_such_counter.sum >"$TMP/out" 2>"$TMP/err"
check "an unknown metric fails" [ $? -eq 1 ]
check "and is named" grep -q "GH100: .*metric 'sm__no_such_counter.sum' is unknown on this chip" "$TMP/err"
finish
