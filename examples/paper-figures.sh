#!/usr/bin/env bash
# Charts like the time-based roofline paper's Fig. 3 (Conv2D batch sweep, three frameworks) and
# Fig. 9 (LSTM batch sweep, FP16 backward) from its own tables, on the V100 preset.
#
#   examples/paper-figures.sh [OUTDIR] [TABLES]
#
# TABLES defaults to ../shared/fixtures/paper-tables (the authors' notebook tables); OUTDIR to
# ./paper-figures. Needs `rooftime` on PATH or ROOFTIME=/path/to/rooftime. Writes SVG and, when
# rooftime was built with cairo, PNG; plus OUTDIR/report/report.html with every view.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-paper-figures}
tables=${2:-$here/../../shared/fixtures/paper-tables}
rt=${ROOFTIME:-rooftime}
ext=${EXT:-png}
mkdir -p "$out"

# 1. The tables as rooftime profiles (one kernel per config; bytes = FLOPs / AI per level).
for t in conv2d-pt conv2d-tf1-noxla conv2d-tf2-noxla rnn1d-pt; do
    "$rt" import table "$tables/$t.main.csv" --ai-file "$tables/$t.l2-l1-ai.csv" -o "$out/$t.json"
done
conv=("$out/conv2d-pt.json" "$out/conv2d-tf1-noxla.json" "$out/conv2d-tf2-noxla.json")

# 2. Fig. 3: Conv2D, batch 16/32/64, PyTorch/TF1/TF2 by color, FP16 filled / FP32 hollow
#    (in the 4D view precision takes the marker shape: fill shows complexity vs time).
for pass in forward backward; do
    for view in 4d complexity time; do
        "$rt" plot --machine v100 --view $view --family "Batch Size" --where Pass=$pass \
            --series-by Framework --fill-by Precision \
            --title "Conv2D $pass, batch 16/32/64 (cf. paper Fig. 3)" \
            -o "$out/fig3-conv2d-$pass-$view.$ext" "${conv[@]}"
    done
done
"$rt" plot --machine v100 --view roofline --where Pass=forward --where "Batch Size=64" \
    --series-by Framework --fill-by Precision --title "Conv2D forward, batch 64: hierarchical roofline" \
    -o "$out/fig3-conv2d-forward-roofline.$ext" "${conv[@]}"

# 3. Fig. 9: LSTM, batch 16/32/64/128, FP16 backward: every config inside its overhead box.
for view in 4d complexity time; do
    "$rt" plot --machine v100 --view $view --family "Batch Size" --where Pass=backward \
        --where Precision=FP16 --series-by Framework \
        --title "LSTM FP16 backward, batch 16-128 (cf. paper Fig. 9)" \
        -o "$out/fig9-lstm-fp16-backward-$view.$ext" "$out/rnn1d-pt.json"
done

# 4. Everything in one report: one set of views per operation table and pass.
"$rt" report --machine v100 --split-by Pass --marker-by "Batch Size" \
    --title "Time-based roofline of the paper's Conv2D tables (V100)" -o "$out/report-conv2d" "${conv[@]}"
"$rt" report --machine v100 --split-by Pass,Precision --marker-by "Batch Size" \
    --title "Time-based roofline of the paper's LSTM table (V100)" -o "$out/report-lstm" "$out/rnn1d-pt.json"
echo "wrote $out"
