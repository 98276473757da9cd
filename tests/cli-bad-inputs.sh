# Every reproducer in ../shared/fixtures/bad-inputs through the command: exit 0 or 1 (never a
# crash, a sanitizer report or a hang), a message naming the input on failure, and whatever was
# imported loads back; charts and the report of the UTF-8 case are well-formed.
. "$(dirname "$0")/lib.sh"

# Streams: /dev/zero fails at once (a NUL is not text), FIFOs and standard input are read.
expect 1 "cannot read '/dev/zero': line 1: byte 0 is a NUL" -- import onednn /dev/zero -o "$TMP/z.json"
expect 1 "cannot read '/dev/zero': byte 0 is a NUL" -- import torch /dev/zero -o "$TMP/z.json"
expect 1 "cannot read '/dev/zero': byte 0 is a NUL" -- analyze --machine v100 /dev/zero
expect 1 "cannot read '/dev/zero': byte 0 is a NUL" -- analyze --machine /dev/zero "$SRC/data/examples/conv2d-pt-fp16.json"
"$BIN" import onednn - -o "$TMP/stdin.json" <"$SRC/tests/data/onednn-2.6-primitives.log" >/dev/null 2>&1
check "import onednn - reads standard input" test -s "$TMP/stdin.json"
mkfifo "$TMP/fifo"
cat "$SRC/data/examples/conv2d-pt-fp16.json" >"$TMP/fifo" &
"$BIN" analyze --machine v100 "$TMP/fifo" >"$TMP/fifo.txt" 2>&1
check "analyze reads a FIFO" grep -q "^total: 6 kernels" "$TMP/fifo.txt"
wait
# A newline-less 64 MB output passes through `profile` whole, in bounded memory.
"$BIN" profile -o "$TMP/nl.json" -- sh -c 'head -c 64000000 /dev/zero | tr "\\0" x' 2>/dev/null | wc -c >"$TMP/nl.count"
check "profile passes a newline-less output through whole ($(cat "$TMP/nl.count") bytes)" test "$(cat "$TMP/nl.count")" -eq 64000000
# Limits (docs/limits.md): each a clear error, in linear time.
python3 - "$SRC/data/ncu/metrics.json" "$TMP" <<'PY'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
for name, formula in [("deep", "(" * 200000 + "1" + ")" * 200000), ("minus", "-" * 1000000 + "1")]:
    m = json.load(open(src))
    m["quantities"][0]["formula"] = formula
    json.dump(m, open(f"{tmp}/{name}.json", "w"))
k = {"name": "k", "invocations": 1, "time": 1e-3, "tags": {f"t{i}": "v" for i in range(200000)}}
json.dump({"schema": "rooftime.profile/1", "kernels": [k]}, open(f"{tmp}/tags.json", "w"))
with open(f"{tmp}/wide.csv", "w") as f:
    f.write(",".join(["CUDA Time"] + [f"c{i}" for i in range(100000)]) + "\n")
    f.write(",".join(["1"] + ["x"] * 100000) + "\n")
PY
printf '"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n' >"$TMP/one.csv"
expect 1 "deep.json': line 1, column [0-9]+: field 'quantities\[0\]\.formula': formula: nested deeper than the limit of 64" -- import ncu --metrics "$TMP/deep.json" -o "$TMP/x.json" "$TMP/one.csv"
expect 1 "minus.json': line 1, column [0-9]+: field 'quantities\[0\]\.formula': formula: nested deeper than the limit of 64" -- import ncu --metrics "$TMP/minus.json" -o "$TMP/x.json" "$TMP/one.csv"
expect 1 "field 'kernels\[0\].tags': 200000 tags, more than the limit of 1024" -- analyze --machine v100 "$TMP/tags.json"
expect 1 "wide.csv: line 1: 100001 columns, more than the limit of 1024" -- import table -o "$TMP/x.json" "$TMP/wide.csv"
# A table is checked for its columns at its header, before its rows are read (a bad row later, or
# 200 MB of `yes`, never gets that far), and holds at most 2^20 rows.
printf 'name,Invocations\nk,1\nk2,1\nk3\n' >"$TMP/notime.csv"
expect 1 "notime.csv: no time column" -- import table -o "$TMP/x.json" "$TMP/notime.csv"
yes | head -c 200000000 | "$BIN" import table - -o "$TMP/x.json" >/dev/null 2>"$TMP/yes.err"
check "import table - fails at the header of 200 MB of yes" grep -q "^rooftime: error: -: no time column" "$TMP/yes.err"
{ echo "name,CUDA Time"; seq 1048577 | sed 's/^/k/; s/$/,1/'; } >"$TMP/rows.csv"
expect 1 "rows.csv: line 1048578: more than 1048576 rows, the limit of a table" -- import table -o "$TMP/x.json" "$TMP/rows.csv"
check "nothing written after a table over the limit" test ! -e "$TMP/x.json"
# 20,000 oneDNN keys that differ only in layout share a name: numbered in linear time.
for i in $(seq 1 20000); do
    echo "onednn_verbose,exec,cpu,reorder,simple:any,undef,src_f32::blocked:abcd:f0 dst_f32::blocked:tag$i:f0,,,1x1x1x$i,0.001"
