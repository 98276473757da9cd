# scripts/gpu-acceptance.sh without a GPU: a usage error exits 2; no nvidia-smi, or no rooftime
# binary, exits 1 with one line naming what is missing; and with a stand-in nvidia-smi but no
# driver every stage fails fast and the script still writes gpu-acceptance.json (each check with
# figure, bound and "pass": false), summary.txt and evidence.tar.gz, then exits 1.
. "$(dirname "$0")/lib.sh"
SCRIPT=$SRC/scripts/gpu-acceptance.sh
ABS_BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

run() { # run CODE ARGS...: the script's exit code must be CODE
    local code=$1
    shift
    "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    if [ "$got" -ne "$code" ]; then
        echo "FAIL: $* -> exit $got, expected $code"; sed 's/^/  stderr: /' "$TMP/err" | head -5
        FAILS=$((FAILS + 1))
    else
        PASSES=$((PASSES + 1))
    fi
}

run 2 bash "$SCRIPT"
check "usage named" grep -q "usage: scripts/gpu-acceptance.sh OUTDIR" "$TMP/err"
# The boxes of the selected groups must fit the budget; unknown groups and bad boxes are refused.
GPU_ACCEPTANCE_BUDGET=120 run 2 bash "$SCRIPT" "$TMP/o0"
check "over the budget: said with the sum" grep -q "add up to 330 s, over the 120 s budget" "$TMP/err"
GPU_ACCEPTANCE_STAGES="measure warp" run 2 bash "$SCRIPT" "$TMP/o0"
check "an unknown group named" grep -q "unknown group 'warp' (known: measure selfcheck" "$TMP/err"
GPU_ACCEPTANCE_BOX_study=x run 2 bash "$SCRIPT" "$TMP/o0"
check "a box that is no number" grep -q "GPU_ACCEPTANCE_BOX_study: seconds, got 'x'" "$TMP/err"
GPU_ACCEPTANCE_STAGES=study GPU_ACCEPTANCE_BOX_study=400 run 2 bash "$SCRIPT" "$TMP/o0"
check "one group's box over the budget" grep -q "'study' add up to 400 s, over the 340 s budget" "$TMP/err"
GPU_ACCEPTANCE_NCU_CLOCK=locked run 2 bash "$SCRIPT" "$TMP/o0"
check "an ncu clock control that is none" grep -q "GPU_ACCEPTANCE_NCU_CLOCK: none or base, got 'locked'" "$TMP/err"
GPU_ACCEPTANCE_SLOW=0 run 2 bash "$SCRIPT" "$TMP/o0"
check "a slowness factor that is none" grep -q "GPU_ACCEPTANCE_SLOW: a factor from 1 to 99, got '0'" "$TMP/err"
check "nothing written on a usage error" test ! -e "$TMP/o0"

if ! command -v nvidia-smi >/dev/null 2>&1; then
    run 1 bash "$SCRIPT" "$TMP/o1"
    check "names nvidia-smi" grep -qx "gpu-acceptance: no NVIDIA GPU: nvidia-smi not found" "$TMP/err"
    check "one line" test "$(wc -l <"$TMP/err")" -eq 1
    check "nothing written" test ! -e "$TMP/o1/gpu-acceptance.json"
else
    echo "note: nvidia-smi exists here: the no-GPU check is skipped"
fi

# A stand-in nvidia-smi: the script goes on to its next need
mkdir -p "$TMP/bin"
# (one that refuses the full query, as a driver that lacks one of its fields would: the script
# asks again for the name and driver alone)
cat >"$TMP/bin/nvidia-smi" <<'SH'
#!/bin/sh
case "$*" in
*compute_cap*) echo "Field \"compute_cap\" is not a valid field to query." >&2; exit 2 ;;
*) echo "NVIDIA Stand-in, 000.00" ;;
esac
SH
chmod +x "$TMP/bin/nvidia-smi"
PATH=$TMP/bin:$PATH ROOFTIME_BIN=/nonexistent/rooftime run 1 bash "$SCRIPT" "$TMP/o2"
check "names the binary" grep -q "^gpu-acceptance: no rooftime binary: run scripts/gpu-carry.sh" "$TMP/err"
check "one line" test "$(wc -l <"$TMP/err")" -eq 1

