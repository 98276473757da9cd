# `rooftime machine measure`: option errors (exit 2), unwritable outputs caught before measuring (exit 1),
# and, outside sanitizer builds, one quick single-thread run whose file `machine check` accepts.
. "$(dirname "$0")/lib.sh"

expect 2 "unknown option '--bogus'" -- machine measure --bogus
expect 2 "--threads: expected a positive whole number, got '0'" -- machine measure --threads 0
expect 2 "--threads: expected a positive whole number, got 'two'" -- machine measure --threads two
expect 2 "--max-isa: unknown instruction set 'avx1024'" -- machine measure --max-isa avx1024
expect 2 "option '--max-isa' needs a value" -- machine measure --max-isa
expect 2 "takes no file arguments" -- machine measure out.json
expect 1 "cannot use 4000 threads: [0-9]+ CPUs available" -- machine measure --threads 4000
expect 0 "" -- machine measure --help
check "help names measure" grep -q "machine measure" "$TMP/out"

# Unwritable outputs fail at once, before any measuring, and leave nothing behind.
start=$(date +%s)
expect 1 "cannot .*'$TMP/no/such/dir/m.json'" -- machine measure -o "$TMP/no/such/dir/m.json"
expect 1 "is a directory" -- machine measure -o "$TMP"
check "errors came before measuring" test $(($(date +%s) - start)) -lt 10
check "no file left behind" test ! -e "$TMP/no"

# A real run is too slow under the sanitizers (their checks on every vector load of the sweep).
if ldd "$BIN" 2>/dev/null | grep -q libasan; then
    echo "note: sanitizer build: quick measurement run skipped"
else
    # Any stderr (a CPU with every unit and a quiet run prints none).
    expect 0 "" -- machine measure --quick --threads 1 -o "$TMP/m.json"
    check "wrote the machine file" test -s "$TMP/m.json"
    check "the summary names the file" grep -q "wrote $TMP/m.json" "$TMP/out"
    "$BIN" machine check "$TMP/m.json" >"$TMP/check" 2>&1
    check "machine check accepts it" test $? -eq 0
    check "source is measured" grep -q '"source": "measured"' "$TMP/m.json"
    check "fp64 unit present" grep -q '"name": "fp64"' "$TMP/m.json"
    check "DRAM level present" grep -q '"name": "DRAM"' "$TMP/m.json"
    check "curves saved" grep -q '"curves"' "$TMP/m.json"
    # Ceilings from the best clean trials, the typical figure beside them, each no higher.
    python3 - "$TMP/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# a unit's typical is the median of the trials whose max is beside it; a level's is the median
# of all its points' medians, while its ceiling, min and max are its clean points' ceilings
# (docs/machine-measure.md): a disturbed point may read above them
for u in d["units"]:
    assert 0 < u["typical"] <= u["max"] * (1 + 1e-9) and u["flops"] <= u["max"] * (1 + 1e-9), u
for u in d["levels"]:
    v = u["bytes_per_s"]
    assert u["typical"] > 0 and u["min"] * (1 - 1e-9) <= v <= u["max"] * (1 + 1e-9), u
# --quick: 12 compute trials of 5 ms (3 x RT_OWN_SPLIT, docs/machine-measure.md)
for f in d["measurement"]["flops"]:
    assert f["min"] <= f["ceiling"] <= f["max"] * (1 + 1e-9) and 0 <= f["clean_trials"] <= 12, f
assert all(len(p) == 5 for c in d["measurement"]["bandwidth"]["curves"] for p in c["points"])
assert set(d["measurement"]["stage_seconds"]) == {"clock", "compute", "bandwidth", "overheads"}
# every level's bandwidth is the faster of the read and the update (read and written back in
# place) kernels' plateaus at the most threads, and says which
bw = d["measurement"]["bandwidth"]
assert {c["kernel"] for c in bw["curves"]} >= {"read", "copy", "triad", "update"}
most = max(c["threads"] for c in bw["curves"])
plat = {(p["kernel"], p["name"]): p["bytes_per_s"] for p in bw["levels"]
        if p["threads"] == most and p["found"]}
for u in d["levels"]:
    k = u["note"].split(" ")[0]
    assert k in ("read", "update") and u["bytes_per_s"] == plat[(k, u["name"])], u
    assert u["bytes_per_s"] >= max(plat.get((q, u["name"]), 0) for q in ("read", "update")), u
PY
    check "ceilings, typical figures and clean trials in the file" test $? -eq 0
    check "no temporary file left" test -z "$(ls "$TMP" | grep tmp)"
    # tau one layer up: the framework dispatch when python3 imports torch, else the reason why not.
    if "${ROOFTIME_PYTHON:-/usr/bin/python3}" -c 'import torch' 2>/dev/null; then
        check "framework dispatch measured" grep -q '"name": "framework_dispatch"' "$TMP/m.json"
        check "framework dispatch in the summary" grep -q "overhead .* framework_dispatch" "$TMP/out"
    else
        check "framework dispatch: says why not" grep -q "skipped: framework dispatch overhead" "$TMP/err"
    fi
    grep -q '"name": "onednn_primitive"' "$TMP/m.json" || grep -q "skipped: oneDNN primitive overhead" "$TMP/err"
    check "oneDNN primitive overhead measured or said why not" test $? -eq 0
fi
finish
