# The verdict's trust first: a machine whose fp32 ceiling was measured low (kernels run above it
# by more than its spread) and one that fails `machine check` open the report's summary and
# analyze's text with one line naming the ceiling, the kernels and time above it and a remedy; a
# sound machine with the same profile gets no such line.
. "$(dirname "$0")/lib.sh"

# fp32 measured at 100 GFLOP/s with attempts 95..105 (5% spread): the kernels below run at 150
# and 200 GFLOP/s, bound by compute.
cat >"$TMP/low.json" <<'J'
{
  "schema": "rooftime.machine/1",
  "name": "low",
  "source": "measured",
  "units": [ { "name": "fp32", "flops": 100e9, "min": 95e9, "max": 105e9, "typical": 97e9 } ],
  "levels": [ { "name": "DRAM", "bytes_per_s": 100e9, "min": 99e9, "max": 101e9 } ],
  "launch_overhead": { "seconds": 1e-6, "method": "OpenMP fork/join" },
  "reference": { "unit": "fp32", "level": "DRAM" }
}
J
# The same with a ceiling that holds them (400 GFLOP/s).
sed 's/"flops": 100e9, "min": 95e9, "max": 105e9, "typical": 97e9/"flops": 400e9, "min": 390e9, "max": 405e9/' \
    "$TMP/low.json" >"$TMP/good.json"
cat >"$TMP/p.json" <<'J'
{
  "schema": "rooftime.profile/1",
  "source": { "tool": "hand", "time": "wall" },
  "kernels": [
    { "name": "gemm_a", "invocations": 10, "time": 0.02, "flops": { "fp32": 3e9 },
      "bytes": { "DRAM": 1e6 } },
    { "name": "gemm_b", "invocations": 10, "time": 0.01, "flops": { "fp32": 2e9 },
      "bytes": { "DRAM": 1e6 } },
    { "name": "gemm_c", "invocations": 10, "time": 0.04, "flops": { "fp32": 4e9 },
      "bytes": { "DRAM": 1e6 } }
  ]
}
J

# The machine file with `typical` loads back and keeps it.
"$BIN" machine show "$TMP/low.json" >/dev/null 2>"$TMP/err"
check "a machine with typical loads ($(head -c 200 "$TMP/err"))" test $? -eq 0

"$BIN" analyze -m "$TMP/low.json" "$TMP/p.json" >"$TMP/low.txt" 2>/dev/null
check "analyze runs on the low machine" test $? -eq 0
head -1 "$TMP/low.txt" | grep -q "^Verdicts suspect: 2 kernels (30 ms, 42.9% of the time) run above the fp32 roof by more than its measured spread (10%)"
check "analyze: the first line names fp32, 2 kernels and 30 ms ($(head -1 "$TMP/low.txt" | head -c 300))" test $? -eq 0
head -1 "$TMP/low.txt" | grep -q "rooftime machine measure.*--machine.*--reference"
check "analyze: the first line gives the remedy" test $? -eq 0

"$BIN" analyze -m "$TMP/good.json" "$TMP/p.json" >"$TMP/good.txt" 2>/dev/null
check "analyze on a sound machine: no trust line" test "$(grep -c 'Verdicts suspect' "$TMP/good.txt")" -eq 0
head -1 "$TMP/good.txt" | grep -q "^machine: low"
check "analyze on a sound machine opens with the machine" test $? -eq 0

"$BIN" report -m "$TMP/low.json" -o "$TMP/rep" "$TMP/p.json" >/dev/null 2>&1
check "report on the low machine" test -s "$TMP/rep/report.html"
python3 - "$TMP/rep/report.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
s = html.index('<div class="summary">')
first = re.search(r"<li>(.*?)</li>", html[s:], re.S).group(1)
assert first.startswith("Verdicts suspect: 2 kernels"), first
assert "fp32 roof" in first and "--machine" in first, first
PY
check "report: the summary's first line is the trust line" test $? -eq 0
"$BIN" report -m "$TMP/good.json" -o "$TMP/rep-good" "$TMP/p.json" >/dev/null 2>&1
check "report on a sound machine: no trust line" test "$(grep -c 'Verdicts suspect' "$TMP/rep-good/report.html")" -eq 0

# A machine that fails `machine check` (L1 slower than DRAM) and no kernel above a roof.
python3 - "$TMP/good.json" "$TMP/bad.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["levels"] = [{"name": "L1", "bytes_per_s": 10e9}, {"name": "DRAM", "bytes_per_s": 100e9}]
json.dump(m, open(sys.argv[2], "w"))
PY
"$BIN" analyze -m "$TMP/bad.json" "$TMP/p.json" >"$TMP/bad.txt" 2>/dev/null
head -1 "$TMP/bad.txt" | grep -q "^Verdicts suspect: machine 'low' fails 1 rule of .rooftime machine check."
check "analyze: a failed machine check comes first ($(head -1 "$TMP/bad.txt" | head -c 200))" test $? -eq 0

# A tau measured high: kernels that take less than their calls x tau are named against the launch
# overhead, whose tau reads high (not low), and the remedy is --tau.
sed 's/"seconds": 1e-6/"seconds": 1e-3/' "$TMP/good.json" >"$TMP/slowtau.json"
cat >"$TMP/small.json" <<'J'
{
  "schema": "rooftime.profile/1",
  "source": { "tool": "hand", "time": "wall" },
  "kernels": [
    { "name": "tiny_a", "invocations": 10, "time": 0.002, "flops": { "fp32": 1e3 },
      "bytes": { "DRAM": 1e3 } },
    { "name": "tiny_b", "invocations": 10, "time": 0.009, "flops": { "fp32": 1e3 },
      "bytes": { "DRAM": 1e3 } }
  ]
}
J
"$BIN" analyze -m "$TMP/slowtau.json" "$TMP/small.json" >"$TMP/tau.txt" 2>/dev/null
head -1 "$TMP/tau.txt" | grep -q "^Verdicts suspect: 1 kernel (2 ms, 18.2% of the time) takes less than its launch overhead bound (calls x tau) by more than 5%, so the launch overhead (tau) that machine 'low' gives them reads high. Remedy: .*--tau"
check "analyze: a tau that reads high ($(head -1 "$TMP/tau.txt" | head -c 300))" test $? -eq 0
finish
