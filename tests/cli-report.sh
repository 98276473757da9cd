# `rooftime report`: a self-contained HTML file that opens in headless Chromium, with its SVGs.
. "$(dirname "$0")/lib.sh"

P=$TMP/p.json
cat >"$P" <<'JSON'
{"schema": "rooftime.profile/1", "tool": "hand", "kernels": [
 {"name": "void gemm<half, 128>(A&, B&)", "invocations": 5, "time": 1.2e-04,
  "flops": {"tensor": 4e9}, "bytes": {"HBM": 6e7, "L2": 1.2e8, "L1": 3e8},
  "tags": {"framework": "pt", "pass": "forward", "batch": "16"}},
 {"name": "void gemm<half, 128>(A&, B&)", "invocations": 5, "time": 2.2e-04,
  "flops": {"tensor": 8e9}, "bytes": {"HBM": 1.2e8, "L2": 2.4e8, "L1": 6e8},
  "tags": {"framework": "pt", "pass": "forward", "batch": "32"}},
 {"name": "transpose<float>", "invocations": 2, "time": 2e-05,
  "flops": {}, "bytes": {"HBM": 1e7},
  "tags": {"framework": "pt", "pass": "backward", "batch": "32"}},
 {"name": "lstm_cell", "invocations": 120, "time": 5e-04,
  "flops": {"tensor": 2e7}, "bytes": {"HBM": 1e6, "L2": 2e6, "L1": 4e6},
  "tags": {"framework": "tf", "pass": "backward", "batch": "16"}},
 {"name": "lstm_cell", "invocations": 120, "time": 5e-04,
  "flops": {"tensor": 4e7}, "bytes": {"HBM": 2e6, "L2": 4e6, "L1": 8e6},
  "tags": {"framework": "tf", "pass": "backward", "batch": "32"}}
]}
JSON
R=$TMP/res/rep
expect 0 "" -- report -m v100 --split-by pass --marker-by batch --title "Report <1>" -o "$R" "$P"
check "prints where the report is" grep -q "$R/report.html" "$TMP/out"
check "report.html exists" test -s "$R/report.html"
check "kernel names are escaped" grep -q "void gemm&lt;half, 128&gt;(A&amp;, B&amp;)" "$R/report.html"
check "no raw kernel name" test "$(grep -c 'gemm<half' "$R/report.html")" = 0
check "zero-AI kernels are called out" grep -q "1 zero-AI kernel" "$R/report.html"
check "overhead-bound configs are called out" grep -q "overhead-bound" "$R/report.html"
check "the page opens with the summary" python3 -c "import sys; h=open(sys.argv[1]).read(); assert h.index('id=\"summary\"') < h.index('<svg ') < h.index('id=\"configs\"')" "$R/report.html"
check "the summary gives the share with a real verdict" grep -q "of the time has a real verdict" "$R/report.html"
check "the summary ranks recoverable kernels with a hint" grep -q "<th>what to try</th>" "$R/report.html"
check "warnings grouped by cause, each expandable with a count" grep -q '<details class="warn"><summary><b>[0-9]*</b> &#215; ' "$R/report.html"
check "warnings after the charts" python3 -c "import sys; h=open(sys.argv[1]).read(); assert h.index('<svg ') < h.index('id=\"warnings\"')" "$R/report.html"
check "nothing from the network" test "$(grep -cE '(src|href)="(https?:)?//' "$R/report.html")" = 0
# A chart per view of the table (as `plot --help` lists them) and the hierarchical roofline, in
# each of the two passes: ten with the four views of today.
views=$("$BIN" plot --help 2>&1 | sed -n 's/^ *-v, --view V *\(.*\) (default.*/\1/p' | sed 's/,\| or / /g' | wc -w)
check "the views listed by plot --help" test "$views" -ge 4
charts=$((2 * (views + 1)))
check "$charts inline charts (two passes)" test "$(grep -c '<svg ' "$R/report.html")" = $charts
n=0
for f in "$R"/*.svg; do
    python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$f" || { echo "FAIL: $f is not XML"; FAILS=$((FAILS + 1)); }
    n=$((n + 1))
done
check "$charts chart files" test $n = $charts
# The whole page as XML-ish: every inline SVG must parse on its own.
python3 - "$R/report.html" <<'PY' || FAILS=$((FAILS + 1))
import re, sys, xml.dom.minidom
html = open(sys.argv[1], encoding="utf-8").read()
for svg in re.findall(r"<svg .*?</svg>", html, re.S):
    xml.dom.minidom.parseString(svg)
PY
expect 0 "" -- report -m v100 --points kernels -o "$TMP/res/kern" "$P"
check "--points kernels: the complexity view places kernels" grep -q ">K1</text>" "$TMP/res/kern/all-complexity.svg"
# Profiles of one command (a study's) are named once, with their count.
for i in 1 2; do
    printf '{"schema": "rooftime.profile/1", "source": {"tool": "t", "command": "run it"}, "kernels": [{"name": "k%s", "invocations": 1, "time": 1e-3, "flops": {"tensor": 1e9}, "bytes": {"HBM": 1e6}}]}' "$i" >"$TMP/q$i.json"
done
expect 0 "" -- report -m v100 -o "$TMP/res/q" "$TMP/q1.json" "$TMP/q2.json"
check "one command named once with its count" grep -q 'Profiles: t <code>run it</code> (2 profiles)\.' "$TMP/res/q/report.html"
# A study's profiles: one command told apart by a parenthesis, named once.
for i in 1 2 3; do
    printf '{"schema": "rooftime.profile/1", "source": {"tool": "t", "command": "rooftime study (impl %s fp32)"}, "kernels": [{"name": "k%s", "invocations": 1, "time": 1e-3, "flops": {"tensor": 1e9}, "bytes": {"HBM": 1e6}}]}' "$i" "$i" >"$TMP/s$i.json"
done
expect 0 "" -- report -m v100 -o "$TMP/res/s" "$TMP/s1.json" "$TMP/s2.json" "$TMP/s3.json" "$TMP/q1.json"
check "a study's command named once with its count" grep -q 'Profiles: t <code>rooftime study</code> (3 profiles); t <code>run it</code>\.' "$TMP/res/s/report.html"
# Long kernel names (C++ templates, the paper tables' names with every tag): the summary's rows
# stay one line, the whole name in a title.
python3 - "$TMP/long.json" <<'PY'
import json, sys
ks = []
for i in range(12):
    name = "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::threadblock::MmaMultistage<cutlass::gemm::GemmShape<128, 256, 32>, cutlass::epilogue::threadblock::Epilogue<%d>, float, 4>>>(Params)" % i
    ks.append({"name": name, "invocations": 10 + i, "time": 1e-3 * (1 + i), "flops": {"tensor": 1e9 * (1 + i)},
               "bytes": {"HBM": 4e8 * (12 - i), "L2": 8e8, "L1": 1.6e9}, "tags": {"framework": "pt" if i % 2 else "tf"}})
json.dump({"schema": "rooftime.profile/1", "tool": "hand", "kernels": ks}, open(sys.argv[1], "w"))
PY
expect 0 "" -- report -m v100 -o "$TMP/res/long" "$TMP/long.json"
check "a long name in the summary carries its whole text in a title" grep -q '<td class="name" title="void cutlass::Kernel&lt;' "$TMP/res/long/report.html"
expect 2 "-o DIR is required" -- report -m v100 "$P"
expect 2 "--machine is required" -- report -o "$R" "$P"
expect 2 "unknown mode 'x'" -- report -m v100 --mode x -o "$R" "$P"
touch "$TMP/file"
expect 1 "" -- report -m v100 -o "$TMP/file/sub" "$P"
# A report that fails midway (its files limited to 20 KiB) leaves nothing behind: no directory of
# those it made, an existing one with only its old files; the message names the final path.
( trap '' XFSZ; ulimit -f 20; "$BIN" report -m v100 -o "$TMP/fail/sub" "$P" ) >/dev/null 2>"$TMP/fail.err"
check "a failing report exits 1" test $? -eq 1
check "a failing report names the chart in its directory" grep -Eq "cannot write '$TMP/fail/sub/[a-z0-9-]+\.svg': File too large" "$TMP/fail.err"
check "a failing report names no temporary path" test "$(grep -c report.tmp "$TMP/fail.err")" = 0
check "a failing report leaves no directory" test ! -e "$TMP/fail"
mkdir -p "$TMP/old"
echo old >"$TMP/old/report.html"
echo note >"$TMP/old/note.txt"
( trap '' XFSZ; ulimit -f 20; "$BIN" report -m v100 -o "$TMP/old" "$P" ) >/dev/null 2>&1
check "a failing report leaves an existing directory's files alone" test "$(ls -A "$TMP/old" | tr '\n' ' ')" = "note.txt report.html " -a "$(cat "$TMP/old/report.html")" = old

# Headless Chromium: no console errors, and the screenshot is not blank.
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ]; then
    echo "chromium not installed: browser check skipped"
    finish || exit 1
    exit 77
fi
timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr --v=0 \
    --window-size=1400,3000 --screenshot="$TMP/shot.png" "file://$R/report.html" >"$TMP/chrome.out" 2>"$TMP/chrome.err"
check "chromium wrote a screenshot" test -s "$TMP/shot.png"
# The first screen at 1400x900 holds the summary and the first chart, and no chart text is below
# 12 px: the page's own layout, measured by Chromium (a copy of the page with a script that
# writes the element positions into the DOM, dumped with --dump-dom).
timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,900 \
    --screenshot="$TMP/first.png" "file://$R/report.html" >/dev/null 2>&1
check "chromium wrote the 1400x900 screenshot" test -s "$TMP/first.png"
layout_check() { # REPORT_DIR
    local probe=$1/probe.html
    sed 's|</body>|<script>\
var q=function(s){return document.querySelector(s)};\
var s=q(".summary").getBoundingClientRect(),c=q(".chart").getBoundingClientRect();\
var min=1e9,n=0;document.querySelectorAll(".chart svg").forEach(function(g){\
var k=g.getBoundingClientRect().width/g.viewBox.baseVal.width;\
g.querySelectorAll("text").forEach(function(t){n++;min=Math.min(min,parseFloat(getComputedStyle(t).fontSize)*k)})});\
var w=q("#warnings"),wt=w?w.getBoundingClientRect().top:1e9;\
var o=document.createElement("pre");o.id="layout";\
o.textContent="L summary "+s.top+" "+s.bottom+" chart "+c.top+" "+c.bottom+" "+c.width+" text "+min+" "+n+" warnings "+wt+" L";\
document.body.appendChild(o);</script></body>|' "$1/report.html" >"$probe"
    timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,900 \
        --dump-dom "file://$probe" 2>/dev/null |
        grep -oE 'L summary [-0-9.e]+ [-0-9.e]+ chart [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ text [-0-9.e]+ [0-9]+ warnings [-0-9.e]+ L' >"$TMP/layout"
    rm -f "$probe"
    cat "$TMP/layout"
    python3 - "$TMP/layout" <<'PY'
import sys
f = open(sys.argv[1]).read().split()
st, sb, ct, cb, cw, tmin, ntext, wt = (float(f[i]) for i in (2, 3, 5, 6, 7, 9, 10, 12))
assert st < ct, "the summary comes before the first chart"
assert sb <= 900 and cb <= 900, "summary (to %g) and first chart (to %g) on the first 900 px" % (sb, cb)
assert cw >= 1300, "the chart is full width (%g px)" % cw
assert ntext > 50 and tmin >= 12, "chart text at least 12 px at 1400 px (smallest %g px)" % tmin
assert wt > cb, "warnings come after the first chart"
PY
}
layout_check "$R" || FAILS=$((FAILS + 1))
# ... and with long kernel names, which once wrapped to four lines in the summary's table and
# pushed the first chart to 1151 px: a synthetic profile, and the paper's tables when present.
layout_check "$TMP/res/long" || FAILS=$((FAILS + 1))
T=${ROOFTIME_FIXTURES:-}/paper-tables
if [ -d "$T" ]; then
    for t in conv2d-pt conv2d-tf1-noxla conv2d-tf2-noxla rnn1d-pt; do
        "$BIN" import table "$T/$t.main.csv" --ai-file "$T/$t.l2-l1-ai.csv" -o "$TMP/pt-$t.json" 2>/dev/null ||
            { echo "FAIL: import $t"; FAILS=$((FAILS + 1)); }
    done
    expect 0 "" -- report -m v100 -o "$TMP/res/paper" "$TMP"/pt-*.json
    layout_check "$TMP/res/paper" || FAILS=$((FAILS + 1))
else
    echo "paper tables not found ($T): their layout check skipped"
fi
if grep -E 'CONSOLE|Uncaught|SyntaxError' "$TMP/chrome.err" >"$TMP/console"; then
    echo "FAIL: console messages:"; head -5 "$TMP/console"; FAILS=$((FAILS + 1))
fi
# Count non-white pixels of the PNG (zlib, no PIL): charts drawn means many of them, in color.
python3 - "$TMP/shot.png" <<'PY' || FAILS=$((FAILS + 1))
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w, h = 8, b"", 0, 0
while pos < len(d):
    n, t = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if t == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif t == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
ink = colored = 0
i = 0
# Rows depend only on the rows above: the top 1800 (header, callouts, first charts) are enough.
for y in range(min(h, 1800)):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        for x in range(0, w, 4):
            r, g, bl = line[x * bpp:x * bpp + 3]
            if r < 240 or g < 240 or bl < 240:
                ink += 1
                if max(r, g, bl) - min(r, g, bl) > 60:
                    colored += 1
print("screenshot %dx%d, top 1800 rows: %d sampled non-white pixels, %d colored" % (w, h, ink, colored))
assert ink > 5000, "screenshot looks blank"
assert colored > 300, "no colored chart marks in the screenshot"
PY
# Split and styling tags as the kernels spell them ("Pass" splits by pass, as --series-by finds
# Framework); a tag the options name that no kernel carries is said, not silently left out.
sed -e 's/"pass"/"Pass"/g' "$P" >"$TMP/upper.json"
expect 0 "warning: --series-by 'nosuch': no kernel carries this tag" -- report -m v100 --split-by pass --series-by nosuch -o "$TMP/res/up" "$TMP/upper.json"
check "--split-by pass splits kernels tagged Pass" test "$(grep -c '<h2>Charts: Pass=' "$TMP/res/up/report.html")" = 2
expect 0 "warning: --split-by 'nothing': no kernel carries this tag; it splits nothing" -- report -m v100 --split-by nothing -o "$TMP/res/none" "$P"
finish
