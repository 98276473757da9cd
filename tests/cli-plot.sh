# `rooftime plot`: every view in SVG, PNG and PDF; XML that parses; bad options and paths.
. "$(dirname "$0")/lib.sh"

# A small profile: two frameworks, a batch sweep, a zero-AI kernel, a C++ name.
P=$TMP/p.json
cat >"$P" <<'JSON'
{"schema": "rooftime.profile/1", "tool": "hand", "kernels": [
 {"name": "void gemm<half, 128>(A&, B&)", "invocations": 5, "time": 1.2e-04,
  "flops": {"tensor": 4e9}, "bytes": {"HBM": 6e7, "L2": 1.2e8, "L1": 3e8},
  "tags": {"framework": "pt", "precision": "fp16", "batch": "16"}},
 {"name": "void gemm<half, 128>(A&, B&)", "invocations": 5, "time": 2.2e-04,
  "flops": {"tensor": 8e9}, "bytes": {"HBM": 1.2e8, "L2": 2.4e8, "L1": 6e8},
  "tags": {"framework": "pt", "precision": "fp16", "batch": "32"}},
 {"name": "transpose", "invocations": 2, "time": 2e-05,
  "flops": {}, "bytes": {"HBM": 1e7},
  "tags": {"framework": "pt", "precision": "fp16", "batch": "32"}},
 {"name": "h884gemm", "invocations": 9, "time": 1.4e-04,
  "flops": {"tensor": 4.2e9, "fp32": 3e7}, "bytes": {"HBM": 5e7, "L2": 1e8, "L1": 2.5e8},
  "tags": {"framework": "tf", "precision": "fp16", "batch": "16"}},
 {"name": "h884gemm", "invocations": 9, "time": 2.6e-04,
  "flops": {"tensor": 8.4e9, "fp32": 6e7}, "bytes": {"HBM": 1e8, "L2": 2e8, "L1": 5e8},
  "tags": {"framework": "tf", "precision": "fp16", "batch": "32"}}
]}
JSON

