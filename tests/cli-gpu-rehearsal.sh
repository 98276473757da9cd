# The GPU session's first device call rehearsed without a GPU (issue 43; docs/gpu-measure.md,
# "The next GPU session"): `scripts/gpu-acceptance.sh OUT`, exactly as that call runs it, in the
# root of a copy of the working tree as the device tool makes one (git's tracked and untracked,
# not ignored, files, plus the carried .carry), with the carry built by scripts/gpu-carry.sh, a
# stand-in driver (tests/fake-libcuda-study.c, built in the carry's unsanitized build: device
# queries answer, everything else fails), a stand-in nvidia-smi, a stand-in ncu
# (tests/gpu-standin-ncu.py, whose clocks refuse to lock: never asked to, as the run leaves the
# GPU's clocks alone) and python3 a PyTorch 2.x (the GPU machine's is 2.11). Checked: every stage group runs
# (a stage skipped only for what a GPU alone produces, none not found or timed out), no Python
# traceback, no path of this checkout or build in the evidence, ncu given base units, mangled
# names and --clock-control none, the evidence packed into OUT before the evaluation (also when the evaluation fails, or
# the run is stopped), at most 8 files back, what travels within 64 MiB. Without PyTorch 2.x it
# rehearses on Debian's 1.13 and says so; skips (77) without either, or without git.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python-lib.sh"
if "$TORCH2_PY" -c "import torch" 2>/dev/null; then
    TPY=$TORCH2_PY
elif "$PY" -c "import torch" 2>/dev/null; then
    TPY=$PY
    echo "note: no PyTorch 2.x at $TORCH2_PY (bash scripts/install-deps.sh as root makes it): rehearsed on $("$PY" -c 'import torch; print("torch", torch.__version__)'), the GPU machine has 2.11"
else
    echo "skipped: neither $TORCH2_PY nor $PY imports torch"
    exit 77
fi
SRC=$(cd "$SRC" && pwd)
if ! command -v git >/dev/null || ! git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
    echo "skipped: $SRC is no git checkout (the device tool sends git's working tree)"
    exit 77
fi
BUILD=$(cd "${ROOFTIME_BUILD:-.}" && pwd)
CB=$BUILD/gpu-carry-build # the carry's build, kept between runs (incremental)

# The copy the device tool sends, and the carry built into it.
DEV=$TMP/dev
mkdir -p "$DEV"
(cd "$SRC" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -C "$DEV" -xf -
GPU_CARRY_BUILD_DIR=$CB bash "$SRC/scripts/gpu-carry.sh" "$DEV/.carry/rooftime" >"$TMP/carry.log" 2>&1
check "scripts/gpu-carry.sh builds the carry ($(tail -1 "$TMP/carry.log"))" test -x "$DEV/.carry/rooftime/bin/rooftime"
check "the carry has librooftime.so for the Python package" test -f "$DEV/.carry/rooftime/bin/librooftime.so"
kib=$(du -sk "$DEV" | cut -f1)
check "what travels is within 64 MiB (${kib} KiB)" test "$kib" -le $((64 << 10))
cmake --build "$CB" --target fake-libcuda-study >"$TMP/fake.log" 2>&1
mkdir -p "$TMP/fakecuda" "$TMP/bin"
cp "$CB/fake-cuda-study/libcuda.so.1" "$TMP/fakecuda/" 2>/dev/null
check "the stand-in driver, unsanitized" test -f "$TMP/fakecuda/libcuda.so.1"

# Stand-ins for what the GPU machine has on its PATH.
cat >"$TMP/bin/nvidia-smi" <<'SH'
#!/bin/sh
case "$*" in
*compute_cap*) echo "NVIDIA H100 80GB HBM3 (stand-in), 580.00, 9.0, Disabled, 345 MHz, 1980 MHz" ;;
*) echo "NVIDIA H100 80GB HBM3 (stand-in), 580.00" ;;
esac
SH
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$TPY" "$DEV/tests/gpu-standin-ncu.py" >"$TMP/bin/ncu"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$TPY" >"$TMP/bin/python3"
chmod +x "$TMP/bin"/*

# run OUT [VAR=VALUE...]: the script as the device call runs it, in the copy's root, with nothing of
# this machine's environment but the stand-ins, and its boxes 6 times as long: this VM, shared and
# loaded by the other tests, starts PyTorch many times slower than the GPU machine
run() {
    local out=$1
    shift
    (cd "$DEV" && env -i HOME="$TMP" LC_ALL=C PATH="$TMP/bin:/usr/local/bin:/usr/bin:/bin" \
        LD_LIBRARY_PATH="$TMP/fakecuda" STANDIN_NCU_CALLS="$TMP/ncu-calls" STANDIN_NCU_CLOCK_FAIL=1 \
        GPU_ACCEPTANCE_SLOW=6 "$@" bash scripts/gpu-acceptance.sh "$out") >"$TMP/run.out" 2>"$TMP/run.err"
}

OUT=$TMP/out
rm -f "$TMP/ncu-calls"
run "$OUT"
rc=$?
check "exit 1: the checks fail without a GPU (exit $rc)" test "$rc" -eq 1
check "the boxes fit the budget" grep -q "stage boxes 330 s of the 340 s budget, each x6" "$TMP/run.err"
check "OUT: the evidence, the evaluation, the summary" test -s "$OUT/evidence.tar.gz" -a -s "$OUT/gpu-acceptance.json" -a -s "$OUT/summary.txt"
n=$(find "$OUT" -type f | wc -l)
check "at most 8 files back ($n)" test "$n" -le 8
bad=$(find "$OUT" -mindepth 1 \( -type d -o -size +16M -o -regextype posix-extended ! -regex '.*/[A-Za-z0-9._-]+' \) | head -1)
check "no folder in OUT, none over 16 MiB, names the device tool brings back (${bad:-ok})" test -z "$bad"
mkdir -p "$TMP/ev"
tar -C "$TMP/ev" -xzf "$OUT/evidence.tar.gz"
EV=$TMP/ev
python3 - "$EV/stages.tsv" "$OUT/gpu-acceptance.json" >"$TMP/stages.txt" 2>&1 <<'PY'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
d = json.load(open(sys.argv[2]))
names = [r[0] for r in rows]
groups = ["measure", "selfcheck", "ncu-base", "ncu-none", "cnn", "ncu-cnn", "python", "study", "report"]
for g in groups:
    assert g in names, ("group never ran", g, names)
