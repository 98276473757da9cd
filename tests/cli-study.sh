# `rooftime study`: bad requests fail before any work, and a quick run at a tiny scale writes
# the machine, the profiles, the analysis, the findings and the report.
. "$(dirname "$0")/lib.sh"

# A small CPU-like machine file, so the test does not spend its time measuring.
cat >"$TMP/m.json" <<'JSON'
{
  "schema": "rooftime.machine/1",
  "name": "test cpu",
  "source": "derived",
  "units": [ { "name": "fp32", "flops": 4e11 }, { "name": "bf16", "flops": 8e11 } ],
  "levels": [ { "name": "L1", "bytes_per_s": 8e11 }, { "name": "DRAM", "bytes_per_s": 2e10 } ],
  "launch_overhead": { "seconds": 1e-6, "method": "test" },
  "reference": { "unit": "fp32", "level": "DRAM" }
}
JSON
O=$TMP/study
expect 2 "--impl: unknown implementation 'cudnn' \(known: direct, im2col, onednn, unfused, pytorch\)" -- study -o "$O" --impl cudnn
expect 2 "--op: unknown operation 'gemm'" -- study -o "$O" --op gemm
expect 2 "--precision: unknown precision 'fp8'" -- study -o "$O" --precision fp8
expect 2 "--iters: expected a whole number from 1 to 100000, got '0'" -- study -o "$O" --iters 0
expect 2 "--warmup: expected a whole number" -- study -o "$O" --warmup -1
expect 2 "--scale: expected a number in \(0, 1\], got '2'" -- study -o "$O" --scale 2
expect 2 "no selected implementation runs lstm" -- study -o "$O" --impl direct --op lstm
expect 2 "unexpected argument 'extra'" -- study -o "$O" extra
expect 2 "unknown option '--bogus'" -- study --bogus
expect 2 "--mode: unknown mode .fast. [(]single or hier[)]" -- study -o "$O" --mode fast
expect 1 "cannot read 'nope.json'" -- study -o "$O" --machine nope.json
expect 2 "direct is not timed with --quick" -- study -o "$O" --quick --impl direct --op conv2d
# pytorch asked for by name, with a python that is not there: an error before any work
ROOFTIME_PYTHON=/nonexistent/python3 expect 1 "--impl pytorch: cannot run '/nonexistent/python3'" -- study -o "$O" --impl pytorch,onednn
check "nothing written before the request was valid" test ! -e "$O"
expect 1 "nothing to run: every selected case is skipped \(im2col bf16 conv2d" -- study -o "$TMP/none" --quick --scale 0.1 --machine "$TMP/m.json" --impl im2col --op conv2d --precision bf16

# A quick run at a tiny scale, every implementation and precision; pytorch, selected by default,
# is skipped with a note when its python cannot run (it gets its own run below).
ROOFTIME_PYTHON=/nonexistent/python3 "$BIN" study -o "$O" --quick --scale 0.1 --machine "$TMP/m.json" >"$TMP/out.txt" 2>"$TMP/err.txt"
code=$?
check "quick study exits 0 (got $code: $(head -3 "$TMP/err.txt"))" test "$code" -eq 0
for f in machine.json analysis.txt analysis.json findings.txt report.html; do
    check "study wrote $f" test -s "$O/$f"
