# `machine measure --gpu --self-check` without a GPU: option errors (exit 2), no driver (exit 1, one
# line); and `machine selfcheck-compare` (the comparison itself) on a written profile and manifest:
# within its bound a check passes, past it or with its quantity missing it fails (exit 1), and
# bad manifests are refused with file, line and field.
. "$(dirname "$0")/lib.sh"

expect 2 "--self-check applies to --gpu only" -- machine measure --self-check
expect 2 "--keep-dir applies to --self-check only" -- machine measure --gpu --keep-dir "$TMP/k"
expect 2 "--self-check takes neither --quick nor --tau" -- machine measure --gpu --self-check --quick
expect 2 "selfcheck-compare takes pairs of MANIFEST and PROFILE files" -- machine selfcheck-compare a
expect 2 "selfcheck-kernels takes --manifest FILE" -- machine selfcheck-kernels

if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    LD_LIBRARY_PATH=/nonexistent expect 1 "no CUDA driver: libcuda.so.1 cannot be loaded" -- \
        machine measure --gpu --self-check -o "$TMP/sc.json"
    check "one error line" test "$(wc -l <"$TMP/err")" -eq 1
    check "no report left behind" test ! -e "$TMP/sc.json"
    ROOFTIME_LIBCUDA=/nonexistent/libcuda.so.1 expect 1 "no NVIDIA driver" -- \
        machine selfcheck-kernels --manifest "$TMP/m.tsv"
    check "no manifest left behind" test ! -e "$TMP/m.tsv"
else
    echo "note: a CUDA driver is installed here: the no-driver checks are skipped"
fi

cat >"$TMP/p.json" <<'JSON'
{
  "schema": "rooftime.profile/1",
  "source": { "tool": "rooftime-cupti", "method": "written by tests/cli-gpu-selfcheck.sh" },
  "kernels": [
    { "name": "fma_fp32", "invocations": 1, "time": 0.001,
      "flops": { "fp32": 1.005e12 }, "bytes": { "HBM": 1e6 } },
    { "name": "bw_read", "invocations": 1, "time": 0.001,
      "flops": { "fp32": 1e6 }, "bytes": { "HBM": 1.04e9 } },
    { "name": "wgmma_fp16", "invocations": 1, "time": 0.001,
      "flops": { "tensor": 3e12 }, "bytes": { "HBM": 1e3 } }
  ]
}
JSON
printf '# a comment\nfma_fp32\tflops.fp32\t1e12\nbw_read\tbytes.HBM\t1e9\n' >"$TMP/ok.tsv"
expect 0 "" -- machine selfcheck-compare "$TMP/ok.tsv" "$TMP/p.json" -o "$TMP/r.json"
check "two passes printed" test "$(grep -c '^  pass' "$TMP/out")" -eq 2
check "report says pass" grep -q '"pass": true' "$TMP/r.json"
check "report has the schema" grep -q 'rooftime.gpu-selfcheck/1' "$TMP/r.json"

# 0.5% off within 1% passes; 4% off under a 1% flops bound fails; bound column honoured
printf 'fma_fp32\tflops.fp32\t1.045e12\nbw_read\tbytes.HBM\t1e9\t0.01\n' >"$TMP/bad.tsv"
expect 1 "self-check: 2 of 2 checks failed" -- machine selfcheck-compare "$TMP/bad.tsv" "$TMP/p.json" \
    -o "$TMP/r2.json"
check "failures marked" test "$(grep -c '^  FAIL' "$TMP/out")" -eq 2
check "report says fail" grep -q '"failed": 2' "$TMP/r2.json"

# a quantity the profile lacks (the metric list has no formula) fails, named
printf 'wgmma_fp16\tflops.tensor_fp16\t3e12\n' >"$TMP/miss.tsv"
expect 1 "1 of 1 checks failed" -- machine selfcheck-compare "$TMP/miss.tsv" "$TMP/p.json"
check "names the missing quantity" grep -q "the profile has no flops.tensor_fp16 for wgmma_fp16" "$TMP/out"
printf 'mma_fp16\tflops.tensor_fp16\t3e12\n' >"$TMP/nok.tsv"
expect 1 "" -- machine selfcheck-compare "$TMP/nok.tsv" "$TMP/p.json"
check "names the missing kernel" grep -q "no kernel mma_fp16 in" "$TMP/out"
# "*" sums every kernel
printf '*\tflops.fp32\t1.005e12\n' >"$TMP/all.tsv"
expect 0 "" -- machine selfcheck-compare "$TMP/all.tsv" "$TMP/p.json"

