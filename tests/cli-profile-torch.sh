# `rooftime profile --torch` and `import torch` with the cost model: a real training script with no
# profiler code (skipped with a message when /usr/bin/python3 cannot import torch), and traces
# written here.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"

# ---- without torch: a trace with shapes, types, concrete arguments and a call stack ----
cat >"$TMP/t.json" <<'T'
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 0, "dur": 100,
  "args": {"Input Dims": [[2,3,8,8],[4,3,3,3],[4],[],[],[],[]], "Call stack": "<built-in method conv2d>;torch/nn/modules/conv.py(454): _conv_forward;nn.Module: Conv2d_0;model.py(12): forward"}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mkldnn_convolution", "pid": 1, "tid": 1, "ts": 5, "dur": 90,
  "args": {"Input Dims": [[2,3,8,8],[4,3,3,3],[4],[],[],[],[]], "Input type": ["float","float","float","","","","Scalar"],
           "Concrete Inputs": ["","","","[1, 1]","[2, 2]","[1, 1]","1"],
           "Call stack": "<built-in method conv2d>;torch/nn/modules/conv.py(454): _conv_forward;nn.Module: Conv2d_0;model.py(12): forward"}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 1, "tid": 1, "ts": 110, "dur": 10,
  "args": {"Input Dims": [[4,5],[4,5],[]], "Input type": ["float","float","Scalar"], "Call stack": "train.py(30): step"}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::view", "pid": 1, "tid": 1, "ts": 125, "dur": 2,
  "args": {"Input Dims": [[4,5],[]], "Input type": ["float",""]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mystery", "pid": 1, "tid": 1, "ts": 130, "dur": 3,
  "args": {"Input Dims": [[4]], "Input type": ["float"]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::uniform_", "pid": 1, "tid": 1, "ts": 140, "dur": 4,
  "args": {"Input Dims": [[4,5],[],[],[]], "Input type": ["float","Scalar","Scalar",""], "Call stack": "torch/nn/init.py(12): _no_grad_uniform_;train_small.py(0): <module>"}}
]}
T
expect 0 "aten::mystery \(not in the cost model\)" -- import torch "$TMP/t.json" -o "$TMP/taps.json"
check "the convolution has FLOPs counted over taps inside the input (5808 + 128 bias)" \
    json "$TMP/taps.json" 'any(op(k) == "aten::mkldnn_convolution" and k["flops"]["fp32"] == 5936 for k in ks)'
check "the convolution has bytes (624 elements of 4 bytes)" \
    json "$TMP/taps.json" 'any(op(k) == "aten::mkldnn_convolution" and k["bytes"]["DRAM"] == 2496 for k in ks)'
check "the dispatcher around it has none" json "$TMP/taps.json" 'not any(op(k) == "aten::conv2d" and (has(k, "flops") or has(k, "bytes")) for k in ks)'
check "the in-place add has bytes" json "$TMP/taps.json" 'any(op(k) == "aten::add_" and k["bytes"]["DRAM"] == 240 for k in ks)'
check "source line and module from the call stack" \
    json "$TMP/taps.json" 'any(k.get("tags", {}).get("source") == "model.py:12" and k["tags"].get("module") == "Conv2d_0" for k in ks)'
check "a frame with line 0 is no source line: the operator has none" \
    json "$TMP/taps.json" 'any(op(k) == "aten::uniform_" and "source" not in k.get("tags", {}) for k in ks)'
check "and it counts as source unknown" \
    json "$TMP/taps.json" 'notes["torch_source_coverage"].endswith("% source unknown") and not notes["torch_source_coverage"].endswith(" 0.0% source unknown")'
check "coverage and the uncovered operator in the notes" \
    json "$TMP/taps.json" '"uncovered" in notes["torch_coverage"] and "aten::mystery" in notes["torch_uncovered"]'
expect 0 "" -- import torch "$TMP/t.json" --conv-flops window -o "$TMP/window.json"
check "--conv-flops window counts the whole window (6912 + 128)" \
    json "$TMP/window.json" 'any(op(k) == "aten::mkldnn_convolution" and k["flops"]["fp32"] == 7040 for k in ks)'
