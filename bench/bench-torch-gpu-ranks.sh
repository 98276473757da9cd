#!/bin/bash
# A distributed job's PyTorch GPU traces, as users bring them off a cluster: one gzip-compressed
# trace per rank, each naming its rank (distributedInfo), imported one by one, then folded by
# `rooftime analyze --across rank`. For each rank count: the imports' wall time, and the fold's wall
# time and peak resident memory (/usr/bin/time). The last lines are the ratios between the largest
# and the smallest rank counts: the fold reads one profile at a time, so its time grows with the
# ranks and its memory should not.
# Usage: bench/bench-torch-gpu-ranks.sh BUILD_DIR [STEPS] [RANKS...]   (default 2000 steps of 6
# events per trace, ranks 16 128)
set -euo pipefail
B=${1:?usage: bench-torch-gpu-ranks.sh BUILD_DIR [STEPS] [RANKS...]}
STEPS=${2:-2000}
shift
[ $# -gt 0 ] && shift
RANKS=("$@")
[ ${#RANKS[@]} -eq 0 ] && RANKS=(16 128)
cd "$(dirname "$0")/.."
export ROOFTIME_DATADIR=$PWD/data
TMP=$(mktemp -d /tmp/rooftime-bench-ranks-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
declare -A fold_s fold_mb
for R in "${RANKS[@]}"; do
    d=$TMP/r$R
    mkdir -p "$d/traces" "$d/prof"
    python3 - "$d/traces" "$R" "$STEPS" <<'PY'
import gzip, json, os, sys
d, ranks, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for r in range(ranks):
    ev, ts = [], 1.6e15
    for s in range(steps):
        for j, (op, dims, k, dur) in enumerate((("aten::addmm", [[256], [2048, 512], [512, 256], [], []],
                                                 "cutlass_80_tensorop_s1688gemm_128x128", 30),
                                                ("aten::add", [[2048, 256], [2048, 256], []],
                                                 "vectorized_elementwise_kernel_add", 8))):
            c = 2 * s + j
            ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": ts,
                       "dur": 20, "args": {"External id": c, "Input Dims": dims,
                                           "Input type": ["float"] * 3}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                       "tid": 1, "ts": ts + 5, "dur": 6, "args": {"correlation": c}})
            ev.append({"ph": "X", "cat": "kernel", "name": k, "pid": 0, "tid": 7, "ts": ts + 15,
                       "dur": dur * (1.3 if r == ranks // 3 and j == 1 else 1),
                       "args": {"correlation": c}})
            ts += 50
    t = {"distributedInfo": {"backend": "nccl", "rank": r, "world_size": ranks}, "traceEvents": ev}
    with gzip.open(os.path.join(d, "trace-%05d.json.gz" % (ranks - 1 - r)), "wt") as f:
        json.dump(t, f)
PY
    start=$(date +%s.%N)
    for f in "$d"/traces/*.json.gz; do
        "$B/rooftime" import torch "$f" -o "$d/prof/$(basename "$f" .json.gz).json" >/dev/null 2>&1
    done
    end=$(date +%s.%N)
    mb=$(du -sm "$d/traces" | cut -f1)
    printf '%5d ranks: %d MB of gzip traces, imported in %.1f s\n' "$R" "$mb" "$(echo "$end - $start" | bc)"
    /usr/bin/time -f '%e %M' -o "$d/time" "$B/rooftime" analyze --across rank "$d/prof" >"$d/across.txt"
    read -r s kb <"$d/time"
    fold_s[$R]=$s
    fold_mb[$R]=$(echo "scale=1; $kb / 1024" | bc)
    printf '%5d ranks: analyze --across rank %s s, peak %s MB; %s\n' "$R" "$s" "${fold_mb[$R]}" \
        "$(grep -m1 "kernel '" "$d/across.txt" | sed 's/^ *//')"
done
lo=${RANKS[0]}
hi=${RANKS[${#RANKS[@]} - 1]}
echo "ratios $hi/$lo ranks: fold time $(echo "scale=2; ${fold_s[$hi]} / ${fold_s[$lo]}" | bc), peak memory $(echo "scale=2; ${fold_mb[$hi]} / ${fold_mb[$lo]}" | bc)"
