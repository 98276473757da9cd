# Bad command lines: exit 2 and a message that says what is wrong; help answers with 0.
. "$(dirname "$0")/lib.sh"
P=$SRC/data/examples/conv2d-pt-fp16.json

expect 2 "usage: rooftime COMMAND" --
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 0 "" -- help
expect 0 "" -- --help
expect 0 "" -- help analyze
expect 0 "" -- analyze --help
expect 2 "unknown command 'nope'" -- help nope
expect 2 "--machine is required" -- analyze "$P"
expect 2 "no profile given" -- analyze --machine v100
expect 2 "unknown format 'xml'" -- analyze --machine v100 --format xml "$P"
expect 2 "unknown mode 'fast'" -- analyze --machine v100 --mode fast "$P"
expect 2 "--top takes a whole number" -- analyze --machine v100 --top -3 "$P"
expect 2 "--top takes a whole number" -- analyze --machine v100 --top 5x "$P"
expect 2 "unknown option '--bogus'" -- analyze --machine v100 --bogus "$P"
expect 2 "--labels takes a whole number >= 1, not '0'" -- plot --machine v100 --labels 0 -o "$TMP/x.svg" "$P"
expect 2 "--tag takes key=value, not 'nokey'" -- import table --tag nokey -o "$TMP/x.json" "$P"
expect 2 "--tag takes key=value, not '=v'" -- import onednn --tag =v -o "$TMP/x.json" "$P"
expect 2 "--tag takes key=value, not 'x'" -- import ncu --tag x -o "$TMP/x.json" "$P"
expect 2 "--tag takes key=value, not 'y'" -- profile --tag y -o "$TMP/x.json" -- true
# getopt's answers name the option as written: one that lacks its value is not "unknown", a file
# name that starts with '-' is not the option before it, a prefix of two options is ambiguous
expect 2 "option '--machine' needs a value" -- analyze --machine
expect 2 "option '--top' needs a value" -- diff --top
expect 2 "option '-o' needs a value" -- import table -o
expect 2 "option '--arch' needs a value" -- ncu-metrics --arch
expect 2 "option '-o' needs a value" -- report --machine v100 -o
expect 2 "unknown option '-d' \(a file whose name starts with '-' goes after --" -- analyze --machine v100 -dash.json
expect 2 "unknown option '-x' for 'analyze --across'" -- analyze --across rank -x "$P"
expect 2 "option '--m' is ambiguous \(--machine, --mode\)" -- analyze --m v100 "$P"
expect 2 "option '--hints' takes no value" -- analyze --machine v100 --hints=1 "$P"
expect 2 "option '--all-roofs' takes no value" -- plot --machine v100 --all-roofs=yes -o "$TMP/x.svg" "$P"
expect 2 "unknown option '--bogus' for 'machine show'" -- machine show --bogus v100
check "machine show leaves getopt's own message out" test "$(head -c 16 "$TMP/err")" = "rooftime: error:"
cp "$P" "$TMP/-dash.json"
(cd "$TMP" && "$BIN" analyze --machine v100 -- -dash.json >/dev/null 2>&1)
check "a file that starts with '-' is read after --" test $? -eq 0
# an architecture is sm_ and its major and minor digits: sm_9 (for sm_90) read as one below sm_70
expect 2 "--arch takes sm_XX or X.Y, not 'sm_9' .the generations of data/gpu/architectures.json: sm_70, " -- import ncu --arch sm_9 -o "$TMP/x.json" "$P"
expect 2 "--arch takes sm_XX, not 'sm_9' .the generations of data/gpu/architectures.json: sm_70, " -- ncu-metrics --arch sm_9
expect 2 "missing subcommand" -- machine
expect 2 "unknown subcommand 'fly'" -- machine fly
expect 2 "takes one machine" -- machine show
expect 2 "unknown format" -- machine show --format yaml v100
expect 1 "no machine file or preset named 'v99' \(presets: .*v100" -- machine show v99
expect 1 "no machine file or preset named 'v99'" -- analyze --machine v99 "$P"
expect 2 "only shell supported is bash" -- completion zsh
# a missing input reads the same in every importer
for imp in ncu table onednn torch; do
    expect 1 "cannot read '$TMP/absent.in': no such file" -- import $imp -o "$TMP/x.json" "$TMP/absent.in"
