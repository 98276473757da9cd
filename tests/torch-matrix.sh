# Every PyTorch path of rooftime on one torch, sourced by tests/cli-torch1-matrix.sh (Debian's
# 1.13, /usr/bin/python3) and tests/cli-torch2-matrix.sh (the PyPI 2.x that scripts/install-deps.sh
# puts in a venv): `profile --torch` on unmodified transformer scripts (a TransformerEncoder
# training step, a decode loop, on 2.x a torch.compile'd block), `import torch` of the traces
# torch's own export_chrome_trace writes (without and with record_shapes, with with_flops), the
# study's PyTorch implementation (ROOFTIME_PYTHON), a script with a profiler of its own. The
# caller sets TPY (the python) and GEN (1 or 2); a python without torch skips (77) with one line.
# Shares of time depend on the machine's load: bench/bench-torch-transformers.sh measures them;
# here a share is held to a floor far below what an idle machine gives.
. "$(dirname "$0")/lib.sh"
if ! "$TPY" -c "import torch" 2>/dev/null; then
    echo "skipped: $TPY cannot import torch (torch $GEN.x: ${SKIP_HOW:-scripts/install-deps.sh})"
    exit 77
fi
VER=$("$TPY" -c "import torch; print(torch.__version__)" 2>/dev/null)
echo "torch $VER at $TPY"
T=$SRC/examples/torch/transformer.py
# one thread each: the 2 cores are shared, and torch's OpenMP threads spin when both are taken
export OMP_NUM_THREADS=1

# profile NAME STEPS ARGS...: `profile --torch --steps STEPS` (-: the whole run) of the transformer
# script; stderr in NAME.err
profile() {
    local name=$1 steps=$2
    shift 2
    local s=(--steps "$steps")
    [ "$steps" = - ] && s=()
    "$BIN" profile --torch "${s[@]}" -o "$TMP/$name.json" -- \
        "$TPY" "$T" "$@" --seq 32 --dim 64 >"$TMP/$name.out" 2>"$TMP/$name.err"
    local rc=$?
    check "$name: profile --torch exits 0 ($(grep -v 'USDT\|gpuGetDevice' "$TMP/$name.err" | tail -2))" [ $rc -eq 0 ]
    check "$name: the profile names its torch ($VER)" json "$TMP/$name.json" "notes['torch_version'] == '$VER'"
}

# profile_shares NAME COND STEPS ARGS...: profile, and once more where the shares of time COND holds
# (a json expression) fall short: one operator that waited for the processor on a shared machine
# (a 1 ms stall is 3% of these steps) is not a gap of the cost model, and rarely strikes twice;
# the same for the share of operator self time with a line of the user's script, at least 95%
# (an operator called from library code, such as the profiler's own, has none)
LINES_RE="(9[5-9]|100)\.[0-9]% of the operator self time with the user's source line"

profile_shares() {
    local name=$1 cond=$2
    shift 2
    profile "$name" "$@"
    json "$TMP/$name.json" "$cond" && grep -qE "$LINES_RE" "$TMP/$name.err" && return
    echo "  $name: shares short of their floors ($(grep -o 'operator self time [0-9.]* [mu]*s: .*' "$TMP/$name.err" | head -1 | cut -c1-160)); profiled again"
    profile "$name" "$@"
}

# ---- a TransformerEncoder training step (AdamW; on 2.x its foreach form, 1.13's default being
# the per-tensor operators 2.x runs by default on the CPU too) ----
opt=""
[ "$GEN" = 2 ] && opt="--optimizer foreach"
profile_shares train "share('uncovered') <= 5 and share('with FLOPs or bytes') >= 60" 1:3 train --steps 4 $opt
check "train: at most 5% of the operator self time uncovered (counted: $(grep -o '[0-9.]*% uncovered' "$TMP/train.err"))" \
    json "$TMP/train.json" "share('uncovered') <= 5"
check "train: most of the operator self time with FLOPs or bytes" json "$TMP/train.json" "share('with FLOPs or bytes') >= 60"
check "train: every operator with a line of the script (95% of the time)" \
    grep -qE "$LINES_RE" "$TMP/train.err"
line() { grep -n "$1" "$T" | head -1 | cut -d: -f1; }
check "train: the encoder's operators have the line that called it" \
    json "$TMP/train.json" "any(op(k) == 'aten::native_layer_norm' and k['tags'].get('source', '').endswith('transformer.py:$(line 'h = enc(emb(x)')') for k in ks)"
check "train: the loss's operators have the loss's line" \
    json "$TMP/train.json" "any(op(k) == 'aten::nll_loss_forward' and k['tags'].get('source', '').endswith('transformer.py:$(line 'loss = F.cross_entropy')') for k in ks)"
check "train: embedding backward, cross entropy, layer norm, GELU and AdamW carry bytes" \
    json "$TMP/train.json" "all(any(op(k) == o and has(k, 'bytes') for k in ks) for o in ('aten::embedding_dense_backward', 'aten::_log_softmax', 'aten::nll_loss_forward', 'aten::native_layer_norm', 'aten::native_layer_norm_backward', 'aten::gelu', 'aten::gelu_backward', 'aten::addcdiv_'))"
