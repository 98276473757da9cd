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
expect 2 "--impl: unknown implementation 'cudnn' \(known: direct, im2col, onednn, unfused, pytorch, sdpa\)" -- study -o "$O" --impl cudnn
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

# A quick run at a tiny scale, every implementation and precision of the paper's ops (the
# transformer's get their own run below); pytorch, selected by default, is skipped with a note when
# its python cannot run (it gets its own run below).
ROOFTIME_PYTHON=/nonexistent/python3 "$BIN" study -o "$O" --quick --scale 0.1 --machine "$TMP/m.json" --op conv2d,lstm >"$TMP/out.txt" 2>"$TMP/err.txt"
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

# The transformer layer (issue 38): attention, mlp, decode at a tiny scale, every implementation
# but pytorch (below), each checked against the direct loops first.
X=$TMP/xformer
expect 2 "--op: unknown operation 'gemm' \(known: conv2d, lstm, attention, mlp, decode\)" -- study -o "$X" --op gemm
ROOFTIME_PYTHON=/nonexistent/python3 "$BIN" study -o "$X" --quick --scale 0.1 --machine "$TMP/m.json" \
    --op attention,mlp,decode >"$TMP/xout.txt" 2>"$TMP/xerr.txt"
code=$?
check "transformer study exits 0 (got $code: $(head -3 "$TMP/xerr.txt"))" test "$code" -eq 0
for f in attention-unfused-fp32-forward attention-onednn-fp32-forward mlp-unfused-fp32-forward \
    mlp-onednn-fp32-forward decode-unfused-fp32-forward decode-onednn-fp32-forward; do
    check "transformer profile $f" test -s "$X/profiles/$f.json"
done
if grep -qw avx512_bf16 /proc/cpuinfo; then
    check "oneDNN bf16 attention where the CPU has bf16 dot products" test -s "$X/profiles/attention-onednn-bf16-forward.json"
fi
check "every transformer correctness check ran and passed" bash -c "grep -q '^unfused fp32 decode forward | .* | ok' '$X/findings.txt' && ! grep -q FAILED '$X/findings.txt'"
check "the direct loops are the reference, not timed in a quick run" grep -q "Skipped: direct attention, mlp, decode: not timed in a quick run" "$X/findings.txt"
check "findings: decode along the batch" grep -q "^- onednn fp32 decode (cache [0-9]*), by batch: 1: " "$X/findings.txt"
check "findings: decode at batch 1 is bandwidth- or overhead-bound" grep -qE "^- unfused fp32 decode \(cache [0-9]*\), by batch: 1: (bandwidth|overhead)" "$X/findings.txt"
check "findings: the machine balance of the unit, from the machine file" grep -q "the machine balance of fp32, 400 GFLOP/s over 20 GB/s = 20 FLOP/B" "$X/findings.txt"
check "findings: attention along the sequence" grep -q "^- unfused fp32 attention, by sequence: " "$X/findings.txt"
check "findings: fusion, the unfused MLP against oneDNN's post-ops" grep -q "^mlp fp32: unfused -> onednn | " "$X/findings.txt"
check "findings: how the transformer ran" grep -q "== Transformer layer: how it ran ==" "$X/findings.txt"
check "findings: no NaN" bash -c "! grep -qwi nan '$X/findings.txt'"
check "attention's kernels are its prefill, decode's its decode" \
    /usr/bin/python3 -c "import json,sys; d=sys.argv[1]; a=json.load(open(d+'/attention-onednn-fp32-forward.json')); b=json.load(open(d+'/decode-unfused-fp32-forward.json')); sys.exit(0 if a['tags']['phase']=='prefill' and b['tags']['phase']=='decode' else 1)" "$X/profiles"
check "the charts per phase" test -s "$X/phase-prefill-operation-attention-pass-forward-roofline.svg" -a -s "$X/phase-decode-operation-decode-pass-forward-time.svg"
check "the MLP's charts, which have no phase" test -s "$X/operation-mlp-pass-forward-4d.svg"
# exact counts: every gemm_qk invocation is 2 L^2 D per head; the unfused softmax 6 per score a query
# sees (the causal halving) and one per row; the kv_append moves 4 B hidden floats and computes nothing
/usr/bin/python3 - "$X/profiles" >"$TMP/counts.txt" <<'PY' || echo "FAIL: counts script"
import json, sys
d = sys.argv[1]
bad = 0
for k in json.load(open(d + "/attention-unfused-fp32-forward.json"))["kernels"]:
    t = k["tags"]
    bh, L, D, c = int(t["batch"]) * int(t["heads"]), int(t["seq"]), int(t["head_dim"]), int(t["causal"])
    n = k["invocations"]
    valid = L * (L + 1) / 2 if c else L * L
    want = {"gemm_qk": 2 * bh * L * L * D, "gemm_pv": 2 * bh * L * L * D,
            "softmax": bh * (6 * valid + L)}[k["name"]]
    if abs(k["flops"]["fp32"] - n * want) > 1e-6 * n * want:
        print("%s %s: %g FLOPs, want %g" % (k["name"], t, k["flops"]["fp32"], n * want)); bad += 1
for k in json.load(open(d + "/decode-unfused-fp32-forward.json"))["kernels"]:
    if k["name"] == "kv_append":
        t = k["tags"]
        if k["flops"].get("fp32", 0) != 0 or k["bytes"]["DRAM"] <= 0:
            print("kv_append %s: %s %s" % (t, k["flops"], k["bytes"])); bad += 1
