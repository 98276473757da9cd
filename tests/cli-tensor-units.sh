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
finish