if [ "$GEN" = 2 ]; then
    check "train: the _foreach_ operators' lists have shapes and types (no list uncovered)" \
        json "$TMP/train.json" "any(op(k).startswith('aten::_foreach_') for k in ks) and 'TensorList' not in notes.get('torch_uncovered', '')"
fi
check "train: nothing is left outside the cost model" \
    bash -c "! grep -q 'not in the cost model' '$TMP/train.err'"
"$BIN" analyze -m a100 "$TMP/train.json" >"$TMP/train.txt" 2>/dev/null
check "analyze: the coverage line names the torch that wrote the trace" \
    sh -c "grep '^coverage: profile 1: operator self time .* with FLOPs or bytes' '$TMP/train.txt' | grep -qF '; written by torch $VER'"

# ---- a decode loop, one token at a time ----
profile_shares decode "share('uncovered') <= 5" - decode --steps 8
check "decode: at most 5% of the operator self time uncovered (counted: $(grep -o '[0-9.]*% uncovered' "$TMP/decode.err"))" \
    json "$TMP/decode.json" "share('uncovered') <= 5"
check "decode: every operator with a line of the script (95% of the time)" \
    grep -qE "$LINES_RE" "$TMP/decode.err"
check "decode: attention and the greedy pick carry FLOPs" \
    json "$TMP/decode.json" "any(('attention' in op(k) or op(k) == 'aten::bmm') and has(k, 'flops') for k in ks) and any(op(k) == 'aten::argmax' and has(k, 'flops') for k in ks)"

if [ "$GEN" = 2 ]; then
    # ---- torch.compile'd block (the fused AdamW outside it): the wrappers are the framework's
    # overhead, the kernels named; steps 3 and 4, after the compiles and what they leave behind
    profile compiled 2:4 block --compile --steps 5 --optimizer fused
    check "compiled: the CPU's flash attention and its backward (inductor's extern kernels) have FLOPs and bytes" \
        json "$TMP/compiled.json" "all(any(op(k) == o and has(k, 'flops') and has(k, 'bytes') for k in ks) for o in ('aten::_scaled_dot_product_flash_attention_for_cpu', 'aten::_scaled_dot_product_flash_attention_for_cpu_backward'))"
    check "fused: _fused_adamw_ has FLOPs (12 per parameter) and bytes" \
        json "$TMP/compiled.json" "any(op(k) == 'aten::_fused_adamw_' and has(k, 'flops') and has(k, 'bytes') for k in ks)"
    check "compiled: torch.compile's wrappers are tagged as the framework's overhead" \
        json "$TMP/compiled.json" "all(any(op(k) == w and k['tags'].get('class') == 'overhead' and k['tags'].get('compiled') == 'wrapper' for k in ks) for w in ('CompiledFunction', 'CompiledFunctionBackward', 'TorchDynamo', 'Torch-Compiled'))"
    check "compiled: its regions, their kernels recorded, too" \
        json "$TMP/compiled.json" "any(k['name'].startswith('## Call CompiledFxGraph') and k['tags'].get('compiled') == 'region' for k in ks)"
    check "compiled: inductor's kernels costed from the buffers the runner read in its code" \
        json "$TMP/compiled.json" "any(op(k) == 'graph_0_cpp_fused__unsafe_view_mul_silu_2' and has(k, 'flops') and has(k, 'bytes') for k in ks)"
    check "compiled: the one named for attention's backward said not counted (not plain unknown)" \
        json "$TMP/compiled.json" "'not in the cost model' not in notes['torch_uncovered'] and 'backward_transpose_view_2 (compiled kernel, work not counted: it fuses aten::_scaled_dot_product_flash_attention_for_cpu_backward' in notes['torch_uncovered']"
    "$BIN" analyze -m a100 --hints --format json -o "$TMP/compiled.a.json" "$TMP/compiled.json" 2>/dev/null
    check "compiled: the wrappers' verdict is overhead (the launch bound)" \
        python3 -c "import json,sys; a=json.load(open('$TMP/compiled.a.json')); sys.exit(0 if all(k['verdict']['bound'] == 'overhead' for k in a['kernels'] if k['tags'].get('class') == 'overhead') else 1)"
    # the share, and the kernel whose time has no verdict the most (what a loaded machine stalled)
    python3 -c "import json; a=json.load(open('$TMP/compiled.a.json')); ks=a['kernels']; t=sum(k['verdict']['time'] for k in ks); u=sorted((k['verdict']['time'], k['name']) for k in ks if k['verdict']['bound'] == 'unknown') or [(0, '-')]; print('%.1f%%; the most unknown: %s %.1f%%' % (100 - 100*sum(x for x, _ in u)/t, u[-1][1][:80], 100*u[-1][0]/t))" >"$TMP/named.txt"
    check "compiled: most of the time has a verdict or a named overhead ($(cat "$TMP/named.txt"); 90% on an idle machine)" \
        awk '{ exit !($1 >= 75) }' "$TMP/named.txt"
    "$BIN" analyze -m a100 --hints "$TMP/compiled.json" >"$TMP/compiled.txt" 2>/dev/null
    check "compiled: the hint names mode=\"reduce-overhead\"" grep -q '^hint: compiled-overhead: .*mode="reduce-overhead"' "$TMP/compiled.txt"
