# `import cupti` applies the collector's marks (marks.PID.csv): each kernel gets the tags of the
# last mark before it (trace: by launch correlation; counters: by range number), a kernel name
# under several tag sets becomes several kernels, and bad marks files are refused with file, line
# and field. The directories are synthetic (tests/data/README.md), the analyses golden
# (ROOFTIME_REGEN=1 rewrites them).
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
T=$SRC/tests/data/cupti-synthetic-trace-marks
C=$SRC/tests/data/cupti-synthetic-counters-marks
G=$SRC/tests/golden

# kernels FILE: one line per kernel, "name invocations k=v,k=v" (the marks' keys and grid), sorted.
kernels() {
    python3 - "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
rows = []
for k in p["kernels"]:
    t = k.get("tags", {})
    tags = ",".join("%s=%s" % (a, t[a]) for a in sorted(t) if a in ("batch", "pass", "note", "grid", "launch"))
    rows.append("%s %g %s" % (k["name"], k["invocations"], tags))
print("\n".join(sorted(rows)))
PY
}

expect 0 "" -- import cupti "$T" -o "$TMP/t.json"
check "trace: 6 kernels (by name and tag set) of 8 launches" grep -q "6 kernels, 8 launches" "$TMP/out"
kernels "$TMP/t.json" >"$TMP/t.txt"
cat >"$TMP/t.want" <<'W'
gemm 1 batch=32,grid=128,1,1,pass=forward
gemm 1 grid=64,1,1
gemm 2 batch=16,grid=64,1,1,pass=forward
k_init 1 grid=1,1,1
relu 1 batch=32,grid=32,1,1,pass=forward
relu 2 batch=16,grid=16,1,1,pass=forward
W
check "trace: each kernel has the tags of the last mark before its launch, split by tag set ($(paste -sd'|' "$TMP/t.txt"))" \
    diff -u "$TMP/t.want" "$TMP/t.txt"

# Per launch: the launches after mark 3 (the tags of mark 0 again, written in another order).
expect 0 "" -- import cupti "$T" --per-launch -o "$TMP/tl.json"
kernels "$TMP/tl.json" | grep -E 'launch=(1|11|13|15)(,|$)' | sed 's/grid=[0-9,]*,//' >"$TMP/tl.txt"
cat >"$TMP/tl.want" <<'W'
gemm 1 batch=16,launch=13,pass=forward
gemm 1 launch=11
k_init 1 launch=1
relu 1 batch=16,launch=15,pass=forward
W
check "per launch: before the first mark and after \"\" none; after a mark its tags ($(paste -sd'|' "$TMP/tl.txt"))" \
    diff -u "$TMP/tl.want" "$TMP/tl.txt"

expect 0 "" -- import cupti "$C" -o "$TMP/c.json"
check "counters: 6 kernels of 6 ranges" grep -q "6 kernels, 6 launches" "$TMP/out"
kernels "$TMP/c.json" >"$TMP/c.txt"
cat >"$TMP/c.want" <<'W'
gemm 1 
gemm 1 batch=16,note=a, b,pass=backward
gemm 1 batch=16,pass=forward
k_init 1 
relu 1 batch=16,note=a, b,pass=backward
relu 1 batch=16,pass=forward
W
check "counters: by range number, a quoted value kept whole ($(paste -sd'|' "$TMP/c.txt"))" \
    diff -u "$TMP/c.want" "$TMP/c.txt"

# The analyses of both, golden: the configs are the marks' tag sets.
for run in trace:t counters:c; do
    name=import-cupti-marks-${run%%:*}.csv
    "$BIN" analyze -m h100-sxm --format csv "$TMP/${run#*:}.json" >"$TMP/$name" 2>/dev/null
    [ "${ROOFTIME_REGEN:-0}" = 1 ] && cp "$TMP/$name" "$G/$name" && echo "regenerated $G/$name"
    check "$name matches the golden" diff -u "$G/$name" "$TMP/$name"
done

# Bad marks files: file, line and field; exit 1; no profile.
bad() { # WHAT MARKS-ROWS PATTERN
    rm -rf "$TMP/bad" && cp -r "$T" "$TMP/bad"
    printf 'seq,correlation,ranges,time_ns,tags\n%b' "$2" >"$TMP/bad/marks.101.csv"
    expect 1 "$3" -- import cupti "$TMP/bad" -o "$TMP/bad.json"
    check "$1: no profile written" test ! -e "$TMP/bad.json"
}
bad "seq out of order" '0,1,0,5,a=1\n2,3,0,6,a=2\n' "marks.101.csv: line 3: seq 2, expected 1"
bad "correlation going back" '0,5,0,5,a=1\n1,3,0,6,a=2\n' "marks.101.csv: line 3: correlation 3 is below the previous mark's"
bad "not a number" '0,x,0,5,a=1\n' "marks.101.csv: line 2: correlation 'x' is not a whole number"
bad "a bad key" '0,1,0,5,b@d=1\n' "marks.101.csv: line 2: tags: a key holds a character outside"
bad "no =" '0,1,0,5,a=1;b\n' "marks.101.csv: line 2: tags: a pair is not key=value"
bad "four fields" '0,1,0,5\n' "marks.101.csv: line 2: 4 fields, expected 5"
bad "a line break in a value" '0,1,0,5,"a=1\nb=2"\n' "marks.101.csv: line 2: tags: holds a NUL or a line break"
pairs=$(python3 -c 'print(";".join("k%d=v" % i for i in range(33)))')
bad "33 pairs" "0,1,0,5,$pairs\n" "marks.101.csv: line 2: tags: more than 32 pairs"
long=$(python3 -c 'print("k=" + "v" * 4095)')
bad "4097 bytes of tags" "0,1,0,5,$long\n" "marks.101.csv: line 2: tags: longer than 4096 bytes"
rm -rf "$TMP/bad" && cp -r "$T" "$TMP/bad" && printf 'seq,correlation,tags\n' >"$TMP/bad/marks.101.csv"
expect 1 "marks.101.csv: line 1: column 3 is 'tags', expected 'ranges'" -- import cupti "$TMP/bad" -o "$TMP/bad.json"
finish