expect 0 "" -- import torch "$TMP/t.json" --no-cost-model -o "$TMP/legacy.json"
check "--no-cost-model: no bytes" json "$TMP/legacy.json" 'not any(has(k, "bytes") for k in ks)'
expect 0 "" -- import onednn "$SRC/tests/data/onednn-2.6-torch-conv2d-forward.log" -o "$TMP/dn-taps.json"
expect 0 "" -- import onednn "$SRC/tests/data/onednn-2.6-torch-conv2d-forward.log" --conv-flops window -o "$TMP/dn-window.json"
check "oneDNN: the whole window counts more than the taps" \
    python3 -c "import json,sys; f=lambda p: sum(sum(k.get('flops',{}).values()) for k in json.load(open(p))['kernels']); sys.exit(0 if f('$TMP/dn-window.json') > f('$TMP/dn-taps.json') > 0 else 1)"
"$BIN" diff --by op "$TMP/dn-taps.json" "$TMP/dn-window.json" >"$TMP/diff.txt" 2>"$TMP/err"
check "diff exits 0" [ $? -eq 0 ]
check "diff lists the convolution" grep -q '^convolution ' "$TMP/diff.txt"
check "diff lists the total" grep -q '^total ' "$TMP/diff.txt"
check "diff says what matched" grep -q "matched by op; 0 only before, 0 only after" "$TMP/diff.txt"
"$BIN" diff -m a100 --format csv "$TMP/dn-taps.json" "$TMP/dn-window.json" >"$TMP/diff.csv" 2>"$TMP/err"
check "diff CSV with verdicts" grep -qE '^"?total"?,.*,(bandwidth|compute|overhead)' "$TMP/diff.csv"
expect 2 "expected two profiles" -- diff "$TMP/dn-taps.json"
expect 0 "" -- plot -m a100 --diff=3 -o "$TMP/diff.svg" "$TMP/dn-taps.json" "$TMP/dn-window.json"
check "plot --diff draws the runs" grep -q "2-after" "$TMP/diff.svg"
expect 2 "--diff takes two profiles" -- plot -m a100 --diff -o "$TMP/d1.svg" "$TMP/dn-taps.json"
"$BIN" analyze -m a100 --hints "$TMP/dn-taps.json" >"$TMP/hints.txt" 2>"$TMP/err"
check "analyze --hints exits 0" [ $? -eq 0 ]
check "the reorder hint fires with its figure" grep -qE "^hint: reorders: [0-9.]+% of the time \(.* in [0-9]+ kernels, the longest 'reorder " "$TMP/hints.txt"
printf '{"schema": "rooftime.hints/1", "rules": [{"id": "x", "advice": "y", "min_share": 2, "bound": "overhead"}]}' >"$TMP/hints.json"
expect 1 "hints.json': line 1, column [0-9]+: field 'rules\[0\]\.min_share': 2 is not a share in \(0, 1\]" -- analyze -m a100 --hints-file "$TMP/hints.json" "$TMP/dn-taps.json"
# The table is read before anything is written: no analysis on standard output, one error.
check "a bad hints table: nothing on standard output" test ! -s "$TMP/out"
check "a bad hints table: one error line" test "$(wc -l <"$TMP/err")" -eq 1
expect 1 "cannot read" -- diff "$TMP/dn-taps.json" "$TMP/nope.json"
expect 2 "--conv-flops: unknown FLOP convention 'all' \(taps or window\)" -- import torch "$TMP/t.json" --conv-flops all -o "$TMP/x.json"
expect 2 "--ops is for .import torch." -- import onednn "$SRC/tests/data/onednn-2.6-primitives.log" --ops x -o "$TMP/x.json"
printf '{"schema": "rooftime.torch-ops/1", "ops": [{"model": "stream", "flops": "2 *", "ops": ["a"]}]}' >"$TMP/ops.json"
expect 1 "ops.json': line 1, column [0-9]+: field 'ops\[0\]\.flops': formula: " -- import torch "$TMP/t.json" --ops "$TMP/ops.json" -o "$TMP/x.json"
check "no profile from a bad cost model" [ ! -e "$TMP/x.json" ]
expect 2 "--steps: expected FIRST:LAST" -- profile --torch --steps 3:1 -o "$TMP/x.json" -- true
expect 2 "are for --torch" -- profile --steps 1:2 -o "$TMP/x.json" -- true
expect 1 "nothing to profile" -- profile --torch -o "$TMP/x.json" -- true
check "no profile when the command left no trace" [ ! -e "$TMP/x.json" ]

