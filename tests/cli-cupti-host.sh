# The Range Profiler's host side, no GPU needed: the paper's metric set (`rooftime ncu-metrics`) on
# GV100..GH100 in one configuration each (two passes), the per-precision tensor ops counters of the
# sm_80 and sm_90 lists resolved on GA100 and GH100, and an unknown metric named. Skips without CUPTI.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
CHECK=${ROOFTIME_BUILD:-.}/cupti-host-check
if [ ! -x "$CHECK" ]; then
    echo "skipped: rooftime was built without CUPTI (no CUDA toolkit found)"
    exit 77
fi
list() { "$BIN" ncu-metrics --arch "$1" | awk '/^#/ { next } /^$/ { exit } { print }'; }
METRICS=$(list sm_70)
check "the sm_70 mapping names 15 metrics" [ "$(echo "$METRICS" | wc -l)" -eq 15 ]
# shellcheck disable=SC2086
"$CHECK" $METRICS >"$TMP/out" 2>"$TMP/err"
check "every chip builds the configuration" [ $? -eq 0 ]
cat "$TMP/out" "$TMP/err"
for chip in GV100 TU102 GA100 GA102 AD102 GH100; do
    check "$chip: two passes" grep -q "^$chip: 15 metrics, config image [0-9]* bytes, 2 passes$" "$TMP/out"
done
# The tensor ops counters: every name of the sm_80 list resolves on GA100, of the sm_90 list on
# GH100; one pass per precision (the counters share one selector), 7 in all.
for pair in GA100:sm_80:20 GH100:sm_90:20; do
    chip=${pair%%:*} rest=${pair#*:} arch=${rest%%:*} n=${rest#*:}
    M=$(list "$arch")
    check "$arch: $n metrics" [ "$(echo "$M" | wc -l)" -eq "$n" ]
    check "$arch: six tensor ops counters" [ "$(echo "$M" | grep -c '^sm__ops_path_tensor_src_')" -eq 6 ]
    check "$arch: no instruction count" bash -c "! grep -q pipe_tensor <<<'$M'"
    # shellcheck disable=SC2086
    "$CHECK" --chips "$chip" $M >"$TMP/out" 2>"$TMP/err"
    check "$arch on $chip: the configuration builds" [ $? -eq 0 ]
    cat "$TMP/out" "$TMP/err"
    check "$arch on $chip: 7 passes" grep -q "^$chip: $n metrics, config image [0-9]* bytes, 7 passes$" "$TMP/out"
done
# Blackwell: GB100 (sm_100) has the FP16 pair again and FP8 only in a counter shared with FP4/FP6
# (tensor_fp4_fp6_fp8, no tensor_fp8); GB202 (sm_120) counts FP8 per destination and FP4/FP6
# together (tensor_fp4_fp6); both count FP4 alone (the block-scaled kinds: tensor_fp4). Each list
# builds on its chip.
for pair in GB100:sm_100:8 GB202:sm_120:11; do
    chip=${pair%%:*} rest=${pair#*:} arch=${rest%%:*} passes=${rest#*:}
    # shellcheck disable=SC2046
    "$CHECK" --chips "$chip" $(list "$arch") >"$TMP/out" 2>"$TMP/err"
    check "$arch on $chip: the configuration builds" [ $? -eq 0 ]
    cat "$TMP/out" "$TMP/err"
    check "$arch on $chip: $passes passes" grep -q "^$chip: [0-9]* metrics, config image [0-9]* bytes, $passes passes$" "$TMP/out"
done
# The names differ: sm_90's FP16 counter is one (no dst split), unknown before Hopper; sm_80's pair
# is unknown on GH100.
"$CHECK" --chips GA100 sm__ops_path_tensor_src_fp16.sum >/dev/null 2>"$TMP/err"
check "src_fp16 is unknown on GA100" grep -q "metric 'sm__ops_path_tensor_src_fp16.sum' is unknown" "$TMP/err"
"$CHECK" --chips GH100 sm__ops_path_tensor_src_fp16_dst_fp32.sum >/dev/null 2>"$TMP/err"
check "src_fp16_dst_fp32 is unknown on GH100" grep -q "is unknown on this chip" "$TMP/err"
# The enumeration: FP8 from AD102 on, sparsity variants on GA100, none of these on GV100.
"$CHECK" --chips GV100,GA100,AD102,GH100 --list sm__ops_path_tensor_src_ >"$TMP/list" 2>"$TMP/err"
check "the enumeration runs" [ $? -eq 0 ]
check "GA100 has bf16 sparsity_off" grep -q "^GA100 sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_off$" "$TMP/list"
check "GA100 has no fp8" bash -c "! grep -q '^GA100 sm__ops_path_tensor_src_fp8' '$TMP/list'"
check "AD102 has fp8" grep -q "^AD102 sm__ops_path_tensor_src_fp8$" "$TMP/list"
check "GH100 has fp16 without dst" grep -q "^GH100 sm__ops_path_tensor_src_fp16$" "$TMP/list"
check "GV100 has no bf16" bash -c "! grep -q '^GV100 sm__ops_path_tensor_src_bf16' '$TMP/list'"
"$CHECK" dram__bytes.sum sm__no_such_counter.sum >"$TMP/out" 2>"$TMP/err"
check "an unknown metric fails" [ $? -eq 1 ]
check "and is named" grep -q "GH100: .*metric 'sm__no_such_counter.sum' is unknown on this chip" "$TMP/err"
finish