done >"$TMP/same.log"
start=$(date +%s)
"$BIN" import onednn -o "$TMP/same.json" "$TMP/same.log" >/dev/null 2>&1
check "20,000 oneDNN keys import" test -s "$TMP/same.json"
check "and in well under a minute" test $(($(date +%s) - start)) -lt 60

BAD=${ROOFTIME_FIXTURES:-$SRC/../shared/fixtures}/bad-inputs
if [ ! -d "$BAD" ]; then
    echo "skipped: no $BAD"
    exit 77
fi
clean() { # FILE: no sanitizer report in it
    ! grep -qE "AddressSanitizer|LeakSanitizer|runtime error" "$1"
}
n=0
for f in "$BAD"/*; do
    name=$(basename "$f")
    case $name in
    *ncumap*) kind=ncu-metrics ;; *ncu*) kind=ncu ;; *onednn*) kind=onednn ;;
    *table*) kind=table ;; *torch*) kind=torch ;; *) continue ;;
    esac
    in=$f
    case $name in *.bin) tail -c +2 "$f" >"$TMP/input" && in=$TMP/input ;; esac
    rm -f "$TMP/p.json"
    if [ "$kind" = ncu-metrics ]; then
        printf '"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n' >"$TMP/one.csv"
        timeout 60 "$BIN" import ncu --metrics "$in" -o "$TMP/p.json" "$TMP/one.csv" >"$TMP/out" 2>"$TMP/err"
    else
        timeout 60 "$BIN" import "$kind" -o "$TMP/p.json" "$in" >"$TMP/out" 2>"$TMP/err"
    fi
    code=$?
    n=$((n + 1))
    check "$name: import $kind exits 0 or 1 (got $code)" test "$code" -le 1
    check "$name: no sanitizer report" clean "$TMP/err"
    if [ "$code" -eq 1 ]; then
        check "$name: the error names the input" grep -qE "rooftime: error: .*($name|input|one.csv)" "$TMP/err"
        check "$name: no profile left behind" test ! -e "$TMP/p.json"
    elif [ "$code" -eq 0 ]; then
        "$BIN" analyze --machine v100 "$TMP/p.json" >/dev/null 2>"$TMP/err2"
        check "$name: the imported profile loads back ($(head -1 "$TMP/err2"))" test $? -eq 0
    fi
done
check "every reproducer was tried ($n)" test "$n" -ge 15

# Labels cut inside a multi-byte character made SVG that is not XML and HTML that is not UTF-8.
U=$BAD/svg-utf8-truncation-profile.json
wellformed() {
    python3 -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$1" 2>/dev/null
}
for view in roofline complexity time 4d; do
    "$BIN" plot --machine v100 --view "$view" -o "$TMP/u-$view.svg" "$U" >/dev/null 2>"$TMP/err"
    check "utf8 labels: plot $view exits 0" test $? -eq 0
    check "utf8 labels: $view SVG is well-formed XML" wellformed "$TMP/u-$view.svg"
done
"$BIN" report --machine v100 -o "$TMP/rep" "$U" >/dev/null 2>&1
check "utf8 labels: report written" test -s "$TMP/rep/report.html"
check "utf8 labels: report is valid UTF-8" python3 -c \
    "import sys; open(sys.argv[1], 'rb').read().decode('utf-8')" "$TMP/rep/report.html"
finish
