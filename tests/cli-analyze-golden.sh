# Golden output of `analyze` (text, csv, json) on the shipped example; ROOFTIME_REGEN=1 rewrites the goldens.
. "$(dirname "$0")/lib.sh"
P=$SRC/data/examples/conv2d-pt-fp16.json
G=$SRC/tests/golden

golden() { # NAME ARGS...
    local name=$1
    shift
    "$BIN" analyze "$@" >"$TMP/$name" 2>"$TMP/$name.err"
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

golden analyze-example.txt --machine v100 "$P"
golden analyze-example-single.txt --machine v100 --mode single "$P"
golden analyze-example.csv --machine v100 --format csv "$P"
golden analyze-example.json --machine v100 --format json "$P"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/analyze-example.json"
check "json output parses" test $? -eq 0
finish
