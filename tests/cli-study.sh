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
expect 2 "--impl: unknown name 'cudnn' \(known: direct, im2col, onednn, unfused\)" -- study -o "$O" --impl cudnn
expect 2 "--op: unknown name 'gemm'" -- study -o "$O" --op gemm
expect 2 "--precision: unknown name 'fp8'" -- study -o "$O" --precision fp8
expect 2 "--iters: expected a whole number from 1 to 100000, got '0'" -- study -o "$O" --iters 0
expect 2 "--warmup: expected a whole number" -- study -o "$O" --warmup -1
expect 2 "--scale: expected a number in \(0, 1\], got '2'" -- study -o "$O" --scale 2
expect 2 "no selected implementation runs lstm" -- study -o "$O" --impl direct --op lstm
expect 2 "unexpected argument 'extra'" -- study -o "$O" extra
expect 2 "unknown option '--bogus'" -- study --bogus
expect 2 "--mode: expected single or hier" -- study -o "$O" --mode fast
expect 1 "cannot read 'nope.json'" -- study -o "$O" --machine nope.json
check "nothing written before the request was valid" test ! -e "$O"

# A quick run at a tiny scale, every implementation and precision.
"$BIN" study -o "$O" --quick --scale 0.1 --machine "$TMP/m.json" >"$TMP/out.txt" 2>"$TMP/err.txt"
code=$?
check "quick study exits 0 (got $code: $(head -3 "$TMP/err.txt"))" test "$code" -eq 0
for f in machine.json analysis.txt analysis.json findings.txt report.html; do
    check "study wrote $f" test -s "$O/$f"
done
n=$(ls "$O"/profiles/*.json 2>/dev/null | wc -l)
check "study wrote one profile per implementation x precision x op x pass ($n)" test "$n" -ge 15
check "oneDNN bf16 forward conv profile" test -s "$O/profiles/conv2d-onednn-bf16-forward.json"
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
check "the profiles analyze again" "$BIN" analyze --machine "$TMP/m.json" "$O"/profiles/*.json -o "$TMP/a.txt"
finish