# diff judges each run as analyze does: the reference unit chosen from the kernels (fp32 here),
# not the machine's default (a100: tensor cores)
"$BIN" diff -m a100 "$TMP/dn-taps.json" "$TMP/dn-window.json" >"$TMP/diff-m.txt" 2>"$TMP/err"
check "diff -m: fp32 kernels judged against fp32, as analyze chooses" grep -q "compute:ref(fp32)" "$TMP/diff-m.txt"
check "diff -m: never against the machine's default reference" sh -c "! grep -q 'ref(tensor)' '$TMP/diff-m.txt'"
expect 0 "" -- diff -m a100 --reference tensor "$TMP/dn-taps.json" "$TMP/dn-window.json"
check "diff --reference: as given (the convolution is bandwidth-bound against tensor cores)" \
    grep -qE "^convolution .* bandwidth:HBM +bandwidth:HBM" "$TMP/out"
expect 2 "need a machine" -- diff --reference fp32 "$TMP/dn-taps.json" "$TMP/dn-window.json"
# svgtext FILE PATTERN: the chart's texts joined (notes are wrapped into lines) match PATTERN
svgtext() {
    sed 's/<[^>]*>/ /g' "$1" | tr -s ' \n' '  ' | grep -qE -- "$2"
}
# plot --diff: kernels of one run only are drawn, matched --by as diff, and the chart says what it
# cannot place
expect 0 "" -- plot -m a100 --diff=3 --by op -o "$TMP/diff-op.svg" "$TMP/dn-taps.json" "$TMP/dn-window.json"
check "plot --diff --by op: matched by operator" svgtext "$TMP/diff-op.svg" "matched by op"
check "plot --diff: the chart notes the kernels without FLOPs" \
    svgtext "$TMP/diff-op.svg" "1 of them have no FLOPs in either run, .*the largest: .{1,5}reorder"
expect 2 "--by is for --diff" -- plot -m a100 --by op -o "$TMP/d2.svg" "$TMP/dn-taps.json"
sed 's/,convolution,jit:avx512_core,/,convolution,jit:avx512_core_new,/' "$SRC/tests/data/onednn-2.6-torch-conv2d-forward.log" >"$TMP/renamed.log"
expect 0 "" -- import onednn "$TMP/renamed.log" -o "$TMP/dn-renamed.json"
expect 0 "" -- plot -m a100 --diff=8 -o "$TMP/diff-one.svg" "$TMP/dn-taps.json" "$TMP/dn-renamed.json"
check "plot --diff: a kernel of one run only is drawn (it is not hidden as a family of one)" \
    svgtext "$TMP/diff-one.svg" "avx512_core_new"
check "plot --diff: the chart counts the kernels only before and only after" \
    svgtext "$TMP/diff-one.svg" "1 only before and 1 only after among them"

# hints at config level: a call site of count-less dispatch operators and a few counted ones is
# overhead-bound as a whole, though no kernel alone holds the rule's share
cat >"$TMP/oh.json" <<'P'
{"schema": "rooftime.profile/1", "source": {"tool": "pytorch-profiler", "time": "wall"},
 "provenance": {"notes": {"command_wall_time": "0.0048", "torch_coverage": "operator self time 1.2 ms: 16.7% with FLOPs or bytes"}},
 "kernels": [
  {"name": "aten::lstm", "invocations": 1000, "time": 0.001, "tags": {"source": "lstm.py:6"}},
  {"name": "aten::mm [[4,16],[16,64]]", "invocations": 1000, "time": 0.0002, "flops": {"fp32": 8192000}, "bytes": {"HBM": 8000000}, "tags": {"source": "lstm.py:6", "precision": "fp32"}}
 ]}