for r in rows:
    rc = int(r[1])
    assert rc not in (124, 127, 137), ("not found or timed out", r)
skipped = sorted(r[0] for r in rows if r[1] == "-1")
# only what a GPU alone produces: the manifests of selfcheck-kernels, machine.json and cnn.json
assert skipped == ["compare-ncu-base", "compare-ncu-none", "report"], skipped
# the clocks left as they are: none from the start, no fallback (the stand-in's base would fail)
for n in ("ncu-base", "ncu-none", "ncu-cnn"):
    assert n + "-clock-none" not in names, names
    assert d["ncu_clock_control"][n] == "clock-control none ran (stage %s, exit 0)" % n, d["ncu_clock_control"]
study = [r for r in rows if r[0] == "study"][0]
assert study[3].endswith("--ncu-clock-control none"), study
assert d["counters"]["ncu"].startswith("read (ncu-probe-base.csv"), d["counters"]
assert d["counters"]["collector"].startswith("no refusal in selfcheck.log"), d["counters"]
run = "\n".join(d["run"])
assert "gpu state: compute capability 9.0, persistence mode Disabled, SM clock 345 MHz (max 1980 MHz)" in run, run
assert "ncu --clock-control none" in run and " torch 2." in run and " CUDA 1" in run, run
assert d["groups_run"] == groups and d["groups_not_run"] == [], d["groups_run"]
assert d["gpu"] == {"name": "NVIDIA H100 80GB HBM3 (stand-in)", "driver": "580.00"}, d["gpu"]
for c in d["checks"]:
    assert {"check", "figure", "bound", "pass"} <= set(c), c
assert {s["stage"] for s in d["stages"]} == set(names)
print("ok: %d stages, skipped %s" % (len(rows), skipped))
PY
check "every group ran; skipped only for a GPU's output; the clocks left alone ($(tail -1 "$TMP/stages.txt"))" grep -q '^ok:' "$TMP/stages.txt"
tb=$(grep -rl "Traceback (most recent call last)" "$EV" "$OUT/summary.txt" "$TMP/run.err" 2>/dev/null | head -3)
check "no Python traceback (${tb:-none})" test -z "$tb"
here=$(grep -rlF -e "$SRC/" -e "$BUILD/" "$EV" "$OUT" "$TMP/run.err" 2>/dev/null | head -3)
check "no path of this checkout or build in the evidence (${here:-none})" test -z "$here"
check "the study ran its clients" grep -q "pytorch-conv2d-fp32" "$EV/evidence/study.log"
check "torch's files read beside the first group" grep -q "page cache warm-up): exit 0" "$EV/evidence/warm.log"
check "the Python stage: rooftime.gpu.profile refuses in one line" grep -q "^rooftime.gpu.profile: " "$EV/evidence/python.log"
check "the Python stage: rooftime.torch.profile on the CPU wrote its profile" test -s "$EV/evidence/python/py-torch.json"
python3 - "$TMP/ncu-calls" >"$TMP/ncu.txt" 2>&1 <<'PY'
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
runs = [c for c in calls if c["argv"] != ["--version"]]
assert len(runs) == 3, [c["argv"][:12] for c in runs]  # base, none, cnn
clocks = []
for c in runs:
    a = c["argv"]
    for flag, val in (("--print-units", "base"), ("--print-kernel-base", "mangled")):
        assert flag in a and a[a.index(flag) + 1] == val, (flag, a)
    assert "--csv" in a and "--metrics" in a, a
    assert len(a[a.index("--metrics") + 1].split(",")) == 20, a
    clocks.append(a[a.index("--clock-control") + 1])
    first = c["ld_library_path"].split(":")[0]
    assert first.endswith("/ncu-lib") and ".carry" not in c["ld_library_path"], c["ld_library_path"]
