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
check "nothing from the network" test "$(grep -cE '(src|href)="(https?:)?//' "$R/report.html")" = 0
check "ten inline charts (two passes)" test "$(grep -c '<svg ' "$R/report.html")" = 10
n=0
for f in "$R"/*.svg; do
    python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$f" || { echo "FAIL: $f is not XML"; FAILS=$((FAILS + 1)); }
    n=$((n + 1))
done
check "ten chart files" test $n = 10
# The whole page as XML-ish: every inline SVG must parse on its own.
python3 - "$R/report.html" <<'PY' || FAILS=$((FAILS + 1))
import re, sys, xml.dom.minidom
html = open(sys.argv[1], encoding="utf-8").read()
for svg in re.findall(r"<svg .*?</svg>", html, re.S):
    xml.dom.minidom.parseString(svg)
PY
expect 2 "-o DIR is required" -- report -m v100 "$P"
expect 2 "--machine is required" -- report -o "$R" "$P"
expect 2 "unknown mode 'x'" -- report -m v100 --mode x -o "$R" "$P"
touch "$TMP/file"
expect 1 "" -- report -m v100 -o "$TMP/file/sub" "$P"

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
finish