P
"$BIN" analyze -m a100 --hints "$TMP/oh.json" >"$TMP/oh.txt" 2>"$TMP/err"
check "the overhead hint fires on the call site's config, with its figure" \
    grep -qE "^hint: overhead: 100.0% of the time \(1.2 ms of 1.2 ms\) in 1 config by source, the longest 'source=lstm.py:6'" "$TMP/oh.txt"
printf '{"schema": "rooftime.hints/1", "rules": [{"id": "x", "advice": "y", "min_share": 0.5, "bound": "overhead", "over": "everything"}]}' >"$TMP/hints.json"
expect 1 "hints.json': line 1, column [0-9]+: field 'rules\[0\]\.over': 'everything' is not kernels, configs or a list of them" -- analyze -m a100 --hints-file "$TMP/hints.json" "$TMP/oh.json"
# a rule's field is named by its line and column, a rule's fault by the rule's
place() { # FILE TEXT: "line L, column C" of TEXT's first occurrence in FILE, counted from 1
    python3 -c 'import sys; t = open(sys.argv[1]).read(); i = t.index(sys.argv[2]); print("line %d, column %d" % (t.count("\n", 0, i) + 1, i - t.rfind("\n", 0, i)))' "$1" "$2"
}
printf '{"schema": "rooftime.hints/1",\n "rules": [\n  {"id": "x", "advice": "y", "min_share": 0.5, "bound": "overhead"},\n  {"id": "z", "advice": "w", "tag": "source",\n   "min_share": 0.5, "group_by": ["source", 3]},\n  {"id": "v", "advice": "u", "min_share": 0.5}]}\n' >"$TMP/hints.json"
at=$(place "$TMP/hints.json" '3]}')
expect 1 "hints.json': $at: field 'rules\[1\]\.group_by\[1\]': not a tag" -- analyze -m a100 --hints-file "$TMP/hints.json" "$TMP/oh.json"
sed -i 's/"source", 3/"source"/' "$TMP/hints.json"
at=$(place "$TMP/hints.json" '{"id": "v"')
expect 1 "hints.json': $at: field 'rules\[2\]': matches every kernel \(give kernels, bound, tag or zero_flops\)" -- analyze -m a100 --hints-file "$TMP/hints.json" "$TMP/oh.json"
# the report says the wall-time coverage analyze prints
expect 0 "" -- report -m a100 -o "$TMP/rep" "$TMP/oh.json"
check "report: the share of the wall time the operators explain" \
    grep -q "Coverage: operator self time 1.2 ms is 25.0% of the command&#39;s wall time 4.8 ms" "$TMP/rep/report.html"
check "report: and what the cost model covered" grep -q "Cost model: operator self time 1.2 ms: 16.7% with FLOPs or bytes" "$TMP/rep/report.html"

# ---- torch.compile's kernels: what the runner reads of inductor's generated code ----
# The code of a compiled block's forward and backward and the trace profile --torch wrote in the
# same run (torch 2.15, tests/data/README.md): the runner's reader, run on the code alone (it needs
# no torch), gives each kernel the buffers the trace holds
D=$SRC/tests/data/torch-2.15-compiled-block
check "the runner reads every compiled kernel's buffers from the generated code, as the trace has them" \
    /usr/bin/python3 - "$SRC/data/torch/runner" "$D" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import rooftime_inductor as r
rec = {}
for part in ("forward", "backward"):
    r.read_source(open(sys.argv[2] + "." + part + ".py.txt").read(), rec)
tr = {e["name"]: {"dims": e["args"]["Input Dims"], "types": e["args"]["Input type"],
                  "access": e["args"]["Concrete Inputs"]}
      for e in json.load(open(sys.argv[2] + ".json"))["traceEvents"] if "cpp_fused_" in e["name"]}
