#!/bin/bash
# Inputs as Windows tools, Excel and other locales write them, generated here from the tree's data:
# a UTF-8 byte order mark and CRLF line ends simply work (the same profile as the plain file);
# what cannot be read (UTF-16, gzip, a decimal comma, duplicate columns) is one error naming the
# file, line and field, exit 1, and nothing is written. A PyTorch trace kept gzip-compressed (as
# torch's TensorBoard handler writes *.pt.trace.json.gz) is read as it is.
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

# UTF-16 (PowerShell's '>', Excel's "Unicode Text") and compressed files: what they are and what to
# do, not "byte 3 is a NUL", from every reader; nothing written.
encodings() { # NAME FILE: $TMP/NAME.{utf16,utf16le,gz,xz} from FILE
    python3 - "$2" "$TMP/$1" <<'PY'
import gzip, lzma, sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
open(sys.argv[2] + ".utf16", "wb").write(t.encode("utf-16"))        # a byte order mark
open(sys.argv[2] + ".utf16le", "wb").write(t.encode("utf-16-le"))   # none
open(sys.argv[2] + ".gz", "wb").write(gzip.compress(t.encode()))
open(sys.argv[2] + ".xz", "wb").write(lzma.compress(t.encode()))
PY
}
refused() { # NAME ARGS... (FILE and OUT replaced): each encoding of NAME is refused
    local name=$1
    shift
    for e in utf16:"UTF-16 text: convert it to UTF-8 first \(iconv -f UTF-16 -t UTF-8\)" \
        utf16le:"UTF-16 text: convert it to UTF-8 first \(iconv -f UTF-16LE -t UTF-8\)" \
        gz:"gzip-compressed: decompress it first \(gunzip\)" \
        xz:"xz-compressed: decompress it first \(unxz\)"; do
        local ext=${e%%:*} says=${e#*:} args=()
        [ "$name.$ext" = torch.gz ] && continue # read: below
        for a in "$@"; do
            case $a in FILE) args+=("$TMP/$name.$ext") ;; OUT) args+=("$TMP/out-$name-$ext") ;;
            *) args+=("$a") ;; esac
        done
        expect 1 "$name\.$ext'?: (line 1: )?$says" -- "${args[@]}"
        check "$name.$ext: nothing written" test ! -e "$TMP/out-$name-$ext"
    done
}
for k in table ncu torch; do
    encodings "$k" "$TMP/$k.plain"
    refused "$k" import "$k" FILE -o OUT
done
# import torch reads a gzip-compressed trace: the same profile as the plain one's (name aside);
# as a BOM and CRLF inside it, gzip inside gzip is named
expect 0 "" -- import torch "$TMP/torch.gz" -o "$TMP/torch-gz.json"
check "import torch: the gzip trace gives the plain trace's profile" cmp -s \
    <(sed "s/torch\.plain/X/g; s/torch-plain/Y/g" "$TMP/torch-plain.json") \
    <(sed "s/torch\.gz/X/g; s/torch-gz/Y/g" "$TMP/torch-gz.json")
gzip -c "$TMP/torch.gz" >"$TMP/torch-twice.gz"
expect 1 "torch-twice.gz': decompressed, it is gzip-compressed: decompress it first" -- \
    import torch "$TMP/torch-twice.gz" -o "$TMP/out-twice"
check "gzip inside gzip: nothing written" test ! -e "$TMP/out-twice"
head -c 300 "$TMP/torch.gz" >"$TMP/torch-cut.gz"
expect 1 "torch-cut.gz': the gzip data ends early, at compressed byte 300 \(the file is cut short\)" -- \
    import torch "$TMP/torch-cut.gz" -o "$TMP/out-cut"
check "a cut gzip trace: nothing written" test ! -e "$TMP/out-cut"
encodings onednn "$D/onednn-2.6-primitives.log"
refused onednn import onednn FILE -o OUT
encodings prof "$TMP/prof.plain"
refused prof analyze --machine v100 -o OUT FILE
encodings mach "$TMP/mach.plain"
refused mach analyze --machine FILE -o OUT "$TMP/prof.plain"
for f in ranges.202.csv collector.202.txt; do
    rm -rf "$TMP/cupti-enc"
    cp -r "$D/cupti-synthetic-counters-marks" "$TMP/cupti-enc"
    encodings "$f" "$TMP/cupti-enc/$f"
    cp "$TMP/$f.utf16" "$TMP/cupti-enc/$f"
    expect 1 "cupti-enc/$f'?: (line 1: )?UTF-16 text" -- import cupti "$TMP/cupti-enc" -o "$TMP/out-c"
    check "cupti: nothing written" test ! -e "$TMP/out-c"
done

# The collector ends every row with a newline: a CSV file cut inside its last row ("131072" to "13")
# is an error naming the file and line, not a smaller number.
rm -rf "$TMP/cupti-cut"
cp -r "$D/cupti-synthetic-counters-marks" "$TMP/cupti-cut"
python3 - "$TMP/cupti-cut/ranges.202.csv" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index("4000000,131072") + len("4000000,13")
open(sys.argv[1], "w").write(s[:i])
PY
expect 1 "cupti-cut/ranges.202.csv: line 5: the file ends inside this row, with no newline after it" \
    -- import cupti "$TMP/cupti-cut" -o "$TMP/out-cut.json"
check "cupti cut: nothing written" test ! -e "$TMP/out-cut.json"

finish