xml_ok() { python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1" 2>/dev/null; }
# PNG: signature and IHDR width/height.
png_size() { python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(32); assert d[:8]==b"\x89PNG\r\n\x1a\n" and d[12:16]==b"IHDR"; print("%dx%d" % struct.unpack(">II", d[16:24]))' "$1" 2>/dev/null; }
is_pdf() { head -c 5 "$1" | grep -q '^%PDF-'; }
cairo=1
"$BIN" plot -m v100 --view 4d -o "$TMP/probe.png" "$P" 2>"$TMP/err" || { grep -q "needs cairo" "$TMP/err" && cairo=0; }

for v in roofline complexity time 4d; do
    expect 0 "" -- plot -m v100 --view $v --series-by framework --marker-by batch -o "$TMP/$v.svg" "$P"
    check "$v.svg parses as XML" xml_ok "$TMP/$v.svg"
    check "$v.svg names a kernel or config in hover text" grep -q "<title>" "$TMP/$v.svg"
    if [ $cairo = 1 ]; then
        expect 0 "" -- plot -m v100 --view $v --width 500 --height 400 -o "$TMP/$v.png" "$P"
        check "$v.png is a 1000x800 PNG" test "$(png_size "$TMP/$v.png")" = "1000x800"
        expect 0 "" -- plot -m v100 --view $v -o "$TMP/$v.pdf" "$P"
        check "$v.pdf is a PDF" is_pdf "$TMP/$v.pdf"
    fi
done
check "kernel names are escaped in SVG" grep -q "void gemm&lt;half, 128&gt;(A&amp;, B&amp;)" "$TMP/roofline.svg"
check "the zero-AI kernel is noted" grep -q "zero-AI kernel" "$TMP/roofline.svg"
check "4D has seconds axes" grep -q "Bandwidth time (s)" "$TMP/4d.svg"
# Same input, same bytes.
"$BIN" plot -m v100 --view 4d --series-by framework --marker-by batch -o "$TMP/again.svg" "$P"
check "SVG output is deterministic" cmp -s "$TMP/4d.svg" "$TMP/again.svg"
expect 0 "" -- plot -m v100 --view complexity --family batch -w framework=tf --title "tf <only>" -o "$TMP/tf.svg" "$P"
check "--where keeps one framework" test "$(grep -c 'framework=pt' "$TMP/tf.svg")" = 0
check "--title is escaped" grep -q "tf &lt;only&gt;" "$TMP/tf.svg"

# Bad command lines: exit 2, a message, nothing written.
# Kernels as points, labelled by the IDs of the report's kernel table; only the roofs used.
expect 0 "" -- plot -m v100 --view 4d --points kernels -o "$TMP/k4d.svg" "$P"
check "kernels labelled K1.." grep -q ">K1</text>" "$TMP/k4d.svg"
check "the title says kernels" grep -q "single mode, kernels" "$TMP/k4d.svg"
expect 0 "" -- plot -m v100 --view roofline --mode hier -o "$TMP/rh.svg" "$P"
expect 0 "" -- plot -m v100 --view roofline --mode hier --all-roofs -o "$TMP/rh-all.svg" "$P"
check "only the units the kernels use" bash -c "! grep -q '>fp64 ' '$TMP/rh.svg'"
check "--all-roofs draws every unit" grep -q ">fp64 " "$TMP/rh-all.svg"
check "the legend names the channel" grep -q "colour: memory level" "$TMP/rh.svg"
expect 2 "--machine is required" -- plot --view 4d -o "$TMP/x.svg" "$P"
expect 2 "--points: unknown points 'dots' \\(kernels or configs\\)" -- plot -m v100 --points dots -o "$TMP/x.svg" "$P"
expect 2 "unknown view 'pie'" -- plot -m v100 --view pie -o "$TMP/x.svg" "$P"
expect 2 "unknown mode 'fast'" -- plot -m v100 --mode fast -o "$TMP/x.svg" "$P"
expect 2 "-o FILE is required" -- plot -m v100 "$P"
expect 2 "cannot tell the chart format of '.*x.jpg'.*\.svg, \.png or \.pdf" -- plot -m v100 -o "$TMP/x.jpg" "$P"
expect 2 "--where takes TAG=VALUE" -- plot -m v100 -w framework -o "$TMP/x.svg" "$P"
expect 2 "--width takes points" -- plot -m v100 --width 5 -o "$TMP/x.svg" "$P"
expect 2 "unknown option '--bogus'" -- plot -m v100 --bogus -o "$TMP/x.svg" "$P"
expect 2 "no profile given" -- plot -m v100 -o "$TMP/x.svg"
# Bad data or paths: exit 1, a message, no partial file.
expect 1 "family 'stride': no configs vary only in it" -- plot -m v100 --family stride -o "$TMP/x.svg" "$P"
expect 1 "series tag 'Framework': no kernel carries it" -- plot -m v100 --series-by Framework -o "$TMP/x.svg" "$P"
expect 1 "nothing to draw" -- plot -m v100 -w framework=jax -o "$TMP/x.svg" "$P"
expect 1 "cannot write '/nonexistent-dir/x.svg'" -- plot -m v100 -o /nonexistent-dir/x.svg "$P"
expect 1 "no machine file or preset named 'v99'" -- plot -m v99 -o "$TMP/x.svg" "$P"
expect 1 "" -- plot -m v100 -o "$TMP/x.svg" "$TMP/missing.json"
check "no partial output" test ! -e "$TMP/x.svg" -a ! -e "$TMP/x.jpg"
check "no temporary files left" test -z "$(ls "$TMP" | grep '\.tmp\.')"
# The paper's own tables (fixtures; skipped when absent): Fig. 3- and Fig. 9-like charts.
T=${ROOFTIME_FIXTURES:-}/paper-tables
if [ -n "${ROOFTIME_FIXTURES:-}" ] && [ -d "$T" ]; then
    for t in conv2d-pt conv2d-tf1-noxla conv2d-tf2-noxla rnn1d-pt; do
        "$BIN" import table "$T/$t.main.csv" --ai-file "$T/$t.l2-l1-ai.csv" -o "$TMP/$t.json" 2>/dev/null
    done
    expect 0 "" -- plot -m v100 --view 4d --family "Batch Size" -w Pass=forward --series-by Framework \
        --fill-by Precision -o "$TMP/fig3.svg" "$TMP/conv2d-pt.json" "$TMP/conv2d-tf1-noxla.json" "$TMP/conv2d-tf2-noxla.json"
    check "fig3.svg parses" xml_ok "$TMP/fig3.svg"
    # 3 frameworks x 2 precisions x 3 batch sizes, a closed and an open symbol each
    check "fig3: 18 configs, each with a time symbol" test "$(grep -c 'open symbol: run time' "$TMP/fig3.svg")" = 18
    check "fig3: one color per framework" test "$(grep -oE 'stroke="#(0072b2|d55e00|009e73)"' "$TMP/fig3.svg" | sort -u | wc -l)" = 3
    expect 0 "" -- plot -m v100 --view complexity --family "Batch Size" -w Pass=backward -w Precision=FP16 \
        -o "$TMP/fig9.svg" "$TMP/rnn1d-pt.json"
    # Fig. 9: every LSTM config is overhead-bound (inside its overhead box), as the paper found.
    check "fig9: four configs" test "$(grep -c '<title>Precision=FP16' "$TMP/fig9.svg")" = 4
    check "fig9: all inside their overhead box" test "$(grep -c 'inside the overhead box' "$TMP/fig9.svg")" = 4
else
    echo "fixtures absent: paper-table charts skipped"
fi
# More warnings than plot shows: the count points to a command that lists them all, and it does.
W=$TMP/warn.json
python3 -c 'import json,sys; json.dump({"schema": "rooftime.profile/1", "tool": "hand", "kernels": [
    {"name": "k%d" % i, "invocations": 1, "time": 1e-3, "flops": {"fp32": 1e9}, "bytes": {}}
    for i in range(14)]}, open(sys.argv[1], "w"))' "$W"
expect 0 "4 more warnings not shown \(\`rooftime analyze --format json\` with the same machine, mode and inputs lists them all\)" \
    -- plot -m v100 --view roofline -o "$TMP/warn.svg" "$W"
"$BIN" analyze -m v100 --format json "$W" >"$TMP/warn-analysis.json" 2>/dev/null
check "analyze --format json lists all 14 warnings" test "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["warnings"]))' "$TMP/warn-analysis.json")" = 14
finish
