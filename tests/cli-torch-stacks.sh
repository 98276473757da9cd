# A user's own torch 2.x trace with with_stack=True against `profile --torch` of the same script
# (tests/data/torch-stack-recorder.py, run in its own directory so that torch and the runner name
# the file alike): `import torch` gives every operator the source line and nn.Module the runner
# gives it, the backward ones their forward call's (autograd's sequence number) in both. The
# trace committed in tests/data gets the same tags as one recorded now.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python-lib.sh"
need_torch2
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") # the runs below change directory
R=tests/data/torch-stack-recorder.py
mkdir -p "$TMP/run"
cp "$SRC/$R" "$TMP/run/"
(cd "$TMP/run" && OMP_NUM_THREADS=1 "$TORCH2_PY" torch-stack-recorder.py "$TMP/own.json") >"$TMP/rec.err" 2>&1
check "the recorder writes a trace with its own profiler ($(grep -v 'USDT\|gpuGetDevice' "$TMP/rec.err" | tail -2))" test -s "$TMP/own.json"
"$BIN" import torch "$TMP/own.json" -o "$TMP/own-p.json" >/dev/null 2>"$TMP/imp.err"
rc=$?
check "import torch of the user's trace exits 0 ($(tail -2 "$TMP/imp.err"))" test $rc -eq 0
"$BIN" import torch "$SRC/tests/data/torch-2.15-with-stack.json" -o "$TMP/kept.json" >/dev/null 2>&1
check "import torch of the committed trace exits 0" test $? -eq 0
(cd "$TMP/run" && OMP_NUM_THREADS=1 "$BIN" profile --torch -o "$TMP/run.json" -- \
    "$TORCH2_PY" torch-stack-recorder.py) >/dev/null 2>"$TMP/run.err"
rc=$?
check "profile --torch of the same script exits 0 ($(grep -v 'USDT\|gpuGetDevice' "$TMP/run.err" | tail -2))" test $rc -eq 0

# compare WHAT FILE FILE EXPR: with a and b the two profiles' tags, {kernel name: {(source,
# module)}}, and fwd(t) the forward ones (not the line of loss.backward()), EXPR holds.
compare() {
    python3 - "$2" "$3" "$4" <<'PY'
import json, sys
def tags(path):
    out = {}
    for k in json.load(open(path))["kernels"]:
        t = k.get("tags", {})
        out.setdefault(k["name"], set()).add((t.get("source"), t.get("module")))
    return out
a, b = tags(sys.argv[1]), tags(sys.argv[2])
BWD = "torch-stack-recorder.py:26"
def fwd(t): return {x for x in t if x[0] != BWD}
ok = eval(sys.argv[3])
if not ok:
    for n in sorted(set(a) | set(b)):
        if a.get(n) != b.get(n):
            print("  %s: %s | %s" % (n, sorted(a.get(n, []), key=str), sorted(b.get(n, []), key=str)))
sys.exit(0 if ok else 1)
PY
}
O=$TMP/own-p.json
P=$TMP/run.json
L="torch-stack-recorder.py"
# The operators only the forward makes: the same tags, exactly.
check "forward operators: import and runner tag them alike" compare x "$O" "$P" \
    "all(a[n] == b[n] for n in a if n.split(' ')[0] in ('aten::linear', 'aten::addmm', 'aten::relu', 'aten::clamp_min', 'aten::tanh', 'aten::add', 'aten::mean', 'aten::expand') and fwd(a[n]) == a[n]) and len([n for n in a if n.startswith('aten::addmm')]) == 3"
check "addmm by Linear: lines 19, 20, 24 and Linear_0, _1, _2" compare x "$O" "$P" \
    "set().union(*[a[n] for n in a if n.startswith('aten::addmm')]) == {('$L:19', 'Linear_0'), ('$L:20', 'Linear_1'), ('$L:24', 'Linear_2')}"
# Every operator: its tags in the user's trace are those the runner gives an operator of that name
# and shapes (the runner's profile has more: the model's construction and the warm-up step).
check "every operator: import and runner tag it alike" compare x "$O" "$P" "all(a[n] == b.get(n) for n in a)"
check "AddmmBackward0 of Linear_2: its forward call's line and module in both" compare x "$O" "$P" \
    "a['AddmmBackward0 [[16,8]]'] == b['AddmmBackward0 [[16,8]]'] == {('$L:24', 'Linear_2')}"
check "the committed trace and a new one: the same tags" compare x "$TMP/kept.json" "$O" "a == b"
check "the coverage note counts the operators inside the user's code" \
    json "$O" "'operator calls inside the user\\'s code, 0 on threads with no Python frames' in notes['torch_source_coverage']"
finish