sys.exit(0 if len(rec) == 9 and rec == tr else 1)
PY
check "what it cannot read exactly it leaves out: a size that is a symbol, calls that disagree" \
    /usr/bin/python3 - "$SRC/data/torch/runner" "$D" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import rooftime_inductor as r
text = open(sys.argv[2] + ".forward.py.txt").read()
rec = {}
r.read_source(text.replace("empty_strided_cpu((2, 16, 128)", "empty_strided_cpu((s0, 16, 128)"), rec)
silu = "graph_0_cpp_fused__unsafe_view_mul_silu_2"
ok = rec[silu] is None and rec["graph_0_cpp_fused__unsafe_view_add_3"] is not None
rec = {}
r.read_source(text, rec)
r.read_source(text.replace("(32, 128), (128, 1)", "(32, 64), (64, 1)"), rec)
sys.exit(0 if ok and rec[silu] is None else 1)
PY
expect 0 "" -- import torch "$D.json" -o "$TMP/compiled.json"
check "import: the SiLU-gated product's kernel costed (16384 FLOPs, 49152 bytes: by hand)" \
    json "$TMP/compiled.json" 'any(op(k) == "graph_0_cpp_fused__unsafe_view_mul_silu_2" and k["flops"]["fp32"] == 16384 and k["bytes"]["DRAM"] == 49152 for k in ks)'

# ---- with torch: an unmodified training script profiled from the outside ----
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
    echo "SKIP (part): /usr/bin/python3 cannot import torch (apt-get install python3-torch); the profile --torch runs are not tested"
    finish
    exit $?
fi
TRAIN="$SRC/examples/torch/train.py"
for prec in fp32 bf16; do
    flag=""
    [ "$prec" = bf16 ] && flag=--bf16
    "$BIN" profile --torch --steps 1:3 --keep-trace "$TMP/$prec.trace.json" -o "$TMP/$prec.json" -- \
        /usr/bin/python3 "$TRAIN" --steps 4 --batch 32 --size 64 $flag >"$TMP/out" 2>"$TMP/err"
    check "$prec: profile --torch exits 0" [ $? -eq 0 ]
    check "$prec: the script's own output passes through" grep -q "train.py: 4 steps" "$TMP/out"
    check "$prec: the trace is kept" [ -s "$TMP/$prec.trace.json" ]
    check "$prec: operators carry source lines of the script" \
        json "$TMP/$prec.json" 'any("examples/torch/train.py:" in k.get("tags", {}).get("source", "") for k in ks)'
    check "$prec: nn.Module names" json "$TMP/$prec.json" 'any(k.get("tags", {}).get("module", "").startswith("Conv2d_") for k in ks)'
    check "$prec: the convolution backward carries FLOPs" \
        json "$TMP/$prec.json" 'any(op(k) == "aten::convolution_backward" and has(k, "flops") for k in ks)'
    check "$prec: elementwise operators carry bytes" \
        json "$TMP/$prec.json" 'all(has(k, "bytes") for k in ks if op(k) in ("aten::add_", "aten::clamp_min", "aten::threshold_backward", "aten::mul"))'
    # Shares of time depend on the machine's load: measured by bench/bench-torch-coverage.sh, not
    # asserted here. What is asserted: every operator the model knows got its figures, but the
    # tensor lists aten::lstm builds in C++ (aten::stack, aten::cat), out of the runner's reach.
    check "$prec: no operator is uncovered but those the model does not list" \
        json "$TMP/$prec.json" 'all("(not in the cost model)" in u or "(a tensor list recorded as []" in u for u in notes.get("torch_uncovered", "").split("; ") if u and not u[0].isdigit())'
    check "$prec: the wall time is recorded" json "$TMP/$prec.json" 'float(notes["command_wall_time"]) > 0 and "profiled steps" in notes["torch_wall_coverage"]'
    check "$prec: the steps in the window are recorded (--steps 1:3: 2)" json "$TMP/$prec.json" 'notes["steps"] == "2"'
    check "$prec: the machine it ran on is recorded (CPU and count)" json "$TMP/$prec.json" 'p["source"]["machine"].endswith(("CPU", "CPUs")) and " (" in p["source"]["machine"]'