if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    PATH=$TMP/bin:$PATH ROOFTIME_BIN=$ABS_BIN ROOFTIME_DATADIR=$SRC/data \
        run 1 bash "$SCRIPT" "$TMP/o3"
    J=$TMP/o3/gpu-acceptance.json
    check "json written" test -s "$J"
    check "summary written" test -s "$TMP/o3/summary.txt"
    check "evidence packed" sh -c "tar -tzf '$TMP/o3/evidence.tar.gz' | grep -qx evidence/measure.log"
    check "three files, no more" test "$(ls "$TMP/o3" | wc -l)" -eq 3
    check "json shape" python3 - "$J" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "rooftime.gpu-acceptance/1"
assert d["gpu"] == {"name": "NVIDIA Stand-in", "driver": "000.00"}, d["gpu"]
assert d["all_pass"] is False and d["failed"] > 0
names = [c["check"] for c in d["checks"]]
for c in d["checks"]:
    assert set(["check", "figure", "bound", "pass"]) <= set(c), c
    assert c["pass"] is False, c
for want in ["stage measure", "stage selfcheck", "wgmma ceiling tensor_fp16",
             "wgmma ceiling tensor_int8", "torch.matmul kernels below their roofs",
             "HBM bytes bw_read: collector / ncu (base)", "CNN step: collector against ncu"]:
    assert want in names, want
stages = {s["stage"]: s for s in d["stages"]}
assert stages["measure"]["exit"] == 1, stages
PY
    check "the measure log says why" tar -xzOf "$TMP/o3/evidence.tar.gz" evidence/measure.log |
        grep -q "no NVIDIA driver"
else
    echo "note: a CUDA driver is installed here: the stand-in run is skipped"
fi
# What ncu is given, through a stand-in ncu that records it: --metrics is exactly the metric
# names `ncu-metrics --arch sm_90` lists (no comment or sample shell line of its output), and a
# carried build's libraries reach ncu's runs without the carried CUPTI and perfworks (ncu brings
# its own). The carry is laid out as scripts/gpu-carry.sh does, with stand-in library files.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    C=$TMP/c/.carry/rooftime
    mkdir -p "$C/bin" "$C/lib"
    ln -s "$ABS_BIN" "$C/bin/rooftime"
    # stand-ins for the CUPTI files; the real jansson, which the binary loads from there
    : >"$C/lib/libcupti.so.13"
    : >"$C/lib/libnvperf_host.so"
    jansson=$(ldd "$ABS_BIN" | awk '$1 == "libjansson.so.4" {print $3}')
    ln -s "${jansson:-/nonexistent}" "$C/lib/libjansson.so.4"
    # (with NCU_DENY=1 it says what ncu says without the rights to the counters, exit 0; with
    # NCU_TABLE=1 it prints a CSV table's header, then exits 1 as a failing target makes ncu do)
    cat >"$TMP/bin/ncu" <<SH
