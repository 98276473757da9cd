#!/bin/bash
# Which sm__ops_path_tensor_* counters each chip has, from CUPTI's host API (no GPU needed): the
# enumeration behind the per-architecture tensor formulas in data/ncu/metrics.json and the table
# in docs/import-ncu.md. Usage: scripts/cupti-tensor-metrics.sh [BUILD_DIR] (default: build).
# Prints one line per counter: CHIP NAME; then, per chip, the pass count of the collector's
# throughput list for that chip's architecture.
set -eu
B=${1:-build}
CHECK=$B/cupti-host-check
if [ ! -x "$CHECK" ]; then
    echo "no $CHECK: build rooftime with the CUDA toolkit's CUPTI (cmake --build $B)" >&2
    exit 1
fi
"$CHECK" --chips GV100,TU102,GA100,GA102,AD102,GH100,GB100,GB110,GB202 --list sm__ops_path_tensor
for pair in GV100:sm_70 TU102:sm_75 GA100:sm_80 GA102:sm_86 AD102:sm_89 GH100:sm_90 GB100:sm_100 GB110:sm_103 GB202:sm_120; do
    chip=${pair%%:*} arch=${pair##*:}
    # shellcheck disable=SC2046
    "$CHECK" --chips "$chip" $("$B/rooftime" ncu-metrics --arch "$arch" |
        awk '/^#/ { next } /^$/ { exit } { print }') | sed "s/^/$arch list on /"
done
