# `rooftime study --gpu` without a GPU: a request that cannot run fails with exit 2, a machine
# without a driver fails with exit 1 and one line naming it before anything is written, and
# --dry-run writes the plan files of contract section 3 without a GPU.
. "$(dirname "$0")/lib.sh"

O=$TMP/g
expect 2 "--framework: unknown framework 'tensorflow' \(known: pytorch, jax\)" -- study --gpu -o "$O" --framework tensorflow
expect 2 "--precision: unknown precision 'fp8' \(known: fp32, tf32, fp16, bf16\)" -- study --gpu -o "$O" --precision fp8
expect 2 "no implementation runs the selected operations and precisions" -- study --gpu -o "$O" --framework jax --precision tf32
expect 2 "--gpu takes one device INDEX \(0 to 1023\), got 'x'" -- study --gpu x -o "$O"
expect 2 "--gpu takes one device INDEX" -- study --gpu 0 1 -o "$O"
expect 2 "unknown option '--impl' for 'study --gpu'" -- study --gpu --impl onednn -o "$O"
expect 2 "--iters: expected a whole number from 1 to 100000, got '0'" -- study --gpu --iters 0 -o "$O"
expect 2 "--ncu-clock-control: base or none, got 'fixed'" -- study --gpu --ncu-clock-control fixed -o "$O"
expect 2 "unknown option '--ncu-clock-control'" -- study --ncu-clock-control none -o "$O"
check "no output for usage errors" test ! -e "$O"

# No driver: one line naming it, exit 1, nothing written.
ROOFTIME_LIBCUDA=/nonexistent/libcuda.so.1 expect 1 "^rooftime: error: study --gpu: no NVIDIA driver" -- study --gpu -o "$O"
check "one line" test "$(wc -l <"$TMP/err")" -eq 1
check "nothing written" test ! -e "$O"
ROOFTIME_LIBCUDA=/nonexistent/libcuda.so.1 expect 1 "no NVIDIA driver" -- study --gpu 1 --quick -o "$O"
check "nothing written (quick)" test ! -e "$O"

# --dry-run: the plans of every client, trace and counter run, without a GPU.
ROOFTIME_LIBCUDA=/nonexistent/libcuda.so.1 expect 0 "" -- study --gpu 0 --quick --dry-run -o "$O"
check "22 clients listed" grep -q "^22 clients, each run twice" "$TMP/out"
check "44 plan files" test "$(ls "$O/plans" | wc -l)" -eq 44
check "the torch client for pytorch" grep -q "^pytorch-lstm-fp16-graphs .* scripts/study-gpu-torch.py --plan $O/plans/pytorch-lstm-fp16-graphs.json" "$TMP/out"
check "the jax client for jax" grep -q "^jax-conv2d-bf16-jit .* scripts/study-gpu-jax.py --plan" "$TMP/out"
check "no machine measured, nothing run" test ! -e "$O/machine.json" -a ! -e "$O/collect"
python3 - "$O/plans" <<'PY' || { echo "FAIL: plan files"; FAILS=$((FAILS + 1)); }
import json, os, sys
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    p = json.load(open(os.path.join(d, f)))
    assert p["format"] == "rooftime-study-gpu-plan/1", f
    assert p["framework"] in ("pytorch", "jax") and p["op"] in ("conv2d", "lstm"), f
    assert p["precision"] in ("fp32", "tf32", "fp16", "bf16"), f
    assert p["variant"] in ("", "channels_last", "graphs", "jit"), f
    want = ["forward", "backward-data", "backward-weights"] if p["op"] == "conv2d" else ["forward", "backward"]
    assert p["passes"] == want, f
    assert (p["warmup"], p["iters"]) == (1, 3), f  # quick: counters on every iteration too
    assert len(p["points"]) == 5, f
    keys = {"batch", "channels", "size", "filters", "kernel", "stride"} if p["op"] == "conv2d" \
        else {"batch", "seq", "features", "hidden"}
    for pt in p["points"]:
        assert set(pt) == keys | {"tags"}, (f, pt)
        assert all(isinstance(v, str) for v in pt["tags"].values()), f
    check = p["check"]
    if p["op"] == "conv2d" and not f.endswith(".counters.json"):
        assert check["dir"].endswith("/check") and len(check["points"]) >= 3, f
    else:
        assert check is None, f