print("bad %d" % bad)
PY
check "exact FLOPs of the unfused attention, causal halving included ($(head -2 "$TMP/counts.txt"))" grep -q "^bad 0" "$TMP/counts.txt"
check "the transformer profiles analyze again" "$BIN" analyze --machine "$TMP/m.json" "$X"/profiles/*.json -o "$TMP/xa.txt"
# sdpa asked for by name needs torch 2's scaled_dot_product_attention
if ROOFTIME_PYTHON= /usr/bin/python3 -c "import torch, torch.nn.functional as F; F.scaled_dot_product_attention" 2>/dev/null; then
    :
elif ROOFTIME_PYTHON= /usr/bin/python3 -c "import torch" 2>/dev/null; then
    ROOFTIME_PYTHON= expect 1 "--impl sdpa: the torch of '/usr/bin/python3' has no scaled_dot_product_attention" -- study -o "$TMP/sdpa" --quick --op attention --impl sdpa
    check "nothing written without sdpa" test ! -e "$TMP/sdpa"
fi

# sdpa (scaled_dot_product_attention) against the same math unfused, on the PyTorch 2.x of
# scripts/install-deps.sh, where its trace runner works (the runner's torch 2.x fixes: issue 44).
. "$(dirname "$0")/python-lib.sh"
if "$TORCH2_PY" -c "import torch.nn.functional as F; F.scaled_dot_product_attention" 2>/dev/null; then
    S=$TMP/sdpa2
    ROOFTIME_PYTHON=$TORCH2_PY "$BIN" study -o "$S" --quick --scale 0.1 --machine "$TMP/m.json" --impl pytorch,sdpa \
        --op attention,decode --precision fp32 >"$TMP/sout.txt" 2>"$TMP/serr.txt"
    check "study with sdpa exits 0" test $? -eq 0
    if grep -q "^- Skipped: \(sdpa\|pytorch\) fp32 attention forward: pytorch: .* failed at point 0" "$S/findings.txt"; then
        echo "skipped the sdpa checks: the torch client fails on $TORCH2_PY ($(grep -m1 -o "failed at point 0.*" "$S/findings.txt" | cut -c1-160))"
    else
        check "sdpa profile" test -s "$S/profiles/attention-sdpa-fp32-forward.json"
        check "sdpa against the unfused math: the fusion row" grep -q "^attention fp32: pytorch -> sdpa | " "$S/findings.txt"
        check "sdpa decode too" grep -q "^decode fp32: pytorch -> sdpa | " "$S/findings.txt"
        check "the findings name the torch that ran (torch 2, Kineto)" \
            grep -q "^- pytorch (torch 2\.[0-9]*\.[^,]*, its kineto profiler, [0-9]* threads): torch's operators" "$S/findings.txt"
        check "torch 2 runs decode's every batch" bash -c "! grep -q 'pytorch decode: .* sweep points' '$S/findings.txt'"
        check "its largest batch too (256 at scale 0.1)" /usr/bin/python3 -c "import json,sys; p=json.load(open(sys.argv[1])); sys.exit(0 if '26' in {k['tags']['batch'] for k in p['kernels']} else 1)" "$S/profiles/decode-pytorch-fp32-forward.json"
    fi
else
    echo "skipped the sdpa part: no torch with scaled_dot_product_attention at $TORCH2_PY"
fi

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
    check "the findings name the torch that ran (Debian's 1.13, its legacy profiler)" \
        grep -q "^- pytorch (torch 1\.13[^,]*, its legacy profiler, [0-9]* threads): torch's operators" "$P/findings.txt"
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
    # the transformer ops through torch: the unfused math (matmul, softmax, matmul), inference
    T=$TMP/torch-xformer
    ROOFTIME_PYTHON= "$BIN" study -o "$T" --quick --scale 0.1 --machine "$TMP/m.json" --impl pytorch \
        --op attention,mlp,decode --precision fp32 >"$TMP/txout.txt" 2>"$TMP/txerr.txt"
    check "transformer study with pytorch exits 0 ($(grep -v warning "$TMP/txerr.txt" | head -3))" test $? -eq 0
    for f in attention mlp decode; do
        check "pytorch $f profile" test -s "$T/profiles/$f-pytorch-fp32-forward.json"
    done
    check "pytorch's attention: the matmuls of q k^T and p v, costed" \
        /usr/bin/python3 -c "import json,sys; p=json.load(open(sys.argv[1])); sys.exit(0 if any(k['name'].startswith(('aten::bmm','aten::matmul','aten::mm')) and sum(k['flops'].values())>0 and sum(k['bytes'].values())>0 for k in p['kernels']) else 1)" \
        "$T/profiles/attention-pytorch-fp32-forward.json"
    /usr/bin/python3 - "$T"/profiles/*-pytorch-*.json >"$TMP/xnobytes.txt" <<'PY'
import json, sys
for f in sys.argv[1:]:
    for k in json.load(open(f))["kernels"]:
        if sum(k["flops"].values()) > 0 and sum(k["bytes"].values()) == 0:
            print("%s: %s has FLOPs and no bytes" % (f, k["name"]))
PY
    check "no transformer pytorch kernel has FLOPs without bytes ($(head -2 "$TMP/xnobytes.txt"))" test ! -s "$TMP/xnobytes.txt"
    check "pytorch's decode kernels are tagged decode" grep -q '"phase": "decode"' "$T/profiles/decode-pytorch-fp32-forward.json"
    check "torch 1.13 leaves out decode's largest batch, saying so" grep -q "pytorch decode: 5 of the 6 sweep points (the largest batch is left out on a torch before 2.0" "$T/findings.txt"
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
