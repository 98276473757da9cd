# Bytes where they live: `machine show` prints each level's capacity (a preset's from its
# datasheets, a machine file's as written); a torch 2.15 trace's estimated bytes are placed at the
# level that holds each kernel's working set, said in the JSON verdict and the text; its random
# numbers, sorts and data-dependent indexing get "unknown (work not counted)" and no bandwidth
# verdict; the same profile marked as measured keeps its bytes at DRAM; --threads is checked.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data

"$BIN" machine show v100 >"$TMP/v100.txt" 2>&1
check "machine show v100" test $? -eq 0
grep -q "^capacities" "$TMP/v100.txt" && grep -q "L1 .*10 MiB = 80 x 128 KiB, one per SM" "$TMP/v100.txt" &&
    grep -q "L2 .*6 MiB, shared by 80 SMs" "$TMP/v100.txt" && grep -q "HBM .*16 GiB" "$TMP/v100.txt"
check "machine show v100 prints L1, L2 and HBM capacities ($(grep -A3 '^capacities' "$TMP/v100.txt" | tr '\n' '|' | head -c 300))" test $? -eq 0
"$BIN" machine show h100-sxm >"$TMP/h100.txt" 2>&1
# the ceilings' column stays aligned past names of 11 characters and more (tensor_bf16) and a
# ceiling of a million GFLOP/s and more is a whole number (1979000, not 1.979e+06)
check "machine show h100-sxm: the ceilings aligned, whole numbers from a million on" python3 -c "
import re, sys
ends, rows = set(), 0
table = False
for line in open(sys.argv[1], encoding='utf-8'):
    if line.startswith(('compute ceilings', 'memory levels')):
        table = True
    elif not line.strip():
        table = False
    elif table:
        m = re.match(r'  (\S+) +(\S+)', line)
        ends.add(m.end(2))
        rows += 1
        if 'e+' in m.group(2):
            sys.exit('not a whole number: ' + line)
sys.exit(0 if rows >= 10 and len(ends) == 1 else 'numbers end at %s in %d rows' % (sorted(ends), rows))" "$TMP/h100.txt"

# A two-core CPU as `machine measure` writes its levels (hwloc figures; the sweep's).
cat >"$TMP/cpu.json" <<'J'
{
  "schema": "rooftime.machine/1", "name": "two cores", "source": "measured",
  "units": [ { "name": "fp32", "flops": 100e9 } ],
  "levels": [
    { "name": "L1", "bytes_per_s": 400e9, "size_bytes": 32768, "shared_by": 1, "instances": 2, "size_source": "hwloc", "swept_bytes": 61440, "swept_threads": 2 },
    { "name": "L2", "bytes_per_s": 200e9, "size_bytes": 1048576, "shared_by": 1, "instances": 2, "size_source": "hwloc" },
    { "name": "L3", "bytes_per_s": 100e9, "size_bytes": 33554432, "shared_by": 2, "instances": 1, "size_source": "hwloc" },
    { "name": "DRAM", "bytes_per_s": 20e9 }
  ],
  "launch_overhead": { "seconds": 1e-9 },
  "reference": { "unit": "fp32", "level": "DRAM" }
}
J
"$BIN" machine show "$TMP/cpu.json" >"$TMP/cpu.txt" 2>&1
grep -q "L1 .*64 KiB = 2 x 32 KiB, one per CPU; swept: its plateau up to 60 KiB at 2 threads  -- hwloc" "$TMP/cpu.txt" &&
    grep -q "L3 .*32 MiB, shared by 2 CPUs (16 MiB per CPU)" "$TMP/cpu.txt" && grep -q "DRAM .*unknown" "$TMP/cpu.txt"
check "machine show prints a machine file's capacities ($(grep -A4 '^capacities' "$TMP/cpu.txt" | tr '\n' '|' | head -c 400))" test $? -eq 0
"$BIN" machine show --format json "$TMP/cpu.json" | grep -q '"swept_threads": 2'
check "machine show --format json keeps the capacity fields" test $? -eq 0