assert clocks == ["none", "none", "none"], clocks
print("ok")
PY
check "ncu: base units, mangled names, the metric list, clocks none, no carried CUPTI ($(tail -1 "$TMP/ncu.txt"))" grep -qx ok "$TMP/ncu.txt"

# The self-check's torch.matmul script on PyTorch 2.x, on the CPU (its CUDA path needs a GPU):
# the calls, the result check and the manifest (1.13 has no fp16 matmul on the CPU).
if [ "$TPY" = "$TORCH2_PY" ]; then
    "$TPY" "$DEV/data/gpu/selfcheck-matmul.py" --manifest "$TMP/mm.tsv" --device cpu --size 64 >"$TMP/mm.out" 2>&1
    rc=$?
    check "selfcheck-matmul.py on PyTorch 2.x (CPU, 64^3): exit 0 ($rc $(tail -1 "$TMP/mm.out"))" test "$rc" -eq 0
    check "  ... four precisions at 2MNK" test "$(grep -c $'\t524288\t0.02$' "$TMP/mm.tsv")" -eq 4
fi

# The evaluation failing leaves the evidence in OUT and a summary that says so.
cp "$DEV/scripts/gpu-acceptance-eval.py" "$TMP/eval.py"
echo 'raise SystemExit("a broken evaluation (tests/cli-gpu-rehearsal.sh)")' >"$DEV/scripts/gpu-acceptance-eval.py"
run "$TMP/out2" GPU_ACCEPTANCE_STAGES=measure
rc=$?
cp "$TMP/eval.py" "$DEV/scripts/gpu-acceptance-eval.py"
check "a failed evaluation: exit 1 ($rc)" test "$rc" -eq 1
check "a failed evaluation: the evidence packed before it" sh -c "tar -tzf '$TMP/out2/evidence.tar.gz' | grep -qx evidence/measure.log"
check "a failed evaluation: the summary says so" grep -q "the evaluation failed" "$TMP/out2/summary.txt"

# Stopped from outside in a stage that hangs (ncu stuck): the script stops the stage with all under
# it at once, not at the end of its box, and packs what ran so far.
(cd "$DEV" && exec env -i HOME="$TMP" LC_ALL=C PATH="$TMP/bin:/usr/local/bin:/usr/bin:/bin" \
    LD_LIBRARY_PATH="$TMP/fakecuda" GPU_ACCEPTANCE_STAGES="measure ncu-none" GPU_ACCEPTANCE_SLOW=6 \
    STANDIN_NCU_HANG="$TMP/hang.pid" bash scripts/gpu-acceptance.sh "$TMP/out3") >/dev/null 2>"$TMP/run3.err" &
pid=$!
for _ in $(seq 1 600); do
    [ -s "$TMP/hang.pid" ] && break
    sleep 0.1
done
t0=$SECONDS
kill -TERM "$pid"
wait "$pid"
rc=$?
check "stopped: exit 1 ($rc)" test "$rc" -eq 1
check "stopped: at once, not at the end of the stage's box ($((SECONDS - t0)) s)" test $((SECONDS - t0)) -le 10
hung=$(cat "$TMP/hang.pid" 2>/dev/null)
sleep 1
check "stopped: the hung ncu stopped with it" sh -c "[ -n '$hung' ] && ! kill -0 '$hung' 2>/dev/null"
check "stopped: the evidence so far packed" sh -c "tar -tzf '$TMP/out3/evidence.tar.gz' | grep -qx evidence/measure.log"
check "stopped: said in stages.tsv" sh -c "tar -xzOf '$TMP/out3/evidence.tar.gz' stages.tsv | grep -q '^stopped'"
finish
