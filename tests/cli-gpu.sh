# `rooftime machine measure --gpu`: option errors (exit 2), and without a driver (none here, a path
# that does not exist, the toolkit's link-time stub) exit 1 with a message naming what is missing,
# no output file left behind.
. "$(dirname "$0")/lib.sh"

expect 2 "--tau: unknown launch-overhead definition 'wall' \(paper, async, cpu, graph\)" -- \
    machine measure --gpu --tau wall
expect 2 "--tau applies to --gpu only" -- machine measure --tau cpu
expect 2 "--threads and --max-isa apply to the CPU, not --gpu" -- machine measure --gpu --threads 2
expect 2 "--gpu: expected a device index, got 'x'" -- machine measure --gpu=x
expect 2 "--gpu: expected a device index, got '99999'" -- machine measure --gpu 99999
expect 0 "" -- machine measure --help
check "help names --gpu" grep -q "machine measure --gpu \[INDEX\]" "$TMP/out"
check "help names --skip-family" grep -q "\[--skip-family fma|mma.sync|wgmma\]" "$TMP/out"
expect 2 "--skip-family: no instruction family 'tma' \(the probe's: fma, wgmma, mma.sync\)" -- \
    machine measure --gpu --skip-family tma
expect 2 "--skip-family applies to --gpu, not the CPU or --self-check" -- \
    machine measure --skip-family wgmma
expect 2 "--skip-family applies to --gpu, not the CPU or --self-check" -- \
    machine measure --gpu --self-check --skip-family wgmma

# A driver path that does not exist: the same on every machine, GPU or not.
export ROOFTIME_LIBCUDA=/nonexistent/libcuda.so.1
expect 1 "no NVIDIA driver: cannot load /nonexistent/libcuda.so.1 .*provides libcuda.so.1" -- \
    machine measure --gpu -o "$TMP/gpu.json"
check "no file left behind" test ! -e "$TMP/gpu.json"
check "no temporary file left" test -z "$(ls "$TMP" | grep -v -e '^out$' -e '^err$')"
expect 1 "no NVIDIA driver" -- machine measure --gpu 1 --quick --tau graph --skip-family wgmma
# into a log, a line as each stage begins (where a run stopped by a time box was), then the error
check "the stage it failed in, told" grep -qE "^rooftime: machine: \[ +[0-9]+ s\] GPU: loading the driver" "$TMP/err"
check "one error line, nothing else" test "$(grep -vc '^rooftime: machine: \[' "$TMP/err")" -eq 1

# The toolkit's stub answers every call with CUDA_ERROR_STUB_LIBRARY: refused by name.
STUB=/usr/local/cuda/lib64/stubs/libcuda.so
if [ -e "$STUB" ]; then
    export ROOFTIME_LIBCUDA=$STUB
    expect 1 "'$STUB' is the CUDA toolkit's link-time stub, not a driver" -- machine measure --gpu
else
    echo "note: $STUB absent: stub check skipped"
fi
unset ROOFTIME_LIBCUDA

# No driver on the loader's path at all (the CI machines): the plain command says so.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    LD_LIBRARY_PATH=/nonexistent expect 1 "no NVIDIA driver: cannot load libcuda.so.1" -- \
        machine measure --gpu
else
    echo "note: a CUDA driver is installed here: the plain no-driver check is skipped"
fi
finish