PY
PASSES=$((PASSES + 1))
# the transformer study's clients: when --op names them (the default is the paper's ops above)
ROOFTIME_LIBCUDA=/nonexistent/libcuda.so.1 expect 0 "" -- study --gpu --quick --dry-run --op attention,mlp,decode -o "$TMP/xf"
check "20 transformer clients" grep -q "^20 clients, each run twice" "$TMP/out"
check "sdpa's client" grep -q "^pytorch-attention-bf16-sdpa .* scripts/study-gpu-torch.py --plan $TMP/xf/plans/pytorch-attention-bf16-sdpa.json" "$TMP/out"
check "40 transformer plan files" test "$(ls "$TMP/xf/plans" | wc -l)" -eq 40
python3 - "$TMP/xf/plans" <<'PY' || { echo "FAIL: transformer plan files"; FAILS=$((FAILS + 1)); }
import json, os, sys
d = sys.argv[1]
fields = {"attention": {"batch", "heads", "seq", "head_dim", "causal"},
          "mlp": {"tokens", "hidden", "ffn", "gated"},
          "decode": {"batch", "cache", "hidden", "heads", "ffn"}}
for f in sorted(os.listdir(d)):
    p = json.load(open(os.path.join(d, f)))
    assert p["op"] in fields and p["passes"] == ["forward"] and p["check"] is None, f
    assert p["variant"] in ("", "sdpa") and (p["variant"] == "" or p["op"] != "mlp"), f
    for pt in p["points"]:
        assert set(pt) == fields[p["op"]] | {"tags"}, (f, pt)
PY
PASSES=$((PASSES + 1))

ROOFTIME_LIBCUDA=/nonexistent/libcuda.so.1 expect 0 "" -- study --gpu --dry-run --framework jax --op lstm -o "$TMP/full"
check "full: 3 jax lstm clients" grep -q "^3 clients" "$TMP/out"
check "full: 12 points, trace 5+20, counters 1+2" grep -q "^jax-lstm-fp32-jit *12 points x 2 passes, trace 5+20, counters 1+2 iterations" "$TMP/out"
"$BIN" study --help >"$TMP/help" 2>&1
check "--help explains the GPU study" grep -q "rooftime study --gpu \[INDEX\]" "$TMP/help"
# --from: a recorded run re-imported without a GPU (tests/data/study-gpu-synthetic/run: synthetic,
# trace and counter runs of two LSTM clients). Its kernels carry their configs only through the collector's
# marks (marks.PID.csv, contract section 1): where this build's import does not apply them yet,
# the study says that no kernel carries the marks.
R=$SRC/tests/data/study-gpu-synthetic/run
SEL="--quick --framework pytorch --op lstm --precision fp32"
expect 1 "--from: '$TMP/none/collect' is not a directory" -- study --gpu --from "$TMP/none" -o "$TMP/re"
expect 2 "--from: write the re-import elsewhere" -- study --gpu --from "$R" -o "$R"
check "nothing written" test ! -e "$TMP/re"
"$BIN" import cupti "$R/collect/pytorch-lstm-fp32.trace" -o "$TMP/imp.json" >/dev/null 2>&1
if grep -q '"implementation"' "$TMP/imp.json"; then
    expect 0 "" -- study --gpu $SEL --from "$R" -o "$TMP/re"
    check "overhead-bound LSTM configs named" grep -q "Overhead-bound LSTM: pytorch fp32 lstm forward batch=16 seq=16 features=32 hidden=16" "$TMP/out"
    check "eager and graphs compared" grep -q "CUDA Graphs: over 4 LSTM configs run both ways" "$TMP/out"
    check "every kernel found its counters" test -z "$(grep "found no counters" "$TMP/out")"
    # the counter run's FLOPs per invocation (2 x 16 x 64 x 48 for the batch-16 GEMM) x 48
    check "FLOPs joined" grep -q '"fp32": 4718592' "$TMP/re/profiles/lstm-pytorch-fp32-forward.json"
    check "the recording named" grep -q "Re-imported from $R" "$TMP/out"
    check "report written" test -s "$TMP/re/report.html"
    check "machine from the recording" grep -q SYNTHETIC "$TMP/re/machine.json"
    # warm-up dropped: 3 measured iterations x 16 steps per kernel and config
    check "graphs forward profile, warm-up dropped" grep -q '"invocations": 48' "$TMP/re/profiles/lstm-pytorch-graphs-fp32-forward.json"
    check "no warm-up profile" test -z "$(ls "$TMP/re/profiles" | grep warmup)"
    # the analysis's warnings on standard error, as the CPU study prints them: a machine without
    # the levels the counters measured (the MI250 preset has no L1 or L2)
    expect 0 "memory level 'L1' is not one of machine 'AMD Instinct MI250" -- study --gpu $SEL --from "$R" -m mi250 -o "$TMP/re-mi250"
