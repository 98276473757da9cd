# Tensor FLOPs per precision from the sm__ops_path_tensor counters (data/ncu/metrics.json, sm_80 on)
# on SYNTHETIC Nsight Compute CSVs (tests/data/ncu-synthetic-*.csv: hand-made to test the formula
# arithmetic, not recordings), then the units against machine ceilings: per precision in hier mode,
# the stand-ins (tensor_fp16 -> tensor, tensor_bf16 -> tensor), "unknown" where a precision has no
# ceiling, everything at the reference peak in single mode.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/data
"$BIN" import ncu "$D/ncu-synthetic-sm90-tensor-ops.csv" -o "$TMP/s90.json" >/dev/null 2>"$TMP/err90"
check "sm_90 import" [ $? -eq 0 ]
"$BIN" import ncu "$D/ncu-synthetic-sm80-tensor-ops.csv" -o "$TMP/s80.json" >/dev/null 2>"$TMP/err80"
check "sm_80 import" [ $? -eq 0 ]
check "sm_90: no warning (every metric of the sm_90 list is there)" [ ! -s "$TMP/err90" ]
python3 - "$TMP/s90.json" "$TMP/s80.json" <<'PY'
import json, sys
p90, p80 = (json.load(open(f)) for f in sys.argv[1:3])
k = {x["name"]: x for x in p90["kernels"]}
mixed = k["mixed_synthetic"]["flops"]
# one FLOP per math op (tensor_op_flops = 1): the counter values as written in the CSV
want = {"tensor_fp16": 1e9, "tensor_bf16": 2e11, "tensor_tf32": 5e10, "tensor_fp8": 4e11,
        "tensor_int8": 3e11, "tensor_fp64": 6e9, "fp32": 2e6}
for u, v in want.items():
    assert mixed.get(u) == v, (u, mixed.get(u), v)
assert "tensor" not in mixed, "no instruction-count unit on sm_90"
assert k["hgemm_synthetic"]["flops"]["tensor_fp16"] == 8e11
assert p90["provenance"]["formulas"]["flops.tensor_fp16"] == "tensor_op_flops * sm__ops_path_tensor_src_fp16.sum"
# sm_80: FP16 is the sum of the dst_fp16 and dst_fp32 counters; no FP8 counter before sm_89
g = p80["kernels"][0]["flops"]
assert g["tensor_fp16"] == 1e10 + 3e10, g
assert g["tensor_bf16"] == 5e9, g
assert "tensor_fp8" not in g and "tensor" not in g, g
PY
check "per-precision FLOPs as the formulas say" [ $? -eq 0 ]

# Hier on the H100 preset: each precision at its own dense ceiling; tensor_fp16 at 'tensor'.
"$BIN" analyze --machine h100-sxm --format json "$TMP/s90.json" >"$TMP/h100.json" 2>"$TMP/err"
check "analyze h100 hier" [ $? -eq 0 ]
check "the stand-in is said" grep -q "compute unit 'tensor_fp16' is not one of machine .*: its FLOPs are judged against the machine's 'tensor' ceiling" "$TMP/err"
python3 - "$TMP/h100.json" "$SRC/data/machines/h100-sxm.json" <<'PY'
import json, sys
a, m = (json.load(open(f)) for f in sys.argv[1:3])
peak = {u["name"]: u["flops"] for u in m["units"]}
k = {x["name"]: x["verdict"] for x in a["kernels"]}
t = (2e6 / peak["fp32"] + 1e9 / peak["tensor"] + 2e11 / peak["tensor_bf16"] + 5e10 / peak["tensor_tf32"]
     + 4e11 / peak["tensor_fp8"] + 3e11 / peak["tensor_int8"] + 6e9 / peak["tensor_fp64"])