#!/bin/sh
printf 'LD_LIBRARY_PATH=%s\n' "\$LD_LIBRARY_PATH" >>"$TMP/ncu-calls"
ls "\${LD_LIBRARY_PATH%%:*}" | sed 's/^/lib=/' >>"$TMP/ncu-calls"
while [ \$# -gt 0 ]; do
    [ "\$1" = --metrics ] && printf 'metrics=%s\n' "\$2" >>"$TMP/ncu-calls"
    [ "\$1" = --clock-control ] && printf 'clock=%s\n' "\$2" >>"$TMP/ncu-calls"
    shift
done
if [ "\${NCU_TABLE:-}" = 1 ]; then
    echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
fi
if [ "\${NCU_DENY:-}" = 1 ]; then
    echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0."
    exit 0
fi
exit 1
SH
    chmod +x "$TMP/bin/ncu"
    PATH=$TMP/bin:$PATH ROOFTIME_BIN=$C/bin/rooftime ROOFTIME_DATADIR=$SRC/data \
        run 1 bash "$SCRIPT" "$TMP/o5"
    # by default the clocks are left alone: ncu-base, ncu-none, ncu-cnn, each once, all none
    check "ncu ran three times" test "$(grep -c '^metrics=' "$TMP/ncu-calls" 2>/dev/null)" -eq 3
    check "  ... each with --clock-control none" test "$(grep '^clock=' "$TMP/ncu-calls" | sort | uniq -c | tr -s ' ')" = " 3 clock=none"
    cp "$TMP/ncu-calls" "$TMP/ncu-calls-none"
    # GPU_ACCEPTANCE_NCU_CLOCK=base: base, again with none when it fails (the stand-in always
    # fails), the CNN step alike; ncu-none stays none
    rm -f "$TMP/ncu-calls"
    GPU_ACCEPTANCE_NCU_CLOCK=base PATH=$TMP/bin:$PATH ROOFTIME_BIN=$C/bin/rooftime ROOFTIME_DATADIR=$SRC/data \
        run 1 bash "$SCRIPT" "$TMP/o6"
    check "base asked for: ncu ran five times" test "$(grep -c '^metrics=' "$TMP/ncu-calls" 2>/dev/null)" -eq 5
    check "  ... base, none, none, base, none" test "$(grep '^clock=' "$TMP/ncu-calls" | cut -d= -f2 | paste -sd' ' -)" = "base none none base none"
    # ncu failed (the target's exit) after writing a table: what it wrote is imported all the same
    NCU_TABLE=1 GPU_ACCEPTANCE_STAGES="ncu-none" PATH=$TMP/bin:$PATH ROOFTIME_BIN=$C/bin/rooftime \
        ROOFTIME_DATADIR=$SRC/data run 1 bash "$SCRIPT" "$TMP/o8"
    check "a failed ncu with a table: imported" python3 - "$TMP/o8/gpu-acceptance.json" <<'PY'
import json, sys
st = {s["stage"]: s for s in json.load(open(sys.argv[1]))["stages"]}
assert st["ncu-none"]["exit"] == 1 and st["import-ncu-none"]["exit"] != -1, st
PY
    # ncu without the rights to the counters: said once, the later ncu stages skipped with it
    rm -f "$TMP/ncu-calls"
    NCU_DENY=1 GPU_ACCEPTANCE_STAGES="ncu-base ncu-none ncu-cnn" PATH=$TMP/bin:$PATH ROOFTIME_BIN=$C/bin/rooftime \
        ROOFTIME_DATADIR=$SRC/data run 1 bash "$SCRIPT" "$TMP/o7"
    rm -f "$TMP/bin/ncu"
    check "denied: ncu ran once" test "$(grep -c '^metrics=' "$TMP/ncu-calls" 2>/dev/null)" -eq 1
    check "  ... said on stderr" grep -q "^gpu-acceptance: ncu cannot read the counters here: ==ERROR== ERR_NVGPUCTRPERM" "$TMP/err"
    check "  ... the rest skipped with the reason, counters denied in the JSON" python3 - "$TMP/o7/gpu-acceptance.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = {s["stage"]: s for s in d["stages"]}
for n in ("ncu-none", "ncu-cnn"):
    assert st[n]["exit"] == -1 and "ncu cannot read the counters here (ncu.denied): ==ERROR== ERR_NVGPUCTRPERM" in st[n]["command"], st[n]
assert d["counters"]["ncu"].startswith("denied: ncu-base: ==ERROR== ERR_NVGPUCTRPERM"), d["counters"]
PY
    check "  ... in the summary" grep -q "counters, ncu: denied: ncu-base: ==ERROR== ERR_NVGPUCTRPERM" "$TMP/o7/summary.txt"
    mv "$TMP/ncu-calls-none" "$TMP/ncu-calls"
    want=$("$BIN" ncu-metrics --arch sm_90 | awk '/^# all metrics/ {exit} !/^#/ && NF' | paste -sd, -)
    check "--metrics: the names alone" test "$(grep '^metrics=' "$TMP/ncu-calls" | sort -u)" = "metrics=$want"
    check "20 names on sm_90" test "$(echo "$want" | tr ',' '\n' | grep -c '__')" -eq 20
    check "ncu's loader path: the carried libraries" \
        sh -c "grep '^LD_LIBRARY_PATH=' '$TMP/ncu-calls' | cut -d= -f2 | cut -d: -f1 | sort -u | grep -q ncu-lib"
    ncu_lib_ok=1
    while IFS= read -r line; do
        first=${line#LD_LIBRARY_PATH=}
        first=${first%%:*}
        case "$first" in */ncu-lib) ;; *) ncu_lib_ok=0 ;; esac
        case "$line" in *"$C/lib"*) ncu_lib_ok=0 ;; esac # not the carry's own lib/
    done < <(grep '^LD_LIBRARY_PATH=' "$TMP/ncu-calls")
    check "ncu's loader path: never the carried CUPTI" test "$ncu_lib_ok" -eq 1
    check "ncu's libraries: jansson" grep -qx 'lib=libjansson.so.4' "$TMP/ncu-calls"
    check "ncu's libraries: no CUPTI, no perfworks" sh -c "! grep -q -e '^lib=libcupti' -e '^lib=libnvperf' '$TMP/ncu-calls'"