done
check "bf16: bf16 FLOPs" json "$TMP/bf16.json" 'any("bf16" in k.get("flops", {}) for k in ks)'
check "bf16: autocast's conversions are tagged" json "$TMP/bf16.json" 'any(k.get("tags", {}).get("convert") == "float->c10::BFloat16" for k in ks)'
"$BIN" analyze -m a100 -g source --hints "$TMP/fp32.json" >"$TMP/a.txt" 2>"$TMP/err"
check "analyze -g source exits 0" [ $? -eq 0 ]
check "analyze says what share of the steps the operators explain" grep -qE "^coverage: profile 1: operator self time .* is [0-9.]+% of the profiled steps'" "$TMP/a.txt"
check "analyze says what the cost model covered" grep -qE "^coverage: profile 1: .*% with FLOPs or bytes" "$TMP/a.txt"
"$BIN" analyze -m a100 -g source --format csv "$TMP/fp32.json" >"$TMP/a.csv" 2>"$TMP/err"
check "configs by source line" grep -q "examples/torch/train.py:" "$TMP/a.csv"

# NCHW against channels_last, the oneDNN view of the same runs: the reorders disappear.
for fmt in nchw cl; do
    flag=""
    [ "$fmt" = cl ] && flag=--channels-last
    "$BIN" profile --torch --onednn-output "$TMP/$fmt-dnn.json" -o "$TMP/$fmt.json" -- \
        /usr/bin/python3 "$TRAIN" --steps 2 --batch 32 --size 64 --no-lstm $flag >"$TMP/out" 2>"$TMP/err"
    check "$fmt: profile --torch --onednn-output exits 0" [ $? -eq 0 ]
done
# The scratch trace is gone when its warnings are read: they name the command that wrote it.
cat >"$TMP/lstm_small.py" <<'PY'
import torch
m = torch.nn.LSTM(8, 8, batch_first=True)
x = torch.randn(2, 4, 8)
for _ in range(3):
    m(x)[0].sum().backward()
PY
"$BIN" profile --torch -o "$TMP/lstm.json" -- /usr/bin/python3 "$TMP/lstm_small.py" >"$TMP/out" 2>"$TMP/err"
check "the trace's warnings name the command that wrote it, not the scratch file" \
    sh -c "grep -q \"'/usr/bin/python3 $TMP/lstm_small.py': .* uncovered\" '$TMP/err' && ! grep -q 'trace.tmp' '$TMP/err'"
check "join: the oneDNN convolutions know the aten operator and source line that called them" \
    json "$TMP/nchw-dnn.json" 'all(k.get("tags", {}).get("caller", "").startswith(("aten::mkldnn_convolution @ ", "aten::convolution_backward @ ")) and "examples/torch/train.py:" in k["tags"]["caller"] for k in ks if k["name"].startswith("convolution "))'
check "join: the reorders are attributed to the convolutions" \
    json "$TMP/nchw-dnn.json" 'sum(k["time"] for k in ks if k["name"].startswith("reorder ") and "caller" in k.get("tags", {})) >= 0.9 * sum(k["time"] for k in ks if k["name"].startswith("reorder "))'
check "join: the aten convolution knows oneDNN's implementation" \
    json "$TMP/nchw.json" 'any(op(k) == "aten::mkldnn_convolution" and "onednn" in k.get("tags", {}) for k in ks)'
"$BIN" diff --by op --format csv "$TMP/nchw-dnn.json" "$TMP/cl-dnn.json" >"$TMP/cl.csv"
check "diff: reorder time falls to under a tenth with channels_last" \
    awk -F, '$1 == "\"reorder\"" { found = 1; ok = $3 < $2 / 10 } END { exit !(found && ok) }' "$TMP/cl.csv"