expect 2 "--threads: '0' is not a thread count" -- import torch "$DATA/torch-2.15-uncounted.json" --threads 0 -o "$TMP/x.json"
expect 2 "--threads: '2x' is not a thread count" -- import onednn "$DATA/onednn-2.6-primitives.log" --threads 2x -o "$TMP/x.json"

"$BIN" import torch "$DATA/torch-2.15-uncounted.json" --threads 2 -o "$TMP/unc.json" >/dev/null 2>&1
check "import torch the torch 2.15 trace" test $? -eq 0
grep -q '"bytes": "estimated"' "$TMP/unc.json" && grep -q '"threads": 2' "$TMP/unc.json"
check "its profile says its bytes are estimates, on 2 threads" test $? -eq 0
"$BIN" analyze -m "$TMP/cpu.json" --format json "$TMP/unc.json" >"$TMP/unc.an.json" 2>/dev/null
check "analyze --format json" test $? -eq 0
python3 - "$TMP/unc.an.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
ks = {k["name"]: k for k in a["kernels"]}
def v(prefix):
    return [k["verdict"] for n, k in ks.items() if n.startswith(prefix)]
# every random-number, sort, index, scatter and unique kernel: unknown, no efficiency, nothing recoverable
for op in ["aten::bernoulli_", "aten::uniform_", "aten::randperm", "aten::sort", "aten::topk",
           "aten::argsort", "aten::index ", "aten::index_put_", "aten::scatter_add_", "aten::_unique2"]:
    vs = v(op)
    assert vs, op
    for x in vs:
        assert x["bound"] == "unknown (work not counted)", (op, x["bound"])
        assert x["efficiency"] is None and x["recoverable"] is None, (op, x)
        assert "placement" not in x, op
# the add (3 x 64 KiB): beyond L1 on 2 threads (64 KiB), in L1+L2: bound at L2, and said why
add = v("aten::add ")[0]
assert add["bound"] == "bandwidth:L2", add["bound"]
p = add["placement"]
assert p["level"] == "L2" and p["working_set"] == 196608 and p["threads"] == 2, p
assert p["why"] == "192 KiB working set fits L1+L2 (2.06 MiB, on 2 threads): bound at L2", p["why"]
assert add["bytes"] == {"L2": 196608}, add["bytes"]
# the gather: its index read (64 x 8 int64), one float gathered per index and written
g = v("aten::gather")[0]
assert g["bytes"] == {"L1": 8192}, g["bytes"]
PY
check "uncounted work unknown; the add placed at L2 with its reason; the gather's bytes by its index" test $? -eq 0
"$BIN" analyze -m "$TMP/cpu.json" "$TMP/unc.json" >"$TMP/unc.txt" 2>/dev/null
grep -q "^estimated bytes by working set" "$TMP/unc.txt" &&
    grep -q "unknown (work not counted)" "$TMP/unc.txt" &&
    grep -q "AI is at the reference level (DRAM; estimated bytes: at the level that holds them)" "$TMP/unc.txt"
check "analyze's text says where the estimates were placed" test $? -eq 0

# The same profile as counters would give it (measured bytes): as recorded, at DRAM, in both modes;
# and the estimates in single mode (the paper's: every byte at the reference level).
sed 's/"bytes": "estimated"/"bytes": "measured"/' "$TMP/unc.json" >"$TMP/meas.json"
for f in meas.json:hier unc.json:single; do
    "$BIN" analyze -m "$TMP/cpu.json" --mode "${f#*:}" --format json "$TMP/${f%%:*}" >"$TMP/as.json" 2>/dev/null
    python3 - "$TMP/as.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
add = [k["verdict"] for k in a["kernels"] if k["name"].startswith("aten::add ")][0]
assert add["bytes"] == {"DRAM": 196608} and "placement" not in add, add
assert all("placement" not in k["verdict"] for k in a["kernels"])
PY
    check "bytes as recorded: $f" test $? -eq 0
done
finish
