#!/bin/bash
# Bad inputs kept in the tree (tests/data/bad-inputs/cases.txt: file, command, exit code, message),
# and two that cannot be files: a 2 GB file of NULs (sparse) is refused after its first bytes, in
# little memory, by every reader; a directory is "is a directory" to every reader.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
D=$SRC/tests/data/bad-inputs

# The cases of cases.txt: exit code and message, and no output left behind.
n=0
while IFS='|' read -r file args code pattern; do
    case $file in '#'* | '') continue ;; esac
    read -ra argv <<<"$args"
    for i in "${!argv[@]}"; do
        case ${argv[$i]} in FILE) argv[i]=$D/$file ;; OUT) argv[i]=$TMP/out.$n ;; esac
    done
    expect "$code" "$pattern" -- "${argv[@]}"
    check "$file: nothing written" test ! -e "$TMP/out.$n"
    n=$((n + 1))
done <"$D/cases.txt"
check "every case of cases.txt was tried ($n)" test "$n" -ge 8

# rss CMD...: run rooftime, print "EXIT PEAK-KiB" and keep its stderr in $TMP/err.
rss() {
    python3 - "$BIN" "$@" 2>"$TMP/err" <<'PY'
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
sys.stderr.write(r.stderr)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

# 2 GB of NULs, no disk used: refused at byte 0 in well under 200 MB (it was read whole: 2.1 GB).
truncate -s 2G "$TMP/zeros.json"
printf '"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n' >"$TMP/one.csv"
while IFS='|' read -r what args; do
    read -ra argv <<<"$args"
    for i in "${!argv[@]}"; do
        case ${argv[$i]} in Z) argv[i]=$TMP/zeros.json ;; OUT) argv[i]=$TMP/z.out ;; ONE) argv[i]=$TMP/one.csv ;; esac
    done
    read -r code kib < <(rss "${argv[@]}")
    check "2 GB of NULs, $what: exit 1 (got $code)" test "$code" -eq 1
    check "2 GB of NULs, $what: 'byte 0 is a NUL' ($(head -1 "$TMP/err"))" grep -q "zeros.json.*byte 0 is a NUL" "$TMP/err"
    check "2 GB of NULs, $what: peak memory $kib KiB < 200 MiB" test "$kib" -lt 204800
done <<'CASES'
import torch|import torch Z -o OUT
analyze|analyze -m v100 Z
analyze -m|analyze -m Z Z
import ncu|import ncu Z -o OUT
import ncu --metrics|import ncu --metrics Z ONE -o OUT
import table|import table Z -o OUT
import onednn|import onednn Z -o OUT
CASES
rm -f "$TMP/zeros.json"

# A directory where a file is expected: every reader says so.
mkdir -p "$TMP/dir"
PROF=$SRC/data/examples/conv2d-pt-fp16.json
expect 1 "cannot read '$TMP/dir': is a directory" -- import ncu --metrics "$TMP/dir" "$TMP/one.csv" -o "$TMP/x.json"
expect 1 "cannot read '$TMP/dir': is a directory" -- import ncu "$TMP/dir" -o "$TMP/x.json"
expect 1 "cannot read '$TMP/dir': is a directory" -- import table "$TMP/dir" -o "$TMP/x.json"
expect 1 "cannot read '$TMP/dir': is a directory" -- import onednn "$TMP/dir" -o "$TMP/x.json"
expect 1 "cannot read '$TMP/dir': is a directory" -- import torch "$TMP/dir" -o "$TMP/x.json"
expect 1 "cannot read '$TMP/dir': is a directory" -- analyze -m v100 "$TMP/dir"
expect 1 "cannot read '$TMP/dir': is a directory" -- analyze -m "$TMP/dir" "$PROF"
check "no output after a directory" test ! -e "$TMP/x.json"
finish