# What the runner records beyond torch's own events: pooling's defaults, padding "same", tensor
# lists, the user's lines of functional calls, backward and steps, which optimizer object stepped;
# TorchScript still compiles through its wrappers.
cat >"$TMP/audit.py" <<'PY'
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 8, 3, padding="same")
        self.emb = nn.Embedding(50, 8)
    def forward(self, x, idx):
        x = F.relu(self.c(x))
        x = F.max_pool2d(x, 2)
        x = F.avg_pool2d(x, kernel_size=2, stride=2)
        x = F.max_pool2d(x, kernel_size=2)
        e = self.emb(idx).mean(1)
        return torch.cat([x.flatten(1), e], 1)
net, head = Net(), nn.Linear(40, 4)
opt_a = torch.optim.SGD(net.parameters(), lr=0.01)
opt_b = torch.optim.SGD(head.parameters(), lr=0.01)
opt_c = torch.optim.Adam(head.parameters(), foreach=True)
x, idx = torch.randn(4, 3, 16, 16), torch.randint(0, 50, (4, 5))
for i in range(4):
    out = head(net(x, idx))
    loss = F.mse_loss(out, torch.zeros(4, 4))
    torch.cumsum(out, 0)
    opt_a.zero_grad(); opt_b.zero_grad()
    loss.backward()
    opt_a.step()
    opt_b.step()
    opt_c.step()
torch.jit.script(Net())
print("audit done")
PY
"$BIN" profile --torch --steps 1:3 --keep-trace "$TMP/audit.trace.json" --onednn-output "$TMP/audit-dnn.json" \
    -o "$TMP/audit.json" -- /usr/bin/python3 "$TMP/audit.py" >"$TMP/out" 2>"$TMP/err"
check "runner: profile --torch exits 0" [ $? -eq 0 ]
check "runner: TorchScript compiles the script's module through the runner's wrappers" grep -q "audit done" "$TMP/out"
check "runner: pooling with torch's defaults (kernel only, keywords) has FLOPs and bytes" \
    json "$TMP/audit.json" 'sum(1 for k in ks if op(k) in ("aten::max_pool2d_with_indices", "aten::avg_pool2d") and has(k, "flops") and has(k, "bytes")) >= 3 and "not recorded" not in notes.get("torch_uncovered", "")'
check "runner: a convolution with padding='same' has FLOPs" \
    json "$TMP/audit.json" 'any(op(k) == "aten::mkldnn_convolution" and has(k, "flops") for k in ks)'
check "runner: torch.cat's tensor list has its shapes, so bytes" \
    json "$TMP/audit.json" 'any(op(k) == "aten::cat" and has(k, "bytes") for k in ks)'
check "embedding: aten::index_select does the work, aten::embedding is its composite (no bytes twice)" \
    json "$TMP/audit.json" 'any(op(k) == "aten::index_select" and has(k, "bytes") for k in ks) and not any(op(k) == "aten::embedding" and has(k, "bytes") for k in ks)'
check "runner: _foreach_ lists recorded with their shapes" \
    python3 -c "import json,sys; t=json.load(open('$TMP/audit.trace.json'))['traceEvents']; sys.exit(0 if any(e['name'] == 'aten::_foreach_add_' and e['args']['Input Dims'][0] not in ([], None) for e in t) else 1)"
check "_foreach_ operators are composites of their per-tensor callees, never uncovered" \
    json "$TMP/audit.json" '"_foreach" not in notes.get("torch_uncovered", "") and any(op(k) == "aten::_foreach_add_" for k in ks) and not any(op(k).startswith("aten::_foreach") and (has(k, "flops") or has(k, "bytes")) for k in ks)'
line() { grep -n "$1" "$TMP/audit.py" | head -1 | cut -d: -f1; }
check "source: a functional call in a module's forward has its own line, not the module call's" \
    json "$TMP/audit.json" "any(op(k) == 'aten::clamp_min' and k.get('tags', {}).get('source', '').endswith('audit.py:$(line 'F.relu')') for k in ks)"
check "source: module-level functional calls have their line, not 0" \
    json "$TMP/audit.json" "any(op(k) == 'aten::mse_loss' and k.get('tags', {}).get('source', '').endswith('audit.py:$(line 'mse_loss')') for k in ks)"
