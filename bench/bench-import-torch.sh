#!/bin/bash
# Time `rooftime import torch` on a generated 1M-event trace (and the library call, and the peer).
# usage: bench/bench-import-torch.sh BUILD_DIR [EVENTS]
set -eu
build=${1:?usage: bench-import-torch.sh BUILD_DIR [EVENTS]}
n=${2:-1000000}
dir=$(mktemp -d /tmp/rooftime-bench-XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$build/bench-import-torch" "$n" "$dir/trace.json"
ls -l "$dir/trace.json" | awk '{printf "trace: %.0f MB\n", $5 / 1e6}'
start=$(date +%s.%N)
"$build/rooftime" import torch "$dir/trace.json" -o "$dir/profile.json" 2>/dev/null
end=$(date +%s.%N)
echo "rooftime import torch (command, including writing the profile): $(echo "$end - $start" | bc) s"
