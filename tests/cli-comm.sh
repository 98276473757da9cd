#!/bin/bash
# Communication kernels (NCCL's, MPI's) recognised by the names of data/comm/kernels.json and judged
# against the machine's link bandwidth, not the memory roofline; unknown without one.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
python3 - "$TMP" "$SRC/data/machines/v100.json" <<'PY'
import json, sys
d, v100 = sys.argv[1], sys.argv[2]
p = {"schema": "rooftime.profile/1", "kernels": [
    {"name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "invocations": 10, "time": 0.02,
     "flops": {"fp32": 1e8}, "bytes": {"HBM": 4e9, "link": 2e9}},
    {"name": "MPI_Allreduce", "invocations": 10, "time": 0.01, "flops": {}, "bytes": {"DRAM": 1e8}},
    {"name": "volta_sgemm_128x64_nn", "invocations": 10, "time": 0.01, "flops": {"fp32": 1e11},
     "bytes": {"HBM": 1e9}}]}
json.dump(p, open(d + "/p.json", "w"))
m = json.load(open(v100))
m["link"] = {"name": "NVLink2", "bytes_per_s": 1.5e11}
json.dump(m, open(d + "/m.json", "w"))
PY
expect 0 "" -- analyze -m "$TMP/m.json" -f json -o "$TMP/a.json" "$TMP/p.json"
python3 - "$TMP/a.json" <<'PY' || { echo "FAIL: verdicts with a link"; FAILS=$((FAILS + 1)); }
import json, sys
a = json.load(open(sys.argv[1]))
k = {x["name"]: x for x in a["kernels"]}
nccl = k["ncclDevKernel_AllReduce_Sum_f32_RING_LL"]
assert nccl["tags"] == {"class": "communication", "comm_library": "NCCL"}, nccl["tags"]
v = nccl["verdict"]
# 2e9 link bytes at 1.5e11 B/s = 13.3 ms of 20 ms, not the HBM bandwidth bound (4.8 ms).
assert v["bound"] == "communication:NVLink2" and abs(v["t_bound"] - 2e9 / 1.5e11) < 1e-9, v
assert abs(v["efficiency"] - 2 / 3) < 1e-6, v
mpi = k["MPI_Allreduce"]["verdict"]
assert k["MPI_Allreduce"]["tags"]["comm_library"] == "MPI"
assert mpi["bound"] == "communication:NVLink2" and mpi["efficiency"] is None, mpi  # no link bytes
assert k["volta_sgemm_128x64_nn"]["verdict"]["bound"] == "compute:fp32"
assert "tags" not in k["volta_sgemm_128x64_nn"] or "class" not in k["volta_sgemm_128x64_nn"]["tags"]
assert any(x["verdict"]["bound"] == "communication:NVLink2" for x in a["configs"]), a["configs"]
assert not any("link" in w for w in a["warnings"]), a["warnings"]
PY
# Without a link in the machine: communication, bound unknown.
expect 0 "" -- analyze -m v100 "$TMP/p.json"
check "no link: communication:unknown, no efficiency" \
    grep -qE "communication:unknown +- +0 s +ncclDevKernel_AllReduce" "$TMP/out"
check "the GEMM stays compute-bound" grep -qE "compute:fp32 .* volta_sgemm_128x64_nn" "$TMP/out"
# The machine's link round-trips; a bad one is named.
expect 0 "" -- machine show "$TMP/m.json" --format json
check "machine show keeps the link" grep -q '"NVLink2"' "$TMP/out"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["link"]={"bytes_per_s":"fast"}; json.dump(m,open(sys.argv[2],"w"))' "$TMP/m.json" "$TMP/bad.json"
expect 1 "link.bytes_per_s" -- analyze -m "$TMP/bad.json" "$TMP/p.json"
# A patterns file that does not load is an error, named.
mkdir -p "$TMP/data/comm" && cp -r "$SRC/data/machines" "$TMP/data/" && echo '{"patterns": [{"library": "X"}]}' >"$TMP/data/comm/kernels.json"
ROOFTIME_DATADIR=$TMP/data expect 1 "communication kernel patterns: .*patterns\[0\].*match" -- analyze -m v100 "$TMP/p.json"
[ -f "$TMP/m.json" ] && expect 0 "" -- machine show "$TMP/m.json" && check "machine show prints the link" grep -q "link (communication kernels): 150 GB/s  -- NVLink2" "$TMP/out"
finish
