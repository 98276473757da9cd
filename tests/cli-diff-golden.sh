# Golden output of `diff` (text and CSV). On the paper's Conv2D tables (fixtures; skipped when
# absent): kernels matched by name and tags, with no source line among them, so a change to how a
# source line is matched leaves these bytes as they were. On two `profile --torch` runs of the
# gate's workload, the second with every line of the script moved (tests/data/gate): every kernel
# matched, the source line shown in its own column. ROOFTIME_REGEN=1 rewrites the goldens.
. "$(dirname "$0")/lib.sh"

golden() { # NAME BEFORE AFTER ARGS...
    local name=$1 before=$2 after=$3
    shift 3
    "$BIN" diff "$@" "$before" "$after" >"$TMP/$name" 2>"$TMP/$name.err"
    golden_compare "$name" $?
}

D=$SRC/tests/data/gate
golden diff-moved.txt "$D/run-01.json" "$D/moved.json"
golden diff-moved.csv "$D/run-01.json" "$D/moved.json" --format csv

T=${ROOFTIME_FIXTURES:-}/paper-tables
if [ -z "${ROOFTIME_FIXTURES:-}" ] || [ ! -d "$T" ]; then
    echo "SKIP (the paper's tables): none under '${ROOFTIME_FIXTURES:-}' (ROOFTIME_FIXTURES)"
    finish
    exit
fi
for t in conv2d-pt conv2d-tf2-noxla; do
    "$BIN" import table "$T/$t.main.csv" --ai-file "$T/$t.l2-l1-ai.csv" -o "$TMP/$t.json" 2>/dev/null
done
P="$TMP/conv2d-pt.json $TMP/conv2d-tf2-noxla.json"
golden diff-tables.txt $P
golden diff-tables-v100.txt $P -m v100 --mode hier --top 5
golden diff-tables-v100.csv $P -m v100 --format csv
golden diff-tables-op.txt $P --by op
golden diff-tables-batch.txt $P --by "Batch Size" -m v100
finish
