# `rooftime report` of thousands of configs: top rows and a sum of the rest, charts labelled by
# ID, and a page held to its size budget.
. "$(dirname "$0")/lib.sh"

N=4000
P=$TMP/many.json
python3 - "$N" >"$P" <<'PY'
import json, sys
n = int(sys.argv[1])
ks = []
for i in range(n):
    layer, b = i // 8, 1 << (i % 8)
    w = 1e6 * b * (1 + layer % 97)
    ks.append({"name": "k%d" % i, "invocations": 1 + i % 5, "time": (1 + i % 5) * 5e-6 + w / 2e12,
               "flops": {"fp32": w}, "bytes": {"HBM": w / (1 + layer % 31)},
               "tags": {"layer": "L%d" % layer, "batch": str(b)}})
print(json.dumps({"schema": "rooftime.profile/1", "tool": "gen", "kernels": ks}))
PY
R=$TMP/rep
# The generated kernels are fp32: the V100's tensor reference is named so the charts keep the scale
# these checks were written for (the automatic choice would take fp32, docs/model.md).
expect 0 "" -- report -m v100 --reference tensor/HBM -o "$R" "$P"
H=$R/report.html
size=$(wc -c <"$H")
# Budget: five charts of at most 1.5 MB inline, two tables of 500 rows, the rest a few kB.
check "page within 8 MB ($size bytes)" test "$size" -le 8000000
check "500 config rows" test "$(grep -c '<td>C[0-9]*</td>' "$H")" = 500
check "500 kernel rows" test "$(grep -c '<td>K[0-9]*</td><td class="name">[^<]*</td><td class="name">' "$H")" = 500
check "the other configs summed" grep -q "the other $((N - 500)) configs" "$H"
check "the other kernels summed" grep -q "the other $((N - 500)) kernels" "$H"
# The rest row's time and the top rows' add up to the whole: compare the shares.
check "shares add up to 100%" python3 - "$H" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
conf = html.split('id="configs"')[1].split('id="kernels"')[0]
rows = re.findall(r'<tr[^>]*><td>(?:C\d+)?</td><td class="name">.*?</td><td>\d+</td><td>[^<]*</td><td>([0-9.]+)%</td>', conf)
assert len(rows) == 501, len(rows)
total = sum(float(r) for r in rows)
assert abs(total - 100) < 0.5 + 0.05 * len(rows), total
PY
check "charts label the longest configs by ID" grep -q ">C1<" "$R/all-complexity.svg"
check "charts say what the IDs are" grep -qE "labels C1(-C[0-9]+)?:" "$R/all-complexity.svg"
check "a chart past the budget is linked" grep -q '<img src="all-4d.svg"' "$H"
check "smaller charts stay inline" grep -q 'id="all-time">' "$H"
# (the note is wrapped into lines of text: read its words in order)
check "charts note the families without lines" bash -c "sed -n 's/.*>\([^<]*\)<\/text>/\1/p' '$R/all-4d.svg' | tr '\n' ' ' | grep -q 'families; the other'"
check "every point drawn" test "$(grep -c '<circle\|<path\|<rect\|<polygon' "$R/all-complexity.svg")" -ge "$N"
finish
