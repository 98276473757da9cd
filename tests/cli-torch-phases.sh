# A generation loop under `profile --torch` split into its phases (issue 38): examples/torch/generate.py
# (plain torch.nn, random weights) on Debian's torch 1.13 (the unfused attention: the phase from the
# softmax's query length) and on the PyPI 2.x (scaled_dot_product_attention's), its own marks
# (--marks), then analyze's phase table, the report's charts per phase and diff's phases; on 2.x with
# `transformers`, a randomly initialised GPT-2 from its default config (GPT-2 small's sizes) through
# HF's generate(). A torch or transformers that is missing skips that part with a line; no torch at
# all skips (77).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python-lib.sh"
G=$SRC/examples/torch/generate.py
M=$SRC/data/machines/a100.json # the verdicts are not checked here, only the split
# one thread each: the 2 cores are shared, and torch's OpenMP threads spin when both are taken
export OMP_NUM_THREADS=1
ran=0

# calls PROFILE: what the profile's phase note counted ("2 calls over more than one query token, 10
# over one"), for a check's message
calls() {
    python3 -c "import json, re, sys; n = json.load(open(sys.argv[1]))['provenance']['notes'].get('phases', 'no phases note'); m = re.search(r'\(([^)]*)\)', n); print(m.group(1) if m else n[:80])" "$1" 2>&1
}

# phases NAME PROFILE: the profile's kernels carry phase=prefill and decode, analyze ends with the
# phase table, report writes one set of charts per phase, each naming its phase
phases() {
    local name=$1 p=$2
    check "$name: operators tagged prefill and decode" \
        json "$p" "{k.get('tags', {}).get('phase') for k in ks} >= {'prefill', 'decode'}"
    check "$name: the softmax or attention of both phases" \
        json "$p" "all(any(k.get('tags', {}).get('phase') == ph and re.search('softmax|attention|_sdpa|_flash', k['name']) for k in ks) for ph in ('prefill', 'decode'))"
    "$BIN" analyze -m "$M" "$p" >"$TMP/$name.txt" 2>"$TMP/$name.aerr"
    check "$name: analyze exits 0 ($(tail -1 "$TMP/$name.aerr"))" test $? -eq 0
    check "$name: analyze's phase table" grep -q "^== Phases of the generation loop (the kernels' phase tag) ==" "$TMP/$name.txt"
    check "$name: its prefill and decode rows" \
        bash -c "grep -qE '^prefill \| [0-9]+ \| [0-9]+ \| ' '$TMP/$name.txt' && grep -qE '^decode \| [0-9]+ \| [0-9]+ \| ' '$TMP/$name.txt'"
    "$BIN" report -m "$M" -o "$TMP/$name-report" "$p" >/dev/null 2>"$TMP/$name.rerr"
    check "$name: report exits 0 ($(tail -1 "$TMP/$name.rerr"))" test $? -eq 0
    for ph in prefill decode; do
        for v in roofline time 4d complexity; do
            check "$name: report's $ph $v chart" test -s "$TMP/$name-report/phase-$ph-$v.svg"
        done
    done
    check "$name: the report's phase table" grep -q "Phases of the generation loop" "$TMP/$name-report/report.html"
}

