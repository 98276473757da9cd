#!/bin/bash
# `rooftime import` and `rooftime ncu-metrics` from the command line: fixtures, options, a table of bad inputs.
set -u
BIN=${ROOFTIME_BIN:?}
FIX=${ROOFTIME_FIXTURES:-}
T=$(mktemp -d /tmp/rooftime-cli-import.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# ---- ncu-metrics ----
out=$("$BIN" ncu-metrics --arch sm_80) || bad "ncu-metrics exit $?"
grep -q '^sm__cycles_elapsed.avg$' <<<"$out" || bad "ncu-metrics lacks sm__cycles_elapsed.avg"
# sm_80 on: tensor FLOPs per precision from the ops counters, no instruction count.
grep -q '^#   flops.tensor_bf16 = tensor_op_flops \* sm__ops_path_tensor_src_bf16_dst_fp32.sum$' <<<"$out" ||
    bad "ncu-metrics sm_80 tensor formulas"
grep -q '^sm__ops_path_tensor_src_fp16_dst_fp32.sum$' <<<"$out" || bad "ncu-metrics sm_80 lacks the fp16 ops counter"
grep -q 'pipe_tensor' <<<"$out" && bad "ncu-metrics sm_80 lists the instruction count"
out90=$("$BIN" ncu-metrics --arch sm_90) || bad "ncu-metrics sm_90 exit $?"
grep -q '^sm__ops_path_tensor_src_fp16.sum$' <<<"$out90" || bad "ncu-metrics sm_90 lacks src_fp16"
grep -q '^sm__ops_path_tensor_src_fp8.sum$' <<<"$out90" || bad "ncu-metrics sm_90 lacks fp8"
grep -q 'sm__ops_path_tensor_src_fp16_dst' <<<"$out90" && bad "ncu-metrics sm_90 lists sm_80's fp16 pair"
grep -q -- '--metrics sm__cycles_elapsed.avg,.*sm__ops_path_tensor_src_fp64.sum' <<<"$out90" ||
    bad "ncu-metrics sm_90: the ncu command lacks the ops counters"
grep -q '^ncu --csv --print-units base --print-kernel-base mangled --profile-from-start off --metrics sm__cycles_elapsed.avg,' <<<"$out" ||
    bad "ncu-metrics prints no ncu command"
"$BIN" ncu-metrics --arch sm_70 | grep -q '512 x' || bad "ncu-metrics sm_70 factor"
# Blackwell: GB100 (sm_100) and GB202 (sm_120) lists, with the per-precision tensor counters.
for a in sm_100 sm_120; do
    o=$("$BIN" ncu-metrics --arch $a) || bad "ncu-metrics $a exit $?"
    grep -q '^sm__ops_path_tensor_src_bf16_dst_fp32.sum$' <<<"$o" || bad "ncu-metrics $a lacks the bf16 counter"
    grep -q '^dram__bytes.sum$' <<<"$o" || bad "ncu-metrics $a lacks dram__bytes.sum"
    grep -q 'dram__bytes_read' <<<"$o" && bad "ncu-metrics $a lists the alternates set"
done
"$BIN" ncu-metrics --arch sm_120 | grep -q '^sm__ops_path_tensor_src_fp8_dst_fp32.sum$' || bad "ncu-metrics sm_120 fp8"
# FP4 alone on both; FP8 only within the mixed FP4/FP6/FP8 counter on sm_100, FP4/FP6 together on
# sm_120: no counter reports FP6 alone, and the formulas' header names the mixed units
o=$("$BIN" ncu-metrics --arch sm_100)
grep -q '^sm__ops_path_tensor_src_fp4_dst_fp32.sum$' <<<"$o" || bad "ncu-metrics sm_100 fp4"
grep -q '^sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp16.sum$' <<<"$o" || bad "ncu-metrics sm_100 fp4/fp6/fp8"
grep -q 'src_fp8_dst\|src_fp6_' <<<"$o" && bad "ncu-metrics sm_100 lists an FP8 or FP6 counter of its own"
grep -q '^#   flops.tensor_fp4_fp6_fp8 = ' <<<"$o" || bad "ncu-metrics sm_100: no tensor_fp4_fp6_fp8 formula"
o=$("$BIN" ncu-metrics --arch sm_120)
grep -q '^sm__ops_path_tensor_src_fp4_dst_fp32.sum$' <<<"$o" || bad "ncu-metrics sm_120 fp4"
grep -q '^#   flops.tensor_fp4_fp6 = ' <<<"$o" || bad "ncu-metrics sm_120: no tensor_fp4_fp6 formula"
grep -q 'src_fp6_' <<<"$o" && bad "ncu-metrics sm_120 lists an FP6 counter of its own"
"$BIN" ncu-metrics --set sectors | grep -q '^lts__t_sectors_op_read.sum$' || bad "ncu-metrics --set sectors"
"$BIN" ncu-metrics --set nosuch >/dev/null 2>&1; [ $? -eq 1 ] || bad "ncu-metrics unknown set: exit 1 expected"
"$BIN" ncu-metrics --bogus >/dev/null 2>&1; [ $? -eq 2 ] || bad "ncu-metrics bad option: exit 2 expected"

# ---- usage errors: exit 2 ----
for args in "import" "import nosuch x" "import ncu x.csv" "import ncu -o $T/u.json" \
    "import ncu --tensor-factor -3 -o $T/u.json x" "import table -o $T/u.json" \
    "import table --map bogus -o $T/u.json x.csv" "import ncu --tag novalue -o $T/u.json x"; do
    "$BIN" $args >/dev/null 2>"$T/err"
    rc=$?
    [ $rc -eq 2 ] || bad "'$args': exit $rc, expected 2"
    grep -q '^rooftime: error: ' "$T/err" || bad "'$args': no error message"
done

# ---- fixtures ----
if [ -n "$FIX" ] && [ -d "$FIX/ncu" ]; then
    D=$FIX/ncu/deepcam-pytorch-fp32-fw
    "$BIN" import ncu "$D"/out.* -o "$T/dc.json" --tag framework=pt --tag pass=fw >"$T/out" 2>"$T/err" ||
        bad "deepcam import failed: $(cat "$T/err")"
    grep -q '35 kernels, 633 launches from 12 files' "$T/out" || bad "deepcam summary: $(cat "$T/out")"
    python3 - "$T/dc.json" <<'EOF' || bad "deepcam profile content"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["schema"] == "rooftime.profile/1"
assert len(p["kernels"]) == 35
assert sum(k["invocations"] for k in p["kernels"]) == 633
assert p.get("tags", {}).get("framework") == "pt", p.get("tags")
EOF
    "$BIN" import ncu "$D"/out.* -o "$T/pl.json" --per-launch >/dev/null || bad "--per-launch failed"
    python3 -c "import json,sys; p=json.load(open(sys.argv[1])); assert len(p['kernels'])==633" "$T/pl.json" ||
        bad "--per-launch: 633 kernels expected"
    "$BIN" import ncu "$FIX/ncu/gpp-ncu2021/raw.csv" -o "$T/gpp.json" >/dev/null 2>&1 || bad "gpp import failed"
    # The authors' recipe by name; one the mapping lacks is an error naming those it has.
    "$BIN" import ncu "$D"/out.* --recipe paper -o "$T/paper.json" >/dev/null 2>&1 || bad "--recipe paper failed"
    grep -q '"recipe": "paper"' "$T/paper.json" || bad "--recipe paper: no recipe note"
    "$BIN" import ncu "$D"/out.* --recipe nosuch -o "$T/nosuch.json" >/dev/null 2>"$T/err"
    [ $? -eq 1 ] && grep -q "no recipe 'nosuch' (the mapping has nsight, paper)" "$T/err" ||
        bad "--recipe nosuch: $(cat "$T/err")"
    [ ! -e "$T/nosuch.json" ] || bad "--recipe nosuch: output file left behind"
    # ncu 2025 (sm120-llm-decode): the metrics pages import with --allow-missing, noting what was
    # missing and warning once per file about the scaled units; the section pages are refused.
    S=$FIX/ncu/sm120-llm-decode
    if [ -d "$S" ]; then
        for k in 0001 0002; do
            "$BIN" import ncu --allow-missing "$S/kernel_$k.metrics.csv" -o "$T/k$k.json" >"$T/out" 2>"$T/err" ||
                bad "sm120 kernel_$k: $(cat "$T/err")"
            grep -q '1 kernels, 1 launches from 1 file' "$T/out" || bad "sm120 kernel_$k summary: $(cat "$T/out")"
            [ "$(grep -c -- '--print-units base' "$T/err")" -eq 1 ] || bad "sm120 kernel_$k: one scaled-units warning expected"
            grep -q '"missing": "flops.fp64 (' "$T/k$k.json" || bad "sm120 kernel_$k: no note of what was missing"
            "$BIN" import ncu --allow-missing "$S/kernel_$k.roofline-section.csv" -o "$T/s$k.json" >/dev/null 2>"$T/err"
            [ $? -eq 1 ] || bad "sm120 section page $k: exit 1 expected"
            grep -q "^rooftime: error: $S/kernel_$k.roofline-section.csv: a section page (column 'Body Item Label')" "$T/err" &&
                grep -q 'rooftime ncu-metrics --arch sm_120' "$T/err" || bad "sm120 section page $k: $(cat "$T/err")"
            [ ! -e "$T/s$k.json" ] || bad "sm120 section page $k: output file left behind"
        done
        # without --allow-missing too, the profile notes what no counter gave, and analyze says
        # those FLOPs are absent, not zero (the GEMV's FP32 work was never counted)
        "$BIN" import ncu "$S/kernel_0001.metrics.csv" -o "$T/plain.json" >/dev/null 2>&1 ||
            bad "sm120 kernel_0001 without --allow-missing: exit 0 expected"
        grep -q '"missing": "flops.fp64 (' "$T/plain.json" || bad "sm120 without --allow-missing: no note"
        "$BIN" analyze -m rtx-pro-6000 "$T/plain.json" >"$T/out" 2>/dev/null
        grep -q "^missing: profile 1: flops.fp64 (.*flops.fp32 (sm__sass_thread_inst_executed_op_fadd_pred_on.sum absent).*absent, not zero" \
            "$T/out" || bad "sm120: analyze does not say what is missing: $(tail -3 "$T/out")"
        # two ncu runs of one kernel each, the same metrics: no join pairs them, and the error
        # says they look like separate runs and what to do instead
        "$BIN" import ncu "$S/kernel_0001.metrics.csv" "$S/kernel_0002.metrics.csv" -o "$T/both.json" \
            >/dev/null 2>"$T/err"
        [ $? -eq 1 ] && [ ! -e "$T/both.json" ] || bad "sm120 two runs: exit 1 and no file expected"
        grep -q "Both files hold the same metrics: they look like separate ncu runs, .*import each on its own" \
            "$T/err" || bad "sm120 two runs: $(cat "$T/err")"
    fi
    for t in conv2d-pt conv2d-tf1-noxla conv2d-tf2-noxla rnn1d-pt; do
        "$BIN" import table "$FIX/paper-tables/$t.main.csv" --ai-file "$FIX/paper-tables/$t.l2-l1-ai.csv" \
            -o "$T/$t.json" >"$T/out" 2>"$T/err" || bad "table $t: $(cat "$T/err")"
        # The mapping it chose is printed.
        grep -q "^columns: time = 'CUDA Time', invocations = 'Invocations'," "$T/out" &&
            grep -q "^tags: Precision, " "$T/out" && grep -q "^not used: FP32 FLOPs Fraction" "$T/out" ||
            bad "table $t: mapping not printed: $(cat "$T/out")"
    done
    # One metric file missing a launch: error names both files, no output; --allow-missing: warning.
    mkdir "$T/miss"
    cp "$D"/out.* "$T/miss/"
    head -n -1 "$T/miss/out.dram__bytes.sum" >"$T/miss/x" && mv "$T/miss/x" "$T/miss/out.dram__bytes.sum"
    "$BIN" import ncu "$T/miss"/out.* -o "$T/miss.json" >/dev/null 2>"$T/err"
    rc=$?
    [ $rc -eq 1 ] || bad "missing launch: exit $rc, expected 1"
    grep -q 'out.dram__bytes.sum' "$T/err" && grep -q 'out.l1tex__t_bytes.sum' "$T/err" ||
        bad "missing launch: both files not named: $(cat "$T/err")"
    [ ! -e "$T/miss.json" ] || bad "missing launch: output file left behind"
    "$BIN" import ncu "$T/miss"/out.* -o "$T/miss.json" --allow-missing >/dev/null 2>"$T/err" ||
        bad "--allow-missing failed: $(cat "$T/err")"
    grep -q 'warning: .*missing from' "$T/err" || bad "--allow-missing: no warning"
fi

# ---- bad input: table of (name, file contents, expected message); exit 1, file and line, no output ----
H='"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
R='"0","1","a","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","7.0","S"'
R1="$R,\"sm__cycles_elapsed.avg\",\"cycle\",\"100\""
R2="$R,\"sm__cycles_elapsed.avg.per_second\",\"cycle/second\",\"1000\""
printf '%s\n%s\n%s\n' "$H" "$R1" "${R2:0:60}" >"$T/truncated.csv"
printf '%s\n' "$H" >"$T/header-only.csv"
printf '%s\n%s\n%s\n' "$H" "$R1" '"0","1","a","h","k","1","7"' >"$T/missing-fields.csv"
printf '%s\n%s\n%s\n' "$H" "$R1" "$R,\"sm__cycles_elapsed.avg.per_second\",\"parsec\",\"1\"" >"$T/unknown-unit.csv"
printf '%s\n%s\n%s\n' "$H" "$R1" "$R,\"sm__cycles_elapsed.avg.per_second\",\"hz\",\"12abc\"" >"$T/non-numeric.csv"
head -c 20000 /dev/urandom >"$T/garbage.csv"
printf '%s\n%s\n' "$R1" "$R2" >"$T/no-header.csv"
printf 'some program output\n==PROF== Disconnected\n' >"$T/no-table.csv"
# ncu 2025's layout: rule columns after Metric Value, which a metric row leaves out; a row that
# stops before Metric Value is still an error.
H20="$H"',"Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"'
printf '%s\n%s,\n%s\n' "$H20" "$R1" "$R,\"sm__cycles_elapsed.avg.per_second\",\"hz\"" >"$T/short-2025.csv"
printf '%s\n%s,\n%s,\n' "$H" "$R1" "$R2" >"$T/long-row.csv"
check_bad() { # name expected-regex
    local f=$T/$1.csv
    "$BIN" import ncu "$f" -o "$T/bad.json" >/dev/null 2>"$T/err"
    local rc=$?
    [ $rc -eq 1 ] || bad "$1: exit $rc, expected 1"
    grep -q "^rooftime: error: $f" "$T/err" || bad "$1: message does not start with the file: $(cat "$T/err")"
    grep -Eq "$2" "$T/err" || bad "$1: message lacks /$2/: $(cat "$T/err")"
    [ ! -e "$T/bad.json" ] || bad "$1: output file left behind"
    ls "$T"/bad.json.tmp.* >/dev/null 2>&1 && bad "$1: temporary file left behind"
}
check_bad truncated 'line 3: .*(truncated|not closed)'
check_bad header-only 'line 2: no data rows'
check_bad missing-fields 'line 3: expected 15 fields'
check_bad unknown-unit "line 3: .*unknown unit 'parsec'"
check_bad non-numeric "line 3: field 'Metric Value': '12abc' is not a number"
check_bad garbage 'line [0-9]+'
check_bad no-header 'line [0-9]+ \(the end, after [0-9]+ lines of other output\): no Nsight Compute table header'
check_bad no-table 'line 3 \(the end, after 2 lines of other output\): no Nsight Compute table header'
check_bad short-2025 'line 3: expected 20 fields as in the header, or at least 15 .*found 14'
check_bad long-row 'line 2: expected 15 fields as in the header, found 16'

# Tables: the same kinds of damage.
printf ',,Invocations\nA,B,\nx,1,2\n' >"$T/t-notime.csv"
printf 'Name,CUDA Time,Invocations\n' >"$T/t-header.csv"
printf 'Name,CUDA Time,Invocations\nk,0.5,3\nk2,0.25\n' >"$T/t-missing.csv"
printf 'Name,CUDA Time,Invocations\nk,0.5x,3\n' >"$T/t-nonnum.csv"
printf '1,2,3\n4,5,6\n' >"$T/t-noheader.csv"
printf 'Name,CUDA Time,Invocations\n"k,0.5,3\n' >"$T/t-trunc.csv"
check_table() { # name expected-regex
    "$BIN" import table "$T/$1.csv" -o "$T/bad.json" >/dev/null 2>"$T/err"
    local rc=$?
    [ $rc -eq 1 ] || bad "$1: exit $rc, expected 1"
    grep -Eq "$2" "$T/err" || bad "$1: message lacks /$2/: $(cat "$T/err")"
    [ ! -e "$T/bad.json" ] || bad "$1: output file left behind"
}
check_table t-notime 'no time column'
check_table t-header 'line 2: a header but no data rows'
check_table t-missing 'line 3: expected 3 fields'
check_table t-nonnum "line 2: column 'CUDA Time': '0.5x' is not a number"
check_table t-noheader 'line 1: no header row'
check_table t-trunc 'line 2: .*not closed'
"$BIN" import table "$T/garbage.csv" -o "$T/bad.json" >/dev/null 2>"$T/err"
[ $? -eq 1 ] || bad "table garbage: exit 1 expected"
[ ! -e "$T/bad.json" ] || bad "table garbage: output left behind"

exit $fail
