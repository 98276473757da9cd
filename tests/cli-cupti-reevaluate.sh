# `import cupti --reevaluate` without a GPU. The command's side in every build, through a stand-in
# for the collector's entry point (libcupti-fake-reevaluate.so): usage, the library not found, not
# loadable or without the entry point, the rows it writes read instead of the collector's, its
# errors. Then, where CUPTI was found, the real librooftime-cupti.so on raw images built on the host
# (cupti-image-check forge: real CUPTI images whose ranges hold no counts, so every metric is nan):
# the rows, and each way an image can be wrong, named. That part runs unsanitized (see
# tests/cli-cupti-host.sh); a sanitized rooftime refuses with a clear message, checked too.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
BUILD=${ROOFTIME_BUILD:-.}
FAKE=$BUILD/libcupti-fake-reevaluate.so
export TMPDIR="$TMP/scratch"
mkdir "$TMPDIR"

KHEADER="correlation,name,start_ns,end_ns,device,context,stream,graph,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,shared_static,shared_dynamic"
MET="sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,dram__bytes.sum"

# A collector directory: a trace run (process 11: k, g, k) and a counter run (12) whose
# ranges.12.csv holds the collector's values; with_images adds a manifest (images.12.csv).
collector_dir() {
    mkdir -p "$1"
    printf 'format=rooftime.cupti/1\nmode=trace\npid=11\nstarted_ns=1\ndevice=Hand GPU\ncc=90\n' >"$1/collector.11.txt"
    printf '%s\n' "$KHEADER" "1,k,0,2000,0,1,7,0,1,1,1,32,1,1,8,0,0" "2,g,3000,4000,0,1,7,0,1,1,1,32,1,1,8,0,0" \
        "3,k,5000,6000,0,1,7,0,1,1,1,32,1,1,8,0,0" >"$1/kernels.11.csv"
    printf 'format=rooftime.cupti/1\nmode=counters\npid=12\nstarted_ns=2\ndevice=Hand GPU\ncc=90\nchip=GH100\nmetrics=%s\npasses=2\n' \
        "$2" >"$1/collector.12.txt"
}

# ---- usage and the library: no CUPTI needed ----
collector_dir "$TMP/plain" "$MET"
printf 'range,name,%s\n0,k,1000,1e9,0,0,10,100\n1,g,1000,1e9,0,0,0,0\n2,k,1000,1e9,0,0,10,100\n' "$MET" >"$TMP/plain/ranges.12.csv"
expect 0 "" -- import cupti "$TMP/plain" -o "$TMP/plain.json"
check "no note without images" bash -c "! grep -q 'raw counter images' '$TMP/err'"
expect 2 "--reevaluate: '.*plain' holds no raw counter images \\(images.PID.csv\\)" -- import cupti "$TMP/plain" --reevaluate -o "$TMP/x.json"

cp -r "$TMP/plain" "$TMP/kept"
printf 'file,kind,context,chip,bytes,fnv1a64\n' >"$TMP/kept/images.12.csv"
expect 0 "note: .*kept keeps raw counter images; --reevaluate evaluates them again" -- import cupti "$TMP/kept" -o "$TMP/kept.json"
check "the profile notes the images" grep -q '"counter_images": ".*--reevaluate` evaluates them again' "$TMP/kept.json"

ROOFTIME_CUPTI_LIB="$TMP/none.so" expect 1 "--reevaluate: librooftime-cupti.so not found .*ROOFTIME_CUPTI_LIB" -- import cupti "$TMP/kept" --reevaluate -o "$TMP/x.json"
echo "not a library" >"$TMP/text.so"
ROOFTIME_CUPTI_LIB="$TMP/text.so" expect 1 "--reevaluate: cannot load .*text.so: " -- import cupti "$TMP/kept" --reevaluate -o "$TMP/x.json"
LIBC=$(ldd "$BIN" | awk '/libc\.so/ { print $3 }')
if [ -n "$LIBC" ]; then
    ROOFTIME_CUPTI_LIB="$LIBC" expect 1 "has no rooftime_cupti_reevaluate \\(a collector older than this rooftime\\?\\)" -- import cupti "$TMP/kept" --reevaluate -o "$TMP/x.json"
fi
check "no profile after a library failure" [ ! -e "$TMP/x.json" ]

