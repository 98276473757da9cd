#!/bin/bash
# `rooftime analyze --across rank`: generated rank profiles, one rank 30% slower on one kernel: the
# rank and the kernel are named (text, JSON, report); ranks from identities or from the file names;
# errors name the file.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"

# gen DIR RANKS KERNELS SLOW_RANK SLOW_KERNEL IDENTITY(0|1): one profile per rank, file names in
# reverse rank order so that only the identity (when written) gives the rank.
gen() {
    python3 - "$@" <<'PY'
import json, os, sys
d, ranks, kernels, slow_rank, slow_k, ident = sys.argv[1], *map(int, sys.argv[2:7])
os.makedirs(d, exist_ok=True)
for r in range(ranks):
    ks = []
    for k in range(kernels):
        t = 1e-4 * (1 + k % 7) * (1 + 0.02 * ((r * 13 + k * 7) % 5) / 5)
        if r == slow_rank and k == slow_k:
            t *= 1.3
        ks.append({"name": "k_%d" % k, "invocations": 2, "time": t,
                   "flops": {"fp32": 1e8 * (1 + k % 7)}, "bytes": {"DRAM": 1e6},
                   "tags": {"layer": str(k % 4)}})
    p = {"schema": "rooftime.profile/1", "source": {"tool": "test"}, "kernels": ks}
    if ident:
        p["identity"] = {"launcher": "openmpi", "rank": r, "size": ranks, "host": "n%d" % (r // 4)}
    name = "p%03d.json" % (ranks - 1 - r) if ident else "p%03d.json" % r
    json.dump(p, open(os.path.join(d, name), "w"))
PY
}

gen "$TMP/job" 30 40 11 17 1
expect 0 "" -- analyze --across rank "$TMP/job"
check "the straggler line names rank 11 and kernel k_17" \
    grep -qE "^ +11 .*\+2[0-9]\.[0-9]%  kernel 'k_17'$" "$TMP/out"
check "it is the only straggler" grep -q "stragglers, largest excess first (1 of 1)" "$TMP/out"
check "the summary counts ranks, kernels and configs" grep -q "^across 30 ranks: 40 kernels, 4 configs" "$TMP/out"

# JSON: the first straggler, and k_17's distribution.
expect 0 "" -- analyze --across rank -f json -o "$TMP/a.json" --chart "$TMP/a.svg" -m v100 "$TMP/job"
python3 - "$TMP/a.json" <<'PY' || { echo "FAIL: JSON content"; FAILS=$((FAILS + 1)); }
import json, sys
a = json.load(open(sys.argv[1]))
assert a["ranks"] == 30, a["ranks"]
s = a["stragglers"][0]
assert (s["rank"], s["on"], s["name"]) == (11, "kernel", "k_17"), s
k = [k for k in a["kernels"] if k["name"] == "k_17"][0]
assert k["max_rank"] == 11 and k["slowest"][0]["rank"] == 11 and k["ranks"] == 30, k
assert abs(k["max"] / k["median"] - 1.3) < 0.05, k
assert k["min"] <= k["q1"] <= k["median"] <= k["q3"] <= k["max"], k
assert len(a["configs"]) == 4
PY
check "--chart writes an SVG" grep -q "<svg" "$TMP/a.svg"

# Without identities: the rank is the number in the file name (p005.json: rank 5).
gen "$TMP/plain" 12 10 5 3 0
expect 0 "" -- analyze --across rank -f json "$TMP/plain"
check "rank from the file name" python3 -c 'import json,sys; st=json.load(open(sys.argv[1]))["stragglers"]; assert {(s["rank"], s.get("name")) for s in st} == {(5, "k_3"), (5, "layer=3")}, st' "$TMP/out"
# The same files listed one by one, and --straggler above 30%: no straggler.
expect 0 "" -- analyze --across rank --straggler 0.4 "$TMP"/plain/*.json
check "--straggler 0.4: none" grep -q "^no stragglers" "$TMP/out"

# The report's stragglers section.
expect 0 "" -- report --across rank -m v100 -o "$TMP/rep" "$TMP"/job/p00*.json "$TMP"/job/p01*.json
check "report has a stragglers section" grep -q "Stragglers across ranks" "$TMP/rep/report.html"

# Errors: a rank twice, a bad file (named), an empty directory, bad options.
cp "$TMP/job/p000.json" "$TMP/dup.json"
expect 1 "dup.json': rank 29 was already read" -- analyze --across rank "$TMP/job" "$TMP/dup.json"
echo '{"schema": "rooftime.profile/1", "kernels": [{"name": "x"}]}' >"$TMP/bad.json"
expect 1 "bad.json.*kernels\[0\]" -- analyze --across rank "$TMP/bad.json"
mkdir -p "$TMP/empty"
expect 1 "holds no .json profile" -- analyze --across rank "$TMP/empty"
expect 2 "--across takes 'rank'" -- analyze --across node "$TMP/job"
expect 2 "--straggler takes a fraction" -- analyze --across rank --straggler -1 "$TMP/job"
expect 2 "no profile or directory" -- analyze --across rank
expect 2 "also an input" -- analyze --across rank -o "$TMP/bad.json" "$TMP/bad.json"
expect 1 "not a regular file" -- analyze --across rank -o /dev/null "$TMP/job"
check "/dev/null is still a device" test -c /dev/null
if ! grep -q "RT_HAVE_MPI 1" "${ROOFTIME_BUILD:-.}/config/rooftime-config.h" 2>/dev/null; then
    expect 2 "--mpi needs a build with MPI" -- analyze --across rank --mpi "$TMP/job"
fi
finish