check "source: the optimizer step's operators have the step's line" \
    json "$TMP/audit.json" "any(op(k) == 'aten::add_' and k.get('tags', {}).get('source', '').endswith('audit.py:$(line 'opt_a.step')') for k in ks)"
check "source: the backward's operators of the loss have the line that made it" \
    json "$TMP/audit.json" "any(op(k) == 'aten::mse_loss_backward' and k.get('tags', {}).get('source', '').endswith('audit.py:$(line 'mse_loss')') for k in ks)"
check "--steps 1:3 counts the steps of the first optimizer object, not of its class: 2 iterations" \
    python3 -c "import json,sys; t=json.load(open('$TMP/audit.trace.json'))['traceEvents']; n=sum(1 for e in t if e['name'] == 'Optimizer.step#SGD.step'); print(n) if n != 4 else None; sys.exit(0 if n == 4 else 1)"
check "--onednn-output: the trace's warnings are printed once" \
    sh -c "[ \$(grep -c 'of the operator self time is uncovered' '$TMP/err') -eq 1 ]"
check "the trace's warnings name the kept trace, not the scratch file it was written to" \
    sh -c "grep -q \"'$TMP/audit.trace.json': .* uncovered\" '$TMP/err' && ! grep -q 'trace.tmp' '$TMP/err'"
# A short training script: module-level calls, the layers' weight initialisation and zero_grad
# have their real lines; no operator is tagged with line 0, and what has no line is counted.
cat >"$TMP/train_small.py" <<'PY'
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(8, 3, 16, 16)
y = torch.randint(0, 10, (8,))
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1),
    nn.ReLU(),
    nn.Flatten(),
    nn.Linear(8 * 16 * 16, 10),
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
PY
"$BIN" profile --torch -o "$TMP/small.json" -- /usr/bin/python3 "$TMP/train_small.py" >"$TMP/out" 2>"$TMP/err"
check "small: profile --torch exits 0" [ $? -eq 0 ]
tl() { grep -n "$1" "$TMP/train_small.py" | head -1 | cut -d: -f1; }
check "small: no operator is tagged with line 0" \
    json "$TMP/small.json" 'not any(k.get("tags", {}).get("source", "").endswith(":0") for k in ks)'
check "small: every source line is a line of the script" \
    json "$TMP/small.json" "all(0 < int(k['tags']['source'].rsplit(':', 1)[1]) <= $(wc -l <"$TMP/train_small.py") for k in ks if 'source' in k.get('tags', {}))"
check "small: module-level torch.randn and torch.randint have their own lines" \
    json "$TMP/small.json" "any(op(k) == 'aten::normal_' and k['tags'].get('source', '').endswith(':$(tl 'torch.randn')') for k in ks) and any(op(k) == 'aten::random_' and k['tags'].get('source', '').endswith(':$(tl 'torch.randint')') for k in ks)"
check "small: weight initialisation has the layer's line" \
    json "$TMP/small.json" "any(op(k) == 'aten::uniform_' and k['tags'].get('source', '').endswith(':$(tl 'nn.Conv2d')') for k in ks) and any(op(k) == 'aten::uniform_' and k['tags'].get('source', '').endswith(':$(tl 'nn.Linear')') for k in ks)"
check "small: zero_grad's zero_ has its line" \
    json "$TMP/small.json" "any(op(k) == 'aten::zero_' and k['tags'].get('source', '').endswith(':$(tl 'zero_grad')') for k in ks)"
check "small: the coverage line counts what has no line as source unknown" \
    grep -qE "rooftime: profile: operator self time .*; [0-9.]+% of the operator self time with the user's source line, [0-9.]+% source unknown" "$TMP/err"
cat >"$TMP/ownprof.py" <<'PY'
import torch
from torch.profiler import profile
with profile() as p:
    torch.ones(3).sum()
PY
expect 1 "the script starts torch's profiler itself" -- profile --torch -o "$TMP/own.json" -- /usr/bin/python3 "$TMP/ownprof.py"
finish
