#!/bin/bash
# Profiles name rooftime's own data files by name and content hash ("data/torch/ops.json
# sha256:..."), never by this machine's path to them, so that profiles from two machines compare;
# a file the user gave keeps the path as typed, with its hash.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
DATA=$(cd "$SRC/data" && pwd)
TRACE=$(cd "$SRC/tests/data" && pwd)/torch-1.13-conv2d-backward.json
H='"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
R='"0","1","a","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","7.0","S"'
printf '%s\n%s\n%s\n' "$H" "$R,\"sm__cycles_elapsed.avg\",\"cycle\",\"100\"" \
    "$R,\"sm__cycles_elapsed.avg.per_second\",\"cycle/second\",\"1000\"" >"$TMP/ncu.csv"

# note FILE KEY: provenance.notes[KEY] of a profile.
note() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["provenance"]["notes"][sys.argv[2]])' "$1" "$2"
}
hash() { sha256sum "$1" | cut -d' ' -f1; }
# nolocal FILE: the profile holds no path into this machine's data directory, nor any absolute
# path to a data file.
nolocal() {
    ! grep -qF "$DATA" "$1" && ! grep -qF "$(realpath "$DATA")" "$1" &&
        ! grep -qE '"/[^"]*/(torch/ops|ncu/metrics)\.json' "$1"
}

expect 0 "" -- import torch "$TRACE" -o "$TMP/t.json"
check "torch_cost_model: $(note "$TMP/t.json" torch_cost_model)" \
    test "$(note "$TMP/t.json" torch_cost_model)" = "data/torch/ops.json sha256:$(hash "$DATA/torch/ops.json")"
check "import torch: no local data path in the profile" nolocal "$TMP/t.json"
expect 0 "" -- import ncu "$TMP/ncu.csv" -o "$TMP/n.json"
check "ncu mapping: $(note "$TMP/n.json" mapping)" \
    test "$(note "$TMP/n.json" mapping)" = "data/ncu/metrics.json sha256:$(hash "$DATA/ncu/metrics.json")"
check "import ncu: no local data path in the profile" nolocal "$TMP/n.json"

# Another data directory (an installed copy): the same names and hashes.
cp -r "$DATA" "$TMP/share"
ROOFTIME_DATADIR=$TMP/share expect 0 "" -- import torch "$TRACE" -o "$TMP/t2.json"
check "ROOFTIME_DATADIR: the same cost model note" \
    test "$(note "$TMP/t2.json" torch_cost_model)" = "$(note "$TMP/t.json" torch_cost_model)"
check "ROOFTIME_DATADIR: its path is not in the profile" bash -c '! grep -qF "$1" "$2"' _ "$TMP/share" "$TMP/t2.json"
ROOFTIME_DATADIR=$TMP/share/ expect 0 "" -- import ncu "$TMP/ncu.csv" -o "$TMP/n2.json"
check "ROOFTIME_DATADIR with a trailing slash: the same mapping note" \
    test "$(note "$TMP/n2.json" mapping)" = "$(note "$TMP/n.json" mapping)"
# A changed data file: another hash.
sed -i 's/"schema"/ "schema"/' "$TMP/share/torch/ops.json"
ROOFTIME_DATADIR=$TMP/share expect 0 "" -- import torch "$TRACE" -o "$TMP/t3.json"
check "an edited ops.json: another hash" \
    test "$(note "$TMP/t3.json" torch_cost_model)" = "data/torch/ops.json sha256:$(hash "$TMP/share/torch/ops.json")"
check "and not the shipped one's" test "$(note "$TMP/t3.json" torch_cost_model)" != "$(note "$TMP/t.json" torch_cost_model)"

# Files the user names: their path as typed, and their hash.
cp "$DATA/torch/ops.json" "$TMP/my-ops.json"
cp "$DATA/ncu/metrics.json" "$TMP/my-metrics.json"
ABS_BIN=$(realpath "$BIN")
(cd "$TMP" && "$ABS_BIN" import torch "$TRACE" --ops my-ops.json -o t4.json >/dev/null 2>&1)
check "--ops my-ops.json: as typed" \
    test "$(note "$TMP/t4.json" torch_cost_model)" = "my-ops.json sha256:$(hash "$TMP/my-ops.json")"
expect 0 "" -- import ncu --metrics "$TMP/my-metrics.json" "$TMP/ncu.csv" -o "$TMP/n3.json"
check "--metrics FILE: as typed" \
    test "$(note "$TMP/n3.json" mapping)" = "$TMP/my-metrics.json sha256:$(hash "$TMP/my-metrics.json")"
finish
