# `profile --gpu --counters` keeps the collector's directory, raw images included, beside the profile
# (run.cupti/ for run.json), without a GPU: a stand-in driver (fake-cuda/libcuda.so.1) passes the
# driver check, and the profiled command is a script that writes what the collector would, raw
# images only when ROOFTIME_CUPTI_KEEP_IMAGES=1.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
BUILD=${ROOFTIME_BUILD:-.}
if [ ! -f "$BUILD/fake-cuda/libcuda.so.1" ]; then
    echo "skipped: no stand-in driver built"
    exit 77
fi
export LD_LIBRARY_PATH="$BUILD/fake-cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ROOFTIME_CUPTI_LIB="$BUILD/fake-cuda/libcuda.so.1" # the script ignores the injection
MET="sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,dram__bytes.sum"
cat >"$TMP/collector.sh" <<EOF
#!/bin/sh
# What librooftime-cupti.so writes for one kernel k, in the mode rooftime asks for.
d=\$ROOFTIME_CUPTI_DIR
echo "\$ROOFTIME_CUPTI_MODE keep=\$ROOFTIME_CUPTI_KEEP_IMAGES" >>"$TMP/runs"
echo "\$CUDA_INJECTION64_PATH \$ROOFTIME_CUPTI_LIB" >>"$TMP/libs"
printf 'format=rooftime.cupti/1\nmode=%s\npid=%s\ndevice=Stand-in GPU\ncc=90\nchip=GH100\nmetrics=$MET\n' "\$ROOFTIME_CUPTI_MODE" \$\$ >"\$d/collector.\$\$.txt"
printf 'seq,correlation,ranges,time_ns,tags\n0,0,0,5,pass=forward;batch=16\n' >"\$d/marks.\$\$.csv"
if [ "\$ROOFTIME_CUPTI_MODE" = trace ]; then
    printf 'correlation,name,start_ns,end_ns,device,context,stream,graph,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,shared_static,shared_dynamic\n1,k,0,2000,0,1,7,0,1,1,1,32,1,1,8,0,0\n' >"\$d/kernels.\$\$.csv"
else
    printf 'range,name,$MET\n0,k,1000,1e9,0,0,10,100\n' >"\$d/ranges.\$\$.csv"
    if [ "\$ROOFTIME_CUPTI_KEEP_IMAGES" = 1 ]; then
        echo config >"\$d/config.\$\$.1.bin"
        echo data >"\$d/counterdata.\$\$.1.0.bin"
        echo k >"\$d/counterdata.\$\$.1.0.bin.names"
        printf 'file,kind,context,chip,bytes,fnv1a64\n' >"\$d/images.\$\$.csv"
    fi
fi
EOF
chmod +x "$TMP/collector.sh"
mkdir "$TMP/p"

expect 0 "collector output in .*p/run.cupti \\(raw counter images: \`import cupti DIR --reevaluate\`\\)" -- profile --gpu --counters -o "$TMP/p/run.json" -- "$TMP/collector.sh"
check "both runs, images asked for in the counter run" [ "$(paste -sd' ' "$TMP/runs")" = "trace keep=0 counters keep=1" ]
read -r inj clib <"$TMP/libs"
check "the command sees ROOFTIME_CUPTI_LIB, the injected library's absolute path ($clib)" \
    [ "$clib" = "$inj" ] && [ "${clib#/}" != "$clib" ]
