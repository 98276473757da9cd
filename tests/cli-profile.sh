# `rooftime profile -- COMMAND` and `rooftime import onednn|torch`: real commands, clear failures.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"

# A command that prints verbose records between its own output (a recording replayed by cat):
# the records become the profile, everything else passes through to our stdout unchanged.
LOG="$SRC/tests/data/onednn-2.6-torch-conv2d-forward.log"
"$BIN" profile --tag implementation=pytorch --keep-log "$TMP/kept.log" -o "$TMP/p.json" -- cat "$LOG" >"$TMP/out" 2>"$TMP/err"
check "profile of cat exits 0" [ $? -eq 0 ]
check "the command's own line is passed through" grep -q '^torch-client: ' "$TMP/out"
check "no verbose record is passed through" [ "$(grep -c onednn_verbose "$TMP/out")" -eq 0 ]
check "the exit code is reported" grep -q "exited with code 0" "$TMP/err"
check "the kept log holds the records" [ "$(grep -c onednn_verbose "$TMP/kept.log")" -eq "$(grep -c onednn_verbose "$LOG")" ]
check "the profile is tagged" grep -q '"implementation": "pytorch"' "$TMP/p.json"
check "the profile names the command" grep -q '"command": "cat ' "$TMP/p.json"
check "the profile names the machine it ran on (this CPU and its count)" grep -qE '"machine": ".* \(.*\), [0-9]+ CPUs?"' "$TMP/p.json"

# A command that prints nothing, one that does not exist, one that fails: clear failures, no file.
expect 1 "no oneDNN verbose execution records" -- profile -o "$TMP/none.json" -- true
check "no profile after nothing captured" [ ! -e "$TMP/none.json" ]
# rooftime set ONEDNN_VERBOSE itself: the message does not ask whether the program ran with it
check "nothing captured is said once, without the log reader's question" \
    test "$(grep -c -e 'was the program run with' -e "the command's output" "$TMP/err")" -eq 0
expect 1 "cannot run 'no-such-command-rooftime': No such file" -- profile -o "$TMP/none.json" -- no-such-command-rooftime
check "no profile after a command that cannot start" [ ! -e "$TMP/none.json" ]
expect 1 "exited with code 3" -- profile -o "$TMP/f.json" -- sh -c "cat '$LOG'; exit 3"
# A command killed while writing a record (its output ends inside it, no newline): that record is
# named as cut and not summed (its time may be cut short), the complete ones are kept.
REC=$(grep -m1 '^onednn_verbose,exec' "$LOG")
"$BIN" profile -o "$TMP/cut.json" -- sh -c "printf '%s\n%s' '$REC' '${REC%?}'" >/dev/null 2>"$TMP/err"
check "profile of a cut last record exits 0" [ $? -eq 0 ]
check "the cut record is named" grep -q "line 2: the input ends inside this record" "$TMP/err"
check "the complete record is kept, once" grep -q '"invocations": 1,' "$TMP/cut.json"
expect 2 "no command given" -- profile -o "$TMP/x.json"
expect 2 "-o FILE is required" -- profile -- true

# The importers on the recordings, and bad input.
expect 0 "" -- import onednn "$SRC/tests/data/onednn-2.6-primitives.log" -o "$TMP/o.json"
expect 0 "" -- import torch "$SRC/tests/data/torch-1.13-lstm-forward.json" --within rooftime:measured -o "$TMP/t.json"
printf '[{"ph":"X","name":"a","ts":0,"dur":1}\n {"ph":"X"}]' >"$TMP/bad.json"
expect 1 "line 2, column 2: expected ',' or '\]'" -- import torch "$TMP/bad.json" -o "$TMP/tb.json"
check "no profile from bad JSON" [ ! -e "$TMP/tb.json" ]
printf 'onednn_verbose,exec,cpu,eltwise\n' >"$TMP/bad.log"
expect 1 "line 1: exec record has 2 fields" -- import onednn "$TMP/bad.log" -o "$TMP/ob.json"

# The real client: Debian's python3-torch at tiny shapes (skipped where torch is missing).
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    "$BIN" profile --tag operation=conv2d -o "$TMP/torch.json" -- /usr/bin/python3 "$SRC/scripts/torch-client.py" \
        --op conv2d --batch 2 --input 16 --channels 8 --filters 8 --warmup 1 --iters 2 >"$TMP/out" 2>"$TMP/err"
    check "profile of the torch client exits 0" [ $? -eq 0 ]
    check "the client's line passes through" grep -q 'torch-client: torch' "$TMP/out"
    check "the conv is a kernel" grep -q '"name": "convolution .*forward_training f32 mb2_ic8oc8_ih16oh8kh3sh2dh0ph1' "$TMP/torch.json"
    # fp32 nn.LSTM does not reach oneDNN in torch 1.13 on the CPU: nothing captured, said clearly.
    expect 1 "no oneDNN verbose execution records" -- profile -o "$TMP/lstm.json" -- /usr/bin/python3 \
        "$SRC/scripts/torch-client.py" --op lstm --batch 2 --seq 2 --warmup 0 --iters 1
else
    echo "torch not installed: the client part is skipped"
fi

# oneDNN 3.x (verbose v1) through the same command: a recording replayed, then the PyPI torch 2.x
# that scripts/install-deps.sh puts in its venv (bundling oneDNN 3.13) running the client.
"$BIN" profile -o "$TMP/v1.json" -- cat "$SRC/tests/data/onednn-3.13-torch-bf16.log" >/dev/null 2>"$TMP/err"
check "profile of a oneDNN 3.13 log exits 0" [ $? -eq 0 ]
check "no line of it is unreadable" test "$(grep -c 'could not be read' "$TMP/err")" -eq 0
check "its format is named" grep -q '"onednn_verbose_format": "oneDNN 3.6 and later (verbose v1)' "$TMP/v1.json"
check "its bf16 matmuls are kernels on bf16" grep -q '"name": "matmul brg_matmul:avx512_core_bf16 bf16 32x64:64x128"' "$TMP/v1.json"
. "$SRC/tests/python-lib.sh"
if "$TORCH2_PY" -c 'import torch' 2>/dev/null; then
    OMP_WAIT_POLICY=passive "$BIN" profile -o "$TMP/torch2.json" -- "$TORCH2_PY" "$SRC/scripts/torch-client.py" \
        --op conv2d --batch 2 --input 16 --channels 8 --filters 8 --warmup 1 --iters 2 >"$TMP/out" 2>"$TMP/err"
    check "profile of the torch 2.x client exits 0" [ $? -eq 0 ]
    check "no verbose line of torch 2.x is unreadable" test "$(grep -c 'could not be read' "$TMP/err")" -eq 0
    check "the conv is a kernel (torch 2.x)" grep -q '"name": "convolution .*forward_training f32 mb2_ic8oc8_ih16oh8kh3sh2dh0ph1' "$TMP/torch2.json"
    check "the format is verbose v1" grep -q '"onednn_verbose_format": "oneDNN 3.6 and later' "$TMP/torch2.json"
else
    echo "skipped: no PyTorch 2.x at $TORCH2_PY (bash scripts/install-deps.sh as root makes it): the torch 2.x part"
fi
finish
