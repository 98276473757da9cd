# The reference unit and level chosen from the measured peaks and what the profiles use, and
# --reference / --tau to override: a CPU whose bf16 peak is below fp32 and a profile in fp32 only.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/cpu.json" <<'J'
{
  "schema": "rooftime.machine/1",
  "name": "cpu",
  "source": "measured",
  "units": [
    { "name": "fp32", "flops": 161.7e9 },
    { "name": "bf16", "flops": 82.8e9 },
    { "name": "fp16", "flops": 335.3e9 }
  ],
  "levels": [
    { "name": "L1", "bytes_per_s": 350e9 },
    { "name": "DRAM", "bytes_per_s": 16e9 }
  ],
  "launch_overhead": { "seconds": 6e-7, "method": "OpenMP fork/join" },
  "overheads": [
    { "name": "openmp_fork_join", "threads": 2, "seconds": 6e-7 },
    { "name": "framework_dispatch", "threads": 1, "seconds": 3e-6 }
  ],
  "reference": { "unit": "bf16", "level": "DRAM" }
}
J
cat >"$TMP/fp32.json" <<'J'
{
  "schema": "rooftime.profile/1",
  "source": { "tool": "hand", "time": "wall", "overhead": "framework_dispatch" },
  "kernels": [
    { "name": "conv", "invocations": 10, "time": 0.02, "flops": { "fp32": 2e9 },
      "bytes": { "DRAM": 1e8 }, "tags": { "batch": "16" } },
    { "name": "conv", "invocations": 10, "time": 0.04, "flops": { "fp32": 4e9 },
      "bytes": { "DRAM": 2e8 }, "tags": { "batch": "32" } }
  ]
}
J

"$BIN" analyze -m "$TMP/cpu.json" --mode single "$TMP/fp32.json" >"$TMP/auto.txt" 2>"$TMP/err"
check "analyze: exit 0 ($(cat "$TMP/err"))" test $? -eq 0
grep -q "^reference: fp32 161.7 GFLOP/s, DRAM 16 GB/s" "$TMP/auto.txt"
check "automatic reference: fp32, the unit the profile uses (not bf16 by name)" test $? -eq 0
grep -q "reference chosen: unit fp32: the highest peak among the units the kernels use" "$TMP/auto.txt"
check "the choice is explained" test $? -eq 0
# 2e9 FLOPs at 161.7 GFLOP/s = 12.4 ms: below the 20 ms measured, so no efficiency above 1.
! grep -q "above 1" "$TMP/err"
check "fp32 convs not above the fp32 roof" test $? -eq 0
"$BIN" analyze -m "$TMP/cpu.json" --mode single --reference bf16 "$TMP/fp32.json" >"$TMP/bf16.txt" 2>"$TMP/err"
grep -q "^reference: bf16 82.8 GFLOP/s" "$TMP/bf16.txt" && grep -q "above 1.*bf16 peak" "$TMP/err"
check "--reference bf16: the bf16 roof, and the fp32 convs above it named" test $? -eq 0
"$BIN" analyze -m "$TMP/cpu.json" --reference fp16/L1 "$TMP/fp32.json" >"$TMP/l1.txt" 2>&1
grep -q "^reference: fp16 335.3 GFLOP/s, L1 350 GB/s" "$TMP/l1.txt"
check "--reference fp16/L1" test $? -eq 0
expect 2 "machine 'cpu' has no unit 'tensor' \(it has fp32, bf16, fp16\)" -- analyze -m "$TMP/cpu.json" --reference tensor "$TMP/fp32.json"
expect 2 "has no level 'L9' \(it has L1, DRAM\)" -- analyze -m "$TMP/cpu.json" --reference fp32/L9 "$TMP/fp32.json"
expect 2 "--reference takes" -- plot -m "$TMP/cpu.json" --reference / -o "$TMP/x.svg" "$TMP/fp32.json"