# ---- torch 1.13: generate.py's own attention (matmul, masked_fill, softmax, matmul) ----
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
    ran=1
    "$BIN" profile --torch -o "$TMP/gen1.json" -- /usr/bin/python3 "$G" --prompt 24 --new 6 \
        >"$TMP/gen1.out" 2>"$TMP/gen1.err"
    check "torch 1.13: profile --torch of the generation loop exits 0 ($(tail -1 "$TMP/gen1.err"))" test $? -eq 0
    phases gen1 "$TMP/gen1.json"
    # 2 layers: one prefill forward (a softmax over 24 queries per layer), 5 decode forwards
    check "torch 1.13: the phases from the softmax's query length, 2 prefill and 10 decode calls (counted: $(calls "$TMP/gen1.json"))" \
        json "$TMP/gen1.json" "'query length (2 calls over more than one query token, 10 over one)' in notes['phases']"
    check "torch 1.13: the set-up before the first forward has no phase" \
        json "$TMP/gen1.json" "any('phase' not in k.get('tags', {}) and k['name'].startswith('aten::normal_') for k in ks)"
    "$BIN" profile --torch -o "$TMP/marks.json" -- /usr/bin/python3 "$G" --prompt 24 --new 6 --marks \
        >"$TMP/marks.out" 2>"$TMP/marks.err"
    check "torch 1.13: the loop's own marks (exit $?)" json "$TMP/marks.json" "'rooftime:phase=NAME' in notes['phases']"
    phases marks "$TMP/marks.json"
    "$BIN" diff -m "$M" "$TMP/gen1.json" "$TMP/marks.json" >"$TMP/diff.txt" 2>"$TMP/diff.err"
    check "diff: exits 0 ($(tail -1 "$TMP/diff.err"))" test $? -eq 0
    check "diff: each phase before and after" \
        bash -c "grep -q '^phases (time before -> after)' '$TMP/diff.txt' && grep -qE '^  prefill: .* launches$' '$TMP/diff.txt' && grep -qE '^  decode: .* launches$' '$TMP/diff.txt'"
else
    echo "skipped the torch 1.13 part: /usr/bin/python3 cannot import torch"
fi

# ---- torch 2.x: scaled_dot_product_attention; GPT-2 through transformers ----
if "$TORCH2_PY" -c "import torch.nn.functional as F; F.scaled_dot_product_attention" 2>/dev/null; then
    ran=1
    "$BIN" profile --torch -o "$TMP/gen2.json" -- "$TORCH2_PY" "$G" --prompt 24 --new 6 --sdpa \
        >"$TMP/gen2.out" 2>"$TMP/gen2.err"
    check "torch 2: profile --torch of the SDPA generation loop exits 0 ($(tail -1 "$TMP/gen2.err"))" test $? -eq 0
    phases gen2 "$TMP/gen2.json"
    check "torch 2: the phases from SDPA's query length, 2 prefill and 10 decode calls (counted: $(calls "$TMP/gen2.json"))" \
        json "$TMP/gen2.json" "'query length (2 calls over more than one query token, 10 over one)' in notes['phases']"
    if "$TORCH2_PY" -c "import transformers" 2>/dev/null; then
        cat >"$TMP/gpt2.py" <<'PY'
import torch
import transformers

torch.manual_seed(0)
cfg = transformers.GPT2Config()  # GPT-2 small's sizes: 12 layers, 12 heads, 768 wide
model = transformers.GPT2LMHeadModel(cfg).eval()  # random weights, nothing downloaded
ids = torch.randint(0, cfg.vocab_size, (1, 16))
with torch.no_grad():
    out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=4,
                         do_sample=False, pad_token_id=0)
print("generated", tuple(out.shape))
PY
        "$BIN" profile --torch -o "$TMP/gpt2.json" -- "$TORCH2_PY" "$TMP/gpt2.py" \
            >"$TMP/gpt2.out" 2>"$TMP/gpt2.err"
        check "GPT-2: profile --torch of HF generate() exits 0 ($(tail -1 "$TMP/gpt2.err"))" test $? -eq 0
        check "GPT-2: 4 new tokens" grep -q "^generated (1, 20)" "$TMP/gpt2.out"
        phases gpt2 "$TMP/gpt2.json"
        # 12 layers: one prefill forward, 3 decode forwards (generate's last token needs none)
        check "GPT-2: 12 prefill and 36 decode attention calls (counted: $(calls "$TMP/gpt2.json"))" \
            json "$TMP/gpt2.json" "'query length (12 calls over more than one query token, 36 over one)' in notes['phases']"
    else
        echo "skipped the GPT-2 part: $TORCH2_PY has no transformers (pip install transformers)"
    fi
else
    echo "skipped the torch 2 part: no torch with scaled_dot_product_attention at $TORCH2_PY"
fi
if [ "$ran" = 0 ]; then
    echo "skipped: no torch at /usr/bin/python3 or $TORCH2_PY"
    exit 77
fi
finish
