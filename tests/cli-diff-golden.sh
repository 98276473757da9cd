# Golden output of `diff` (text and CSV) on the paper's Conv2D tables (fixtures; skipped when absent):
# kernels matched by name and tags, with no source line among them, so a change to how a source
# line is matched leaves these bytes as they were. ROOFTIME_REGEN=1 rewrites the goldens.
. "$(dirname "$0")/lib.sh"
G=$SRC/tests/golden
T=${ROOFTIME_FIXTURES:-}/paper-tables
if [ -z "${ROOFTIME_FIXTURES:-}" ] || [ ! -d "$T" ]; then
    echo "SKIP: no paper tables under '${ROOFTIME_FIXTURES:-}' (ROOFTIME_FIXTURES)"
    exit 77
fi
for t in conv2d-pt conv2d-tf2-noxla; do
    "$BIN" import table "$T/$t.main.csv" --ai-file "$T/$t.l2-l1-ai.csv" -o "$TMP/$t.json" 2>/dev/null
done

golden() { # NAME ARGS...
    local name=$1
    shift
    "$BIN" diff "$@" "$TMP/conv2d-pt.json" "$TMP/conv2d-tf2-noxla.json" >"$TMP/$name" 2>"$TMP/$name.err"
    local rc=$?
    check "$name: exit 0" test "$rc" -eq 0
    if [ "${ROOFTIME_REGEN:-0}" = 1 ]; then
        cp "$TMP/$name" "$G/$name"
        echo "regenerated $G/$name"
    fi
    if ! diff -u "$G/$name" "$TMP/$name" >"$TMP/diff"; then
        echo "FAIL: $name differs from $G/$name"; head -30 "$TMP/diff"
        FAILS=$((FAILS + 1))
    else
        PASSES=$((PASSES + 1))
    fi
}

golden diff-tables.txt
golden diff-tables-v100.txt -m v100 --mode hier --top 5
golden diff-tables-v100.csv -m v100 --format csv
golden diff-tables-op.txt --by op
golden diff-tables-batch.txt --by "Batch Size" -m v100
finish