# tau: the profile names the framework dispatch (3 us x 10 = 30 us); --tau overrides by name or time.
"$BIN" analyze -m "$TMP/cpu.json" -f csv "$TMP/fp32.json" | grep '^config' | cut -d, -f14-16 >"$TMP/tau.csv"
python3 - "$TMP/cpu.json" "$TMP/fp32.json" "$BIN" <<'PY'
import csv, io, subprocess, sys
m, p, binary = sys.argv[1:4]
def t_oh(*extra):
    out = subprocess.run([binary, "analyze", "-m", m, "-f", "csv", *extra, p], capture_output=True,
                         text=True, check=True).stdout
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["kind"] == "kernel"]
    return float(rows[0]["t_overhead_s"])
assert abs(t_oh() - 3e-5) < 1e-12, t_oh()
assert abs(t_oh("--tau", "openmp_fork_join") - 6e-6) < 1e-12
assert abs(t_oh("--tau", "4.2us") - 4.2e-5) < 1e-12
PY
check "tau: the profile's named overhead, --tau NAME and --tau TIME" test $? -eq 0
expect 2 "--tau takes a time .* \(openmp_fork_join, framework_dispatch\), not 'cuda'" -- analyze -m "$TMP/cpu.json" --tau cuda "$TMP/fp32.json"

# Charts: the hier roofline draws the roofs of the units the profile uses (fp32), not the others.
"$BIN" plot -m "$TMP/cpu.json" --view roofline --mode hier -o "$TMP/r.svg" "$TMP/fp32.json" >/dev/null 2>&1
check "plot roofline" test -s "$TMP/r.svg"
grep -q ">fp32" "$TMP/r.svg" && ! grep -q ">fp16\|>bf16" "$TMP/r.svg"
check "roofline: fp32 roof only" test $? -eq 0
"$BIN" report -m "$TMP/cpu.json" --reference fp16 -o "$TMP/rep" "$TMP/fp32.json" >/dev/null 2>"$TMP/err"
check "report --reference ($(head -c 300 "$TMP/err"))" test -s "$TMP/rep/report.html"

# Machine sanity carried forward: L3 below DRAM and fp32 at 44% of its theoretical peak.
python3 - "$TMP/cpu.json" "$TMP/bad.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["units"][0]["theoretical"] = 367.5e9
m["levels"] = [{"name": "L1", "bytes_per_s": 350e9}, {"name": "L3", "bytes_per_s": 10e9},
               {"name": "DRAM", "bytes_per_s": 16e9}]
json.dump(m, open(sys.argv[2], "w"))
PY
"$BIN" machine check "$TMP/bad.json" >"$TMP/check.txt" 2>&1
check "machine check: still accepted" test $? -eq 0
grep -q ": loads (cpu, .*), but its verdicts are suspect:$" "$TMP/check.txt" && ! grep -q ": ok (" "$TMP/check.txt" &&
    grep -q "fails 2 sanity rules" "$TMP/check.txt" && grep -q "level L3 (10 GB/s) is slower than DRAM (16 GB/s)" "$TMP/check.txt" &&
    grep -q "unit fp32: 161.7 GFLOP/s is 44% of its theoretical 367.5 GFLOP/s" "$TMP/check.txt"
check "machine check names both rules" test $? -eq 0
"$BIN" analyze -m "$TMP/bad.json" "$TMP/fp32.json" >"$TMP/banner.txt" 2>/dev/null
grep -q "^WARNING: machine 'cpu' fails 2 rules of .rooftime machine check." "$TMP/banner.txt"
check "analyze carries the banner" test $? -eq 0
"$BIN" report -m "$TMP/bad.json" -o "$TMP/rep2" "$TMP/fp32.json" >/dev/null 2>&1
grep -q "machine check</dt><dd class=\"warn\">fails 2 rules" "$TMP/rep2/report.html"
check "the report carries the banner" test $? -eq 0
finish