if [ -f "$FAKE" ]; then
    # The stand-in's rows (k's FLOPs x 3) are read instead of ranges.12.csv, its warning shown.
    printf 'range,name,%s\n0,k,1000,1e9,0,0,30,300\n1,g,1000,1e9,0,0,0,0\n2,k,1000,1e9,0,0,30,300\n' "$MET" >"$TMP/kept/fake-ranges.12.csv"
    ROOFTIME_CUPTI_LIB="$FAKE" expect 0 "3 counter ranges evaluated again from the raw images in .*kept" -- import cupti "$TMP/kept" --reevaluate -o "$TMP/re.json"
    check "the entry point's warning is shown" grep -q "warning: fake: a warning from the re-evaluation" "$TMP/err"
    check "the collector's values: fp32 = 2 x 2 x 10" grep -q '"fp32": 40' "$TMP/kept.json"
    check "the fresh values: fp32 = 2 x 2 x 30" grep -q '"fp32": 120' "$TMP/re.json"
    check "the manifest stands for the ranges" grep -q 'kept/images.12.csv' "$TMP/re.json"
    check "ranges.12.csv is no input" bash -c "! grep -q 'ranges.12.csv' '$TMP/re.json'"
    check "the note says evaluated again" grep -q '"counter_images": ".*evaluated again' "$TMP/re.json"
    check "the scratch directory is gone" [ -z "$(ls -A "$TMPDIR")" ]
    echo "$TMP/kept/counterdata.12.1.0.bin: damaged" >"$TMP/kept/fake-error"
    ROOFTIME_CUPTI_LIB="$FAKE" expect 1 "error: .*kept/counterdata.12.1.0.bin: damaged" -- import cupti "$TMP/kept" --reevaluate -o "$TMP/bad.json"
    check "no profile after an entry point error" [ ! -e "$TMP/bad.json" ]
    check "no scratch directory after an error" [ -z "$(ls -A "$TMPDIR")" ]
fi

# ---- the real entry point on images built on the host ----
CHECK=$BUILD/cupti-image-check
LIB=$BUILD/librooftime-cupti.so
if [ ! -x "$CHECK" ] || [ ! -f "$LIB" ]; then
    echo "skipped: the real entry point (rooftime was built without CUPTI)"
    finish
    exit $?
fi
# The paper's 15 metrics (sm_70's list, 2 passes on every chip): what this test checks is the
# images, not the list (tests/cli-cupti-host.sh checks the per-architecture lists).
METRICS=$("$BIN" ncu-metrics --arch sm_70 | awk '/^#/ { next } /^$/ { exit } { print }' | paste -sd, -)
reeval() { # reeval DIR: the entry point as the CLI calls it, into $TMP/reout
    rm -rf "$TMP/reout"
    mkdir "$TMP/reout"
    "$CHECK" reevaluate "$LIB" "$1" "$TMP/reout" >"$TMP/reout.txt" 2>"$TMP/err"
}
fails() { # fails DESCRIPTION DIR PATTERN
    reeval "$2"
    check "$1: exit 1" [ $? -eq 1 ]
    if ! grep -qE -- "$3" "$TMP/err"; then
        sed 's/^/  stderr: /' "$TMP/err" | head -3
    fi
    check "$1: names the cause" grep -qE -- "$3" "$TMP/err"
}

collector_dir "$TMP/img" "$METRICS"
# Three ranges (kernels k, g, k) of context 1 in one image; the names come from the .names file.
"$CHECK" forge GH100 "$METRICS" "$TMP/img" 12 1 0 k g k >"$TMP/forge.txt" 2>&1
check "an image is built without a GPU" grep -q "counterdata.12.1.0.bin: 3 ranges" "$TMP/forge.txt"
reeval "$TMP/img"
check "the image is evaluated" [ $? -eq 0 ]
check "3 ranges" grep -q "^3 ranges$" "$TMP/reout.txt"
check "ranges.12.csv's header: range, name, the collector's metrics" grep -qx "range,name,$METRICS" "$TMP/reout/ranges.12.csv"
check "rows named by launch order" [ "$(cut -d, -f1,2 "$TMP/reout/ranges.12.csv" | tail -n +2 | paste -sd' ')" = "0,k 1,g 2,k" ]
check "no counts in a host-built image: nan, said once" grep -q "15 of 15 metrics are nan in all 3 ranges" "$TMP/err"
# The rows import like the collector's own.
cp -r "$TMP/img" "$TMP/imported"
cp "$TMP/reout/ranges.12.csv" "$TMP/imported/"
expect 0 "" -- import cupti "$TMP/imported" -o "$TMP/imported.json"
check "joined: k twice, g once" grep -q "2 kernels, 3 launches" "$TMP/out"

# Through the command: a sanitized rooftime refuses clearly; otherwise the whole path.
"$BIN" import cupti "$TMP/img" --reevaluate -o "$TMP/cli.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
if grep -q "runs under AddressSanitizer" "$TMP/err"; then
    check "sanitized: exit 1" [ $rc -eq 1 ]
    check "sanitized: says why" grep -q "needs a rooftime built without sanitizers" "$TMP/err"
else
    check "the command re-evaluates" [ $rc -eq 0 ]
    check "the command's profile" grep -q '"counter_images": ".*evaluated again' "$TMP/cli.json"
fi

