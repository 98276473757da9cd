#!/bin/bash
# Inputs as Windows tools, Excel and other locales write them, generated here from the tree's data:
# a UTF-8 byte order mark and CRLF line ends simply work (the same profile as the plain file);
# what cannot be read (UTF-16, gzip, a decimal comma, duplicate columns) is one error naming the
# file, line and field, exit 1, and nothing is written.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
D=$SRC/tests/data

# variants NAME FILE: $TMP/NAME.{plain,crlf,bom,bomcrlf} from FILE.
variants() {
    cp "$2" "$TMP/$1.plain"
    sed 's/\r$//; s/$/\r/' "$2" >"$TMP/$1.crlf"
    { printf '\357\273\277'; cat "$2"; } >"$TMP/$1.bom"
    { printf '\357\273\277'; cat "$TMP/$1.crlf"; } >"$TMP/$1.bomcrlf"
}
# same KIND ARGS...: each variant imports to the profile the plain file imports to (its name aside).
same() {
    local kind=$1
    shift
    "$BIN" import "$kind" "$TMP/$kind.plain" "$@" -o "$TMP/$kind-plain.json" >/dev/null 2>&1
    check "import $kind: the plain file imports" test -s "$TMP/$kind-plain.json"
    for v in crlf bom bomcrlf; do
        expect 0 "" -- import "$kind" "$TMP/$kind.$v" "$@" -o "$TMP/$kind-$v.json"
        check "import $kind: the $v file gives the same profile" cmp -s \
            <(sed "s/$kind\.plain/X/g; s/$kind-plain/Y/g" "$TMP/$kind-plain.json") \
            <(sed "s/$kind\.$v/X/g; s/$kind-$v/Y/g" "$TMP/$kind-$v.json")
    done
}

printf 'name,CUDA Time,FLOPs,Batch Size\nk1,0.001,1e9,16\nk2,0.002,2e9,32\n' >"$TMP/table.csv"
variants table "$TMP/table.csv"
same table
variants ncu "$D/ncu-synthetic-sm80-tensor-ops.csv"
same ncu
variants torch "$D/torch-1.13-lstm-forward.json"
same torch

# Profiles and machine files saved by a Windows editor: the same analysis as the plain file's.
variants prof "$SRC/data/examples/conv2d-pt-fp16.json"
variants mach "$SRC/data/machines/v100.json"
"$BIN" analyze --machine "$TMP/mach.plain" "$TMP/prof.plain" >"$TMP/plain.txt" 2>&1
check "analyze: the plain files" grep -q "^total: 6 kernels" "$TMP/plain.txt"
for v in crlf bom bomcrlf; do
    expect 0 "" -- analyze --machine "$TMP/mach.$v" "$TMP/prof.$v"
    check "analyze: $v profile and machine files give the same analysis" cmp -s \
        <(sed "s/\.plain/.X/g" "$TMP/plain.txt") <(sed "s/\.$v/.X/g" "$TMP/out")
done

# A CUPTI directory whose files went through a Windows tool.
"$BIN" import cupti "$D/cupti-synthetic-counters-marks" -o "$TMP/cupti-plain.json" >/dev/null 2>&1
for v in crlf bom bomcrlf; do
    mkdir "$TMP/cupti-$v"
    cp "$D"/cupti-synthetic-counters-marks/* "$TMP/cupti-$v/"
    for f in "$TMP/cupti-$v"/*.csv "$TMP/cupti-$v"/*.txt; do
        variants one "$f"
        cp "$TMP/one.$v" "$f"
    done
    expect 0 "" -- import cupti "$TMP/cupti-$v" -o "$TMP/cupti-$v.json"
    check "import cupti: $v files give the same profile" cmp -s \
        <(sed "s|$D/cupti-synthetic-counters-marks|X|g; s/cupti-plain/Y/g" "$TMP/cupti-plain.json") \
        <(sed "s|$TMP/cupti-$v|X|g; s/cupti-$v/Y/g" "$TMP/cupti-$v.json")
done

finish