else
    expect 1 "no client ran \(pytorch-lstm-fp32: no measured kernel carries the study's marks" -- study --gpu $SEL --from "$R" -o "$TMP/re"
    echo "note: this build's import does not apply the collector's marks: the re-imported study is not checked"
fi
# The run path without a GPU: a stand-in driver (tests/fake-libcuda-study.c) gets the study past
# its preconditions, and fake clients (under a fake source tree) stand in for the frameworks and
# write what the collector would (kernels or ranges, with the marks of contract section 1). The
# torch client runs the LSTM only and exits 3 on conv2d; at bf16 it hangs until the client
# timeout; the jax client exits 3. Where this build's import does not apply marks yet, no
# client's kernels carry them and the study says so.
BUILD=${ROOFTIME_BUILD:-.}
FAKE=$BUILD/fake-cuda-study/libcuda.so.1
if [ -f "$FAKE" ]; then
    mkdir -p "$TMP/src/scripts"
    cat >"$TMP/src/scripts/study-gpu-torch.py" <<'PY'
import json, os, sys, time
plan = json.load(open(sys.argv[2]))
assert sys.argv[1] == "--plan" and os.environ["CUDA_INJECTION64_PATH"] == os.environ["ROOFTIME_CUPTI_LIB"]
if plan["op"] != "lstm":
    print("torch: this fake client runs the LSTM only", file=sys.stderr)
    sys.exit(3)
if plan["precision"] == "bf16":
    time.sleep(60)
d, mode, pid = os.environ["ROOFTIME_CUPTI_DIR"], os.environ["ROOFTIME_CUPTI_MODE"], os.getpid()
metrics = [m for m in os.environ["ROOFTIME_CUPTI_METRICS"].split(",") if m]
assert (mode == "counters") == bool(metrics)
rows, marks, corr, t = [], [], 0, 1000
def mark(tags):
    marks.append('%d,%d,%d,%d,"%s"' % (len(marks), corr if mode == "trace" else 0,
                                       len(rows) if mode == "counters" else 0, t, tags))
for k, pt in enumerate(plan["points"]):
    for ps in plan["passes"]:
        print("point %d/%d lstm %s %s batch=%d" % (k + 1, len(plan["points"]), plan["precision"], ps, pt["batch"]), flush=True)
        tags = "implementation=pytorch;precision=%s;operation=lstm;pass=%%s;%s" % (
            plan["precision"], "variant=%s;" % plan["variant"] if plan["variant"] else "") + \
            ";".join("%s=%s" % kv for kv in sorted(pt["tags"].items()))
        for what, n in (("warmup", plan["warmup"]), (ps, plan["iters"])):
            mark(tags % what)
            for _ in range(n * pt["seq"]):
                corr += 1
                if mode == "trace":
                    rows.append("%d,sgemm_fake,%d,%d,0,1,7,0,4,1,1,128,1,1,32,0,0" % (corr, t, t + 3000))
                else:
                    v = {"sm__cycles_elapsed.avg": 3e-6 * 1.755e9, "sm__cycles_elapsed.avg.per_second": 1.755e9,
                         "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": pt["batch"] * 64 * 48,
                         "dram__bytes.sum": 4 * pt["batch"] * 64 * 4}
                    rows.append("%d,sgemm_fake," % len(rows) + ",".join("%g" % v.get(m, 0) for m in metrics))
                t += 8000
mark("")
with open(os.path.join(d, "collector.%d.txt" % pid), "w") as f:
    f.write("format=rooftime.cupti/1\nmode=%s\npid=%d\ndevice=Fake GPU (test)\ncc=90\n" % (mode, pid))
    if metrics:
        f.write("metrics=%s\n" % ",".join(metrics))
with open(os.path.join(d, ("kernels.%d.csv" if mode == "trace" else "ranges.%d.csv") % pid), "w") as f:
    f.write("correlation,name,start_ns,end_ns,device,context,stream,graph,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,shared_static,shared_dynamic\n"
            if mode == "trace" else "range,name," + ",".join(metrics) + "\n")
    f.write("\n".join(rows) + "\n")