# Hopper's own list (20 metrics with the six tensor ops counters, 7 passes on GH100): a host-built
# image of it evaluates, and its rows import with the per-precision formulas of sm_90 (nan counts: 0).
M90=$("$BIN" ncu-metrics --arch sm_90 | awk '/^#/ { next } /^$/ { exit } { print }' | paste -sd, -)
collector_dir "$TMP/h90" "$M90"
sed -i 's/^passes=2$/passes=7/' "$TMP/h90/collector.12.txt"
"$CHECK" forge GH100 "$M90" "$TMP/h90" 12 1 0 k g k >"$TMP/forge.txt" 2>&1
check "sm_90 list: image built, 7 passes" grep -q "counterdata.12.1.0.bin: 3 ranges, .* 7 passes" "$TMP/forge.txt"
reeval "$TMP/h90"
check "sm_90 list: evaluated" [ $? -eq 0 ]
check "sm_90 list: the ops counters in the rows" grep -q "^range,name,.*sm__ops_path_tensor_src_fp16.sum,.*sm__ops_path_tensor_src_fp64.sum" "$TMP/reout/ranges.12.csv"
cp "$TMP/reout/ranges.12.csv" "$TMP/h90/"
expect 0 "" -- import cupti "$TMP/h90" -o "$TMP/h90.json"
check "sm_90 list: the per-precision formulas" grep -q '"flops.tensor_fp8": "tensor_op_flops \* sm__ops_path_tensor_src_fp8.sum"' "$TMP/h90.json"
check "sm_90 list: no instruction-count formula" bash -c "! grep -q 'flops.tensor\"' '$TMP/h90.json'"

# Every way an image can be wrong is an error naming the file.
cp -r "$TMP/img" "$TMP/flip"
printf '\001' | dd of="$TMP/flip/counterdata.12.1.0.bin" bs=1 seek=1000 conv=notrunc 2>/dev/null
fails "a changed byte" "$TMP/flip" "flip/counterdata.12.1.0.bin: FNV-1a hash [0-9a-f]{16}, .*images.12.csv line 3 recorded .*damaged"
cp -r "$TMP/img" "$TMP/cut"
truncate -s 5000 "$TMP/cut/counterdata.12.1.0.bin"
fails "a cut image" "$TMP/cut" "cut/counterdata.12.1.0.bin: 5000 bytes where .*images.12.csv recorded [0-9]+: the image is damaged or cut short"
cp -r "$TMP/img" "$TMP/chip"
sed -i 's/GH100/XX100/' "$TMP/chip/images.12.csv"
fails "an unknown chip" "$TMP/chip" "chip/config.12.1.bin: chip 'XX100' .* is unknown to this CUPTI: .*it knows: .*GH100"
collector_dir "$TMP/other" "$METRICS"
"$CHECK" forge GA100 "$METRICS" "$TMP/other" 12 1 0 k >/dev/null 2>&1
sed -i 's/GA100/GH100/' "$TMP/other/images.12.csv"
fails "an image of another chip" "$TMP/other" "other/counterdata.12.1.0.bin: range 0: .*does not match chip GH100"
cp -r "$TMP/img" "$TMP/passes"
sed -i 's/^passes=2/passes=3/' "$TMP/passes/collector.12.txt"
fails "a configuration of another run" "$TMP/passes" "passes/config.12.1.bin: 2 passes where collector.12.txt says passes=3"
cp -r "$TMP/img" "$TMP/metric"
sed -i 's/^metrics=/metrics=sm__no_such_counter.sum,/' "$TMP/metric/collector.12.txt"
fails "a metric the chip lacks" "$TMP/metric" "metric/collector.12.txt: metrics on chip GH100: .*'sm__no_such_counter.sum' is unknown"
cp -r "$TMP/img" "$TMP/names"
rm "$TMP/names/counterdata.12.1.0.bin.names"
fails "no range names" "$TMP/names" "cannot read .*names/counterdata.12.1.0.bin.names"
cp -r "$TMP/img" "$TMP/rename"
sed -i 's/^counterdata.12.1.0.bin,/..\/counterdata.12.1.0.bin,/' "$TMP/rename/images.12.csv"
fails "a path in the manifest" "$TMP/rename" "rename/images.12.csv: line 3: file '../counterdata.12.1.0.bin' is not the name of a counterdata image of process 12"
# An image the manifest vouches for but CUPTI cannot read (a configuration in its place): CUPTI
# crashes on it, in the child process, or refuses it; either way an error naming the image.
cp -r "$TMP/img" "$TMP/crash"
cp "$TMP/crash/config.12.1.bin" "$TMP/crash/counterdata.12.1.0.bin"
"$CHECK" rehash "$TMP/crash" 12
fails "an unreadable image" "$TMP/crash" "(CUPTI crashed \\(signal [0-9]+, .*\\) reading|not a counter data image CUPTI can read).*crash/counterdata.12.1.0.bin"
collector_dir "$TMP/empty" "$METRICS"
"$CHECK" forge GH100 "$METRICS" "$TMP/empty" 12 1 0 >/dev/null 2>&1
fails "no ranges" "$TMP/empty" "empty: no ranges: the 1 counter data images hold none"
collector_dir "$TMP/none" "$METRICS"
fails "no images" "$TMP/none" "none: no raw counter images \\(images.PID.csv\\)"
cp -r "$TMP/img" "$TMP/loose"
rm "$TMP/loose/images.12.csv"
fails "images without a manifest" "$TMP/loose" "loose: 1 counter data images but no images.PID.csv listing them"
finish