done
n=$(ls "$O"/profiles/*.json 2>/dev/null | wc -l)
# bf16 needs AVX512-BF16 (or AMX) for oneDNN 2.6: on a CPU without it the study must say it skipped.
if grep -q "Skipped: onednn bf16 conv2d forward" "$O/findings.txt"; then
    check "study wrote one profile per implementation x op x pass, fp32 only ($n)" test "$n" -ge 10
    check "oneDNN bf16 skip names the ISA" grep -q "no bf16 convolution forward on this CPU (oneDNN [0-9.]*, ISA" "$O/findings.txt"
else
    check "study wrote one profile per implementation x precision x op x pass ($n)" test "$n" -ge 15
    check "oneDNN bf16 forward conv profile" test -s "$O/profiles/conv2d-onednn-bf16-forward.json"
fi
check "unfused LSTM backward profile" test -s "$O/profiles/lstm-unfused-fp32-backward.json"
check "report has the findings" grep -q "Correctness against the reference" "$O/report.html"
check "every correctness check passed" bash -c "! grep -q FAILED '$O/findings.txt'"
check "findings say what was skipped" grep -q "Skipped: im2col bf16 conv2d" "$O/findings.txt"
check "findings name oneDNN's ISA" grep -q "oneDNN dispatches to ISA" "$O/findings.txt"
check "findings report recoverable time" grep -q "Recoverable time" "$O/findings.txt"
check "profiles carry the swept parameters" grep -q '"filters"' "$O/profiles/conv2d-im2col-fp32-forward.json"
check "profiles say how numbers were obtained" grep -q "compulsory traffic" "$O/profiles/lstm-onednn-fp32-forward.json"
check "im2col is a kernel of its own" grep -q '"im2col"' "$O/profiles/conv2d-im2col-fp32-backward-weights.json"
check "col2im is a kernel of its own" grep -q '"col2im"' "$O/profiles/conv2d-im2col-fp32-backward-data.json"
# Each kernel names the overhead its calls pay: the unfused LSTM's loops, memsets and OpenBLAS
# calls nothing measurable, oneDNN's zeroing of its gradients (memsets) nothing, its primitives
# and reorders a primitive execute; the tables say which.
check "every unfused kernel pays nothing measurable" /usr/bin/python3 -c "import json,sys; ks=json.load(open(sys.argv[1]))['kernels']; sys.exit(0 if ks and all(k.get('overhead') == 'none' for k in ks) else 1)" "$O/profiles/lstm-unfused-fp32-backward.json"
check "oneDNN's zero_grads pays nothing, its primitives and reorders a primitive execute" /usr/bin/python3 -c "import json,sys; p=json.load(open(sys.argv[1])); ks=p['kernels']; sys.exit(0 if p['source']['overhead'] == 'onednn_primitive' and all(k.get('overhead') == ('none' if k['name'] == 'zero_grads' else 'onednn_primitive') for k in ks) and any(k['name'] == 'zero_grads' for k in ks) and any(k['name'].startswith('reorder') for k in ks) else 1)" "$O/profiles/lstm-onednn-fp32-backward.json"
check "the kernel table names the overhead paid" grep -q "recover  overhead paid" "$O/analysis.txt"
check "the CSV too" bash -c "'$BIN' analyze --machine '$TMP/m.json' --format csv '$O'/profiles/*.json 2>/dev/null | head -1 | grep -q ',overhead_paid,t_overhead_paid_s,'"
# The direct loops open one parallel region per call, of all the team's threads.
D=$TMP/direct
"$BIN" study -o "$D" --scale 0.1 --iters 1 --warmup 0 --machine "$TMP/m.json" --impl direct --op conv2d --precision fp32 >/dev/null 2>&1
check "a direct study runs" test -s "$D/profiles/conv2d-direct-fp32-forward.json"
check "direct kernels pay a parallel region at their thread count" /usr/bin/python3 -c "import json,sys; ks=json.load(open(sys.argv[1]))['kernels']; sys.exit(0 if ks and all(k.get('overhead') == 'openmp_fork_join' and k.get('overhead_threads', 0) >= 1 for k in ks) else 1)" "$D/profiles/conv2d-direct-fp32-forward.json"
check "a machine without that overhead is warned of" grep -q "pays the overhead 'openmp_fork_join' at [0-9]* thread" "$D/analysis.json"
check "the profiles analyze again" "$BIN" analyze --machine "$TMP/m.json" "$O"/profiles/*.json -o "$TMP/a.txt"
check "pytorch noted as skipped" grep -q "Skipped: pytorch: cannot run '/nonexistent/python3'" "$O/findings.txt"
check "no pytorch profile without torch" test ! -e "$O/profiles/conv2d-pytorch-fp32-forward.json"

# PyTorch next to oneDNN, when /usr/bin/python3 has torch.
if ROOFTIME_PYTHON= /usr/bin/python3 -c "import torch" 2>/dev/null; then
    P=$TMP/torch
    ROOFTIME_PYTHON= "$BIN" study -o "$P" --quick --scale 0.1 --machine "$TMP/m.json" --impl pytorch,onednn \
        --precision fp32,bf16 >"$TMP/tout.txt" 2>"$TMP/terr.txt"
    code=$?
    check "study with pytorch exits 0 (got $code: $(grep -v warning "$TMP/terr.txt" | head -3))" test "$code" -eq 0
    for f in conv2d-pytorch-fp32-forward conv2d-pytorch-bf16-backward-data conv2d-pytorch-fp32-backward-weights lstm-pytorch-fp32-backward lstm-pytorch-bf16-forward; do
        check "pytorch profile $f" test -s "$P/profiles/$f.json"
    done
    check "pytorch's conv2d backward is split as the others' (no one-pass profile)" test ! -e "$P/profiles/conv2d-pytorch-fp32-backward.json"
    check "pytorch kernels carry the swept parameters" grep -q '"filters"' "$P/profiles/conv2d-pytorch-fp32-forward.json"
    for f in backward-data backward-weights; do
        check "the convolution's $f has FLOPs and bytes" \
            /usr/bin/python3 -c "import json,sys; p=json.load(open(sys.argv[1])); sys.exit(0 if any(k['name'].startswith('aten::convolution_backward') and sum(k['flops'].values()) > 0 and sum(k['bytes'].values()) > 0 for k in p['kernels']) else 1)" \
            "$P/profiles/conv2d-pytorch-fp32-$f.json"
    done
    # every PyTorch kernel with FLOPs carries bytes (none gets a partial verdict), and most of
    # the time is in kernels with bytes; views, allocations and dispatch have neither
    /usr/bin/python3 - "$P"/profiles/*-pytorch-*.json >"$TMP/nobytes.txt" <<'PY'
import json, sys
work = total = 0
for f in sys.argv[1:]:
    for k in json.load(open(f))["kernels"]:
        total += k["time"]
        if sum(k["bytes"].values()) > 0:
            work += k["time"]
        elif sum(k["flops"].values()) > 0:
            print("%s: %s has FLOPs and no bytes" % (f, k["name"]))
print("share %.3f" % (work / total if total else 0))
PY
    check "no pytorch kernel has FLOPs without bytes ($(head -2 "$TMP/nobytes.txt"))" bash -c "! grep -q 'no bytes' '$TMP/nobytes.txt'"
    check "most pytorch time is in kernels with bytes ($(tail -1 "$TMP/nobytes.txt"))" \
        awk '/^share/ { exit !($2 > 0.5) }' "$TMP/nobytes.txt"
    check "no pytorch kernel's verdict is partial, and some are full (FLOPs and bytes)" \
        /usr/bin/python3 -c "import json,sys; ks=[k['verdict']['evidence'] for k in json.load(open(sys.argv[1]))['kernels'] if k['tags'].get('implementation') == 'pytorch']; sys.exit(0 if 'partial' not in ks and 'full' in ks else 1)" \
        "$P/analysis.json"
    check "pytorch configs are placed in the roofline view" grep -q "^config: implementation=pytorch" "$P/operation-conv2d-pass-forward-roofline.svg"
    check "the quick run leaves out torch's kernel and stride points" \
        bash -c "! grep -q '\"stride\": \"1\"' '$P/profiles/conv2d-pytorch-fp32-forward.json'"
    check "findings do not say torch has no byte counts" bash -c "! grep -q 'pytorch: no byte counts' '$P/findings.txt'"
    check "findings compare pytorch's recoverable time" grep -qE "^pytorch bf16 \| " "$P/findings.txt"
    check "findings: no NaN" bash -c "! grep -qwi nan '$P/findings.txt'"
    check "pytorch is in the conv2d backward-data group" grep -q pytorch "$P/operation-conv2d-pass-backward-data-time.svg"
    check "pytorch appears in the report" grep -q pytorch "$P/operation-lstm-pass-forward-time.svg"
    check "findings note the quick run's torch points" grep -q "pytorch conv2d: 3 of the quick run's 5 sweep points" "$P/findings.txt"
    check "the pytorch profiles analyze again" "$BIN" analyze --machine "$TMP/m.json" "$P"/profiles/*.json -o "$TMP/ta.txt"
    # bf16 by default: torch emulates it without AVX-512, and the study then leaves it out, saying so
    E=$TMP/emulated
    ROOFTIME_PYTHON= "$BIN" study -o "$E" --quick --scale 0.1 --machine "$TMP/m.json" --impl pytorch \
        --op lstm >"$TMP/eout.txt" 2>"$TMP/eerr.txt"
    check "study with pytorch's default precisions exits 0" test $? -eq 0
    if grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then
        check "with AVX-512, torch's bf16 runs by default" test -s "$E/profiles/lstm-pytorch-bf16-forward.json"
    else
        check "without AVX-512, torch's emulated bf16 is not run by default" test ! -e "$E/profiles/lstm-pytorch-bf16-forward.json"
        check "and the findings say why" grep -q "Skipped: pytorch bf16 lstm forward, backward: this CPU has no AVX-512, so torch emulates bf16" "$E/findings.txt"
        check "the fp32 one runs" test -s "$E/profiles/lstm-pytorch-fp32-forward.json"
    fi
else
    echo "skipped the pytorch part: /usr/bin/python3 cannot import torch"
fi
finish