with open(os.path.join(d, "marks.%d.csv" % pid), "w") as f:
    f.write("seq,correlation,ranges,time_ns,tags\n" + "\n".join(marks) + "\n")
PY
    printf 'import sys\nprint("jax: cannot import jax", file=sys.stderr)\nsys.exit(3)\n' >"$TMP/src/scripts/study-gpu-jax.py"
    RUN="study --gpu --quick --precision fp32,bf16 -m $SRC/tests/data/study-gpu-synthetic/machine.json --no-ncu --client-timeout 2 -o $TMP/run"
    ROOFTIME_LIBCUDA=$FAKE ROOFTIME_CUPTI_LIB=$FAKE ROOFTIME_SRC=$TMP/src ROOFTIME_PYTHON=python3 \
        "$BIN" $RUN >"$TMP/out" 2>"$TMP/err"
    got=$?
    check "progress lines" grep -q "^\[ *[0-9]* s  5/12 pytorch-lstm-fp32 trace\] point 1/5 lstm fp32 forward batch=16" "$TMP/err"
    check "the counter run too, with the metrics" grep -q "pytorch-lstm-fp32-graphs counters\] point 5/5" "$TMP/err"
    check "exit 3: skipped with its line" grep -q "skipped: pytorch-conv2d-fp32: torch: this fake client runs the LSTM only" "$TMP/err"
    check "jax skipped" grep -q "skipped: jax-lstm-fp32-jit: jax: cannot import jax" "$TMP/err"
    check "a hung client killed" grep -q "skipped: pytorch-lstm-bf16: the trace run failed (exit 124: stopped after 2 s (--client-timeout)" "$TMP/err"
    check "plans written" test -s "$TMP/run/plans/pytorch-lstm-fp32-graphs.counters.json"
    check "collector directories kept" test -s "$TMP/run/collect/pytorch-lstm-fp32.trace/kernels.$(ls "$TMP/run/collect/pytorch-lstm-fp32.trace" | sed -n 's/^kernels\.\([0-9]*\)\.csv$/\1/p').csv"
    if grep -q '"implementation"' "$TMP/imp.json"; then
        check "exit 0" test "$got" -eq 0
        check "the LSTM configs named" grep -q "Overhead-bound LSTM: pytorch fp32 lstm forward batch=16 seq=16 features=32 hidden=16" "$TMP/out"
        check "the skipped in the findings" grep -q "Skipped: jax-conv2d-fp32-jit: jax: cannot import jax" "$TMP/out"
        check "FLOPs joined from the counter run" grep -q '"fp32": 4718592' "$TMP/run/profiles/lstm-pytorch-fp32-forward.json"
        check "report" test -s "$TMP/run/report.html"
        # a second run into the same directory replaces the collector's directories
        ROOFTIME_LIBCUDA=$FAKE ROOFTIME_CUPTI_LIB=$FAKE ROOFTIME_SRC=$TMP/src ROOFTIME_PYTHON=python3 \
            "$BIN" $RUN --op lstm --framework pytorch --precision fp32 >"$TMP/out" 2>"$TMP/err"
        check "rerun: one process per directory" test "$(ls "$TMP/run/collect/pytorch-lstm-fp32.trace" | grep -c '^kernels')" -eq 1
        check "rerun: same FLOPs" grep -q '"fp32": 4718592' "$TMP/run/profiles/lstm-pytorch-fp32-forward.json"
        check "--no-ncu said" grep -q "Skipped: --no-ncu." "$TMP/out"
        # The ncu cross-check with a fake ncu: it reads the one-point plan it is given and
        # writes `ncu --csv` rows for the fake client's kernel, its DRAM bytes 10% above. It
        # wants base units and mangled names; with FAKE_NCU_CLOCK_FAIL=1 it cannot lock the
        # clocks (--clock-control base fails), as a VM might.
        cat >"$TMP/ncu" <<'PY'
#!/usr/bin/env python3
import json, os, sys
a = sys.argv
assert a[a.index("--print-units") + 1] == "base", a
assert a[a.index("--print-kernel-base") + 1] == "mangled", a
clock = a[a.index("--clock-control") + 1]
if clock == "base" and os.environ.get("FAKE_NCU_CLOCK_FAIL") == "1":
    print("==ERROR== cannot lock the clocks (fake ncu)", file=sys.stderr)
    sys.exit(1)