done
# an empty output path is a usage error, in every command that writes one
expect 2 "-o: the output path is empty" -- analyze --machine v100 -o "" "$P"
expect 2 "-o: the output path is empty" -- import onednn -o "" "$P"
expect 2 "-o: the output path is empty" -- import table -o "" "$P"
expect 2 "-o: the output path is empty" -- report --machine v100 -o "" "$P"
# An output never overwrites an input (usage error, input unchanged) and is checked before work.
cp "$P" "$TMP/in.json"
sum_before=$(cksum <"$TMP/in.json")
expect 2 "output '.*in.json' is also an input" -- analyze --machine v100 -o "$TMP/in.json" "$TMP/in.json"
expect 2 "is also an input" -- analyze --machine "$TMP/in.json" -o "$TMP/in.json" "$P"
expect 2 "is also an input" -- import onednn -o "$TMP/in.json" "$TMP/in.json"
expect 2 "is also an input" -- import torch -o "$TMP/in.json" "$TMP/in.json"
# two inputs where the importer reads one: the message names the importer
expect 2 "import onednn reads one file at a time" -- import onednn -o "$TMP/x.json" "$P" "$P"
expect 2 "import torch reads one file at a time" -- import torch -o "$TMP/x.json" "$P" "$P"
expect 2 "import table reads one table at a time" -- import table -o "$TMP/x.json" "$P" "$P"
expect 2 "import cupti reads one directory" -- import cupti -o "$TMP/x.json" "$P" "$P"
expect 2 "is also an input" -- import table -o "$TMP/in.json" "$TMP/in.json"
expect 2 "is also an input" -- import ncu -o "$TMP/in.json" "$TMP/in.json"
# a file an option names, given many times: the last one counts, as it is the one read
expect 2 "is also an input" -- import ncu --metrics a --metrics b --metrics c --metrics d \
    --metrics e --metrics f --metrics g --metrics "$TMP/in.json" -o "$TMP/in.json" "$P"
expect 2 "is also an input" -- import torch --ops "$TMP/in.json" -o "$TMP/in.json" "$P"
cp "$P" "$TMP/in.svg"
expect 2 "is also an input" -- plot --machine v100 -o "$TMP/in.svg" "$TMP/in.svg"
check "inputs named as outputs are left unchanged" test "$(cksum <"$TMP/in.json")" = "$sum_before"
# Inputs named by an option are inputs too: the mapping, the cost model, the hints, the machine.
printf 'ID,Kernel Name,Metric Name,Metric Unit,Metric Value\n' >"$TMP/raw.csv"
cp "$SRC/data/ncu/metrics.json" "$TMP/met.json"
cp "$SRC/data/torch/ops.json" "$TMP/ops.json"
cp "$SRC/data/torch/hints.json" "$TMP/hints.json"
"$BIN" machine show --format json v100 >"$TMP/m.json" 2>/dev/null || cp "$P" "$TMP/m.json"
mkdir -p "$TMP/cdir" "$TMP/ranks"
printf 'format=rooftime.cupti/1\nmode=trace\npid=7\n' >"$TMP/cdir/collector.7.txt"
printf 'x\n' >"$TMP/cdir/kernels.7.csv"
cp "$P" "$TMP/ranks/r0.json"
cp "$P" "$TMP/ranks/r1.json"
mkdir -p "$TMP/rep"
cp "$P" "$TMP/rep/all-roofline.svg"
sums() { cat "$TMP/met.json" "$TMP/ops.json" "$TMP/hints.json" "$TMP/m.json" "$TMP/cdir/"* \
    "$TMP/ranks/"* "$TMP/rep/"* | cksum; }
