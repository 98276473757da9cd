# Verdicts on real workloads: the paper's LSTM tables (device time) on the V100 in single mode are
# overhead-bound with no efficiency above 1; the Conv2D tables keep their classes whatever the time
# kind; a torch trace recorded here without FLOPs gets no bound its counts cannot support.
. "$(dirname "$0")/lib.sh"
FIX=${ROOFTIME_FIXTURES:-}
T=$FIX/paper-tables

if [ -z "$FIX" ] || [ ! -d "$T" ]; then
    echo "skip: no fixtures (ROOFTIME_FIXTURES) for the paper tables"
else
    "$BIN" import table "$T/rnn1d-pt.main.csv" --ai-file "$T/rnn1d-pt.l2-l1-ai.csv" \
        -o "$TMP/rnn.json" >/dev/null 2>&1
    check "rnn1d-pt imports" test $? -eq 0
    grep -q '"time": "device"' "$TMP/rnn.json"
    check "the paper's CUDA Time is device time" test $? -eq 0
    "$BIN" analyze -m v100 --mode single --format csv "$TMP/rnn.json" >"$TMP/rnn.csv" 2>"$TMP/rnn.err"
    check "rnn1d-pt analyze" test $? -eq 0
    # Every config overhead-bound, none with efficiency above 1, no warning about it.
    python3 - "$TMP/rnn.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "config"]
assert len(rows) == 48, len(rows)
bad = [r["name"] for r in rows if r["bound"] != "overhead" or r["overhead_bound"] != "1"]
assert not bad, "not overhead-bound: %s" % bad
fast = [r["name"] for r in rows if float(r["efficiency"]) > 1]
assert not fast, "efficiency above 1: %s" % fast
PY
    check "LSTM tables: 48 configs overhead-bound, none above 1" test $? -eq 0
    n_above=$(grep -c "above 1" "$TMP/rnn.err")
    check "LSTM tables: no efficiency warning ($n_above)" test "$n_above" -eq 0

    # Conv2D: the classes do not depend on the time kind (it changes the cap, not the class).
    for t in conv2d-pt conv2d-tf1-noxla; do
        for k in device wall; do
            "$BIN" import table "$T/$t.main.csv" --ai-file "$T/$t.l2-l1-ai.csv" --time $k \
                -o "$TMP/$t-$k.json" >/dev/null 2>&1
            "$BIN" analyze -m v100 --mode single --format csv "$TMP/$t-$k.json" 2>/dev/null |
                python3 -c 'import csv,sys; [print(r["name"], r["bound"]) for r in csv.DictReader(sys.stdin)]' \
                    >"$TMP/$t-$k.classes"
        done
        check "$t: classes the same as device and wall time" cmp -s "$TMP/$t-device.classes" "$TMP/$t-wall.classes"
        check "$t: classes present" test "$(wc -l <"$TMP/$t-device.classes")" -gt 40
    done
fi

# A real torch trace without FLOPs or bytes, recorded now with Debian's torch.
PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c 'import torch' 2>/dev/null; then
    cat >"$TMP/rec.py" <<'PY'
import sys, torch
torch.manual_seed(0)
conv = torch.nn.Conv2d(8, 8, 3, padding=1)
x = torch.randn(2, 8, 16, 16, requires_grad=True)
with torch.autograd.profiler.profile() as prof:
    for _ in range(2):
        y = torch.relu(conv(x)) + 1.0
        y.sum().backward()
prof.export_chrome_trace(sys.argv[1])
PY
    OMP_NUM_THREADS=1 "$PY" "$TMP/rec.py" "$TMP/trace.json"
    check "torch trace recorded" test -s "$TMP/trace.json"
    "$BIN" import torch "$TMP/trace.json" -o "$TMP/torch.json" >/dev/null 2>&1
    check "torch trace imports" test $? -eq 0
    "$BIN" analyze -m v100 --format csv "$TMP/torch.json" >"$TMP/torch.csv" 2>/dev/null
    python3 - "$TMP/torch.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) > 5, len(rows)
for r in rows:
    counts = float(r["flops"] or 0) > 0 or any(float(r[c] or 0) > 0 for c in r if c.startswith("bytes_"))
    if not counts:
        assert r["bound"] == "unknown", (r["name"], r["bound"])
        assert r["overhead_bound"] == "0" and r["zero_ai"] == "0", r["name"]
PY
    check "torch trace: every count-less op is unknown" test $? -eq 0
    "$BIN" analyze -m v100 "$TMP/torch.json" 2>/dev/null | grep -q "time with a real verdict (FLOPs and bytes): 0.0%.*unknown (no counts): 100.0%"
    check "torch trace: share of time with a real verdict stated" test $? -eq 0
else
    echo "skip: /usr/bin/python3 cannot import torch: no live torch trace"
fi
finish