metrics = a[a.index("--metrics") + 1].split(",")
plan = json.load(open(a[a.index("--plan") + 1]))
assert len(plan["points"]) == 1 and plan["passes"] == ["forward"], plan
b = plan["points"][0]["batch"]
v = {"sm__cycles_elapsed.avg": 5265, "sm__cycles_elapsed.avg.per_second": 1.755e9,
     "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": b * 64 * 48, "dram__bytes.sum": 1.1 * 4 * b * 64 * 4}
print('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
for i in range(3):
    for m in metrics:
        print('"%d","1","python3","host","sgemm_fake","1","7","(128, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","%s","","%g"' % (i, m, v.get(m, 0)))
PY
        chmod +x "$TMP/ncu"
        ROOFTIME_NCU=$TMP/ncu ROOFTIME_LIBCUDA=$FAKE ROOFTIME_CUPTI_LIB=$FAKE ROOFTIME_SRC=$TMP/src ROOFTIME_PYTHON=python3 \
            "$BIN" ${RUN/--no-ncu/} --op lstm --framework pytorch --precision fp32 >"$TMP/out" 2>"$TMP/err"
        check "ncu: the kernel that differs named" grep -q "pytorch-lstm-fp32 (default point, forward): sgemm_fake: DIFFERS from ncu by more than 5%: FLOPs +0.0%, L1 +0.0%, L2 +0.0%, HBM -9.1%" "$TMP/out"
        check "ncu: the summary" grep -q "pytorch-lstm-fp32 (default point, forward): 0 of the 1 longest kernels agree" "$TMP/out"
        check "ncu: its output kept" test -s "$TMP/run/ncu/pytorch-lstm-fp32.csv"
        check "ncu: --clock-control base, nothing said" bash -c "! grep -q 'clock-control none' '$TMP/out'"
        check "ncu: its progress line" grep -q "pytorch-lstm-fp32 ncu\] the default point's forward pass (--clock-control base)" "$TMP/err"
        FAKE_NCU_CLOCK_FAIL=1 ROOFTIME_NCU=$TMP/ncu ROOFTIME_LIBCUDA=$FAKE ROOFTIME_CUPTI_LIB=$FAKE ROOFTIME_SRC=$TMP/src ROOFTIME_PYTHON=python3 \
            "$BIN" ${RUN/--no-ncu/} --op lstm --framework pytorch --precision fp32 >"$TMP/out" 2>"$TMP/err"
        check "ncu: base refused, none ran, said" grep -q "pytorch-lstm-fp32: ncu --clock-control base failed (log .*pytorch-lstm-fp32.clock-base.log): ran with --clock-control none, exit 0" "$TMP/out"
        check "ncu: base's log kept" grep -q "cannot lock the clocks" "$TMP/run/ncu/pytorch-lstm-fp32.clock-base.log"
        check "ncu: compared after the fallback" grep -q "pytorch-lstm-fp32 (default point, forward): 0 of the 1 longest kernels agree" "$TMP/out"
        # --ncu-clock-control none: the clocks left as they are (a lent GPU's settings must not
        # change), one run with none, no fallback to say
        FAKE_NCU_CLOCK_FAIL=1 ROOFTIME_NCU=$TMP/ncu ROOFTIME_LIBCUDA=$FAKE ROOFTIME_CUPTI_LIB=$FAKE ROOFTIME_SRC=$TMP/src ROOFTIME_PYTHON=python3 \
            "$BIN" ${RUN/--no-ncu/} --ncu-clock-control none --op lstm --framework pytorch --precision fp32 >"$TMP/out" 2>"$TMP/err"
        check "ncu: --ncu-clock-control none ran none" grep -q "pytorch-lstm-fp32 ncu\] the default point's forward pass (--clock-control none)" "$TMP/err"
        check "  ... base never tried" bash -c "! grep -q 'clock-control base' '$TMP/err' '$TMP/out'"
        check "  ... compared" grep -q "pytorch-lstm-fp32 (default point, forward): 0 of the 1 longest kernels agree" "$TMP/out"
    else
        check "exit 1" test "$got" -eq 1
        check "no marks: said" grep -q "no client ran" "$TMP/err"
    fi
else
    echo "note: no stand-in driver built: the run path is not checked"
fi
finish