opt_before=$(sums)
expect 2 "is also an input" -- import ncu --metrics "$TMP/met.json" -o "$TMP/met.json" "$TMP/raw.csv"
expect 2 "is also an input" -- import cupti --metrics "$TMP/met.json" -o "$TMP/met.json" "$TMP/cdir"
expect 2 "one of the collector's files" -- import cupti -o "$TMP/cdir/kernels.7.csv" "$TMP/cdir"
expect 2 "one of the collector's files" -- import cupti -o "$TMP/cdir/../cdir/collector.7.txt" "$TMP/cdir"
expect 2 "is also an input" -- import torch --ops "$TMP/ops.json" -o "$TMP/ops.json" "$P"
expect 2 "is also an input" -- analyze --machine v100 --hints-file "$TMP/hints.json" -o "$TMP/hints.json" "$P"
cp "$TMP/m.json" "$TMP/m.svg"
expect 2 "is also an input" -- plot --machine "$TMP/m.svg" -o "$TMP/m.svg" "$P"
check "a plot over its machine file leaves it" cmp -s "$TMP/m.json" "$TMP/m.svg"
expect 2 "is also an input" -- analyze --across rank --machine "$TMP/m.json" -o "$TMP/m.json" "$TMP/ranks"
expect 2 "is also an input" -- analyze --across rank --machine "$TMP/m.json" --chart "$TMP/m.json" "$TMP/ranks"
expect 2 "is also an input" -- analyze --across rank -o "$TMP/ranks/r1.json" "$TMP/ranks"
expect 2 "is also an input" -- analyze --across rank --chart "$TMP/ranks/r0.json" "$TMP/ranks"
expect 2 "would overwrite the input '.*all-roofline.svg'" -- report --machine v100 -o "$TMP/rep" "$TMP/rep/all-roofline.svg"
expect 2 "would overwrite the input" -- report --machine v100 -o "$TMP/in.json" "$TMP/in.json"
check "inputs named by options are left unchanged" test "$(sums)" = "$opt_before"
check "a report over its input writes nothing" test "$(ls "$TMP/rep")" = "all-roofline.svg"
expect 2 "--keep-trace '.*t.json' is also --onednn-output" -- profile --torch -o "$TMP/x.json" --keep-trace "$TMP/t.json" --onednn-output "$TMP/t.json" -- true
expect 2 "--keep-dir '.*x.json' is also the profile" -- profile --gpu -o "$TMP/x.json" --keep-dir "$TMP/x.json" -- true
expect 2 "--keep-log '.*x.json' is also the profile" -- profile -o "$TMP/x.json" --keep-log "$TMP/x.json" -- true
expect 1 "cannot write '/nonexistent-dir/p.json'" -- profile -o /nonexistent-dir/p.json -- sh -c 'touch "$0"' "$TMP/ran"
check "profile checks -o before running the command" test ! -e "$TMP/ran"
expect 1 "cannot write '/nonexistent-dir/a.txt'" -- analyze --machine v100 -o /nonexistent-dir/a.txt "$P"
# one file given twice, by any path, would count its kernels twice: refused before anything runs
cp "$P" "$TMP/same.json"
ln -sf "$TMP/same.json" "$TMP/link.json"
expect 2 "'.*same.json' is given twice: its kernels would count twice" -- analyze --machine v100 "$TMP/same.json" "$TMP/same.json"
expect 2 "'.*same.json' and '.*link.json' are one file" -- analyze --machine v100 "$TMP/same.json" "$TMP/link.json"
expect 2 "are one file" -- report --machine v100 -o "$TMP/rep2" "$TMP/same.json" "$TMP/link.json"
check "a refused report writes nothing" test ! -e "$TMP/rep2"
expect 2 "are one file" -- plot --machine v100 -o "$TMP/p2.svg" "$TMP/link.json" "$TMP/same.json"
expect 0 "" -- plot --machine v100 --diff=5 -o "$TMP/d.svg" "$TMP/same.json" "$TMP/link.json"
"$BIN" completion bash >"$TMP/comp"
check "completion lists the commands" grep -q "help machine analyze" "$TMP/comp"
bash -n "$TMP/comp"
check "completion script is valid bash" test $? -eq 0
# options complete from the command's own help: `rooftime diff --ga<TAB>`, `--ju<TAB>`
mkdir -p "$TMP/compbin"
ln -sf "$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")" "$TMP/compbin/rooftime"
got=$(PATH="$TMP/compbin:$PATH" bash -c '. "$1"; for w in --ga --ju --allow; do
    COMP_WORDS=(rooftime diff "$w"); COMP_CWORD=2; _rooftime; echo "${COMPREPLY[*]}"; done' _ "$TMP/comp")
check "completion: diff's options from its help ($got)" \
    test "$got" = "$(printf '%s\n' --gate --junit '--allow-other-machine --allow-suspect-machine')"
# each option of ncu-metrics is answered in its help, not only named in the usage line
"$BIN" ncu-metrics --help >"$TMP/help"
for o in "--arch sm_XX" "--set S" "--metrics FILE"; do
    check "ncu-metrics --help explains $o" grep -qE -- "^ +$o +[a-z]" "$TMP/help"
done
"$BIN" help >"$TMP/help"
check "help lists every command" grep -q "analyze" "$TMP/help"
# `help --help` is help's own usage, not an unknown command
expect 0 "" -- help --help
check "help --help says how to use help" grep -q "^usage: rooftime help \[COMMAND\]" "$TMP/out"
# A usage error keeps its message in view: the synopsis and where the options are, not the whole
# help (import's is 70 lines)
expect 2 "is also an input" -- import torch -o "$TMP/in.json" "$TMP/in.json"
check "a usage error points at --help" grep -qF '(`rooftime import --help` for the options)' "$TMP/err"
check "a usage error prints the synopsis" grep -q "^rooftime import torch TRACE.json" "$TMP/err"
check "a usage error leaves the options to --help" test "$(wc -l <"$TMP/err")" -le 15
expect 2 "--machine is required" -- plot -o "$TMP/x.svg" "$P"
check "plot's usage error is its synopsis" test "$(wc -l <"$TMP/err")" -le 4
# Every command's help ends with examples; each `rooftime CMD` example uses only options its help
# names, and writes where it says
for cmd in $(sed -n 's/^  \([a-z-]*\)  .*/\1/p' "$TMP/help"); do
    "$BIN" help "$cmd" >"$TMP/h.$cmd"
    sed -n '/^examples:$/,$p' "$TMP/h.$cmd" >"$TMP/ex.$cmd"
    check "help $cmd has examples" grep -qE "^  (eval \"\\$\()?rooftime $cmd" "$TMP/ex.$cmd"
    sed '/^examples:$/,$d' "$TMP/h.$cmd" >"$TMP/opts.$cmd"
    for o in $(grep -E "^  (eval \"\\$\()?rooftime $cmd" "$TMP/ex.$cmd" | sed 's/#.*//' |
        grep -oE -- '(^| )--?[a-z][a-z0-9-]*' | sort -u); do
        check "help $cmd: its example's option $o is in its help" grep -qE -- "(^|[ [|])$o([] ,=|]|$)" "$TMP/opts.$cmd"
    done
done
finish