check "run.cupti/ holds the images" [ -f "$(echo "$TMP"/p/run.cupti/counterdata.*.1.0.bin)" ]
check "and the trace run's files" [ -f "$(echo "$TMP"/p/run.cupti/kernels.*.csv)" ]
check "no scratch directory left" [ "$(ls "$TMP/p" | paste -sd' ')" = "run.cupti run.json" ]
check "the provenance names run.cupti" grep -q "p/run.cupti/collector\\." "$TMP/p/run.json"
check "and where the images are" grep -q '"counter_images": ".*p/run.cupti: raw counter images of 1 process' "$TMP/p/run.json"
check "no scratch path in the profile" bash -c "! grep -q 'cupti.tmp-' '$TMP/p/run.json'"
check "FLOPs from the counter run" grep -q '"fp32": 20' "$TMP/p/run.json"
check "the marks' tags on the kernel (profile --gpu applies marks.PID.csv)" \
    python3 -c 'import json,sys; k = json.load(open(sys.argv[1]))["kernels"]; sys.exit(not (len(k) == 1 and k[0]["tags"].get("pass") == "forward" and k[0]["tags"].get("batch") == "16"))' "$TMP/p/run.json"
expect 0 "note: .*run.cupti keeps raw counter images" -- import cupti "$TMP/p/run.cupti" -o "$TMP/again.json"

# Run again: the previous run's directory is replaced.
OLD=$(ls "$TMP"/p/run.cupti/collector.*.txt | paste -sd' ')
expect 0 "" -- profile --gpu --counters -o "$TMP/p/run.json" -- "$TMP/collector.sh"
NEW=$(ls "$TMP"/p/run.cupti/collector.*.txt | paste -sd' ')
check "the second run replaced the first" [ "$OLD" != "$NEW" ] && [ "$(ls "$TMP"/p/run.cupti/collector.*.txt | wc -l)" -eq 2 ]

# A run.cupti that is not the collector's is left alone, and nothing runs.
mkdir "$TMP/q" "$TMP/q/x.cupti"
echo mine >"$TMP/q/x.cupti/notes.txt"
: >"$TMP/runs"
expect 1 "'.*q/x.cupti' exists and is not a directory the collector wrote" -- profile --gpu --counters -o "$TMP/q/x.json" -- "$TMP/collector.sh"
check "the command did not run" [ ! -s "$TMP/runs" ]
check "the foreign directory is untouched" [ "$(ls "$TMP/q/x.cupti")" = notes.txt ]
check "no scratch directory left after a refusal" [ "$(ls "$TMP/q" | paste -sd' ')" = "x.cupti" ]

# --no-keep-images: no images asked for, no directory kept.
mkdir "$TMP/n"
: >"$TMP/runs"
expect 0 "" -- profile --gpu --counters --no-keep-images -o "$TMP/n/run.json" -- "$TMP/collector.sh"
check "no images asked for" [ "$(paste -sd' ' "$TMP/runs")" = "trace keep=0 counters keep=0" ]
check "no run.cupti" [ "$(ls "$TMP/n")" = run.json ]
check "no note of images" bash -c "! grep -q counter_images '$TMP/n/run.json'"
expect 2 "--no-keep-images goes with --counters" -- profile --gpu --no-keep-images -o "$TMP/n/x.json" -- "$TMP/collector.sh"
expect 2 "--no-keep-images go with --gpu" -- profile --no-keep-images -o "$TMP/n/x.json" -- true

# --keep-dir DIR: the images there, no run.cupti; a trace only: nothing kept.
: >"$TMP/runs"
expect 0 "collector output in .*kd" -- profile --gpu --counters --keep-dir "$TMP/kd" -o "$TMP/n/k.json" -- "$TMP/collector.sh"
check "images in --keep-dir" [ -f "$(echo "$TMP"/kd/images.*.csv)" ]
check "no k.cupti" [ ! -e "$TMP/n/k.cupti" ]
expect 0 "" -- profile --gpu -o "$TMP/n/t.json" -- "$TMP/collector.sh"
check "a trace run keeps nothing" [ ! -e "$TMP/n/t.cupti" ]

# A failed import (nothing captured) removes the scratch directory and keeps no run.cupti.
mkdir "$TMP/f"
expect 1 "no kernel was captured" -- profile --gpu --counters -o "$TMP/f/run.json" -- true
check "nothing left after a failed run" [ -z "$(ls "$TMP/f")" ]
finish