v = k["mixed_synthetic"]
assert abs(v["t_compute"] - t) <= 1e-9 * t, (v["t_compute"], t)
h = k["hgemm_synthetic"]
assert abs(h["t_compute"] - 8e11 / peak["tensor"]) <= 1e-9 * h["t_compute"], h
# the preset's L1 and L2 judge the bytes of those levels: the bound is the longest of the times
# (compute: the unit with the most time, bf16 in the mixed kernel)
bw = {l["name"]: l["bytes_per_s"] for l in m["levels"]}
for x, unit in ((v, "compute:tensor_bf16"), (h, "compute:tensor")):
    assert set(x["t_bandwidth_per_level"]) == {"L1", "L2", "HBM"}, x["t_bandwidth_per_level"]
    t = {"bandwidth:" + l: x["bytes"][l] / bw[l] for l in ("L1", "L2", "HBM")}
    t[unit] = x["t_compute"]
    assert x["bound"] == max(t, key=t.get), (x["bound"], t)
PY
check "hier: each precision against its ceiling, each level against its bandwidth" [ $? -eq 0 ]
check "hier h100-sxm: no level's bytes dropped" bash -c "! grep -q 'memory level .* is not one of machine' '$TMP/err'"
# The GPU presets carry L1 and L2 (published microbenchmarks until measured, data/machines/*.json):
# an ncu import of a Hopper run keeps its L1 and L2 bytes on each.
for m in a100 h100-sxm h200; do
    "$BIN" analyze --machine $m --mode hier "$TMP/s90.json" >/dev/null 2>"$TMP/err-$m"
    check "hier $m: no level's bytes dropped" bash -c "! grep -q 'memory level .* is not one of machine' '$TMP/err-$m'"
    check "$m: L1 and L2 published, not measured, each with its source" python3 - "$SRC/data/machines/$m.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
lv = {l["name"]: l for l in m["levels"]}
assert lv["L1"]["bytes_per_s"] > lv["L2"]["bytes_per_s"] > lv["HBM"]["bytes_per_s"], lv
for n in ("L1", "L2"):
    assert lv[n]["note"].startswith("published, not measured by rooftime:"), lv[n]
    assert "commit" in lv[n]["note"], lv[n]
tau = m["launch_overhead"]
assert tau["seconds"] != 4.2e-06 and tau["method"].startswith("published, not measured by rooftime:"), tau
PY
done

# Hier on V100 (one unit 'tensor'): FP16 and BF16 stand in on it, TF32/FP8/INT8/FP64 have no
# ceiling: that kernel's verdict is unknown, never a guess.
"$BIN" analyze --machine v100 --format json "$TMP/s90.json" >"$TMP/v100.json" 2>"$TMP/err"
check "analyze v100 hier" [ $? -eq 0 ]
check "bf16's stand-in is said" grep -q "compute unit 'tensor_bf16' is not one of machine .*'tensor' ceiling (dense BF16 and FP16 Tensor Core rates are the same since Ampere)" "$TMP/err"
for u in tensor_tf32 tensor_fp8 tensor_int8 tensor_fp64; do
    check "$u: no ceiling, said" grep -q "Tensor Core unit '$u' is not one of machine .*hier verdict is unknown" "$TMP/err"
done
python3 - "$TMP/v100.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
k = {x["name"]: x["verdict"] for x in a["kernels"]}
assert k["mixed_synthetic"]["bound"] == "unknown", k["mixed_synthetic"]
assert k["mixed_synthetic"].get("t_compute") is None, k["mixed_synthetic"]  # no guessed time
assert k["hgemm_synthetic"]["bound"] == "compute:tensor", k["hgemm_synthetic"]
PY
check "hier without a ceiling: unknown" [ $? -eq 0 ]