else
    echo "note: a CUDA driver is installed here: the stand-in ncu run is skipped"
fi

# The evaluation on a work directory written here (made-up figures, not a recording): the wgmma
# fraction at the measured clock, the collector / ncu HBM ratio, the GEMM roofs, the CNN match by
# base name; exit 10 when some checks fail.
W=$TMP/work
mkdir -p "$W/evidence/selfcheck" "$TMP/o4"
printf 'measure\t0\t12\tx\n' >"$W/stages.tsv"
python3 - "$W/evidence" <<'PY'
import json, os, sys
e = sys.argv[1]
def w(name, doc):
    with open(os.path.join(e, name), "w") as f:
        json.dump(doc, f)
w("machine.json", {"units": [{"name": "tensor_fp16", "flops": 9.0e14, "max": 9.1e14}],
                   "gpu": {"device": {"sms": 132, "compute_capability": "9.0"},
                           "compute": [{"unit": "tensor_fp16", "flops": {"median": 9.0e14},
                                        "clock_hz": 1.755e9},
                                       {"unit": "tensor_bf16", "flops": {"median": 7.0e14},
                                        "clock_hz": 1.755e9}]}})
def prof(kernels):
    return {"schema": "rooftime.profile/1", "kernels": kernels}
w("selfcheck/probe.json", prof([{"name": "bw_read", "time": 1e-3, "bytes": {"HBM": 1.0e9}},
                                {"name": "bw_rmw", "time": 1e-3, "bytes": {"HBM": 2.5e9}}]))
w("ncu-probe-base.json", prof([{"name": "bw_read", "time": 1e-3, "bytes": {"HBM": 1.02e9}},
                               {"name": "bw_rmw", "time": 1e-3, "bytes": {"HBM": 2.0e9}}]))
w("selfcheck/matmul.json", prof([{"name": "gemm", "time": 2e-3, "flops": {"tensor_fp16": 1.1e12}}]))
# selfcheck's report: a kernel with a wrong result and a failed run are checks without a bound
w("selfcheck.json", {"schema": "rooftime.gpu-selfcheck/1", "skipped": "torch.matmul checks: python3 has PyTorch without CUDA", "checks": [
    {"check": "wgmma_fp16: computed 3, expected 4: wrong result", "expected": None, "figure": None,
     "pass": False, "note": "wgmma_fp16: computed 3, expected 4: wrong result"},
    {"check": "fma_fp32 flops.fp32", "kernel": "fma_fp32", "quantity": "flops.fp32", "expected": 1e12,
     "bound": 0.01, "pass": True, "figure": 1.001e12, "relative_error": 0.001}]})
w("cnn.json", prof([{"name": "conv(int)", "time": 5e-3, "flops": {"fp32": 1.0e9}, "bytes": {"HBM": 1e8}}]))
w("ncu-cnn.json", prof([{"name": "conv", "time": 5e-3, "flops": {"fp32": 1.01e9}, "bytes": {"HBM": 1.2e8}}]))
os.makedirs(os.path.join(e, "python"))
# the in-process collector: the same kernel under a mark (two tag sets, one name), one launch more
w("python/py-gpu.json", prof([{"name": "conv(int)", "time": 2e-3, "invocations": 1, "tags": {"pass": "step"}},
                              {"name": "conv(int)", "time": 3e-3, "invocations": 1}]))
w("python/py-torch.json", prof([{"name": "aten::conv2d", "time": 1e-3}]))
os.makedirs(os.path.join(e, "study", "profiles"))
w("study/profiles/conv2d-pytorch-fp32-forward.json", prof([]))
w("study/findings.txt", "findings")
# the collector's own file: its profiler refused (as a VM without profiling rights makes it)
os.makedirs(os.path.join(e, "cnn.cupti"))
open(os.path.join(e, "cnn.cupti", "collector.4242.txt"), "w").write(
    "error=cuptiProfilerInitialize: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: counters need profiling rights\n")
open(os.path.join(e, "ncu-base.clock"), "w").write("clock-control none ran (stage ncu-base-clock-none, exit 0)\n")
PY
python3 "$SRC/scripts/gpu-acceptance-eval.py" --work "$W" --gpu "NVIDIA X, 1.0" \
    --archs "$SRC/data/gpu/architectures.json" --out "$TMP/o4" >"$TMP/out" 2>"$TMP/err"
