# `rooftime profile --gpu` and `import cupti`: usage, no driver, nothing captured, a collector dir.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"

expect 2 "go with --gpu" -- profile --counters -o "$TMP/x.json" -- true
expect 2 "--gpu goes with neither --torch nor --keep-log \\(use --keep-dir\\)" -- profile --gpu --keep-log "$TMP/l" -o "$TMP/x.json" -- true
expect 2 "--gpu goes with neither --torch" -- profile --gpu --torch -o "$TMP/x.json" -- true
expect 2 "no collector directory given" -- import cupti -o "$TMP/x.json"
expect 2 "reads one directory" -- import cupti "$TMP" "$TMP" -o "$TMP/x.json"

# What a command that never touches CUDA leaves: an empty directory.
mkdir "$TMP/empty"
expect 1 "no kernel was captured" -- import cupti "$TMP/empty" -o "$TMP/x.json"
check "no profile after nothing captured" [ ! -e "$TMP/x.json" ]

# A collector directory written by hand: a trace run.
mkdir "$TMP/dir"
printf 'format=rooftime.cupti/1\nmode=trace\npid=7\ndevice=Hand GPU\ncc=80\n' >"$TMP/dir/collector.7.txt"
{
    echo "correlation,name,start_ns,end_ns,device,context,stream,graph,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,shared_static,shared_dynamic"
    echo "1,k,0,2000,0,1,7,0,1,1,1,32,1,1,8,0,0"
    echo "2,k,3000,4000,0,1,7,0,1,1,1,32,1,1,8,0,0"
} >"$TMP/dir/kernels.7.csv"
expect 0 "" -- import cupti "$TMP/dir" --per-launch -o "$TMP/d.json"
check "two launches kept" grep -q '"launch": "2"' "$TMP/d.json"
check "the summary counts launches" grep -q "2 kernels, 2 launches" "$TMP/out"
echo "3,k,9,x" >>"$TMP/dir/kernels.7.csv"
expect 1 "kernels.7.csv: line 4: 4 fields, expected 17" -- import cupti "$TMP/dir" -o "$TMP/d2.json"

# No driver (CI): a clear failure before anything runs. With a GPU: a non-CUDA command.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    expect 1 "no CUDA driver: libcuda.so.1 cannot be loaded" -- profile --gpu -o "$TMP/g.json" -- true
else
    expect 1 "no kernel was captured" -- profile --gpu -o "$TMP/g.json" -- true
fi
check "no profile from profile --gpu" [ ! -e "$TMP/g.json" ]
finish
