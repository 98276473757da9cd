# Golden output of `analyze` (text, csv, json) on the shipped example; ROOFTIME_REGEN=1 rewrites the goldens.
. "$(dirname "$0")/lib.sh"
P=$SRC/data/examples/conv2d-pt-fp16.json

golden() { # NAME ARGS...
    local name=$1
    shift
    "$BIN" analyze "$@" >"$TMP/$name" 2>"$TMP/$name.err"
    golden_compare "$name" $?
}

golden analyze-example.txt --machine v100 "$P"
golden analyze-example-single.txt --machine v100 --mode single "$P"
golden analyze-example.csv --machine v100 --format csv "$P"
golden analyze-example.json --machine v100 --format json "$P"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/analyze-example.json"
check "json output parses" test $? -eq 0

# Long outputs are formatted on every processor a block at a time (rt_parallel_write): 40,000
# kernels and as many configs, in several rounds, come out whole and in order in each format.
python3 - "$TMP/many.json" <<'PY'
import json, sys
ks = [{"name": "k%d" % i, "invocations": 1 + i % 3, "time": 1e-6 * (1 + (i * 7919) % 40000),
       "flops": {"fp32": 1e6 * (1 + i % 11)}, "bytes": {"HBM": 1e5 * (1 + i % 13)},
       "tags": {"layer": str(i)}} for i in range(40000)]
json.dump({"schema": "rooftime.profile/1", "kernels": ks}, open(sys.argv[1], "w"))
PY
"$BIN" analyze --machine v100 --format csv "$TMP/many.json" >"$TMP/many.csv" 2>/dev/null
"$BIN" analyze --machine v100 --format json "$TMP/many.json" >"$TMP/many.out.json" 2>/dev/null
"$BIN" analyze --machine v100 --top 0 "$TMP/many.json" >"$TMP/many.txt" 2>/dev/null
python3 - "$TMP/many.csv" "$TMP/many.out.json" "$TMP/many.txt" <<'PY'
import csv, json, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for kind in ("config", "kernel"):
    ranks = [int(r["rank"]) for r in rows if r["kind"] == kind]
    assert ranks == list(range(1, 40001)), (kind, len(ranks))
    times = [float(r["time_s"]) for r in rows if r["kind"] == kind]
    assert times == sorted(times, reverse=True), kind
d = json.load(open(sys.argv[2]))
for key in ("configs", "kernels"):
    t = [e["verdict"]["time"] for e in d[key]]
    assert len(t) == 40000 and t == sorted(t, reverse=True), key
names = [e["name"] for e in d["kernels"]]
assert names == [r["name"] for r in rows if r["kind"] == "kernel"]
text = open(sys.argv[3]).read()
for head in ("configs by time", "kernels by time"):
    part = text.split(head, 1)[1]
    ranks = [int(m.group(1)) for m in re.finditer(r"^ *(\d+) ", part, re.M)][:40000]
    assert ranks == list(range(1, 40001)), head
PY
check "40,000 rows in order in the text, CSV and JSON" test $? -eq 0

# Tag columns: one tag.<key> per key, at most 64 of them; the keys beyond are counted in a warning
# and stay in the config label. 70 kernels with a key each, and a value to quote.
python3 - "$TMP/keys.json" <<'PY'
import json, sys
ks = [{"name": "k%d" % i, "invocations": 1, "time": 1e-6 * (1 + i), "flops": {"fp32": 1e6},
       "bytes": {"HBM": 1e5}, "tags": {"key%02d" % i: "v, \"%d\"" % i}} for i in range(70)]
json.dump({"schema": "rooftime.profile/1", "tags": {"run": "a"}, "kernels": ks},
          open(sys.argv[1], "w"))
PY
"$BIN" analyze --machine v100 --format csv "$TMP/keys.json" >"$TMP/keys.csv" 2>"$TMP/keys.err"
check "70 tag keys: exit 0" test $? -eq 0
check "70 tag keys: a warning counts the 7 without a column" \
    grep -q "7 tag keys have no tag.<key> column.*'key63'" "$TMP/keys.err"
python3 - "$TMP/keys.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
assert head[-65:] == ["zero_ai", "tag.run"] + ["tag.key%02d" % i for i in range(63)], head
for r in rows[1:]:
    if r[0] != "kernel":
        continue
    i = int(r[2][1:])
    assert r[head.index("tag.run")] == "a"
    for j in range(63):
        assert r[head.index("tag.key%02d" % j)] == ('v, "%d"' % i if i == j else ""), (i, j)
    assert ('key%02d=v, "%d"' % (i, i)) in r[3]
PY
check "70 tag keys: 64 columns, each kernel's value in its own, quoted" test $? -eq 0
finish
