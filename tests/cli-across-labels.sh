#!/bin/bash
# `analyze --across rank` names ranks by their rank tag or identity, else by the number in the file
# name, never by the place of the file among the inputs: 1,000 shuffled rank files name rank 617
# and only it, in the text, the JSON and the chart.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"

# gen DIR RANKS SLOW MODE: small profiles (3 kernels, each its own config by its layer tag), rank
# SLOW 30% slower on kernel k_1. MODE: tag (tags.rank, file run.<rank>.json), liar (tags.rank, the
# file named for another rank), name (no tag, no identity: run.<rank>.json), ident (identity.rank
# only, file r<other>.json).
gen() {
    python3 - "$@" <<'PY'
import json, os, random, sys
d, ranks, slow, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
os.makedirs(d, exist_ok=True)
other = list(range(ranks))
random.Random(25).shuffle(other)
for r in range(ranks):
    ks = []
    for k in range(3):
        t = 1e-3 * (1 + k) * (1 + 0.05 * ((r * 7 + k) % 3) / 3)
        if r == slow and k == 1:
            t *= 1.3
        ks.append({"name": "k_%d" % k, "invocations": 1, "time": t,
                   "flops": {"fp32": 1e9 * (1 + k)}, "tags": {"layer": str(k)}})
    p = {"schema": "rooftime.profile/1", "source": {"tool": "test"}, "kernels": ks}
    if mode in ("tag", "liar"):
        p["tags"] = {"rank": str(r), "model": "m"}
    if mode == "ident":
        p["identity"] = {"launcher": "openmpi", "rank": r, "size": ranks}
    name = {"tag": "run.%d.json" % r, "name": "run.%d.json" % r,
            "liar": "run.%d.json" % other[r], "ident": "r%d.json" % other[r]}[mode]
    json.dump(p, open(os.path.join(d, name), "w"))
PY
}

# shuffled DIR: its files in a fixed random order, one a line.
shuffled() {
    python3 -c 'import os, random, sys
f = sorted(os.listdir(sys.argv[1])); random.Random(617).shuffle(f)
print("\n".join(os.path.join(sys.argv[1], x) for x in f))' "$1"
}

# only617 JSON SVG: every rank the JSON names as slow is 617, and so is the chart's only label.
only617() {
    python3 - "$1" "$2" <<'PY'
import json, re, sys
a = json.load(open(sys.argv[1]))
assert a["ranks"] == 1000, a["ranks"]
st = a["stragglers"]
assert st and {s["rank"] for s in st} == {617}, st
assert {(s["on"], s.get("name")) for s in st} == {("kernel", "k_1"), ("config", "model=m layer=1")}, st
k = [k for k in a["kernels"] if k["name"] == "k_1"][0]
assert k["max_rank"] == 617 and k["slowest"][0]["rank"] == 617, k
assert a["time_per_rank"]["max_rank"] == 617, a["time_per_rank"]
assert len(a["configs"]) == 3, [c["name"] for c in a["configs"]]
labels = re.findall(r">r(\d+)<", open(sys.argv[2]).read())
assert labels == ["617"], labels
PY
}

gen "$TMP/tag" 1000 617 tag
shuffled "$TMP/tag" >"$TMP/list"
mapfile -t FILES <"$TMP/list"
check "the list is shuffled" test "${FILES[0]}" != "$TMP/tag/run.0.json"
expect 0 "" -- analyze --across rank "${FILES[@]}"
check "text: the straggler lines name rank 617 only" \
    test "$(grep -E "^ +[0-9]+ .*%  (kernel|config) " "$TMP/out" | awk '{print $1}' | sort -u)" = 617
check "text: the slowest rank in all is 617" grep -q "max [0-9.]* ms (rank 617)$" "$TMP/out"
check "text: the rank tag makes no config" grep -q "^across 1000 ranks: 3 kernels, 3 configs" "$TMP/out"
expect 0 "" -- analyze --across rank -f json -o "$TMP/a.json" --chart "$TMP/a.svg" "${FILES[@]}"
check "shuffled files: JSON and chart name 617 and only it" only617 "$TMP/a.json" "$TMP/a.svg"
# The directory (its files in name order: run.617.json is far from the 618th).
expect 0 "" -- analyze --across rank -f json -o "$TMP/d.json" --chart "$TMP/d.svg" "$TMP/tag"
check "directory: JSON and chart name 617 and only it" only617 "$TMP/d.json" "$TMP/d.svg"

# The tag wins over the file name; identity.rank too.
gen "$TMP/liar" 1000 617 liar
expect 0 "" -- analyze --across rank -f json -o "$TMP/l.json" --chart "$TMP/l.svg" "$TMP/liar"
check "file names of other ranks: the tag names 617" only617 "$TMP/l.json" "$TMP/l.svg"
gen "$TMP/ident" 1000 617 ident
expect 0 "" -- analyze --across rank -f json -o "$TMP/i.json" --chart "$TMP/i.svg" "$TMP/ident"
check "identity.rank names 617" python3 -c 'import json,sys
a = json.load(open(sys.argv[1])); assert {s["rank"] for s in a["stragglers"]} == {617}' "$TMP/i.json"

# No tag, no identity: the number in the file name.
gen "$TMP/name" 1000 617 name
shuffled "$TMP/name" >"$TMP/list"
mapfile -t FILES <"$TMP/list"
expect 0 "" -- analyze --across rank -f json -o "$TMP/n.json" "${FILES[@]}"
check "untagged: the file name names 617" python3 -c 'import json,sys
a = json.load(open(sys.argv[1])); assert {s["rank"] for s in a["stragglers"]} == {617}, a["stragglers"]
assert a["time_per_rank"]["max_rank"] == 617' "$TMP/n.json"

# The report's section: the same rank.
expect 0 "" -- report --across rank -m v100 -o "$TMP/rep" "$TMP/name/run.3.json" \
    "$TMP/name/run.617.json" "$TMP/name/run.12.json" "$TMP/name/run.40.json"
check "report names rank 617" grep -q "<tr><td>617</td>" "$TMP/rep/report.html"

# A rank no source gives, a bad tag, a tag against the identity: errors naming the file.
mkdir -p "$TMP/bad"
cp "$TMP/name/run.5.json" "$TMP/bad/profile.json"
expect 1 "profile.json': which rank is it\? .*holds no number" -- analyze --across rank "$TMP/bad/profile.json"
cp "$TMP/name/run.5.json" "$TMP/bad/run.3.of.8.json"
expect 1 "run.3.of.8.json': which rank .*more than one number" -- analyze --across rank "$TMP/bad/run.3.of.8.json"
cp "$TMP/name/run.5.json" "$TMP/bad/run.123456789012.json"
expect 1 "out of range" -- analyze --across rank "$TMP/bad/run.123456789012.json"
python3 - "$TMP/tag/run.5.json" "$TMP/bad/x.json" "$TMP/bad/y.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["tags"]["rank"] = "five"
json.dump(p, open(sys.argv[2], "w"))
p["tags"]["rank"] = "5"; p["identity"] = {"rank": 6, "size": 8}
json.dump(p, open(sys.argv[3], "w"))
PY
expect 1 "x.json': tags.rank: 'five' is not a rank" -- analyze --across rank "$TMP/bad/x.json"
expect 1 "y.json': tags.rank is 5 but identity.rank is 6" -- analyze --across rank "$TMP/bad/y.json"
# Two files of one rank (the tag and another file's name agree).
expect 1 "rank 5 was already read" -- analyze --across rank "$TMP/tag/run.5.json" "$TMP/name/run.5.json"
finish