# Single mode: every unit summed against the reference peak; no unknown, no stand-in note.
"$BIN" analyze --machine v100 --mode single --format json "$TMP/s90.json" >"$TMP/single.json" 2>"$TMP/err"
check "analyze v100 single" [ $? -eq 0 ]
check "single: no stand-in or no-ceiling note" bash -c "! grep -qE 'judged against|no ceiling' '$TMP/err'"
python3 - "$TMP/single.json" "$SRC/data/machines/v100.json" <<'PY'
import json, sys
a, m = (json.load(open(f)) for f in sys.argv[1:3])
ref = {u["name"]: u["flops"] for u in m["units"]}[m["reference"]["unit"]]
v = {x["name"]: x["verdict"] for x in a["kernels"]}["mixed_synthetic"]
W = 1e9 + 2e11 + 5e10 + 4e11 + 3e11 + 6e9 + 2e6
assert abs(v["t_compute"] - W / ref) <= 1e-9 * v["t_compute"], (v["t_compute"], W / ref)
assert v["bound"].startswith("compute:ref("), v["bound"]
PY
check "single: summed at the reference peak" [ $? -eq 0 ]

# Blackwell presets (data/machines/b200.json, gb200.json, rtx-pro-6000.json: NVIDIA's datasheets,
# derived figures said so): each loads, `machine list` names it, `machine show` prints every
# ceiling of the file, and an sm_100 / sm_120 import (SYNTHETIC CSVs written here, one kernel per
# Tensor Core counter) meets them: FP4 at its own ceiling, the mixed FP4/FP6/FP8 counters unknown.
"$BIN" machine list >"$TMP/list" 2>&1
for m in b200 gb200 rtx-pro-6000; do
    check "machine list names $m" grep -q "^$m " "$TMP/list"
    "$BIN" machine show $m >"$TMP/show-$m" 2>&1
    check "machine show $m: exit 0" [ $? -eq 0 ]
    check "machine show $m: every ceiling of the file, in GFLOP/s and GB/s" python3 - "$TMP/show-$m" "$SRC/data/machines/$m.json" <<'PY'
import json, re, sys
text, m = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
shown = dict(re.findall(r"^  (\S+) +([0-9.e+]+)  -- ", text, re.M))
for x in m["units"]:
    assert abs(float(shown[x["name"]]) - x["flops"] / 1e9) <= 1e-5 * x["flops"] / 1e9, (x["name"], shown)
for x in m["levels"]:
    assert abs(float(shown[x["name"]]) - x["bytes_per_s"] / 1e9) <= 1e-5 * x["bytes_per_s"] / 1e9, (x["name"], shown)
# datasheet or derived, each unit says which; FP6 has no unit of its own (no counter reports it)
for x in m["units"]:
    assert x["note"].startswith(("datasheet", "derived")), x
assert not any(re.search(r"fp6($|_)", x["name"]) for x in m["units"]), m["units"]
assert m["reference"] == {"unit": "tensor_fp16", "level": "HBM"}, m["reference"]
assert "reference: tensor_fp16 and HBM" in text
PY
done
"$BIN" ncu-metrics --arch sm_100 | grep -v '^#' | grep -E '^[a-z0-9_.]+$' >"$TMP/m100"
"$BIN" ncu-metrics --arch sm_120 | grep -v '^#' | grep -E '^[a-z0-9_.]+$' >"$TMP/m120"
python3 - "$TMP" <<'PY'
import sys
head = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n'
def write(path, cc, metrics, kernels):
    with open(path, "w") as f:
        f.write("# SYNTHETIC: written by tests/cli-tensor-units.sh to test the Blackwell formulas and presets\n" + head)
        for i, (name, counters) in enumerate(kernels):
            # every metric `ncu-metrics` lists for the architecture, 0 unless the kernel sets it
            rows = {m: 0 for m in open(metrics).read().split()}
            rows.update({"sm__cycles_elapsed.avg": 1e6, "sm__cycles_elapsed.avg.per_second": 1e9,
                         "dram__bytes.sum": 1e6})
            assert set(counters) <= set(rows), (set(counters) - set(rows))
            rows.update(counters)
            for metric, v in rows.items():
                f.write('"%d","1","synthetic","host","%s","1","7","(128, 1, 1)","(148, 1, 1)","0","%s","Command line profiler metrics","%s","","%.17g"\n' % (i, name, cc, metric, v))