fi

# ---- torch's own export_chrome_trace, imported ----
cat >"$TMP/export.py" <<'PY'
import sys, torch, torch.nn as nn
torch.manual_seed(0)
torch.set_num_threads(1)
m = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 1)
opt = torch.optim.AdamW(m.parameters())
x = torch.randn(4, 16, 64)
def step():
    opt.zero_grad(); m(x).pow(2).mean().backward(); opt.step()
step()
for how, kw in (("plain", {}), ("shapes", {"record_shapes": True}),
                ("flops", {"record_shapes": True, "with_flops": True})):
    if torch.autograd.kineto_available():
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], **kw) as prof:
            step()
            prof.add_metadata("torch_version", torch.__version__)
    else:  # a torch without Kineto (Debian's 1.13): the legacy profiler's export
        with torch.autograd.profiler.profile(**kw) as prof:
            step()
    prof.export_chrome_trace("%s-%s.json" % (sys.argv[1], how))
PY
"$TPY" "$TMP/export.py" "$TMP/export" >/dev/null 2>&1
for how in plain shapes flops; do
    check "export ($how): torch writes its trace" [ -s "$TMP/export-$how.json" ]
    expect 0 "" -- import torch "$TMP/export-$how.json" -o "$TMP/export-$how.p.json"
done
if "$TPY" -c "import sys, torch; sys.exit(0 if torch.autograd.kineto_available() else 1)"; then
    check "export without record_shapes: the operators are uncovered for want of shapes, and say so" \
        json "$TMP/export-plain.p.json" "'no input shapes recorded (record_shapes=True)' in notes['torch_uncovered']"
    check "export with record_shapes: at most 5% uncovered ($(python3 -c "import json; print(json.load(open('$TMP/export-shapes.p.json'))['provenance']['notes']['torch_coverage'])"))" \
        json "$TMP/export-shapes.p.json" "share('uncovered') <= 5"
    check "export with record_shapes: the torch named by add_metadata" json "$TMP/export-shapes.p.json" "notes['torch_version'] == '$VER'"
    check "export with with_flops: the matrix products have FLOPs" json "$TMP/export-flops.p.json" "any(op(k) in ('aten::addmm', 'aten::mm', 'aten::bmm') and has(k, 'flops') for k in ks)"
else
    check "legacy export: no shapes, said once" grep -q "this trace carries no input shapes" "$TMP/err"
    check "legacy export, even with with_flops: times and invocations only" \
        json "$TMP/export-flops.p.json" "len(ks) > 10 and not any(has(k, 'flops') or has(k, 'bytes') for k in ks)"
    check "legacy export: the torch that wrote it is unknown, and the profile says so" json "$TMP/export-flops.p.json" "notes['torch_version'] == 'unknown'"
fi

# ---- a script with a profiler of its own ----
cat >"$TMP/ownprof.py" <<'PY'
import torch
from torch.profiler import profile
with profile() as p:
    torch.ones(3).sum()
PY
expect 1 "the script starts torch's profiler itself" -- profile --torch -o "$TMP/own.json" -- "$TPY" "$TMP/ownprof.py"

# ---- the study's PyTorch implementation on this torch ----
cat >"$TMP/m.json" <<'JSON'
{"schema": "rooftime.machine/1", "name": "test cpu", "source": "derived",
 "units": [{"name": "fp32", "flops": 4e11}], "levels": [{"name": "DRAM", "bytes_per_s": 2e10}],
 "launch_overhead": {"seconds": 1e-6, "method": "test"}, "reference": {"unit": "fp32", "level": "DRAM"}}
JSON
ROOFTIME_PYTHON=$TPY "$BIN" study -o "$TMP/study" --quick --scale 0.1 --machine "$TMP/m.json" --impl pytorch \
    --op conv2d --precision fp32 >"$TMP/study.out" 2>"$TMP/study.err"
rc=$?
check "study --impl pytorch --quick exits 0 ($(grep -v warning "$TMP/study.err" | head -2))" [ $rc -eq 0 ]
for pass in forward backward-data backward-weights; do
    check "study: the convolution's $pass has FLOPs and bytes, from torch $VER" \
        json "$TMP/study/profiles/conv2d-pytorch-fp32-$pass.json" "notes['torch_version'] == '$VER' and any(op(k) in ('aten::mkldnn_convolution', 'aten::convolution_backward', 'aten::_slow_conv2d_forward', 'aten::_slow_conv2d_backward') and has(k, 'flops') and has(k, 'bytes') for k in ks)"
done
finish