# a "#!" line (selfcheck-kernels: a kernel that computed a wrong result) is a failed check of its
# own; the kernel's counted work is still compared, and so is everything after it
printf '#! wgmma_fp16: computed 3, expected 4: wrong result\nfma_fp32\tflops.fp32\t1e12\nbw_read\tbytes.HBM\t1e9\n' >"$TMP/wrong.tsv"
expect 1 "self-check: 1 of 3 checks failed" -- machine selfcheck-compare "$TMP/wrong.tsv" "$TMP/p.json" -o "$TMP/r3.json"
check "the wrong result: a failed check" grep -qx "  FAIL wgmma_fp16: computed 3, expected 4: wrong result" "$TMP/out"
check "  ... the rest compared" test "$(grep -c '^  pass' "$TMP/out")" -eq 2
check "  ... in the report" python3 - "$TMP/r3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["checks"][0]
assert c["check"] == "wgmma_fp16: computed 3, expected 4: wrong result" and c["pass"] is False, c
assert d["total"] == 3 and d["failed"] == 1, d
PY
printf '#!\nfma_fp32\tflops.fp32\t1e12\n' >"$TMP/e6.tsv"
expect 1 "e6.tsv: line 1: a '#!' line needs text" -- machine selfcheck-compare "$TMP/e6.tsv" "$TMP/p.json"
printf '#! only the failure\n' >"$TMP/e7.tsv"
expect 1 "1 of 1 checks failed" -- machine selfcheck-compare "$TMP/e7.tsv" "$TMP/p.json"

# bad manifests: file, line, field
printf 'fma_fp32\tflops.fp32\tx\n' >"$TMP/e1.tsv"
expect 1 "e1.tsv: line 1: field EXPECTED: 'x' is not a number > 0" -- \
    machine selfcheck-compare "$TMP/e1.tsv" "$TMP/p.json"
printf '#\nfma_fp32\tfp32\t1\n' >"$TMP/e2.tsv"
expect 1 "e2.tsv: line 2: expected KERNEL, QUANTITY" -- machine selfcheck-compare "$TMP/e2.tsv" "$TMP/p.json"
printf 'fma_fp32\tflops.fp32\t1\t2\n' >"$TMP/e3.tsv"
expect 1 "e3.tsv: line 1: field BOUND: '2' is not in \(0, 1\]" -- \
    machine selfcheck-compare "$TMP/e3.tsv" "$TMP/p.json"
printf '# only a comment\n' >"$TMP/e4.tsv"
expect 1 "e4.tsv: no checks in it" -- machine selfcheck-compare "$TMP/e4.tsv" "$TMP/p.json"
head -c 3000 /dev/zero | tr '\0' 'a' >"$TMP/e5.tsv"
expect 1 "e5.tsv: line 1: longer than 1024 bytes" -- machine selfcheck-compare "$TMP/e5.tsv" "$TMP/p.json"
expect 1 "cannot read manifest" -- machine selfcheck-compare "$TMP/none.tsv" "$TMP/p.json"
expect 1 "" -- machine selfcheck-compare "$TMP/ok.tsv" "$TMP/none.json"
# With a stand-in driver (it passes profile's driver check, then lacks the rest): the collector
# runs this rooftime's hidden `machine selfcheck-kernels`, which refuses the driver; the
# self-check fails cleanly, leaving its scratch directory behind only with --keep-dir. The failed
# probe run is a failed check of the report, and the torch.matmul part is still tried (here
# without a PyTorch that has CUDA: skipped, said).
BUILD=${ROOFTIME_BUILD:-.}
if [ -f "$BUILD/fake-cuda/libcuda.so.1" ]; then
    mkdir -p "$TMP/scratch"
    TMPDIR=$TMP/scratch LD_LIBRARY_PATH="$BUILD/fake-cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        ROOFTIME_CUPTI_LIB="$BUILD/fake-cuda/libcuda.so.1" expect 1 \
        "trace run: '.*rooftime machine selfcheck-kernels --manifest .*/probe.tsv --gpu 0' exited with code 1" -- \
        machine measure --gpu --self-check -o "$TMP/sc2.json"
    check "the child names the driver" grep -q "lacks cuDriverGetVersion" "$TMP/err"
    check "no scratch left" test -z "$(ls "$TMP/scratch")"
    check "the report: the probe's run a failed check, the matmul tried" python3 - "$TMP/sc2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["checks"][0]
assert c["check"].startswith("the probe's kernels under the collector: the run failed") and not c["pass"], c
assert d["pass"] is False
assert "torch.matmul" in d.get("skipped", "") or any("torch.matmul" in x["check"] or x["check"] == "*" for x in d["checks"]), d
PY
    LD_LIBRARY_PATH="$BUILD/fake-cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        ROOFTIME_CUPTI_LIB="$BUILD/fake-cuda/libcuda.so.1" expect 1 "" -- \
        machine measure --gpu 1 --self-check --keep-dir "$TMP/kd"
    check "--keep-dir kept, the device passed on" grep -q "manifest $TMP/kd/probe.tsv --gpu 1'" "$TMP/err"
    check "--keep-dir holds the collector directory" test -d "$TMP/kd/probe.cupti"
    expect 1 "cannot create --keep-dir '$TMP/kd': File exists" -- machine measure --gpu --self-check --keep-dir "$TMP/kd"
else
    echo "note: no stand-in driver built: the orchestration checks are skipped"
fi
finish