op = "sm__ops_path_tensor_src_"
write(sys.argv[1] + "/s100.csv", "10.0", sys.argv[1] + "/m100", [
    ("fp4_synthetic", {op + "fp4_dst_fp32.sum": 9e11}),
    ("f8f6f4_synthetic", {op + "fp4_fp6_fp8_dst_fp16.sum": 1e11, op + "fp4_fp6_fp8_dst_fp32.sum": 3e11}),
    ("bf16_synthetic", {op + "bf16_dst_fp32.sum": 2e11})])
write(sys.argv[1] + "/s120.csv", "12.0", sys.argv[1] + "/m120", [
    ("fp8_synthetic", {op + "fp8_dst_fp16.sum": 1e11, op + "fp8_dst_fp32.sum": 3e11}),
    ("fp4fp6_synthetic", {op + "fp4_fp6_dst_fp32.sum": 5e11}),
    ("fp4_synthetic", {op + "fp4_dst_fp32.sum": 8e11})])
PY
"$BIN" import ncu "$TMP/s100.csv" -o "$TMP/s100.json" >/dev/null 2>"$TMP/err100"
check "sm_100 synthetic import" [ $? -eq 0 ]
"$BIN" import ncu "$TMP/s120.csv" -o "$TMP/s120.json" >/dev/null 2>"$TMP/err120"
check "sm_120 synthetic import" [ $? -eq 0 ]
for m in b200 gb200; do
    "$BIN" analyze --machine $m --format json "$TMP/s100.json" >"$TMP/a-$m.json" 2>"$TMP/err-$m"
    check "analyze sm_100 on $m" [ $? -eq 0 ]
    check "$m: the mixed FP4/FP6/FP8 counter has no ceiling, said" grep -q "Tensor Core unit 'tensor_fp4_fp6_fp8' is not one of machine .*hier verdict is unknown" "$TMP/err-$m"
    check "$m: FP4 and BF16 at their own ceilings, the mixed kind unknown" python3 - "$TMP/a-$m.json" "$SRC/data/machines/$m.json" <<'PY'
import json, sys
a, m = (json.load(open(f)) for f in sys.argv[1:3])
peak = {u["name"]: u["flops"] for u in m["units"]}
k = {x["name"]: x["verdict"] for x in a["kernels"]}
for name, unit, work in (("fp4_synthetic", "tensor_fp4", 9e11), ("bf16_synthetic", "tensor_bf16", 2e11)):
    t = k[name]["t_compute"]
    assert abs(t - work / peak[unit]) <= 1e-9 * t, (name, t, work / peak[unit])
assert k["f8f6f4_synthetic"]["bound"] == "unknown" and k["f8f6f4_synthetic"].get("t_compute") is None, k["f8f6f4_synthetic"]
PY
done
"$BIN" analyze --machine rtx-pro-6000 --format json "$TMP/s120.json" >"$TMP/a-rtx.json" 2>"$TMP/err-rtx"
check "analyze sm_120 on rtx-pro-6000" [ $? -eq 0 ]
check "rtx-pro-6000: no level's bytes dropped but L1/L2 (GDDR7 is its HBM level)" bash -c "! grep -q \"memory level 'HBM'\" '$TMP/err-rtx'"
check "rtx-pro-6000: FP8 at its ceiling (both accumulators), FP4/FP6 unknown" python3 - "$TMP/a-rtx.json" "$SRC/data/machines/rtx-pro-6000.json" <<'PY'
import json, sys
a, m = (json.load(open(f)) for f in sys.argv[1:3])
peak = {u["name"]: u["flops"] for u in m["units"]}
k = {x["name"]: x["verdict"] for x in a["kernels"]}
t = k["fp8_synthetic"]["t_compute"]
assert abs(t - 4e11 / peak["tensor_fp8"]) <= 1e-9 * t, (t, 4e11 / peak["tensor_fp8"])
assert k["fp4fp6_synthetic"]["bound"] == "unknown", k["fp4fp6_synthetic"]
PY
finish