check "eval exits 10 when some fail" test $? -eq 10
check "eval figures" python3 - "$TMP/o4/gpu-acceptance.json" <<'PY'
import json, sys
d = {c["check"]: c for c in json.load(open(sys.argv[1]))["checks"]}
def near(a, b):
    return abs(a - b) <= 1e-9 * abs(b)
c = d["wgmma ceiling tensor_fp16"]
assert c["pass"] and near(c["figure"], 9.0e14 / (132 * 1.755e9 * 4096)), c
c = d["wgmma ceiling tensor_bf16"]
assert not c["pass"] and near(c["figure"], 7.0e14 / (132 * 1.755e9 * 4096)), c
assert not d["wgmma ceiling tensor_int8"]["pass"]
c = d["HBM bytes bw_read: collector / ncu (base)"]
assert c["pass"] and near(c["figure"], 1.0 / 1.02 - 1), c
assert not d["HBM bytes bw_rmw: collector / ncu (base)"]["pass"]
assert not d["HBM bytes bw_read: collector / ncu (none)"]["pass"]
c = d["torch.matmul kernels below their roofs"]
assert c["pass"] and near(c["figure"], 1.1e12 / 2e-3 / 9.1e14), c
c = d["CNN conv: flops.fp32 collector / ncu"]
assert c["pass"] and near(c["figure"], 1.0 / 1.01 - 1), c
c = d["CNN conv: bytes.HBM collector / ncu"]
assert not c["pass"], c
assert d["stage measure"]["pass"]
c = d["collector: wgmma_fp16: computed 3, expected 4: wrong result"]
assert not c["pass"] and c["bound"] is None, c
c = d["collector: skipped"]
assert not c["pass"] and c["note"] == "torch.matmul checks: python3 has PyTorch without CUDA", c
c = d["collector: fma_fp32 flops.fp32"]
assert c["pass"] and c["bound"] == 0.01 and near(c["figure"], 0.001), c
assert d["python: rooftime.gpu.profile wrote a profile"]["pass"]
assert d["python: rooftime.torch.profile wrote a profile"]["pass"]
c = d["python: rooftime.gpu.profile has the kernels of profile --gpu"]
assert c["pass"] and c["figure"] == 0, c
c = d["python: rooftime.gpu.profile launches / profile --gpu's"]
assert not c["pass"] and c["note"] == "2 and 1 launches", c
assert d["study: profiles written"]["pass"] and d["study: findings.txt written"]["pass"]
assert not d["study: report.html written"]["pass"]
assert not d["report: report.html written"]["pass"]
j = json.load(open(sys.argv[1]))
assert j["ncu_clock_control"] == {"ncu-base": "clock-control none ran (stage ncu-base-clock-none, exit 0)"}, j
assert j["groups_not_run"] == [], j
assert j["counters"] == {"ncu": "not run", "collector": "denied: cnn.cupti/collector.4242.txt: error=cuptiProfilerInitialize: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: counters need profiling rights"}, j["counters"]
PY
# --groups: the checks of the groups run, the others named as not run
python3 "$SRC/scripts/gpu-acceptance-eval.py" --work "$W" --gpu "NVIDIA X, 1.0" --groups "measure python" \
    --archs "$SRC/data/gpu/architectures.json" --out "$TMP/o4" >"$TMP/out" 2>"$TMP/err"
check "eval --groups: exits 10 (some fail)" test $? -eq 10
check "eval --groups: only their checks, the rest named" python3 - "$TMP/o4/gpu-acceptance.json" "$TMP/o4/summary.txt" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
names = [c["check"] for c in j["checks"] if not c["check"].startswith("stage ")]
assert all(n.startswith("wgmma ceiling") or n.startswith("python:") for n in names), names
assert j["groups_run"] == ["measure", "python"], j["groups_run"]
assert j["groups_not_run"] == ["selfcheck", "ncu-base", "ncu-none", "cnn", "ncu-cnn", "study", "report"]
assert "groups not run in this call: selfcheck ncu-base" in open(sys.argv[2]).read()
PY
python3 "$SRC/scripts/gpu-acceptance-eval.py" --work "$W" --gpu "NVIDIA X, 1.0" --groups "measure warp" \
    --archs "$SRC/data/gpu/architectures.json" --out "$TMP/o4" >"$TMP/out" 2>"$TMP/err"
check "eval --groups: an unknown group, exit 1" test $? -eq 1
check "  ... named" grep -q "unknown warp" "$TMP/err"
finish
